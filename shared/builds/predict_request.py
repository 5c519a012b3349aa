"""GET /model/predict's query and `gpu-advisor model predict`'s options, without the
performance model's code: the CLI builds its options from this at start."""

from __future__ import annotations

from pydantic import BaseModel, Field

from shared.builds.constants import AUTO

# Above any model anyone runs (the /recommend limit).
MAX_PARAMS_B = 10000.0
# GPUs one prediction times (the /recommend limit).
MAX_COUNT = 64


class PredictRequest(BaseModel):
    """GET /model/predict's query and `gpu-advisor model predict`'s options, written once.

    Names stay plain strings: predict_full checks them and names the valid values."""

    gpu: str = Field(max_length=128, description="catalog id, name or known alias, exactly")
    task: str = Field(
        description="any /recommend task: cv, nlp, llm-inference, llm-training, "
        "image-generation, video, rl, kaggle, prototyping"
    )
    precision: str = Field(default="fp16", description="fp16, bf16, tf32, fp32, fp8 or int8")
    count: int = Field(default=1, ge=1, le=MAX_COUNT, description="GPUs in the build")
    power_limit_w: float | None = Field(default=None, gt=0, le=2000, description="cap per GPU, W")
    workload: str | None = Field(default=None, max_length=64, description="e.g. resnet50")
    # The upper bounds of /recommend (the model names the lower ones): past them a query
    # is a typo.
    params_b: float | None = Field(
        default=None,
        le=MAX_PARAMS_B,
        description="llm-inference, llm-training: model size in billions",
    )
    mode: str | None = Field(
        default=None,
        description="llm-training: full (or full-finetune), lora or qlora (default: 8B lora)",
    )
    batch: int | None = Field(
        default=None,
        le=4096,
        description="llm-inference: sequences at once; llm-training: per step (memory only)",
    )
    context: int | None = Field(
        default=None,
        le=2_000_000,
        description="llm-inference: tokens; llm-training: per sequence (memory only)",
    )
    weights: str | None = Field(
        default=None, description="llm-inference: fp16, bf16, fp8, int8, int4 or fp4"
    )
    model: str | None = Field(
        default=None,
        max_length=64,
        description="llm-inference: an LLM family of the shape table, e.g. llama-3-70b",
    )
    kv_heads: int | None = Field(
        default=None, le=1024, description="llm-inference: heads keeping K/V (default 8 from 7B)"
    )
    active_params_b: float | None = Field(
        default=None, le=MAX_PARAMS_B, description="llm-inference: parameters per token (MoE)"
    )
    phase: str | None = Field(
        default=None,
        description="training or inference: cv at inference is CNN inference (MLPerf "
        "ResNet-50, RetinaNet, 3D U-Net), as cv at int8 is without a phase",
    )
    deployment: str = Field(
        default=AUTO, description="machines for count GPUs: auto, workstation or datacenter"
    )
    network: str = Field(
        default="infiniband", description="between machines: infiniband or ethernet"
    )
    software: str | None = Field(
        default=None,
        max_length=32,
        description="what the throughput assumes: vllm, sglang, trt-llm, llama.cpp or pytorch "
        "(default per task: llama.cpp for llm-inference at batch 1, vllm above; pytorch "
        "for training; trt-llm for image-generation and cv inference)",
    )
    prompt_tokens: int | None = Field(
        default=None,
        le=2_000_000,
        description="llm-inference: prompt length for the time to first token (default 512)",
    )
    train_tokens: float | None = Field(
        default=None, le=1e15, description="llm-training: tokens of the run (its wall time)"
    )
    epochs: float | None = Field(
        default=None, le=1e6, description="llm-training: epochs over dataset_tokens"
    )
    dataset_tokens: float | None = Field(
        default=None, le=1e15, description="llm-training: tokens in the dataset (with epochs)"
    )
    min_tokens_per_s_per_user: float | None = Field(
        default=None,
        le=1e6,
        description="llm-inference: each user's output tokens/s at least (the answer: the "
        "largest concurrency that meets it and max_ttft_ms)",
    )
    max_ttft_ms: float | None = Field(
        default=None,
        le=1e7,
        description="llm-inference: time to first token at most (ms), with prompt_tokens",
    )
    dataset_size: float | None = Field(
        default=None,
        le=1e12,
        description="cv, nlp training: items in the dataset (the time per epoch)",
    )
