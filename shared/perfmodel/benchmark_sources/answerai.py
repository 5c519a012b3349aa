"""Answer.AI's FSDP+QLoRA benchmarks (Feb-Mar 2024): wall time for 1024 samples of 2048
tokens, per build of 2-8 GPUs (PROVENANCE.md).

The markdown's tables are copied here row by row (values exact; a test checks each time
against the bundled file). Throughput = 1024 x 2048 tokens / time, for the whole build.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

from shared.perfmodel.benchmark_sources.training_runs import ANSWERAI, TrainingRun
from shared.perfmodel.memory import LORA, QLORA

SOURCE = "answerai-fsdp-qlora"
FILE = "benchmarks_03_2024.md"
SAMPLES, CONTEXT = 1024, 2048
# QLoRA / LoRA compute in BF16 (bitsandbytes' compute dtype in train.py).
PRECISION = "bf16"
CROSS_HARDWARE = "answer.ai llama-2-70b qlora cross-hardware"


@dataclass(frozen=True, slots=True)
class _Row:
    table: str
    model: str
    params_b: float
    mode: str
    gpu_id: str
    gpus: int
    time_s: float
    setting: str


# "Recommendations for Different Hardware Configurations": Llama-2 70B QLoRA, context 2048,
# effective batch ~32, the fastest setting found per system ("A6000 Ada" is the RTX 6000 Ada).
_CROSS = [
    ("rtx-a5000", 2, 9688, "CPU+activation offload, batch 2"),
    ("rtx-a5000", 4, 4829, "batch 1"),
    ("rtx-a5000", 8, 2613, "batch 1"),
    ("rtx-6000-ada", 2, 5867, "batch 2"),
    ("rtx-6000-ada", 4, 2904, "batch 3"),
    ("a100-40gb-sxm4", 2, 3277, "batch 1"),
    ("a100-40gb-sxm4", 4, 1266, "batch 4"),
    ("a100-40gb-sxm4", 8, 672, "batch 4"),
    ("h100-sxm5", 4, 667, "batch 8"),
]
# The case studies run on both machines with the same settings: (model, size, mode,
# setting, 2x RTX 3090 time, 2x RTX 4090 time). The 3090s were power-limited to 280 W on
# an older board; the 4090s had full PCIe 4.0 x16 lanes.
_CASES = [
    ("llama-2-7b", 7.0, LORA, "DDP, batch 4", 881, 437),
    ("llama-2-7b", 7.0, LORA, "FSDP, batch 6", 1199, 481),
    ("llama-2-7b", 7.0, QLORA, "DDP, batch 8", 875, 450),
    ("llama-2-7b", 7.0, QLORA, "FSDP, batch 10", 936, 466),
    ("yi-34b", 34.0, QLORA, "FSDP, batch 2", 5041, 2072),
    ("yi-34b", 34.0, QLORA, "FSDP + CPU offload, batch 4", 4830, 2061),
    ("llama-2-70b", 70.0, QLORA, "FSDP + CPU offload, batch 2", 11795, 4399),
]


@dataclass(frozen=True, slots=True)
class CrossBuild:
    """One build of the cross-hardware table, with the setting's batch per GPU."""

    gpu_id: str
    gpus: int
    time_s: float
    batch: int
    cpu_offload: bool

    @property
    def steps(self) -> float:
        return SAMPLES / (self.batch * self.gpus)


def cross_hardware_builds() -> list[CrossBuild]:
    """The Llama-2 70B QLoRA builds (the setting names each one's batch per GPU)."""
    out = []
    for gpu, n, t, setting in _CROSS:
        batch = re.search(r"batch (\d+)", setting)
        if batch is None:
            raise ValueError(f"no batch in the setting {setting!r}")
        out.append(CrossBuild(gpu, n, float(t), int(batch.group(1)), "offload" in setting))
    return out


def _rows() -> list[_Row]:
    rows = [
        _Row(CROSS_HARDWARE, "llama-2-70b", 70.0, QLORA, gpu, n, t, setting)
        for gpu, n, t, setting in _CROSS
    ]
    for model, size, mode, setting, t3090, t4090 in _CASES:
        table = f"answer.ai {model} {mode} {setting} (2x 3090 vs 2x 4090)"
        rows.append(_Row(table, model, size, mode, "rtx-3090", 2, t3090, setting))
        rows.append(_Row(table, model, size, mode, "rtx-4090", 2, t4090, setting))
    return rows


def load_answerai() -> list[TrainingRun]:
    """Every row, as throughput (tokens/s) of the build."""
    return [
        TrainingRun(
            dataset=ANSWERAI,
            table_id=r.table,
            workload=f"{r.model} {r.mode}",
            gpu_id=r.gpu_id,
            gpus=r.gpus,
            params_b=r.params_b,
            mode=r.mode,
            precision=PRECISION,
            value=SAMPLES * CONTEXT / r.time_s,
            unit="tokens/s",
            system=f"{r.gpus}x {r.gpu_id} ({r.setting})",
        )
        for r in _rows()
    ]


def source_text() -> str:
    """The bundled markdown (tests check the copied times against it)."""
    path = resources.files("shared.perfmodel").joinpath("data", "benchmarks", SOURCE, FILE)
    return path.read_text("utf-8")
