"""What each benchmark workload is, in the terms of the inference physics.

The sources name models and quantisations; the model needs parameters (total and active
per token), bits per weight, batch and prompt length. Sizes are the models' published
parameter counts; bits per weight of llama.cpp quantisations are llama.cpp's file sizes
of LLaMA 7B (its quantize README) divided by 6.74 B parameters; Ollama's default tag is
Q4_K_M (about 4.85 bits). MLPerf serving runs at large batches in the lowest precision
the hardware has (FP4 on Blackwell, FP8 on Hopper, Ada and CDNA 3, INT8 before); its
batch is not published: a nominal serving batch picks the tensor-parallel split that holds
it, and the run is taken to fill that split's free memory with KV cache
(`class_rows.prepare`, `inference.filled_batch`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shared.catalog.specs import GpuSpec
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.workloads import SERVING_BATCH, LlmWorkload, lowest_native

# llama.cpp quantisations: bits per weight (file size / parameters).
LLAMACPP_BITS: dict[str, float] = {
    "F16": 16.0,
    "Q8_0": 8.5,
    "Q5_0": 5.5,
    "Q4_1": 5.0,
    "Q4_0": 4.5,
    "Q4_K_S": 4.6,
    "Q4_K - Medium": 4.85,
    "Q3_K_S": 3.5,
    "Q2_K": 3.1,
    "MXFP4 MoE": 4.25,
}
OLLAMA_DEFAULT_BITS = 4.85

# (total, active) billions of parameters per model name as the sources write it.
MODEL_SIZES: dict[str, tuple[float, float]] = {
    "llama 1B": (1.24, 1.24),
    "llama 3B": (3.21, 3.21),
    "llama 7B": (6.74, 6.74),
    "Llama 3.2:3b": (3.21, 3.21),
    "DeepSeek R1 14b": (14.8, 14.8),
    "gpt-oss 20b": (20.9, 3.6),
    "gpt-oss 120B": (116.8, 5.1),
    "Meta-Llama-3.1-8B": (8.03, 8.03),
    "gptj": (6.05, 6.05),
    "llama2-70b": (69.0, 69.0),
    "llama3_1-405b": (405.0, 405.0),
    "mixtral-8x7b": (46.7, 12.9),
}

# The software stack of a data set: its per-step overhead is fitted separately, since
# every GPU of one table shares it (Ollama and llama.cpp, vLLM, TensorRT-LLM).
STACK: dict[str, str] = {
    bm.GEERLINGGUY: "llama.cpp",
    bm.LLAMACPP: "llama.cpp",
    bm.LLMPERF: "vllm",
    bm.MLPERF_INFERENCE: "tensorrt-llm",
}

_PROMPT = re.compile(r"\bpp(\d+)")
_DEPTH = re.compile(r"@ d(\d+)")


@dataclass(frozen=True, slots=True)
class BenchmarkLlm:
    workload: LlmWorkload
    stack: str
    prefill: bool
    # The model as MODEL_SIZES names it (MLPerf's prompt share is fitted per model).
    model: str = ""


def _model_name(name: str) -> str | None:
    for key in sorted(MODEL_SIZES, key=lambda k: -len(k)):
        if key.lower() in name.lower():
            return key
    return None


def _bits(m: bm.Measurement) -> float:
    if m.precision and m.precision in LLAMACPP_BITS:
        return LLAMACPP_BITS[m.precision]
    for quant, bits in sorted(LLAMACPP_BITS.items(), key=lambda kv: -len(kv[0])):
        if quant in m.workload:
            return bits
    return OLLAMA_DEFAULT_BITS


def describe(m: bm.Measurement, gpu: GpuSpec) -> BenchmarkLlm | None:
    """The LLM workload behind an LLM measurement; None for other classes or unknown models."""
    model = _model_name(m.workload)
    if model is None:
        return None
    total, active = MODEL_SIZES[model]
    stack = STACK.get(m.dataset, "tensorrt-llm")
    if m.dataset == bm.MLPERF_INFERENCE:
        weights = lowest_native(gpu)
        workload = LlmWorkload(
            total, weights=weights, batch=SERVING_BATCH, context=2048, active_params_b=active
        )
        return BenchmarkLlm(workload, stack, prefill=False, model=model)
    if m.dataset == bm.LLMPERF:
        weights = "fp8" if m.precision == "fp8" else "bf16"
        batch = int(m.workload.rsplit("@", 1)[1])
        workload = LlmWorkload(
            total,
            weights=weights,
            batch=batch,
            context=1024,
            active_params_b=active,
        )
        return BenchmarkLlm(workload, stack, prefill=False, model=model)
    depth = _DEPTH.search(m.workload)
    prompt = _PROMPT.search(m.workload)
    workload = LlmWorkload(
        total,
        weights="fp16",
        batch=1,
        context=int(depth.group(1)) if depth else 512,
        active_params_b=active,
        bits_per_weight=_bits(m),
        prompt_tokens=int(prompt.group(1)) if prompt else 512,
    )
    return BenchmarkLlm(workload, stack, prefill=m.workload_class == bm.LLM_PREFILL, model=model)
