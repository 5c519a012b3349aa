"""/model/predict's answer in the buyer's units: whether the build can run the workload at
all, its throughput (units.py, absolute.py) and how long a stated run takes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from shared.builds.predict_request import MAX_COUNT
from shared.catalog.specs import GpuSpec
from shared.perfmodel import inference as inf
from shared.perfmodel import units as u
from shared.perfmodel.absolute import Ratio, throughput
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.memory import MemoryEstimate, split_across
from shared.perfmodel.workloads import (
    TRAINING_CLASSES,
    TRAINING_LLM,
    WEIGHT_FORMATS,
    LlmWorkload,
    default_llm,
    implied_phase,
    runs_weights,
    task_class,
)

GPUS_PER_MACHINE = 8


@dataclass(frozen=True, slots=True)
class RunRequest:
    """What a request says of the work it wants timed (all optional)."""

    train_tokens: float | None = None
    epochs: float | None = None
    dataset_tokens: float | None = None
    dataset_size: float | None = None

    @property
    def tokens(self) -> float | None:
        """Training tokens of the run: stated, or epochs x dataset tokens."""
        if self.train_tokens is not None:
            return self.train_tokens
        if self.epochs is not None and self.dataset_tokens is not None:
            return self.epochs * self.dataset_tokens
        return None


def llm_fit(gpu: GpuSpec, llm: LlmWorkload, nodes: Sequence[int], fits: bool) -> dict[str, Any]:
    """Whether the weights and one sequence's KV cache fit the widest split one machine of
    the build allows, the fewest GPUs of one machine that hold them, and the weight formats
    that fit the build as it is."""
    widest = max(t for t in inf.TP_SIZES if t <= max(1, max(nodes)))
    smallest = next((tp for tp in inf.TP_SIZES if inf.sequences_held(gpu, llm, tp) > 0), None)
    weights = [
        w
        for w in WEIGHT_FORMATS
        if runs_weights(gpu, w) and inf.sequences_held(gpu, replace(llm, weights=w), widest) > 0
    ]
    return {
        "fits": fits,
        "smallest_count": smallest,
        "weights_that_fit": weights,
        "basis": f"weights and one {llm.context:,}-token sequence's KV cache in the usable "
        f"memory of at most {widest} GPU(s) of one machine (tensor parallel stays in one "
        f"machine; {GPUS_PER_MACHINE} GPUs a machine at most)",
    }


def training_fit(gpu: GpuSpec, whole: MemoryEstimate, fits: bool) -> dict[str, Any]:
    """Whether the fine-tune's memory, sharded over the build (FSDP), fits; the fewest GPUs
    that hold it."""
    smallest = next(
        (n for n in range(1, MAX_COUNT + 1) if split_across(whole, n).total_gb <= gpu.memory_gb),
        None,
    )
    return {
        "fits": fits,
        "smallest_count": smallest,
        "weights_that_fit": None,
        "basis": "weights, gradients and optimizer states sharded over the GPUs (FSDP), "
        "activations with gradient checkpointing (training.memory)",
    }


def run_time(
    klass: str, workload: str | None, value: u.Throughput, run: RunRequest
) -> dict[str, Any] | None:
    """How long the stated work takes at the throughput and its interval: a fine-tune's
    tokens, or one epoch of a cv or nlp dataset."""
    if klass == TRAINING_LLM:
        work, unit = run.tokens, "training tokens"
    elif klass in TRAINING_CLASSES:
        work, unit = run.dataset_size, u.training_unit(klass, workload).removesuffix("/s")
    else:
        return None
    if work is None:
        return None
    low, high = value.interval

    def hours(rate: float) -> float:
        return work / rate / 3600.0

    return {
        "work": work,
        "unit": unit,
        "what": "the whole run" if klass == TRAINING_LLM else "one epoch",
        "hours": hours(value.value),
        "hours_interval": [hours(high), hours(low)],
        "basis": "the work over the throughput, with its 80 % interval; no start-up, "
        "evaluation or checkpointing time",
    }


def task_units(
    model: ClassModel,
    gpu: GpuSpec,
    task: str,
    precision: str,
    ratio: Ratio,
    nodes: Sequence[int],
    *,
    tp: int = 1,
    software: str | None = None,
) -> u.Throughput:
    """A build's throughput in the task's unit where the request names no LLM: the
    task's default workload (for llm-inference the default LLM, one user)."""
    llm = default_llm(precision) if task == "llm-inference" else None
    klass = task_class(task, llm, implied_phase(task, precision, None))
    return throughput(model, gpu, klass, ratio, software=software, llm=llm, tp=tp, nodes=nodes)
