"""Workload classes: what a task asks of a GPU, and at which precision it can run.

Each /recommend task maps to one class explicitly; the class decides the physics
(`inference.py` for the inference classes, the Lambda-calibrated roofline for training).
An LLM workload is described by its size, weight format, batch and context; the weight
format sets the bytes read per generated token and, where the hardware has it, the
precision the matrix multiplies run at.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from shared.catalog.specs import GpuSpec

TRAINING_CV = "training-cv"
TRAINING_NLP = "training-nlp"
# LLM training as MLPerf Training's LLM benchmarks measure it (product class only: its
# evaluation rows are those benchmarks' training-nlp rows).
TRAINING_LLM = "training-llm"
LLM_PREFILL = "llm-prefill"
LLM_DECODE = "llm-decode"
LLM_SERVING = "llm-serving"
DIFFUSION = "diffusion"
CNN_INFERENCE = "cnn-inference"
WORKLOAD_CLASSES = (
    TRAINING_CV,
    TRAINING_NLP,
    TRAINING_LLM,
    LLM_PREFILL,
    LLM_DECODE,
    LLM_SERVING,
    DIFFUSION,
    CNN_INFERENCE,
)
TRAINING_CLASSES = (TRAINING_CV, TRAINING_NLP, TRAINING_LLM)
# MLPerf Training's LLM benchmarks: the matrix-multiply share the product's training-llm
# class carries is the median of theirs (FittedParams.llm_training_share).
MLPERF_LLM_TRAINING = ("gpt3", "llama2_70b_lora", "llama31_405b", "llama31_8b")
LLM_CLASSES = (LLM_PREFILL, LLM_DECODE, LLM_SERVING)
VISION_INFERENCE_CLASSES = (DIFFUSION, CNN_INFERENCE)

_TRAINING_BASIS = (
    "training: roofline fitted to Lambda's training runs (its measurements where it has "
    "them), architecture offsets against Ampere fitted to MLPerf Training"
)
CLASS_BASIS: dict[str, str] = {
    TRAINING_CV: _TRAINING_BASIS,
    TRAINING_NLP: _TRAINING_BASIS,
    TRAINING_LLM: _TRAINING_BASIS
    + "; plus the share of time in large matrix multiplies fitted to MLPerf's LLM training "
    "benchmarks (one share for them, 8B and up), smaller for smaller models and QLoRA "
    "(fitted by model size on GPU-Insights and Answer.AI: llm_training.py), which scales "
    "with the matrix rate alone",
    LLM_PREFILL: "LLM prefill: matrix-bound at a software-aware rate (accumulate precision "
    "per software family, achieved share of peak per chip class and architecture, fitted on "
    "LocalScore, llama.cpp and TensorRT-LLM tables: prefill.py), weights read per micro-batch",
    LLM_DECODE: "LLM decode at batch 1: weight bytes per token / achieved memory bandwidth, "
    "plus a per-token overhead",
    LLM_SERVING: "LLM decode at a serving batch: weights once per step, KV cache and matrix "
    "math per sequence",
    DIFFUSION: "diffusion image generation: roofline shares fitted to MLPerf SDXL",
    CNN_INFERENCE: "CNN inference: roofline shares fitted to MLPerf ResNet/RetinaNet/3D-UNet",
}

# Bits per stored weight by weight format (4-bit: int4/NF4/Q4 and NVFP4/MXFP4 alike).
WEIGHT_BITS: dict[str, float] = {
    "fp16": 16.0,
    "bf16": 16.0,
    "fp8": 8.0,
    "int8": 8.0,
    "int4": 4.5,  # 4-bit groups carry a 16-bit scale per 32-128 weights
    "fp4": 4.25,  # NVFP4 / MXFP4: an 8-bit scale per 16-32 weights
}
WEIGHT_FORMATS = tuple(WEIGHT_BITS)
# Default LLM of the precomputed llm-inference ranking: an 8B model in 16-bit weights,
# one user (batch 1), 4,096 tokens of context. Stated in every explanation.
DEFAULT_LLM_PARAMS_B = 8.0
DEFAULT_LLM_CONTEXT = 4096
# Serving batch of MLPerf-style offline serving when a source gives none.
SERVING_BATCH = 128

# Architectures with FP8 tensor cores (NVIDIA Hopper, Ada, Blackwell; AMD CDNA 3 and 4),
# and with FP4 tensor cores (NVIDIA Blackwell; AMD CDNA 4).
FP8_ARCHITECTURES = frozenset({"Hopper", "Ada Lovelace", "Blackwell", "CDNA 3", "CDNA 4"})
FP4_ARCHITECTURES = frozenset({"Blackwell", "CDNA 4"})
# Dense FP4 = 2x dense FP8 on Blackwell (5th-gen Tensor Cores, NVIDIA Blackwell
# datasheet: B200 9 PF FP4 vs 4.5 PF FP8) and CDNA 4 (AMD MI355X: 10.1 PF MXFP4 vs
# 5.0 PF FP8); Blackwell Ultra (B300, GB300) has 1.5x B200's dense NVFP4 (NVIDIA
# Blackwell Ultra announcement, 2025-03) at B200's FP8 rate: 3x its FP8.
FP4_PER_FP8 = 2.0
FP4_PER_FP8_ULTRA = 3.0
BLACKWELL_ULTRA = frozenset({"b300", "gb300"})


def fp4_rate(gpu: GpuSpec) -> float | None:
    """Dense FP4 tensor rate (TFLOPS); None where the hardware has no FP4."""
    if gpu.architecture not in FP4_ARCHITECTURES or gpu.fp8_tensor_tflops is None:
        return None
    factor = FP4_PER_FP8_ULTRA if gpu.id in BLACKWELL_ULTRA else FP4_PER_FP8
    return gpu.fp8_tensor_tflops * factor


def fp8_rate(gpu: GpuSpec) -> float | None:
    if gpu.architecture not in FP8_ARCHITECTURES:
        return None
    return gpu.fp8_tensor_tflops


def half_rate(gpu: GpuSpec) -> float:
    """16-bit matrix rate; the FP32 rate on cards without a 16-bit tensor path."""
    return gpu.fp16_tensor_tflops or gpu.fp32_tflops


def runs_weights(gpu: GpuSpec, weights: str) -> bool:
    """fp8 and fp4 weights need the hardware format; integer formats run everywhere
    (dequantised to 16 bits where there are no integer tensor cores)."""
    if weights == "fp8":
        return fp8_rate(gpu) is not None
    if weights == "fp4":
        return fp4_rate(gpu) is not None
    if weights == "bf16":
        return gpu.bf16_tensor_tflops is not None or gpu.vendor == "AMD"
    return True


def compute_rate(gpu: GpuSpec, weights: str) -> float:
    """Matrix rate (TFLOPS) for weights in this format: the native low-precision rate
    where the hardware has one, else the 16-bit rate (weight-only quantisation)."""
    if weights == "fp4":
        rate = fp4_rate(gpu)
    elif weights == "fp8":
        rate = fp8_rate(gpu)
    elif weights == "int8":
        rate = gpu.int8_tensor_tops if gpu.has_tensor_cores else None
    else:
        rate = None
    return rate or half_rate(gpu)


def lowest_native(gpu: GpuSpec) -> str:
    """The lowest precision the hardware runs natively (what MLPerf submitters use)."""
    if fp4_rate(gpu) is not None:
        return "fp4"
    if fp8_rate(gpu) is not None:
        return "fp8"
    if gpu.int8_tensor_tops and gpu.has_tensor_cores:
        return "int8"
    return "fp16"


@dataclass(frozen=True, slots=True)
class LlmWorkload:
    """An LLM to run: size, weight format, sequences at once and context per sequence."""

    params_b: float
    weights: str = "fp16"
    batch: int = 1
    context: int = DEFAULT_LLM_CONTEXT
    # Parameters read per token; smaller than params_b for mixture-of-experts models.
    active_params_b: float | None = None
    # The model's shape for the KV cache (llm_shapes.py): a family in its table, else an
    # estimate from the size with these KV heads (default: 8 from 7B up).
    model: str | None = None
    kv_heads: int | None = None
    # Bits per weight when a source states its file size (llama.cpp quantisations).
    bits_per_weight: float | None = None
    # Prompt tokens processed at once (prefill).
    prompt_tokens: int = 512
    # Matrix work per generated token beyond its own, in tokens' worth: when a throughput
    # counts the generated tokens of whole requests (serving benchmarks), their prompts'
    # prefill (and any beam search) is part of each decode step's math.
    extra_compute: float = 0.0

    @property
    def active_b(self) -> float:
        return self.active_params_b or self.params_b

    @property
    def bits(self) -> float:
        return self.bits_per_weight or WEIGHT_BITS[self.weights]

    @property
    def weight_gb(self) -> float:
        return self.params_b * self.bits / 8.0

    def with_batch(self, batch: int) -> LlmWorkload:
        return replace(self, batch=batch)


def llm_class(workload: LlmWorkload) -> str:
    return LLM_DECODE if workload.batch <= 1 else LLM_SERVING


# Every /recommend task, explicitly. Training tasks keep the Lambda training fit.
TASK_CLASS: dict[str, str] = {
    "cv": TRAINING_CV,
    "nlp": TRAINING_NLP,
    "llm-training": TRAINING_LLM,
    "llm-inference": LLM_DECODE,  # LLM_SERVING when batch > 1
    "image-generation": DIFFUSION,
    "video": TRAINING_CV,
    "rl": TRAINING_CV,
    "kaggle": TRAINING_CV,
    "prototyping": TRAINING_NLP,
}
# The training family of each training class (the Lambda fit's cv and nlp).
CLASS_FAMILY: dict[str, str] = {TRAINING_CV: "cv", TRAINING_NLP: "nlp", TRAINING_LLM: "nlp"}


# Training tasks whose inference has a fitted class: cv's is CNN inference (MLPerf
# ResNet-50, RetinaNet, 3D U-Net). nlp has none (MLPerf's BERT inference rows are not
# bundled): language-model inference is the llm-inference task.
INFERENCE_CLASS: dict[str, str] = {"cv": CNN_INFERENCE}
PHASES = ("training", "inference")


def implied_phase(task: str, precision: str, phase: str | None) -> str | None:
    """The phase a request means: as given, else inference for a task with an inference
    class asked at int8 (nobody trains CNNs in int8; MLPerf serves them in it)."""
    if phase is not None:
        return phase
    if precision == "int8" and task in INFERENCE_CLASS:
        return "inference"
    return None


def task_class(task: str, llm: LlmWorkload | None = None, phase: str | None = None) -> str:
    if task not in TASK_CLASS:
        raise ValueError(f"unknown task {task!r}")
    if phase == "inference" and task in INFERENCE_CLASS:
        return INFERENCE_CLASS[task]
    if task == "llm-inference" and llm is not None:
        return llm_class(llm)
    return TASK_CLASS[task]


def weights_for(precision: str) -> str:
    """The weight format a precision implies: 8-bit compute keeps 8-bit weights, all
    else is stored in 16 bits (bf16 where asked)."""
    return {"fp8": "fp8", "int8": "int8", "bf16": "bf16"}.get(precision, "fp16")


def default_llm(precision: str = "fp16") -> LlmWorkload:
    """The LLM the llm-inference ranking assumes when none is given."""
    return LlmWorkload(DEFAULT_LLM_PARAMS_B, weights=weights_for(precision))
