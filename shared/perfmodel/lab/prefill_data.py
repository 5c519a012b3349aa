"""The prefill model's evaluation rows: LocalScore, llama.cpp's ppN rows, TensorRT-LLM.

Each row is one GPU's prompt rate in one ratio group (same table, same model and
settings); ratios are only formed inside a group. Rules fixed before any fit:
- TensorRT-LLM: per table and GPU the layout with the fewest GPUs (multi-GPU scaling is
  not what this class predicts); its per-GPU figure is taken as one GPU's rate.
- LocalScore: the median over submissions and Q4_K_M at 4.85 bits per weight; one call
  of 1,331 prompt tokens, the mean prompt of its nine test scenarios (its prompt_tps times
  its mean time to first token is ~1,300 tokens on every GPU: a ratio of totals).
- Rows whose model does not fit in the GPU's memory are left out (the weights spill to
  the CPU: Qwen2.5 14B at Q4_K_M, 9 GB, on 8 GB cards). Rule added after seeing those
  rows' residuals (RTX 3070 and 3060 Ti on 14B at 0.3-0.5x their 8B ratio).
- llama.cpp: the ppN rows of the PR tables, N prompt tokens, the quantisation's bits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shared.catalog.specs import Catalog, load_catalog
from shared.perfmodel.benchmark_sources.llamacpp import load_llamacpp
from shared.perfmodel.benchmark_sources.localscore import LOCALSCORE, load_localscore
from shared.perfmodel.benchmark_sources.measurement import LLAMACPP, LLM_PREFILL, Measurement
from shared.perfmodel.benchmark_sources.trtllm import (
    MODEL_PARAMS_B,
    TENSORRT_LLM,
    load_trtllm,
)
from shared.perfmodel.prefill import FP16_ACCUMULATE, FP32_ACCUMULATE
from shared.perfmodel.workloads import LlmWorkload

SOURCES = (LOCALSCORE, LLAMACPP, TENSORRT_LLM)
SOURCE_FAMILY = {
    LOCALSCORE: FP16_ACCUMULATE,
    LLAMACPP: FP16_ACCUMULATE,
    TENSORRT_LLM: FP32_ACCUMULATE,
}
LOCALSCORE_PROMPT_TOKENS = 1331
LOCALSCORE_BITS = 4.85  # Q4_K_M (llama.cpp's quantize table: 4.83-4.89 bits per weight)
LOCALSCORE_PARAMS_B = {"Meta Llama 3.1 8B Instruct": 8.03, "Qwen2.5 14B Instruct": 14.8}
# Their rows in the shape table (llm_shapes.py): the matrices' sizes set the MMQ waves.
LOCALSCORE_MODELS = {
    "Meta Llama 3.1 8B Instruct": "llama-3.1-8b",
    "Qwen2.5 14B Instruct": "qwen2.5-14b",
}
# TensorRT-LLM schedules up to 8,192 tokens per forward pass (its default max_num_tokens):
# the weights are read once per such pass.
TRTLLM_TOKENS_PER_PASS = 8192
TRTLLM_BITS = {"fp8": 8.0, "fp4": 4.25}
# llama.cpp models and quantisations of the PR tables (llama.cpp's quantize table, bits
# per weight; gpt-oss 120B: 117B total, 5.1B active).
LLAMACPP_PARAMS_B: dict[str, tuple[float, float]] = {
    "llama 7B": (6.74, 6.74),
    "llama 1B": (1.24, 1.24),
    "gpt-oss 120B": (117.0, 5.1),
}
LLAMACPP_BITS: dict[str, float] = {
    "F16": 16.0,
    "Q2_K": 2.63,
    "Q3_K_S": 3.5,
    "Q4_0": 4.55,
    "Q4_1": 5.0,
    "Q4_K_S": 4.58,
    "Q5_0": 5.54,
    "Q8_0": 8.5,
    "MXFP4 MoE": 4.25,
}
_PP = re.compile(r"^pp(\d+)")


@dataclass(frozen=True, slots=True)
class PrefillRow:
    """One GPU's prompt rate in one ratio group."""

    row_id: str
    source: str
    # The unit held out together by leave-one-table-out: a whole source for LocalScore
    # (one leaderboard, one binary) and TensorRT-LLM (one page of NVIDIA's runs), each
    # pull-request table for llama.cpp (separate comments, machines and builds).
    table: str
    group: str
    gpu_id: str
    family: str
    workload: LlmWorkload
    value: float
    detail: str


def _localscore(m: Measurement) -> LlmWorkload:
    model = m.workload.removesuffix(" Q4_K_M")
    return LlmWorkload(
        LOCALSCORE_PARAMS_B[model],
        weights="int4",
        model=LOCALSCORE_MODELS[model],
        bits_per_weight=LOCALSCORE_BITS,
        prompt_tokens=LOCALSCORE_PROMPT_TOKENS,
    )


def _llamacpp(m: Measurement) -> LlmWorkload | None:
    # "llama 7B Q4_0 pp512" (model, quantisation, test); depth rows "pp512 @ d65536" are
    # prompts after a long context: kept, their own group.
    test = m.workload.split(" pp")[-1]
    match = _PP.match("pp" + test)
    quant = m.precision or ""
    model = m.workload.split(f" {quant} ")[0] if quant else ""
    if match is None or model not in LLAMACPP_PARAMS_B or quant not in LLAMACPP_BITS:
        return None
    total, active = LLAMACPP_PARAMS_B[model]
    return LlmWorkload(
        total,
        weights="fp16" if quant == "F16" else "int4",
        active_params_b=active,
        bits_per_weight=LLAMACPP_BITS[quant],
        prompt_tokens=int(match.group(1)),
    )


def _trtllm(m: Measurement) -> LlmWorkload:
    model = m.workload.rsplit(" ", 1)[0]
    total, active = MODEL_PARAMS_B[model]
    precision = m.precision or "fp8"
    return LlmWorkload(
        total,
        weights=precision,
        active_params_b=active,
        bits_per_weight=TRTLLM_BITS[precision],
        prompt_tokens=TRTLLM_TOKENS_PER_PASS,
    )


def load_prefill_rows(catalog: Catalog | None = None) -> list[PrefillRow]:
    """Every prefill row of the three sources, with the rules of the module docstring."""
    cat = catalog or load_catalog()
    rows: list[PrefillRow] = []
    for m in load_localscore(cat).measurements:
        local = _localscore(m)
        if local.weight_gb > cat.by_id[m.gpu_id].memory_gb:
            continue
        rows.append(_row(m, LOCALSCORE, LOCALSCORE, local))
    for m in load_llamacpp(cat).measurements:
        if m.workload_class != LLM_PREFILL:
            continue
        workload = _llamacpp(m)
        if workload is not None:
            rows.append(_row(m, LLAMACPP, f"{LLAMACPP} {m.table_id}", workload))
    fewest: dict[tuple[str, str], Measurement] = {}
    for m in load_trtllm(cat).measurements:
        key = (m.table_id, m.gpu_id)
        if key not in fewest or m.gpus_per_system < fewest[key].gpus_per_system:
            fewest[key] = m
    for m in fewest.values():
        rows.append(_row(m, TENSORRT_LLM, TENSORRT_LLM, _trtllm(m)))
    return rows


def _row(m: Measurement, source: str, table: str, workload: LlmWorkload) -> PrefillRow:
    group = f"{m.table_id} | {m.workload}"
    return PrefillRow(
        row_id=f"{group} | {m.gpu_id} | {m.system}",
        source=source,
        table=table,
        group=group,
        gpu_id=m.gpu_id,
        family=SOURCE_FAMILY[source],
        workload=workload,
        value=m.value,
        detail=m.system,
    )
