"""The recommendation request: GET /recommend's query parameters and `gpu-advisor
recommend`'s options, each with its default, bounds and description once."""

from __future__ import annotations

from typing import Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    model_validator,
)
from pydantic_core import InitErrorDetails

from shared.builds import assumptions as d
from shared.builds.schemas import (
    AS_OF_DESCRIPTION,
    Condition,
    Deployment,
    Network,
    Precision,
    Pricing,
    Software,
    Task,
)
from shared.recommend.schemas import LlmMode, Phase, Sort, WeightPrecision

# Above any GPU's memory (B200: 180 GB) times the largest count; more is a typo.
MAX_MEMORY_GB = 2048


class RecommendRequest(BaseModel):
    """What to rank GPUs for; the route turns it into the ranking's RecommendQuery (the
    memory the task, model or params_b needs; the checks between parameters)."""

    # Unknown query parameters are refused by the API's own check (services/api/strict.py)
    # with a "did you mean", not by the schema.
    model_config = ConfigDict(frozen=True)

    task: Task = Field(description="workload; sets the default minimum memory")
    memory_gb: float | None = Field(
        default=None, gt=0, le=MAX_MEMORY_GB, description="minimum memory per GPU (GB)"
    )
    precision: Precision = "fp16"
    condition: Condition = Field(
        default="any", description="new, used, any (the fresher, then cheaper) or cloud (rent)"
    )
    pricing: Pricing = Field(
        default="on-demand", description="with condition=cloud: on-demand or spot prices"
    )
    budget_usd: float | None = Field(
        default=None,
        gt=0,
        description="maximum price per GPU (per GPU-hour with condition=cloud)",
    )
    count: int = Field(default=1, ge=1, le=64, description="GPUs in one build")
    datacenter: bool = Field(
        default=False, description="exclude cards whose licence bars datacenter use"
    )
    deployment: Deployment = Field(
        default="auto",
        description="machines to price a build of count GPUs in; auto: see the layout",
    )
    network: Network = Field(
        default="infiniband", description="between machines, when a build needs several"
    )
    limit: int = Field(default=10, ge=1, le=100)
    sort: Sort | None = Field(
        default=None,
        description="the order: cost_per_unit for llm-inference and llm-training, "
        "perf_per_dollar for the rest",
    )
    software: Software | None = Field(
        default=None,
        description="what throughput and cost per unit assume (default per task: llama.cpp "
        "for llm-inference at batch 1, vllm above; pytorch for training; trt-llm for "
        "image-generation and cv inference)",
    )
    prompt_tokens: int | None = Field(
        default=None,
        ge=1,
        le=2_000_000,
        description="llm-inference: prompt length for the time to first token (default 512)",
    )
    min_tokens_per_s_per_user: float | None = Field(
        default=None,
        gt=0,
        le=1e6,
        description="llm-inference: each user's output tokens/s at least; each card is "
        "timed at the largest concurrency that meets it and max_ttft_ms, and a card that "
        "cannot is not ranked",
    )
    max_ttft_ms: float | None = Field(
        default=None,
        gt=0,
        le=1e7,
        description="llm-inference: time to first token at most (ms), with prompt_tokens",
    )
    utilization: float | None = Field(
        default=None,
        ge=d.MIN_UTILIZATION,
        le=1,
        description="owned builds' cost per unit: share of hours busy (default 15 %)",
    )
    years: float | None = Field(
        default=None,
        ge=d.MIN_YEARS,
        le=20,
        description="owned builds' cost per unit: the horizon (default 3)",
    )
    params_b: float | None = Field(
        default=None,
        gt=0,
        le=10000,
        description="LLM size in billions: sizes memory instead of memory_gb",
    )
    mode: LlmMode = Field(default="inference", description="with params_b")
    context: int = Field(default=4096, ge=1, le=2_000_000, description="tokens, with params_b")
    batch: int = Field(default=1, ge=1, le=4096, description="sequences, with params_b")
    weights: WeightPrecision | None = Field(
        default=None, description="weight storage with params_b; default follows precision"
    )
    model: str | None = Field(
        default=None,
        max_length=64,
        description="an LLM family of the shape table (e.g. llama-3-70b, mixtral-8x7b): "
        "its layers, KV heads and sizes; params_b may then be left out",
    )
    kv_heads: int | None = Field(
        default=None,
        ge=1,
        le=1024,
        description="with params_b: heads that keep K and V (default 8 from 7B up, "
        "grouped-query attention; all heads below)",
    )
    active_params_b: float | None = Field(
        default=None,
        gt=0,
        le=10000,
        description="with params_b: parameters per token (mixture of experts)",
    )
    phase: Phase | None = Field(
        default=None,
        description="training or inference: task=cv with phase=inference ranks CNN "
        "inference (MLPerf ResNet-50, RetinaNet, 3D U-Net), as precision=int8 does",
    )
    as_of: str | None = Field(
        default=None,
        description=AS_OF_DESCRIPTION,
        examples=["2026-09-30"],
    )

    @model_validator(mode="wrap")
    @classmethod
    def _missing_echoes_nothing(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Self:
        """A missing parameter's error has input null, as GET /recommend's 422 had while
        its parameters were declared one by one; as a model, pydantic would echo every
        parameter given."""
        try:
            validated: Self = handler(data)
        except ValidationError as exc:
            raise ValidationError.from_exception_data(
                exc.title, [_echo(error) for error in exc.errors()]
            ) from None
        return validated


def _echo(error: Any) -> InitErrorDetails:
    details = InitErrorDetails(
        type=error["type"],
        loc=error["loc"],
        input=None if error["type"] == "missing" else error["input"],
    )
    if "ctx" in error:
        details["ctx"] = error["ctx"]
    return details
