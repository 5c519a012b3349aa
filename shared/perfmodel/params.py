"""Versioned parameter files (`params/<version>.json`): fitted once, read at run time."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from shared.perfmodel.features import BATCH_EXPONENT
from shared.perfmodel.timemodel import Shares, TimeParams

MODEL_VERSION = "calibrated-2026.12.10"
PARAMS_DIR = Path(__file__).parent / "params"


@dataclass(frozen=True, slots=True)
class ModelParams:
    version: str
    reference_gpu: str
    families: dict[str, TimeParams]
    workloads: dict[str, TimeParams]
    # |log error| quantiles of leave-one-GPU-out CV, by family then data precision.
    cv_log_error: dict[str, dict[str, dict[str, float]]]
    # Measured single-GPU ratios by family, data precision, GPU id.
    measured: dict[str, dict[str, dict[str, float]]]
    scaling: dict[str, Any]
    # The reference GPU's measured fp16 / fp32 throughput, by family.
    reference_fp16_speedup: dict[str, float]
    # In-sample log(measured / model) by family, data precision, GPU id: the source of
    # the sibling correction for unmeasured GPUs (empty before 2026.11.2).
    residuals: dict[str, dict[str, dict[str, float]]]


def time_params_to_json(params: TimeParams) -> dict[str, Any]:
    return {
        "shares": {
            precision: {"bandwidth": s.bandwidth, "matmul": s.matmul, "vector": s.vector}
            for precision, s in params.shares.items()
        },
        "arch_log_factor": params.arch_log_factor,
        "fixed_memory_gb": params.fixed_memory_gb,
        "workloads": list(params.workloads),
        "power_threshold": params.power_threshold,
        "batch_exponent": params.batch_exponent,
        "legacy_table_offset": params.legacy_table_offset,
    }


def time_params_from_json(data: dict[str, Any]) -> TimeParams:
    shares = {
        p: Shares(s["bandwidth"], s["matmul"], s["vector"]) for p, s in data["shares"].items()
    }
    return TimeParams(
        shares,
        data["arch_log_factor"],
        data["fixed_memory_gb"],
        tuple(data["workloads"]),
        data.get("power_threshold"),
        # Absent before 2026.11.3: Dettmers' exponent everywhere, no 2022-table offset.
        data.get("batch_exponent", BATCH_EXPONENT),
        data.get("legacy_table_offset", {}),
    )


def params_from_json(data: dict[str, Any]) -> ModelParams:
    return ModelParams(
        version=data["version"],
        reference_gpu=data["reference_gpu"],
        families={k: time_params_from_json(v) for k, v in data["families"].items()},
        workloads={k: time_params_from_json(v) for k, v in data["workloads"].items()},
        cv_log_error=data["cv_log_error"],
        measured=data["measured"],
        scaling=data["scaling"],
        reference_fp16_speedup=data["reference_fp16_speedup"],
        residuals=data.get("residuals", {}),
    )


def load_params(version: str = MODEL_VERSION) -> ModelParams:
    return _load_params(version)


@lru_cache(maxsize=4)
def _load_params(version: str) -> ModelParams:
    text = resources.files("shared.perfmodel").joinpath("params", f"{version}.json")
    return params_from_json(json.loads(text.read_text("utf-8")))


def write_params(data: dict[str, Any], version: str = MODEL_VERSION) -> Path:
    path = PARAMS_DIR / f"{version}.json"
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", "utf-8")
    _load_params.cache_clear()
    return path
