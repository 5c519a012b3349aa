"""Training runs of a stated model size and mode: the rows the LLM training share is
fitted and scored on (GPU-Insights, Answer.AI). Unlike `Measurement`, a run carries the
size of the model trained and how (full, LoRA, QLoRA), which the share depends on."""

from __future__ import annotations

from dataclasses import dataclass

GPU_INSIGHTS = "gpu-insights"
ANSWERAI = "answer.ai"


@dataclass(frozen=True, slots=True)
class TrainingRun:
    """One build's training throughput in one same-software table."""

    dataset: str
    table_id: str
    # The model trained (ratios are only formed within one table, so within one model).
    workload: str
    gpu_id: str
    # GPUs in the build: the value is the build's, not divided by the count.
    gpus: int
    params_b: float
    mode: str
    precision: str
    value: float
    unit: str
    system: str
