"""Benchmarks published by others, read as per-GPU measurements within same-software tables.

The files are bundled in `data/benchmarks/<source>/` with their PROVENANCE.md. The model was
not fitted to any of them (it was fitted on Lambda's data, which can be added here as its
own, in-sample, data set). A measurement belongs to a *table*: a group of results run with
the same software (a `table_id`, or for MLPerf one round + benchmark + scenario), and GPU
ratios are only meaningful inside one table. Per-GPU values of multi-GPU systems are the
system result divided by the accelerator count: derived figures, not official results.
"""

from __future__ import annotations

import csv
import io
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources

from shared.catalog.specs import Catalog, load_catalog
from shared.perfmodel import workloads

MLPERF_TRAINING = "mlperf-training"
MLPERF_INFERENCE = "mlperf-inference"
LLMPERF = "llmperf"
LLAMACPP = "llama.cpp"
GEERLINGGUY = "geerlingguy"
LAMBDA_IN_SAMPLE = "lambda (in-sample)"
OUT_OF_SAMPLE_DATASETS = (MLPERF_TRAINING, MLPERF_INFERENCE, LLMPERF, LLAMACPP, GEERLINGGUY)

# The product's workload classes (workloads.py), plus decode at llmperf's 64 concurrent
# requests, kept apart in the reports (the model predicts it as llm-serving).
TRAINING_CV = workloads.TRAINING_CV
TRAINING_NLP = workloads.TRAINING_NLP
LLM_PREFILL = workloads.LLM_PREFILL
LLM_DECODE = workloads.LLM_DECODE
LLM_SERVING = workloads.LLM_SERVING
DIFFUSION = workloads.DIFFUSION
CNN_INFERENCE = workloads.CNN_INFERENCE
DECODE_SERVING = "decode-serving"
WORKLOAD_CLASSES = (
    TRAINING_CV,
    TRAINING_NLP,
    LLM_PREFILL,
    LLM_DECODE,
    DECODE_SERVING,
    LLM_SERVING,
    DIFFUSION,
    CNN_INFERENCE,
)

# MLPerf Training benchmark -> class. maskrcnn is a CNN detector like ssd/retinanet. The
# others (rnnt speech, dlrm recommenders, minigo RL, gnn/rgat graphs, stable_diffusion and
# flux1 diffusion training) fall outside the classes and are counted as skipped.
TRAINING_BENCHMARK_CLASS: dict[str, str] = {
    "resnet": TRAINING_CV,
    "ssd": TRAINING_CV,
    "retinanet": TRAINING_CV,
    "maskrcnn": TRAINING_CV,
    "unet3d": TRAINING_CV,
    "bert": TRAINING_NLP,
    "gpt3": TRAINING_NLP,
    "llama2_70b_lora": TRAINING_NLP,
    "llama31_8b": TRAINING_NLP,
    "llama31_405b": TRAINING_NLP,
}
# MLPerf Inference benchmark (accuracy suffix removed) -> class. bert (encoder), dlrm-v2,
# rnnt and rgat are outside the classes.
INFERENCE_BENCHMARK_CLASS: dict[str, str] = {
    "resnet50": CNN_INFERENCE,
    "retinanet": CNN_INFERENCE,
    "3d-unet": CNN_INFERENCE,
    "stable-diffusion-xl": DIFFUSION,
    "gptj": LLM_SERVING,
    "llama2-70b": LLM_SERVING,
    "llama2-70b-interactive": LLM_SERVING,
    "llama3_1-405b": LLM_SERVING,
    "mixtral-8x7b": LLM_SERVING,
}

SKIP_DUPLICATE = "carried-over result (duplicate_of set)"
SKIP_CPU = "CPU-only system or row"
SKIP_NOT_GPU = "accelerator is not a GPU (TPU, Gaudi, Qualcomm, NPU)"
SKIP_NOT_IN_CATALOG = "GPU has no catalog id"
SKIP_INTEGRATED = "integrated or Apple GPU (no catalog id)"
SKIP_POWER = "power configuration differs from the catalog GPU"
SKIP_BENCHMARK = "benchmark outside the workload classes"
SKIP_SAME_RUN = "same run as the -99 accuracy entry"
SKIP_REFERENCE_CODE = "MLCommons reference implementation (written for correctness, not speed)"
SKIP_MIXED_TEST = "mixed test (prompt + generation) or CPU offload"
SKIP_NO_VALUE = "no value or no accelerator count"
SKIP_OTHER_UNIT = "converged amount logged in another unit (100x off the benchmark's typical)"
WORK_UNIT_FACTOR = 100.0
# MLPerf Training frameworks written independently of the GPU vendors' libraries.
INDEPENDENT_FRAMEWORKS = ("tinygrad",)

# Every accelerator name in the bundled files, mapped explicitly to a catalog id.
# Names are first normalised by `_normalise_name` (cloud/load-mode tags removed).
GPU_NAME_MAP: dict[str, str] = {
    # MLPerf (submitters spell one GPU several ways).
    "NVIDIA H100-SXM5-80GB": "h100-sxm5",
    "NVIDIA H100-SXM-80GB": "h100-sxm5",
    "NVIDIA H100-PCIe-80GB": "h100-pcie",
    "NVIDIA H100-PCIe": "h100-pcie",
    "NVIDIA H100 NVL": "h100-nvl",
    "H100 NVL Tensor Core GPU (PCIe)": "h100-nvl",
    "NVIDIA H200-SXM5-141GB": "h200-sxm",
    "NVIDIA H200-SXM-141GB": "h200-sxm",
    "NVIDIA H200-NVL-141GB": "h200-nvl",
    # The catalog's GH200 is the 96 GB part; MLPerf v4.0 does not say which one ran.
    "NVIDIA GH200-GraceHopper-Superchip": "gh200",
    "NVIDIA Blackwell GPU (B200-SXM-180GB)": "b200",
    "NVIDIA B200-SXM-180GB": "b200",
    "NVIDIA Blackwell GPU (GB200)": "gb200",
    "NVIDIA GB200": "gb200",
    "NVIDIA Blackwell Ultra GPU (B300-SXM-270GB)": "b300",
    "NVIDIA Blackwell Ultra GPU (GB300)": "gb300",
    "NVIDIA A100-PCIe-80GB": "a100-80gb-pcie",
    "NVIDIA A100-PCIE-80GB": "a100-80gb-pcie",
    "NVIDIA A100-SXM4-80GB": "a100-80gb-sxm4",
    "NVIDIA A100-SXM-80GB": "a100-80gb-sxm4",
    "NVIDIA A100-SXM4-80GB (400W)": "a100-80gb-sxm4",
    # Dell's 500 W "CTS" A100: mapped, then skipped by the stated-power rule.
    "NVIDIA A100-SXM-80GB CTS": "a100-80gb-sxm4",
    "NVIDIA A100-SXM-40GB": "a100-40gb-sxm4",
    "NVIDIA A100-SXM4-40GB": "a100-40gb-sxm4",
    "NVIDIA A30": "a30",
    "NVIDIA A30-PCIE-24GB": "a30",
    "NVIDIA A40": "a40",
    "NVIDIA L40": "l40",
    "NVIDIA L40S": "l40s",
    "NVIDIA L4": "l4",
    "NVIDIA L4-PCIe-24GB": "l4",
    "NVIDIA RTX A5000": "rtx-a5000",
    "NVIDIA GeForce RTX 4090": "rtx-4090",
    # "SE" = Server Edition (600 W, passive), a catalog entry of its own.
    "NVIDIA RTX Pro 6000 SE PCIe 96GB": "rtx-pro-6000-blackwell-server",
    "AMD Instinct MI300X 192GB HBM3": "mi300x",
    "AMD Instinct MI325X 256GB HBM3E": "mi325x",
    "AMD Instinct MI325X 256GB HBM3e": "mi325x",
    "AMD Instinct MI325X 256GB HBM3E DLC": "mi325x",
    "AMD Instinct MI355X": "mi355x",
    "AMD Radeon RX 7900 XTX": "rx-7900-xtx",
    # llmperf (RunPod names; "RTX A6000 ADA" is RunPod's name for the RTX 6000 Ada).
    "H100 SXM": "h100-sxm5",
    "H200 SXM": "h200-sxm",
    # RunPod's A100 SXM instances are the 80 GB card; the run does not say.
    "A100 SXM": "a100-80gb-sxm4",
    "A40": "a40",
    "L4": "l4",
    "L40": "l40",
    "L40S": "l40s",
    "MI300X": "mi300x",
    "RTX 3090": "rtx-3090",
    "RTX 4090": "rtx-4090",
    "RTX A4000": "rtx-a4000",
    "RTX A5000": "rtx-a5000",
    "RTX A6000": "rtx-a6000",
    "RTX A6000 ADA": "rtx-6000-ada",
    "RTX 4000 Ada": "rtx-4000-ada",
    "RTX 6000 Ada": "rtx-6000-ada",
    # llama.cpp PR tables.
    "NVIDIA A100 80GB PCIe": "a100-80gb-pcie",
    "P40": "tesla-p40",
    # geerlingguy (desktop RTX 3060 is the 12 GB card; the 8 GB one is a later cut-down).
    "Nvidia RTX 4090": "rtx-4090",
    "Nvidia 4090": "rtx-4090",
    "Nvidia 5090": "rtx-5090",
    "Nvidia 4080": "rtx-4080",
    "Nvidia 4070": "rtx-4070",
    "Nvidia 4070 Ti Super": "rtx-4070-ti-super",
    "Nvidia RTX 4070 Ti": "rtx-4070-ti",
    "Nvidia RTX 3080 Ti": "rtx-3080-ti",
    "Nvidia RTX 3060": "rtx-3060-12gb",
    "Nvidia RTX 3060 12GB": "rtx-3060-12gb",
    "Nvidia RTX 2080 Ti": "rtx-2080-ti",
    "Nvidia RTX A4000": "rtx-a4000",
    "Nvidia A4000": "rtx-a4000",
}
# Names deliberately not mapped, with the reason counted for them.
UNMAPPED_NAME_REASONS: dict[str, str] = {
    "N/A": SKIP_CPU,
    "Intel N150": SKIP_CPU,
    "Habana Gaudi2": SKIP_NOT_GPU,
    "Intel® Gaudi® 2 AI Accelerator": SKIP_NOT_GPU,
    "TPU-v5p": SKIP_NOT_GPU,
    "TPU-trillium": SKIP_NOT_GPU,
    "TPU v5e": SKIP_NOT_GPU,
    "QUALCOMM Cloud AI 100 Ultra": SKIP_NOT_GPU,
    "QUALCOMM Cloud AI 100 Pro": SKIP_NOT_GPU,
    "Qualcomm Cloud AI 100 Pro": SKIP_NOT_GPU,
    "Qualcomm Cloud AI 100 Standard": SKIP_NOT_GPU,
    "QUALCOMM Cloud AI 100 DM.2e": SKIP_NOT_GPU,
    "DaVinci": SKIP_NOT_GPU,
    # H200 run at 1000 W (stock 700 W): a power-configured variant.
    "NVIDIA H200-SXM-141GB-CTS": SKIP_POWER,
    "AMD Instinct MI350X": SKIP_NOT_IN_CATALOG,
    "NVIDIA Jetson AGX Orin 64G": SKIP_NOT_IN_CATALOG,
    "Nvidia Spark": SKIP_NOT_IN_CATALOG,
    "Nvidia RTX A2000": SKIP_NOT_IN_CATALOG,
    "Nvidia A400": SKIP_NOT_IN_CATALOG,
    "AMD Radeon AI Pro R9700": SKIP_NOT_IN_CATALOG,
    "AMD AI Pro R9700": SKIP_NOT_IN_CATALOG,
    "AMD Pro W7700": SKIP_NOT_IN_CATALOG,
    "AMD 7900 XT": SKIP_NOT_IN_CATALOG,
    "AMD RX 7900 XT": SKIP_NOT_IN_CATALOG,
    "AMD RX 9070 XT": SKIP_NOT_IN_CATALOG,
    "AMD RX 7600": SKIP_NOT_IN_CATALOG,
    "AMD RX 6700 XT": SKIP_NOT_IN_CATALOG,
    "AMD RX 6500 XT": SKIP_NOT_IN_CATALOG,
    "AMD RX 580": SKIP_NOT_IN_CATALOG,
    "Intel Arc B580": SKIP_NOT_IN_CATALOG,
    "Intel Arc Pro B50": SKIP_NOT_IN_CATALOG,
    "Intel Arc A310 ECO": SKIP_NOT_IN_CATALOG,
}
# A stated board power this far from the catalog TDP is a different operating point
# (e.g. Dell's 500 W A100 vs the catalog's 400 W); the model predicts stock cards.
POWER_TOLERANCE = 0.15
_ACCURACY_SUFFIX = re.compile(r"^(?P<base>.+)-(?P<target>99(?:\.9)?)$")
_WATTS = re.compile(r"(\d+(?:\.\d+)?)\s*W\b")


@dataclass(frozen=True, slots=True)
class Measurement:
    """One per-GPU throughput in one table; ratios are only formed within `table_id`."""

    dataset: str
    table_id: str
    workload_class: str
    # The benchmark, test or model inside the table (GPUs are compared on the same one).
    workload: str
    gpu_id: str
    gpus_per_system: int
    precision: str | None
    value: float
    unit: str
    # True when divided by the accelerator count or computed from other columns.
    derived: bool
    system: str
    # Only MLPerf: who submitted (for the same-submitter sensitivity check).
    submitter: str = ""


@dataclass(frozen=True, slots=True)
class Skip:
    dataset: str
    reason: str
    detail: str


@dataclass(slots=True)
class LoadResult:
    """Measurements, and how many source rows were read and skipped, by reason."""

    measurements: list[Measurement] = field(default_factory=list)
    rows_read: Counter[str] = field(default_factory=Counter)
    skipped: Counter[Skip] = field(default_factory=Counter)

    def skip(self, dataset: str, reason: str, detail: str) -> None:
        self.skipped[Skip(dataset, reason, detail)] += 1

    def extend(self, other: LoadResult) -> None:
        self.measurements.extend(other.measurements)
        self.rows_read.update(other.rows_read)
        self.skipped.update(other.skipped)

    def skipped_by_reason(self) -> Counter[tuple[str, str]]:
        totals: Counter[tuple[str, str]] = Counter()
        for skip, count in self.skipped.items():
            totals[(skip.dataset, skip.reason)] += count
        return totals


def read_rows(source: str, filename: str) -> list[dict[str, str]]:
    path = resources.files("shared.perfmodel").joinpath("data", "benchmarks", source, filename)
    # StringIO keeps line breaks inside quoted fields (notes) within their row.
    return list(csv.DictReader(io.StringIO(path.read_text("utf-8"))))


def _normalise_name(name: str) -> str:
    # llmperf marks RunPod endpoints "(runpod) ..." and parallel-load runs "... (P)".
    text = name.strip().removeprefix("Virtualized ").removeprefix("(runpod) ")
    return text.removesuffix(" (P)").strip()


def map_gpu_name(name: str, catalog: Catalog) -> tuple[str | None, str]:
    """(catalog id, "") or (None, skip reason) for an accelerator name as written."""
    text = _normalise_name(name)
    if text in UNMAPPED_NAME_REASONS:
        return None, UNMAPPED_NAME_REASONS[text]
    gpu_id = GPU_NAME_MAP.get(text)
    if gpu_id is None:
        # Free-form names not listed above; the explicit table is preferred because the
        # matcher is tuned for marketplace titles, not benchmark spellings.
        from shared.catalog.aliases import resolve_alias

        gpu_id = resolve_alias(text)
    if gpu_id is None or gpu_id not in catalog.by_id:
        return None, SKIP_NOT_IN_CATALOG
    return gpu_id, ""


def _stated_power_differs(row: dict[str, str], tdp_w: int) -> bool:
    match = _WATTS.search(row.get("power_limit_as_stated", ""))
    return match is not None and abs(float(match.group(1)) / tdp_w - 1) > POWER_TOLERANCE


def _positive_int(text: str) -> int | None:
    try:
        value = int(float(text))
    except ValueError:
        return None
    return value if value > 0 else None


def load_mlperf_training(catalog: Catalog) -> LoadResult:
    """Per-GPU training throughput: converged work / unscaled run time / accelerators.

    The olympic mean of the run times is used, not the official score: the RCP scaling
    factor in the score is a convergence penalty, not throughput.
    """
    result = LoadResult()
    rows = read_rows("mlperf-training", "mlperf_training_closed_available.csv")
    typical_work = _typical_work(rows)
    for row in rows:
        result.rows_read[MLPERF_TRAINING] += 1
        name, benchmark = row["accelerator_model_name"], row["benchmark"]
        if row["duplicate_of"].strip():
            result.skip(MLPERF_TRAINING, SKIP_DUPLICATE, row["duplicate_of"].strip())
            continue
        gpu_id, reason = map_gpu_name(name, catalog)
        if gpu_id is None:
            result.skip(MLPERF_TRAINING, reason, name)
            continue
        if benchmark not in TRAINING_BENCHMARK_CLASS:
            result.skip(MLPERF_TRAINING, SKIP_BENCHMARK, benchmark)
            continue
        if row["power_thermal_flags"].strip() or _stated_power_differs(
            row, catalog.by_id[gpu_id].tdp_w
        ):
            detail = row["power_thermal_flags"] or f"{name} at {row['power_limit_as_stated']}"
            result.skip(MLPERF_TRAINING, SKIP_POWER, detail)
            continue
        count = _positive_int(row["accelerator_count"])
        work, minutes = row["converged_at_olympic_mean"], row["olympic_mean_min"]
        if count is None or not work or not minutes or float(minutes) <= 0:
            result.skip(MLPERF_TRAINING, SKIP_NO_VALUE, f"{row['system']} {benchmark}")
            continue
        if _other_unit(float(work), typical_work[(row["round"], benchmark)]):
            result.skip(MLPERF_TRAINING, SKIP_OTHER_UNIT, f"{row['system']} {benchmark}: {work}")
            continue
        table_id = f"mlperf-training {row['round']} {row['division']} {benchmark}"
        if row["framework"].strip().lower().startswith(INDEPENDENT_FRAMEWORKS):
            # Its own table: a framework written apart from the vendors' libraries is
            # 20-40x slower on the same GPU, a software gap no GPU ratio should absorb.
            table_id += f" ({row['framework'].split(',')[0].strip()})"
        result.measurements.append(
            Measurement(
                dataset=MLPERF_TRAINING,
                table_id=table_id,
                workload_class=TRAINING_BENCHMARK_CLASS[benchmark],
                workload=benchmark,
                gpu_id=gpu_id,
                gpus_per_system=count,
                precision=None,
                value=float(work) / float(minutes) / count,
                unit=f"{row['converged_at_unit']}/min per accelerator (derived)",
                derived=True,
                system=f"{row['submitter']} {row['system']}",
                submitter=row["submitter"],
            )
        )
    return result


def _typical_work(rows: list[dict[str, str]]) -> dict[tuple[str, str], float]:
    """Median converged amount per round and benchmark (one convergence target each)."""
    amounts: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in rows:
        try:
            amount = float(row["converged_at_olympic_mean"])
        except ValueError:
            continue
        amounts[(row["round"], row["benchmark"])].append(amount)
    return {key: statistics.median(values) for key, values in amounts.items()}


def _other_unit(work: float, typical: float) -> bool:
    """True when a converged amount is 100x off its benchmark's typical one: every
    submission trains to the same target, so it was logged in another unit (epochs
    instead of samples) and its rate is not comparable."""
    return not typical / WORK_UNIT_FACTOR <= work <= typical * WORK_UNIT_FACTOR


def _same_run_as_99(rows: list[dict[str, str]]) -> set[int]:
    """Indexes of -99.9 rows that repeat the same system's -99 result exactly."""
    strict: dict[tuple[str, str, str], str] = {}
    for row in rows:
        match = _ACCURACY_SUFFIX.match(row["benchmark"])
        if match and match["target"] == "99":
            strict[(row["system"], match["base"], row["scenario"])] = row["result"]
    copies = set()
    for index, row in enumerate(rows):
        match = _ACCURACY_SUFFIX.match(row["benchmark"])
        if match and match["target"] == "99.9":
            if strict.get((row["system"], match["base"], row["scenario"])) == row["result"]:
                copies.add(index)
    return copies


def load_mlperf_inference(catalog: Catalog) -> LoadResult:
    """Per-GPU inference throughput (system result / accelerators), Offline and Server."""
    result = LoadResult()
    for filename in (
        "mlperf_inference_v4.0_closed.csv",
        "mlperf_inference_v5.0_closed_selected.csv",
    ):
        rows = read_rows("mlperf-inference", filename)
        copies = _same_run_as_99(rows)
        for index, row in enumerate(rows):
            result.rows_read[MLPERF_INFERENCE] += 1
            name, benchmark = row["accelerator_model_name"], row["benchmark"]
            match = _ACCURACY_SUFFIX.match(benchmark)
            base = match["base"] if match else benchmark
            gpu_id, reason = map_gpu_name(name, catalog)
            if gpu_id is None:
                result.skip(MLPERF_INFERENCE, reason, name)
                continue
            if base not in INFERENCE_BENCHMARK_CLASS:
                result.skip(MLPERF_INFERENCE, SKIP_BENCHMARK, base)
                continue
            if "maxq" in row["system"].lower():
                result.skip(MLPERF_INFERENCE, SKIP_POWER, "MaxQ (energy-tuned) system")
                continue
            if row["framework"].startswith("MLCommons"):
                result.skip(MLPERF_INFERENCE, SKIP_REFERENCE_CODE, row["framework"])
                continue
            if index in copies:
                result.skip(MLPERF_INFERENCE, SKIP_SAME_RUN, benchmark)
                continue
            count = _positive_int(row["accelerator_count"])
            if count is None or not row["result"]:
                result.skip(MLPERF_INFERENCE, SKIP_NO_VALUE, row["system"])
                continue
            table = f"mlperf-inference {row['round']} {row['division']} {benchmark} "
            result.measurements.append(
                Measurement(
                    dataset=MLPERF_INFERENCE,
                    table_id=table + row["scenario"],
                    workload_class=INFERENCE_BENCHMARK_CLASS[base],
                    workload=f"{benchmark} {row['scenario']}",
                    gpu_id=gpu_id,
                    gpus_per_system=count,
                    precision=row["precision"] or None,
                    value=float(row["result"]) / count,
                    unit=f"{row['result_unit']} per accelerator (derived)",
                    derived=True,
                    system=f"{row['submitter']} {row['system']}",
                    submitter=row["submitter"],
                )
            )
    return result


def load_llmperf(catalog: Catalog) -> LoadResult:
    """Output tokens/s at 64 concurrent requests (decode-serving).

    TTFT is not used as a prefill measure: in the same table the H200 SXM's mean TTFT
    (0.36 s) is twice the RTX 3090's (0.17 s), so under a burst of 64 requests it measures
    the serving engine's scheduling, not prefill speed.
    """
    result = LoadResult()
    for row in read_rows("llmperf-tech-grandpa", "llmperf_runs.csv"):
        result.rows_read[LLMPERF] += 1
        name = row["gpu_as_written"]
        gpu_id, reason = map_gpu_name(name, catalog)
        if gpu_id is None:
            result.skip(LLMPERF, reason, name)
            continue
        count = _positive_int(row["gpu_count"]) or 1
        result.measurements.append(
            Measurement(
                dataset=LLMPERF,
                table_id=_llmperf_table(row),
                workload_class=DECODE_SERVING,
                workload=f"{row['model']} output tokens/s @ {row['concurrent_requests']}",
                gpu_id=gpu_id,
                gpus_per_system=count,
                precision=row["data_type"].lower() or None,
                value=float(row["output_throughput_tok_s"]) / count,
                unit="output tokens/s",
                derived=False,
                system=f"{name} ({row['host']})",
            )
        )
    return result


def _llmperf_table(row: dict[str, str]) -> str:
    """A database's runs of one month: the serving engine's version is not recorded, and
    PROVENANCE.md notes that runs two months apart in one database (RunPod templates of
    2025-01 and 2025-03) may not share it; runs within a month are taken to."""
    return f"{row['table_id']} ({row['timestamp'][:7]})"


def _llama_bench_class(test: str) -> str | None:
    # "pp512" prompt processing, "tg128" generation, "@ dN" at context depth N;
    # "pp4096+tg128" mixes both and belongs to neither class.
    kind = test.split("@")[0].strip()
    if "+" in kind:
        return None
    if kind.startswith("pp"):
        return LLM_PREFILL
    if kind.startswith("tg"):
        return LLM_DECODE
    return None


def _llama_bench_target(
    result: LoadResult, dataset: str, gpu_name: str, test: str, catalog: Catalog
) -> tuple[str, str] | None:
    """(catalog id, workload class) of a llama-bench row; None, counted, when either is
    missing."""
    gpu_id, reason = map_gpu_name(gpu_name, catalog)
    if gpu_id is None:
        result.skip(dataset, reason, gpu_name)
        return None
    workload_class = _llama_bench_class(test)
    if workload_class is None:
        result.skip(dataset, SKIP_MIXED_TEST, test)
        return None
    return gpu_id, workload_class


def load_llamacpp(catalog: Catalog) -> LoadResult:
    """llama-bench tokens/s; the baseline column (master / default split) where present."""
    result = LoadResult()
    for row in read_rows("llamacpp-pr-tables", "llamacpp_pr_table_excerpts.csv"):
        result.rows_read[LLAMACPP] += 1
        target = _llama_bench_target(result, LLAMACPP, row["gpu"], row["test"], catalog)
        if target is None:
            continue
        gpu_id, workload_class = target
        value = row["tps_baseline"] or row["tps_variant"]
        # PR #4766 does not state a count; "Main GPU=0" is a single-GPU run.
        count = _positive_int(row["gpu_count"]) or 1
        result.measurements.append(
            Measurement(
                dataset=LLAMACPP,
                table_id=row["table_id"],
                workload_class=workload_class,
                workload=f"{row['model']} {row['quant']} {row['test']}",
                gpu_id=gpu_id,
                gpus_per_system=count,
                precision=row["quant"] or None,
                value=float(value) / count,
                unit="tokens/s" + (" per GPU (derived)" if count > 1 else ""),
                derived=count > 1,
                system=f"{row['gpu']} ({row['split_mode_or_config']})",
            )
        )
    return result


def load_geerlingguy(catalog: Catalog) -> LoadResult:
    """Single-stream generation (README tables) and llama-bench rows (issue excerpts).

    README rows of one model come from different hosts and builds; a table is one model
    section on one host, the closest thing to "same software" the README offers.
    """
    result = LoadResult()
    for row in read_rows("geerlingguy-ai-benchmarks", "geerlingguy_readme_findings.csv"):
        result.rows_read[GEERLINGGUY] += 1
        name, kind = row["gpu_as_written"], row["cpu_or_gpu"]
        if kind == "CPU":
            result.skip(GEERLINGGUY, SKIP_CPU, row["system_as_written"])
            continue
        if kind != "GPU":
            result.skip(GEERLINGGUY, SKIP_MIXED_TEST, row["system_as_written"])
            continue
        if not name:
            result.skip(GEERLINGGUY, SKIP_INTEGRATED, row["system_as_written"])
            continue
        gpu_id, reason = map_gpu_name(name, catalog)
        if gpu_id is None:
            result.skip(GEERLINGGUY, reason, name)
            continue
        host = row["system_as_written"].split("(")[0].strip()
        result.measurements.append(
            Measurement(
                dataset=GEERLINGGUY,
                table_id=f"{row['table_id']} @ {host}",
                workload_class=LLM_DECODE,
                workload=f"{row['model_section']} eval rate",
                gpu_id=gpu_id,
                gpus_per_system=1,
                precision=None,
                value=float(row["eval_rate_tokens_per_s"]),
                unit="tokens/s",
                derived=False,
                system=row["system_as_written"],
            )
        )
    for row in read_rows("geerlingguy-ai-benchmarks", "geerlingguy_issue_excerpts.csv"):
        result.rows_read[GEERLINGGUY] += 1
        name = row["gpu_as_written"]
        target = _llama_bench_target(result, GEERLINGGUY, name, row["test"], catalog)
        if target is None:
            continue
        gpu_id, workload_class = target
        result.measurements.append(
            Measurement(
                dataset=GEERLINGGUY,
                table_id=row["table_id"],
                workload_class=workload_class,
                workload=f"{row['model_as_written']} {row['test']}",
                gpu_id=gpu_id,
                gpus_per_system=1,
                precision=None,
                value=float(row["tokens_per_s"]),
                unit="tokens/s",
                derived=False,
                system=f"{row['gpu_as_written']} ({row['host']}, {row['backend']})",
            )
        )
    return result


def load_lambda_in_sample() -> LoadResult:
    """Lambda's fp16 runs (the model's own training data): an in-sample sanity check only."""
    from shared.perfmodel.lambda_data import WORKLOAD_FAMILY, load_runs

    LAMBDA_FAMILY_CLASS = {"cv": TRAINING_CV, "nlp": TRAINING_NLP}

    result = LoadResult()
    for run in load_runs():
        result.rows_read[LAMBDA_IN_SAMPLE] += 1
        if run.precision != "fp16":
            result.skip(LAMBDA_IN_SAMPLE, "fp32 column (the /recommend default is fp16)", "")
            continue
        result.measurements.append(
            Measurement(
                dataset=LAMBDA_IN_SAMPLE,
                table_id=run.generation,
                workload_class=LAMBDA_FAMILY_CLASS[WORKLOAD_FAMILY[run.workload]],
                workload=run.workload,
                gpu_id=run.gpu_id,
                gpus_per_system=run.num_gpu,
                precision=run.precision,
                value=run.throughput / run.num_gpu,
                unit="items/s per GPU" + (" (derived)" if run.num_gpu > 1 else ""),
                derived=run.num_gpu > 1,
                system=f"{run.num_gpu}x {run.gpu_id}",
            )
        )
    return result


def iter_loaders(catalog: Catalog) -> Iterator[LoadResult]:
    yield load_mlperf_training(catalog)
    yield load_mlperf_inference(catalog)
    yield load_llmperf(catalog)
    yield load_llamacpp(catalog)
    yield load_geerlingguy(catalog)


def load_all(include_in_sample: bool = True) -> LoadResult:
    """Every bundled source (and Lambda, labelled in-sample), against the current catalog."""
    catalog = load_catalog()
    result = LoadResult()
    for part in iter_loaders(catalog):
        result.extend(part)
    if include_in_sample:
        result.extend(load_lambda_in_sample())
    return result
