"""Answers in the buyer's units: tokens/s, images/s, sequences/s, images/min.

The class model predicts throughput relative to the reference GPU; its fit uses ratios
inside a table only, so it says nothing of the absolute level. The level is measured
here: for each workload and software, how many units a second the reference GPU does,

    units/s(gpu) = relative_throughput(gpu) x level

read off the bundled tables that state absolute figures (lab/units_fit.py writes
`params/units-<version>.json`; docs/model/units.md scores it held out). For the LLM
classes the level multiplies the reference's own physics (inference.py, prefill.py) at
the request's model, batch and prompt: those are already tokens/s, and the level is the
software's measured share of them. LLM training's level is the reference's useful FLOP/s,
divided by the FLOPs a token costs (6 x parameters for a full fine-tune, 4 x for LoRA and
QLoRA, which compute no weight gradients).

The interval combines the class model's interval of the ratio with the spread of the level
across the tables that measured it (in quadrature, on a log scale). A software or chip
class no table measured widens it, and the answer says so.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from shared.perfmodel.llm_training import DEFAULT_TRAINING, LlmTraining, canonical_mode
from shared.perfmodel.memory import FULL
from shared.perfmodel.workloads import (
    CNN_INFERENCE,
    DIFFUSION,
    LLM_DECODE,
    LLM_SERVING,
    TRAINING_CV,
    TRAINING_LLM,
    TRAINING_NLP,
)

UNITS_VERSION = "units-2026.12.11"
PARAMS_PATH = Path(__file__).parent / "params" / f"{UNITS_VERSION}.json"

VLLM, SGLANG, TRT_LLM, LLAMA_CPP, PYTORCH = "vllm", "sglang", "trt-llm", "llama.cpp", "pytorch"
SOFTWARE = (VLLM, SGLANG, TRT_LLM, LLAMA_CPP, PYTORCH)
# The inference model's name of each LLM stack (its fitted per-step overheads).
MODEL_STACK = {VLLM: "vllm", SGLANG: "vllm", TRT_LLM: "tensorrt-llm", LLAMA_CPP: "llama.cpp"}
LLM_SOFTWARE = (VLLM, SGLANG, TRT_LLM, LLAMA_CPP)
# What each class can be asked on, and what it assumes when not asked. trt-llm stands for
# NVIDIA's TensorRT stack: TensorRT-LLM for LLMs, TensorRT for the vision classes, as MLPerf
# Inference submitters run them (the only absolute vision inference figures bundled).
CLASS_SOFTWARE: dict[str, tuple[str, ...]] = {
    LLM_DECODE: LLM_SOFTWARE,
    LLM_SERVING: LLM_SOFTWARE,
    TRAINING_CV: (PYTORCH,),
    TRAINING_NLP: (PYTORCH,),
    TRAINING_LLM: (PYTORCH,),
    DIFFUSION: (TRT_LLM,),
    CNN_INFERENCE: (TRT_LLM,),
}
DEFAULT_SOFTWARE: dict[str, str] = {
    LLM_DECODE: LLAMA_CPP,  # one user: what people run locally
    LLM_SERVING: VLLM,  # many users: the common open serving engine
    TRAINING_CV: PYTORCH,
    TRAINING_NLP: PYTORCH,
    TRAINING_LLM: PYTORCH,
    DIFFUSION: TRT_LLM,
    CNN_INFERENCE: TRT_LLM,
}
SOFTWARE_NOTE = (
    "llm-inference: llama.cpp at batch 1, vllm above (also sglang, trt-llm); training: "
    "pytorch; image-generation and cv inference: trt-llm (TensorRT, as MLPerf runs them)"
)
# A software never measured borrows a measured one's level: sglang vLLM's (the same kind
# of paged-attention server); every other prompt rate llama.cpp's, the one measured.
BORROWED_LEVEL = {SGLANG: VLLM}
FALLBACK_LEVEL = LLAMA_CPP

OUTPUT_TOKENS, TRAINING_TOKENS = "output tokens/s", "training tokens/s"
IMAGES_S, SEQUENCES_S, IMAGES_MIN = "images/s", "sequences/s", "images/min"
UNITS = (OUTPUT_TOKENS, TRAINING_TOKENS, IMAGES_S, SEQUENCES_S, IMAGES_MIN)
# The workload each training class's figure is in when the request names none.
DEFAULT_WORKLOAD = {TRAINING_CV: "resnet50", TRAINING_NLP: "bert_large_squad"}
# Lambda's units per training workload: images, sequences or tokens per second.
WORKLOAD_UNIT = {
    "resnet50": IMAGES_S,
    "ssd": IMAGES_S,
    "bert_base_squad": SEQUENCES_S,
    "bert_large_squad": SEQUENCES_S,
    "transformerxlbase": TRAINING_TOKENS,
    "transformerxllarge": TRAINING_TOKENS,
    "gnmt": TRAINING_TOKENS,
}
# Useful FLOPs per trained token per parameter: forward 2, backward 4 (activations 2,
# weights 2); LoRA and QLoRA skip the frozen weights' gradients. Recomputation under
# gradient checkpointing is not counted: it is in the measured level.
FLOPS_PER_TOKEN_PARAM = {FULL: 6.0}
ADAPTER_FLOPS_PER_TOKEN_PARAM = 4.0
# MLPerf Inference's SDXL: 1024 x 1024 pixels, 20 denoising steps (what images/min is at).
SDXL_RESOLUTION = 1024
SDXL_STEPS = 20
# A level measured on fewer than two tables has no spread across software settings: this
# log half-width (x/÷ 1.35) is assumed for it and the answer says so.
SINGLE_TABLE_HALF_WIDTH = 0.3
# Widening of the level's log half-width for a software or chip class no table measured.
WIDEN_UNMEASURED = 2.0


@dataclass(frozen=True, slots=True)
class Level:
    """Units per second of the reference GPU (or its physics' share, for LLMs)."""

    key: str
    scale: float
    log_half_width: float
    unit: str
    tables: tuple[str, ...]
    rows: int
    chip_classes: tuple[str, ...]
    basis: str

    @property
    def single_table(self) -> bool:
        return len(self.tables) < 2


@dataclass(frozen=True, slots=True)
class Levels:
    version: str
    levels: dict[str, Level]
    evaluation: dict[str, Any] = field(default_factory=dict)


def level_key(kind: str, software: str) -> str:
    """`decode@vllm`, `prefill@llama.cpp`, `training-cv/resnet50@pytorch`, ..."""
    return f"{kind}@{software}"


def load_levels(path: Path = PARAMS_PATH) -> Levels:
    return _load_levels(str(path))


@lru_cache(maxsize=2)
def _load_levels(path: str) -> Levels:
    data = json.loads(Path(path).read_text())
    levels = {
        key: Level(
            key=key,
            scale=float(v["scale"]),
            log_half_width=float(v["log_half_width"]),
            unit=v["unit"],
            tables=tuple(v["tables"]),
            rows=int(v["rows"]),
            chip_classes=tuple(v["chip_classes"]),
            basis=v["basis"],
        )
        for key, v in data["levels"].items()
    }
    return Levels(data["version"], levels, data.get("evaluation", {}))


class UnknownSoftware(ValueError):
    """A software the class cannot be asked on; names the valid ones."""

    def __init__(self, software: str, valid: tuple[str, ...]) -> None:
        self.software = software
        self.valid = valid
        super().__init__(f"software {software!r} is not one of {', '.join(valid)}")


def software_for(klass: str, software: str | None) -> str:
    """The software the answer assumes: the request's, checked, or the class default."""
    valid = CLASS_SOFTWARE[klass]
    if software is None:
        return DEFAULT_SOFTWARE[klass]
    if software not in valid:
        raise UnknownSoftware(software, valid)
    return software


@dataclass(frozen=True, slots=True)
class LevelUse:
    """A level as one answer uses it: widened where its tables did not reach."""

    level: Level
    log_half_width: float
    caveats: tuple[str, ...]


def use_level(kind: str, software: str, chip: str, levels: Levels | None = None) -> LevelUse:
    """The level of `kind` on `software` for a card of chip class `chip`."""
    table = (levels or load_levels()).levels
    candidates = (software, BORROWED_LEVEL.get(software, software), FALLBACK_LEVEL)
    measured = next(s for s in candidates if level_key(kind, s) in table)
    level = table[level_key(kind, measured)]
    half = level.log_half_width
    caveats: list[str] = []
    if level.single_table:
        half = max(half, SINGLE_TABLE_HALF_WIDTH)
        caveats.append(
            f"{software}'s level ({level.unit}) rests on one table ({level.tables[0]}): its "
            f"spread across settings is assumed (x/÷ {math.exp(SINGLE_TABLE_HALF_WIDTH):.2f})"
        )
    if measured != software:
        half *= WIDEN_UNMEASURED
        caveats.append(
            f"no bundled table measures {software}: {measured}'s level is assumed and the "
            "interval widened"
        )
    if chip not in level.chip_classes:
        half *= WIDEN_UNMEASURED
        caveats.append(
            f"no {measured} table behind this level measures a {chip} card "
            f"(measured: {', '.join(level.chip_classes)}): interval widened"
        )
    return LevelUse(level, half, tuple(caveats))


def combine(value: float, interval: tuple[float, float], half_width: float) -> tuple[float, float]:
    """The ratio's interval around `value` with the level's log half-width added in
    quadrature on each side."""
    low, high = interval
    below = math.log(value / low) if low > 0 else 0.0
    above = math.log(high / value) if high > 0 else 0.0
    return (
        value * math.exp(-math.hypot(below, half_width)),
        value * math.exp(math.hypot(above, half_width)),
    )


def training_flops_per_token(training: LlmTraining | None) -> float:
    """Useful FLOPs per trained token (module docstring)."""
    llm = training or DEFAULT_TRAINING
    per_param = FLOPS_PER_TOKEN_PARAM.get(canonical_mode(llm.mode), ADAPTER_FLOPS_PER_TOKEN_PARAM)
    return per_param * llm.params_b * 1e9


def training_kind(klass: str, workload: str | None) -> str:
    """The level kind of a training class: its workload's for cv and nlp."""
    if klass == TRAINING_LLM:
        return TRAINING_LLM
    return f"{klass}/{workload or DEFAULT_WORKLOAD[klass]}"


def training_unit(klass: str, workload: str | None) -> str:
    if klass == TRAINING_LLM:
        return TRAINING_TOKENS
    return WORKLOAD_UNIT[workload or DEFAULT_WORKLOAD[klass]]


@dataclass(frozen=True, slots=True)
class Throughput:
    """A build's throughput in the workload's own unit (the answer's `throughput`)."""

    value: float
    unit: str
    interval: tuple[float, float]
    software: str
    basis: str
    per_user: float | None = None
    per_user_interval: tuple[float, float] | None = None
    ttft_ms: float | None = None
    ttft_ms_interval: tuple[float, float] | None = None
    concurrency: int | None = None
    prompt_tokens: int | None = None
    caveats: tuple[str, ...] = ()
    # What the figure is at (model, steps, workload), in words.
    workload: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "value": _round(self.value),
            "unit": self.unit,
            "interval": [_round(self.interval[0]), _round(self.interval[1])],
            "per_user": None if self.per_user is None else _round(self.per_user),
            "per_user_interval": _pair(self.per_user_interval),
            "ttft_ms": None if self.ttft_ms is None else _round(self.ttft_ms),
            "ttft_ms_interval": _pair(self.ttft_ms_interval),
            "concurrency": self.concurrency,
            "prompt_tokens": self.prompt_tokens,
            "software": self.software,
            "workload": self.workload,
            "basis": self.basis,
            "caveats": list(self.caveats),
        }


def _round(value: float) -> float:
    """Four significant figures: the interval is far wider than that."""
    return float(f"{value:.4g}")


def _pair(pair: tuple[float, float] | None) -> list[float] | None:
    return None if pair is None else [_round(pair[0]), _round(pair[1])]
