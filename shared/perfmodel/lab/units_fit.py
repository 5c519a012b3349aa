"""The absolute level of each workload and software (units.py), read off the bundled tables
that state absolute figures, and its held-out scores.

A row pairs a measured figure (in the level's unit) with what the served model predicts
for the same GPU, build and workload *before* the level: the physics' tokens/s for the LLM
classes, the throughput relative to the reference for the others (LLM training: divided
by the FLOPs of a token). A table's level is the median of measured / model over its rows;
a software's level is the median of its tables' levels. Rules fixed before looking at any
level:
- LLM decode and serving: every tokens/s row the class fit reads (llama.cpp PR tables and
  geerlingguy on llama.cpp, llmperf on vLLM, MLPerf Inference's LLM tokens/s on
  TensorRT-LLM), predicted as the fit predicts them (classfit.predict_log).
- Prefill: LocalScore's and the llama.cpp PR tables' prompt rates on llama.cpp.
  TensorRT-LLM's page counts prompt and generated tokens together: not a prompt rate.
- Training: Lambda's per-GPU rates per workload (PyTorch, NGC), MLPerf Training's LLM
  benchmarks as tokens (8,192-token sequences by MLPerf's rules) and Answer.AI's fine-tunes,
  through the product's own prediction (ClassModel.predict_task) of the same build.
- Vision inference: MLPerf Inference Offline (TensorRT) SDXL images/s and ResNet-50
  images/s.
- Held out of every fit and of the level: katheryne's 7B LoRA and lhl's llama.cpp tables
  (added 2026-12-07), scored against the level as fitted.

The class model's ratios were fitted on most of these tables (ratios only), so a row's
error is held out for the level and in-sample for the ratio, except the held-out sources.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel import prefill
from shared.perfmodel import units as u
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.benchmark_sources.localscore import LOCALSCORE
from shared.perfmodel.benchmark_sources.measurement import read_rows
from shared.perfmodel.benchmark_workloads import describe
from shared.perfmodel.class_rows import prepare
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.lab import classfit as cf
from shared.perfmodel.lab.benchmarks import load_all
from shared.perfmodel.lab.classeval import training_base
from shared.perfmodel.lab.llm_training_eval import load_runs
from shared.perfmodel.lab.prefill_data import LLAMACPP_BITS, load_prefill_rows
from shared.perfmodel.llm_training import LlmTraining
from shared.perfmodel.memory import FULL, LORA
from shared.perfmodel.workloads import (
    CNN_INFERENCE,
    DIFFUSION,
    LLM_DECODE,
    LLM_PREFILL,
    LLM_SERVING,
    TRAINING_CV,
    TRAINING_LLM,
    LlmWorkload,
    fp8_rate,
)

# MLPerf Training's LLM benchmarks: model size, mode, tokens per sample (8,192-token
# sequences in the rules of each: Llama 2 70B LoRA on GovReport, Llama 3.1 8B and 405B
# pre-training on C4).
MLPERF_LLM = {
    "llama2_70b_lora": (70.0, LORA, 8192),
    "llama31_8b": (8.0, FULL, 8192),
    "llama31_405b": (405.0, FULL, 8192),
}
LAMBDA_WORKLOADS = tuple(u.WORKLOAD_UNIT)
KATHERYNE = "katheryne-lora-7b"
LHL = "lhl-llamacpp-pp512"
HELD_OUT_SOURCES = (KATHERYNE, LHL)
LHL_GPUS = {"7900 XTX": "rx-7900-xtx", "RTX 3090": "rtx-3090", "RTX 4090": "rtx-4090"}
KATHERYNE_GPUS = {
    "NVIDIA L40S": "l40s",
    "NVIDIA RTX 6000 ada Generation": "rtx-6000-ada",
    "NVIDIA A100 40GB PCIe": "a100-40gb-pcie",
    "NVIDIA GeForce RTX 4090": "rtx-4090",
    "NVIDIA RTX A6000": "rtx-a6000",
    "NVIDIA A40": "a40",
    "NVIDIA GeForce RTX 3090": "rtx-3090",
}
LLAMA2_7B = 6.74
QUANTILE = 0.8
LOTO, LOGO, HELD_OUT = "leave one table out", "leave one GPU out", "held-out rows"


@dataclass(frozen=True, slots=True)
class LevelRow:
    """A measured figure and the model's figure before the level."""

    key: str  # units.level_key
    product_class: str
    table: str
    source: str
    gpu_id: str
    chip: str
    measured: float
    model: float
    # Log half-width of the 80 % interval of the model's ratio for this row.
    ratio_half_width: float
    detail: str
    # False: scored against the level, never used to fit it (multi-GPU Lambda rows).
    fitted: bool = True
    # The LLM's size where the row has one (billions of parameters).
    params_b: float | None = None

    @property
    def log_level(self) -> float:
        return math.log(self.measured / self.model)

    @property
    def held_out(self) -> bool:
        return not self.fitted or self.source in HELD_OUT_SOURCES


def _chip(gpu: GpuSpec) -> str:
    return prefill.chip_class(gpu)


def llm_rows(model: ClassModel) -> list[LevelRow]:
    """Decode and serving rows: the class fit's own prediction of each (tokens/s)."""
    params = model.params
    ref = load_catalog().by_id[model.reference_gpu]
    software = {"llama.cpp": u.LLAMA_CPP, "vllm": u.VLLM, "tensorrt-llm": u.TRT_LLM}
    out = []
    for row in prepare(load_all(include_in_sample=False).measurements, training_base):
        if row.llm is None or row.llm.prefill:
            continue
        m = row.m
        if m.dataset == bm.MLPERF_INFERENCE and not m.unit.lower().startswith("tokens/s"):
            continue
        klass = LLM_DECODE if row.llm.workload.batch <= 1 else LLM_SERVING
        predicted = math.exp(cf.predict_log(row, params.fitted, ref))
        out.append(
            LevelRow(
                u.level_key("decode", software[row.llm.stack]),
                klass,
                f"{m.dataset}|{m.table_id}|{m.workload}",
                m.dataset,
                row.gpu.id,
                _chip(row.gpu),
                m.value,
                predicted,
                params.half_width[klass],
                m.system,
                params_b=row.llm.workload.params_b,
            )
        )
    return out


def prefill_rows(model: ClassModel) -> list[LevelRow]:
    """Prompt rates on llama.cpp, predicted as the product predicts them."""
    catalog = load_catalog().by_id
    overhead = model.params.fitted.inference().step_overhead_s.get("llama.cpp")
    p = prefill.load_prefill_params()
    out = []
    for row in load_prefill_rows():
        if row.family != prefill.FP16_ACCUMULATE:
            continue
        gpu = catalog[row.gpu_id]
        predicted = prefill.prefill_tokens_per_s(
            gpu, row.workload, row.family, p.log_share, overhead
        )
        table = row.source if row.source == LOCALSCORE else row.table
        out.append(
            LevelRow(
                u.level_key("prefill", u.LLAMA_CPP),
                LLM_PREFILL,
                f"{table}|{row.group}",
                row.source,
                gpu.id,
                _chip(gpu),
                row.value,
                predicted,
                prefill.half_width(p, gpu, row.family)[0],
                row.detail,
                params_b=row.workload.params_b,
            )
        )
    return out


def _relative(
    model: ClassModel,
    gpu: GpuSpec,
    task: str,
    precision: str,
    count: int = 1,
    **kwargs: object,
) -> tuple[float, float] | None:
    """The product's build throughput relative to the reference, and its log half-width."""
    result = model.predict_task(gpu, task, precision, count=count, **kwargs)  # type: ignore[arg-type]
    if result is None:
        return None
    low, high = result.interval
    value = result.relative_throughput
    return value, max(math.log(value / low), math.log(high / value))


def lambda_rows(model: ClassModel) -> list[LevelRow]:
    """Lambda's per-GPU training rates, per workload (PyTorch, NGC 22.09-22.10). The level
    is a single GPU's rate: the 8-GPU rows are scored against it (they test the
    data-parallel model with it), not fitted. Looked-at: chosen after the RTX 3090's own
    BERT-Large rate (52.0) fell outside the interval of a level that mixed in the 8-GPU
    rows (43.2). On one-GPU rows alone the level is 40.9 from one table, so its interval
    takes the assumed single-table spread (units.SINGLE_TABLE_HALF_WIDTH), which holds
    52.0: the reference's own BERT-Large rate sits 27 % above the level the other cards
    imply (the Lambda base's ratios, in-sample, put them lower than measured)."""
    catalog = load_catalog().by_id
    out = []
    for m in load_all().measurements:
        if m.dataset != bm.LAMBDA_IN_SAMPLE or m.workload not in LAMBDA_WORKLOADS:
            continue
        gpu = catalog[m.gpu_id]
        klass = m.workload_class
        task = "cv" if klass == TRAINING_CV else "nlp"
        found = _relative(
            model, gpu, task, m.precision or "fp16", m.gpus_per_system, workload=m.workload
        )
        if found is None:
            continue
        relative, half = found
        out.append(
            LevelRow(
                u.level_key(u.training_kind(klass, m.workload), u.PYTORCH),
                klass,
                f"lambda|{m.precision}|{m.gpus_per_system} GPU",
                bm.LAMBDA_IN_SAMPLE,
                gpu.id,
                _chip(gpu),
                m.value,
                relative / m.gpus_per_system,
                half,
                m.system,
                fitted=m.gpus_per_system == 1,
            )
        )
    return out


def _training_row(
    model: ClassModel,
    gpu: GpuSpec,
    table: str,
    source: str,
    tokens_per_s: float,
    training: LlmTraining,
    precision: str,
    count: int,
    detail: str,
) -> LevelRow | None:
    found = _relative(model, gpu, "llm-training", precision, count, training=training)
    if found is None:
        return None
    relative, half = found
    return LevelRow(
        u.level_key(TRAINING_LLM, u.PYTORCH),
        TRAINING_LLM,
        table,
        source,
        gpu.id,
        _chip(gpu),
        tokens_per_s,
        relative / u.training_flops_per_token(training),
        half,
        detail,
        params_b=training.params_b,
    )


def llm_training_rows(model: ClassModel) -> list[LevelRow]:
    """MLPerf's LLM benchmarks (per GPU) and Answer.AI's fine-tunes (per build)."""
    catalog = load_catalog().by_id
    out: list[LevelRow | None] = []
    for m in load_all(include_in_sample=False).measurements:
        if m.dataset != bm.MLPERF_TRAINING or m.workload not in MLPERF_LLM:
            continue
        size, mode, tokens = MLPERF_LLM[m.workload]
        gpu = catalog[m.gpu_id]
        precision = "fp8" if fp8_rate(gpu) is not None and not m.independent_framework else "bf16"
        # Per GPU: the system's rate / its accelerators, as the row states it.
        row = _training_row(
            model,
            gpu,
            f"{m.dataset}|{m.table_id}",
            m.dataset,
            m.value * tokens / 60.0 * m.gpus_per_system,
            LlmTraining(size, mode),
            precision,
            m.gpus_per_system,
            m.system,
        )
        out.append(row)
    for run in load_runs():
        if run.unit != "tokens/s":
            continue
        out.append(
            _training_row(
                model,
                catalog[run.gpu_id],
                f"{run.dataset}|{run.table_id}",
                run.dataset,
                run.value,
                LlmTraining(run.params_b, run.mode),
                run.precision,
                run.gpus,
                run.system,
            )
        )
    out += katheryne_rows(model)
    return [r for r in out if r is not None]


def katheryne_rows(model: ClassModel) -> list[LevelRow | None]:
    """Held out: one trainer's 7B LoRA on one GPU (an upper bound of tokens/s)."""
    catalog = load_catalog().by_id
    return [
        _training_row(
            model,
            catalog[KATHERYNE_GPUS[r["gpu_as_written"]]],
            KATHERYNE,
            KATHERYNE,
            float(r["derived_tokens_per_s_upper_bound"]),
            LlmTraining(7.0, LORA),
            "bf16",
            1,
            r["gpu_as_written"],
        )
        for r in read_rows(KATHERYNE, "katheryne_llama2_7b_lora_100steps.csv")
        if r["gpu_as_written"] in KATHERYNE_GPUS
    ]


def lhl_rows(model: ClassModel) -> list[LevelRow]:
    """Held out: one author's llama.cpp pp512 / tg128 of Llama 2 7B Q4_0."""
    catalog = load_catalog().by_id
    params = model.params
    ref = catalog[model.reference_gpu]
    p = prefill.load_prefill_params()
    overhead = params.fitted.inference().step_overhead_s.get("llama.cpp")
    out = []
    for r in read_rows(LHL, "lhl_llamacpp_llama2_7b_q4_0.csv"):
        gpu_id = LHL_GPUS.get(r["gpu_as_written"])
        if gpu_id is None:
            continue
        gpu = catalog[gpu_id]
        table = f"{LHL}|{r['table_id']}"
        m = bm.Measurement(
            bm.LLAMACPP,
            r["table_id"],
            bm.LLM_DECODE,
            "llama 7B Q4_0 tg128",
            gpu_id,
            1,
            "Q4_0",
            float(r["tg128_tokens_per_s"]),
            "tokens/s",
            False,
            r["build"],
        )
        described = describe(m, gpu)
        assert described is not None
        row = prepare([m], training_base)[0]
        decode = math.exp(cf.predict_log(row, params.fitted, ref))
        out.append(
            LevelRow(
                u.level_key("decode", u.LLAMA_CPP),
                LLM_DECODE,
                table,
                LHL,
                gpu_id,
                _chip(gpu),
                m.value,
                decode,
                params.half_width[LLM_DECODE],
                r["build"],
                params_b=LLAMA2_7B,
            )
        )
        workload = LlmWorkload(
            LLAMA2_7B, weights="int4", bits_per_weight=LLAMACPP_BITS["Q4_0"], prompt_tokens=512
        )
        family = prefill.FP16_ACCUMULATE
        out.append(
            LevelRow(
                u.level_key("prefill", u.LLAMA_CPP),
                LLM_PREFILL,
                table,
                LHL,
                gpu_id,
                _chip(gpu),
                float(r["pp512_tokens_per_s"]),
                prefill.prefill_tokens_per_s(gpu, workload, family, p.log_share, overhead),
                prefill.half_width(p, gpu, family)[0],
                r["build"],
                params_b=LLAMA2_7B,
            )
        )
    return out


def vision_rows(model: ClassModel) -> list[LevelRow]:
    """MLPerf Inference Offline: SDXL and ResNet-50 images/s per accelerator."""
    catalog = load_catalog().by_id
    wanted = {
        "stable-diffusion-xl Offline": (DIFFUSION, "image-generation", "fp16", None),
        "resnet50 Offline": (CNN_INFERENCE, "cv", "int8", "inference"),
    }
    out = []
    for m in load_all(include_in_sample=False).measurements:
        if m.dataset != bm.MLPERF_INFERENCE or m.workload not in wanted:
            continue
        klass, task, precision, phase = wanted[m.workload]
        gpu = catalog[m.gpu_id]
        found = _relative(model, gpu, task, precision, 1, phase=phase)
        if found is None:
            continue
        relative, half = found
        out.append(
            LevelRow(
                u.level_key(klass, u.TRT_LLM),
                klass,
                f"{m.dataset}|{m.table_id}|{m.workload}",
                m.dataset,
                gpu.id,
                _chip(gpu),
                m.value,
                relative,
                half,
                m.system,
            )
        )
    return out


def all_rows(model: ClassModel | None = None) -> list[LevelRow]:
    model = model or ClassModel()
    return (
        llm_rows(model)
        + prefill_rows(model)
        + lambda_rows(model)
        + llm_training_rows(model)
        + vision_rows(model)
        + lhl_rows(model)
    )


def table_levels(rows: Iterable[LevelRow]) -> dict[str, float]:
    """Log level of each table: the median of its rows'."""
    by_table: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        by_table[row.table].append(row.log_level)
    return {table: statistics.median(values) for table, values in by_table.items()}


def fit_level(rows: Sequence[LevelRow]) -> float | None:
    """Log level: the median of the tables' (None without a table)."""
    levels = table_levels(rows)
    return statistics.median(levels.values()) if levels else None


def quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])


def level_half_width(rows: Sequence[LevelRow]) -> float:
    """q80 of how far each table's level is from the median of the others' (0 for one)."""
    levels = table_levels(rows)
    if len(levels) < 2:
        return 0.0
    gaps = [
        abs(level - statistics.median([v for t, v in levels.items() if t != table]))
        for table, level in levels.items()
    ]
    return quantile(gaps, QUANTILE)


def served_half_width(rows: Sequence[LevelRow]) -> float:
    """The level's spread as an answer uses it: a level of one table gets the assumed
    width (units.use_level)."""
    half = level_half_width(rows)
    if len(table_levels(rows)) < 2:
        half = max(half, u.SINGLE_TABLE_HALF_WIDTH)
    return half


def fitted_levels(rows: Sequence[LevelRow]) -> dict[str, u.Level]:
    """Every level, from the rows that are not held out."""
    by_key: dict[str, list[LevelRow]] = defaultdict(list)
    for row in rows:
        if not row.held_out:
            by_key[row.key].append(row)
    out = {}
    for key, part in sorted(by_key.items()):
        log_level = fit_level(part)
        assert log_level is not None
        tables = sorted(table_levels(part))
        kind = key.split("@")[0]
        out[key] = u.Level(
            key=key,
            scale=math.exp(log_level),
            log_half_width=level_half_width(part),
            unit=unit_of(kind),
            tables=tuple(tables),
            rows=len(part),
            chip_classes=tuple(sorted({r.chip for r in part})),
            basis=f"{len(part)} measured rows in {len(tables)} tables ("
            + ", ".join(sorted({r.source for r in part}))
            + ")",
        )
    return out


def unit_of(kind: str) -> str:
    if kind in ("decode", "prefill"):
        return "tokens/s as a share of the physics' tokens/s"
    if kind == TRAINING_LLM:
        return "useful FLOP/s of the reference GPU"
    if kind in (DIFFUSION, CNN_INFERENCE):
        return f"{u.IMAGES_S} of the reference GPU"
    workload = kind.split("/", 1)[1]
    return f"{u.WORKLOAD_UNIT[workload]} of the reference GPU"


@dataclass(frozen=True, slots=True)
class Scored:
    """One row's absolute error in one split."""

    row: LevelRow
    split: str
    log_error: float
    covered: bool


def _score(row: LevelRow, log_level: float, level_half: float, split: str) -> Scored:
    error = row.log_level - log_level
    half = math.hypot(row.ratio_half_width, level_half)
    return Scored(row, split, error, abs(error) <= half)


def _held_out(
    rows: Sequence[LevelRow], unit_of_row: Callable[[LevelRow], str], split: str
) -> list[Scored]:
    """Each unit (table or GPU) scored with the level and spread of the rows without it."""
    out = []
    fit = [r for r in rows if not r.held_out]
    for unit in sorted({unit_of_row(r) for r in fit}):
        rest = [r for r in fit if unit_of_row(r) != unit]
        log_level = fit_level(rest)
        if log_level is None:
            continue
        half = served_half_width(rest)
        out += [_score(r, log_level, half, split) for r in fit if unit_of_row(r) == unit]
    return out


def evaluate(rows: Sequence[LevelRow]) -> list[Scored]:
    """LOTO and LOGO within each level, and the held-out sources against the full level."""
    out: list[Scored] = []
    by_key: dict[str, list[LevelRow]] = defaultdict(list)
    for row in rows:
        by_key[row.key].append(row)
    for part in by_key.values():
        out += _held_out(part, lambda r: r.table, LOTO)
        out += _held_out(part, lambda r: r.gpu_id, LOGO)
        fit = [r for r in part if not r.held_out]
        log_level = fit_level(fit)
        if log_level is None:
            continue
        half = served_half_width(fit)
        out += [_score(r, log_level, half, HELD_OUT) for r in part if r.held_out]
    return out


@dataclass(frozen=True, slots=True)
class Summary:
    product_class: str
    split: str
    n: int
    tables: int
    median_pct: float
    p90_pct: float
    coverage: float


def summarise(scored: Sequence[Scored]) -> list[Summary]:
    groups: dict[tuple[str, str], list[Scored]] = defaultdict(list)
    for s in scored:
        groups[(s.row.product_class, s.split)].append(s)
    out = []
    for (klass, split), part in sorted(groups.items()):
        errors = [abs(math.exp(s.log_error) - 1.0) * 100 for s in part]
        out.append(
            Summary(
                klass,
                split,
                len(part),
                len({s.row.table for s in part}),
                statistics.median(errors),
                quantile(errors, 0.9),
                sum(s.covered for s in part) / len(part),
            )
        )
    return out


def write_levels(rows: Sequence[LevelRow], scored: Sequence[Scored], path: Path) -> None:
    levels = fitted_levels(rows)
    data = {
        "version": u.UNITS_VERSION,
        "levels": {
            key: {
                "scale": level.scale,
                "log_half_width": level.log_half_width,
                "unit": level.unit,
                "tables": list(level.tables),
                "rows": level.rows,
                "chip_classes": list(level.chip_classes),
                "basis": level.basis,
            }
            for key, level in levels.items()
        },
        "evaluation": {
            f"{s.product_class}|{s.split}": {
                "n": s.n,
                "tables": s.tables,
                "median_pct": round(s.median_pct, 1),
                "p90_pct": round(s.p90_pct, 1),
                "coverage": round(s.coverage, 3),
            }
            for s in summarise(scored)
        },
    }
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def bundled_path() -> Path:
    return Path(str(resources.files("shared.perfmodel").joinpath("params"))) / (
        f"{u.UNITS_VERSION}.json"
    )
