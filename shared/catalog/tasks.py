"""The tasks /recommend knows: their model family and default minimum GPU memory.

Minimum memory follows docs/domain.md section 2 (Dettmers 2020 unless noted). Each task is
scored with the model family whose kernels dominate it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TaskProfile:
    name: str
    family: str
    min_memory_gb: float
    memory_basis: str


TASKS: dict[str, TaskProfile] = {
    t.name: t
    for t in (
        TaskProfile("cv", "cv", 10, "applied computer vision: 10 GB (2020)"),
        TaskProfile("nlp", "nlp", 11, "pretrained transformers / small transformers: 11 GB (2020)"),
        TaskProfile("llm-inference", "nlp", 24, "working with transformers: 24 GB (2023)"),
        TaskProfile("llm-training", "nlp", 24, "working with transformers: 24 GB (2023)"),
        TaskProfile("image-generation", "cv", 12, "image generation: 12 GB (2023)"),
        TaskProfile("video", "cv", 24, "neural networks for video: 24 GB (2020)"),
        TaskProfile("rl", "cv", 10, "reinforcement learning: 10 GB + a strong CPU (2020)"),
        TaskProfile("kaggle", "cv", 8, "Kaggle competitions: 8 GB (2020)"),
        TaskProfile("prototyping", "nlp", 10, "prototyping transformers or CNNs: 10 GB (2020)"),
    )
}
TASK_NAMES = tuple(TASKS)
PRECISION_NAMES = ("fp16", "bf16", "tf32", "fp32", "fp8", "int8")
SCORE_CONDITIONS = ("new", "used", "any")
# Rentals ranked per GPU-hour: /recommend?condition=cloud&pricing=on-demand|spot.
CLOUD_CONDITIONS = {"cloud:on-demand": "on-demand", "cloud:spot": "spot"}
