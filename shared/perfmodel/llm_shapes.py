"""The shapes of common LLM families, and of any other LLM from its size.

One shape gives the KV cache to memory sizing (`memory.py`) and to the decode speed
(`inference.py`) alike: bytes per token = layers x kv_elements x bytes, with
kv_elements = 2 (K and V) x kv_heads x head_dim for multi-head and grouped-query
attention. DeepSeek-V3/R1 use multi-head latent attention (MLA): the cache holds one
compressed latent (kv_lora_rank 512) plus the decoupled RoPE key (64) per token and layer,
576 values shared by all 128 heads, as the MLA kernels of vLLM and SGLang store it
(the expanded per-head K and V would be ~70x larger; the DeepSeek-V2 paper, section 2.1).

Rows: architecture from the published config.json of the named Hugging Face repo
(num_hidden_layers, hidden_size, num_attention_heads, num_key_value_heads, head_dim),
parameter counts from the repo's model card. They were entered from those published
files, not downloaded by the product; a model we could not state with certainty is left
out. Sliding-window layers (Gemma-2 every other layer, 4,096 tokens; gpt-oss every other
layer, 128 tokens) are counted at the full context: an upper bound past the window.

Any other model: the dense-transformer estimate of `estimate_shape` from its size (of
the active parameters for a mixture of experts) with head_dim 128, and grouped-query
attention with `DEFAULT_KV_HEADS` = 8 KV heads from 7B up (Llama-3, Mistral, Qwen2.5 and
Llama-2 70B all keep 8 or fewer), unless `kv_heads` is given; below 7B every head keeps
its K and V (multi-head attention, as Llama-2 7B and GPT-J do): the larger cache.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# A dense transformer of P parameters: P ~ 12 * layers * hidden^2, layers ~ hidden / 128
# (Llama 7B: 4096 x 32).
HIDDEN_PER_LAYER = 128.0
HEAD_DIM = 128
DEFAULT_KV_HEADS = 8
# From this size up the fallback assumes grouped-query attention (modern practice).
GQA_FROM_B = 7.0


@dataclass(frozen=True, slots=True)
class LlmShape:
    """What the KV cache, the per-step overhead and the all-reduces need of a model."""

    name: str
    params_b: float
    active_params_b: float
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    # Values cached per token and layer; 0 means 2 x kv_heads x head_dim (MHA/GQA).
    latent_kv: int = 0
    source: str = ""

    @property
    def kv_elements(self) -> int:
        """Cached values per token and layer (K and V, or MLA's compressed latent)."""
        return self.latent_kv or 2 * self.kv_heads * self.head_dim

    def kv_bytes_per_token(self, kv_bytes: float = 2.0) -> float:
        return self.layers * self.kv_elements * kv_bytes

    @property
    def attention(self) -> str:
        """In words, for the answer's formula."""
        if self.latent_kv:
            return f"MLA latent {self.latent_kv} values per token and layer"
        kind = "multi-head" if self.kv_heads == self.heads else "grouped-query"
        return f"{kind}, {self.kv_heads} of {self.heads} heads keep K/V, head_dim {self.head_dim}"


def _row(
    name: str,
    repo: str,
    params_b: float,
    layers: int,
    hidden: int,
    heads: int,
    kv_heads: int,
    head_dim: int = HEAD_DIM,
    *,
    active_params_b: float | None = None,
    latent_kv: int = 0,
) -> LlmShape:
    return LlmShape(
        name=name,
        params_b=params_b,
        active_params_b=active_params_b or params_b,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        latent_kv=latent_kv,
        source=f"from the published config.json of {repo}; parameters from its model card",
    )


_ROWS = (
    _row("llama-2-7b", "meta-llama/Llama-2-7b-hf", 6.74, 32, 4096, 32, 32),
    _row("llama-2-13b", "meta-llama/Llama-2-13b-hf", 13.0, 40, 5120, 40, 40),
    _row("llama-2-70b", "meta-llama/Llama-2-70b-hf", 69.0, 80, 8192, 64, 8),
    _row("llama-3-8b", "meta-llama/Meta-Llama-3-8B", 8.03, 32, 4096, 32, 8),
    _row("llama-3-70b", "meta-llama/Meta-Llama-3-70B", 70.6, 80, 8192, 64, 8),
    _row("llama-3.1-8b", "meta-llama/Llama-3.1-8B", 8.03, 32, 4096, 32, 8),
    _row("llama-3.1-70b", "meta-llama/Llama-3.1-70B", 70.6, 80, 8192, 64, 8),
    _row("llama-3.1-405b", "meta-llama/Llama-3.1-405B", 405.0, 126, 16384, 128, 8),
    _row("mistral-7b", "mistralai/Mistral-7B-v0.1", 7.24, 32, 4096, 32, 8),
    # Mixture of experts: 8 experts, 2 per token (Mistral AI: 46.7B total, 12.9B active;
    # 141B total, 39B active).
    _row(
        "mixtral-8x7b",
        "mistralai/Mixtral-8x7B-v0.1",
        46.7,
        32,
        4096,
        32,
        8,
        active_params_b=12.9,
    ),
    _row(
        "mixtral-8x22b",
        "mistralai/Mixtral-8x22B-v0.1",
        141.0,
        56,
        6144,
        48,
        8,
        active_params_b=39.0,
    ),
    _row("qwen2.5-7b", "Qwen/Qwen2.5-7B", 7.61, 28, 3584, 28, 4),
    _row("qwen2.5-14b", "Qwen/Qwen2.5-14B", 14.7, 48, 5120, 40, 8),
    _row("qwen2.5-32b", "Qwen/Qwen2.5-32B", 32.5, 64, 5120, 40, 8),
    _row("qwen2.5-72b", "Qwen/Qwen2.5-72B", 72.7, 80, 8192, 64, 8),
    _row("gemma-2-9b", "google/gemma-2-9b", 9.24, 42, 3584, 16, 8, 256),
    _row("gemma-2-27b", "google/gemma-2-27b", 27.2, 46, 4608, 32, 16),
    # MLA: 128 heads, the cache is kv_lora_rank 512 + qk_rope_head_dim 64 per token and
    # layer; 671B total, 37B active per token (the multi-token-prediction module left out).
    _row(
        "deepseek-v3",
        "deepseek-ai/DeepSeek-V3",
        671.0,
        61,
        7168,
        128,
        128,
        active_params_b=37.0,
        latent_kv=512 + 64,
    ),
    _row(
        "deepseek-r1",
        "deepseek-ai/DeepSeek-R1",
        671.0,
        61,
        7168,
        128,
        128,
        active_params_b=37.0,
        latent_kv=512 + 64,
    ),
    # Mixture of experts, 4 experts per token (OpenAI model card: 21B total, 3.6B active;
    # 117B total, 5.1B active).
    _row("gpt-oss-20b", "openai/gpt-oss-20b", 20.9, 24, 2880, 64, 8, 64, active_params_b=3.6),
    _row("gpt-oss-120b", "openai/gpt-oss-120b", 116.8, 36, 2880, 64, 8, 64, active_params_b=5.1),
)
MODEL_SHAPES: dict[str, LlmShape] = {row.name: row for row in _ROWS}
MODEL_NAMES = tuple(MODEL_SHAPES)

# Suffixes of variants with the base model's shape (instruct and chat tunes, repo tags).
_VARIANT = re.compile(r"-(hf|instruct|chat|it|base|v0\.\d)$")


def _compact(name: str) -> str:
    """`Meta-Llama-3-70B-Instruct`, `meta-llama/Llama-3-70b` and `llama3_70b` alike."""
    text = name.strip().lower().rsplit("/", 1)[-1].replace("_", "-").replace(" ", "-")
    while True:
        stripped = _VARIANT.sub("", text)
        if stripped == text:
            break
        text = stripped
    text = text.removeprefix("meta-")
    return text.replace("-", "")


_BY_COMPACT = {_compact(name): name for name in MODEL_NAMES}


class UnknownModel(ValueError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"unknown model {name!r}; known: {', '.join(MODEL_NAMES)}")


def model_shape(name: str) -> LlmShape:
    """The table's row for a model name (case, org prefix, `-Instruct` and the like aside)."""
    found = _BY_COMPACT.get(_compact(name))
    if found is None:
        raise UnknownModel(name)
    return MODEL_SHAPES[found]


def estimate_shape(params_b: float) -> tuple[int, int]:
    """(layers, hidden) of a dense transformer with `params_b` billion parameters."""
    hidden = (params_b * 1e9 * HIDDEN_PER_LAYER / 12.0) ** (1.0 / 3.0)
    return max(1, round(hidden / HIDDEN_PER_LAYER)), round(hidden)


def default_kv_heads(params_b: float, heads: int) -> int:
    return min(DEFAULT_KV_HEADS, heads) if params_b >= GQA_FROM_B else heads


@lru_cache(maxsize=1024)
def estimated_shape(
    params_b: float, kv_heads: int | None = None, active_params_b: float | None = None
) -> LlmShape:
    """A model not in the table: layers and width from the active size (the attention of a
    mixture of experts is that of a dense model of its active size), 8 KV heads from 7B."""
    active = active_params_b or params_b
    layers, hidden = estimate_shape(active)
    heads = max(1, round(hidden / HEAD_DIM))
    kv = kv_heads or default_kv_heads(params_b, heads)
    given = "given" if kv_heads else ("8 assumed from 7B up" if kv < heads else "all heads")
    return LlmShape(
        name="",
        params_b=params_b,
        active_params_b=active,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv,
        head_dim=HEAD_DIM,
        source=(
            f"estimated from {active:g}B: P ~ 12 x layers x hidden^2, layers ~ hidden/128, "
            f"head_dim 128; KV heads {kv} ({given})"
        ),
    )


def shape_of(
    params_b: float | None = None,
    *,
    model: str | None = None,
    kv_heads: int | None = None,
    active_params_b: float | None = None,
) -> LlmShape:
    """The table's shape for `model`, else the estimate from the sizes."""
    if model:
        return model_shape(model)
    if params_b is None:
        raise ValueError("give params_b or model")
    return estimated_shape(params_b, kv_heads, active_params_b)


class ShapeInputError(ValueError):
    """A request's model, size or KV heads that contradict each other: names the field."""

    def __init__(self, field: str, message: str, valid: list[str] | None = None) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.valid = valid or []


# A given size may differ this much from the table's (rounding: "70" for 70.6B).
SIZE_TOLERANCE = 0.1


def resolve(
    params_b: float | None,
    model: str | None = None,
    kv_heads: int | None = None,
    active_params_b: float | None = None,
) -> LlmShape:
    """The shape a request describes; its params_b is the model's when only `model` is
    given. Contradictions (a size or KV heads other than the named model's, more active
    than total parameters) are refused rather than guessed."""
    if model:
        try:
            shape = model_shape(model)
        except UnknownModel:
            raise ShapeInputError("model", f"unknown model {model!r}", list(MODEL_NAMES)) from None
        if params_b is not None and abs(params_b / shape.params_b - 1) > SIZE_TOLERANCE:
            raise ShapeInputError(
                "params_b", f"{shape.name} has {shape.params_b:g}B parameters, not {params_b:g}"
            )
        if kv_heads is not None and kv_heads != shape.kv_heads:
            raise ShapeInputError("kv_heads", f"{shape.name} has {shape.kv_heads} KV heads")
        if (
            active_params_b is not None
            and abs(active_params_b / shape.active_params_b - 1) > SIZE_TOLERANCE
        ):
            raise ShapeInputError(
                "active_params_b",
                f"{shape.name} has {shape.active_params_b:g}B active parameters",
            )
        return shape
    if params_b is None:
        raise ShapeInputError("params_b", "give params_b (or a model) to describe an LLM")
    if active_params_b is not None and active_params_b > params_b:
        raise ShapeInputError(
            "active_params_b", f"at most params_b ({params_b:g}): the active parameters"
        )
    return estimated_shape(params_b, kv_heads, active_params_b)
