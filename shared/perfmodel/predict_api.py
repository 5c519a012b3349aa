"""The one function the API and CLI call: a full prediction as a JSON-ready dict."""

from __future__ import annotations

from typing import Any

from shared.catalog.specs import load_catalog
from shared.perfmodel.base import PRECISIONS, TASK_FAMILIES
from shared.perfmodel.calibrated import CalibratedModel
from shared.perfmodel.lambda_data import WORKLOAD_ALIASES, WORKLOAD_FAMILY, canonical_workload
from shared.perfmodel.power import power_limit
from shared.perfmodel.scaling import extrapolated, interconnect_class, speedup


class InvalidInputError(ValueError):
    """A bad input: names the field and the values it accepts."""

    def __init__(self, field: str, value: object, valid: list[str] | None = None) -> None:
        self.field = field
        self.valid = valid or []
        hint = f"; valid values: {', '.join(self.valid)}" if self.valid else ""
        super().__init__(f"invalid {field} {value!r}{hint}")


def valid_workloads() -> list[str]:
    return sorted(set(WORKLOAD_FAMILY) | set(WORKLOAD_ALIASES))


def _validate(gpu_id: str, task: str, precision: str, count: int, workload: str | None) -> None:
    catalog = load_catalog()
    if gpu_id not in catalog.by_id:
        raise InvalidInputError("gpu", gpu_id, catalog.ids)
    if task not in TASK_FAMILIES:
        raise InvalidInputError("task", task, list(TASK_FAMILIES))
    if precision not in PRECISIONS:
        raise InvalidInputError("precision", precision, list(PRECISIONS))
    if count < 1:
        raise InvalidInputError("count", count, ["an integer >= 1"])
    if workload is not None:
        name = canonical_workload(workload)
        if name not in WORKLOAD_FAMILY:
            raise InvalidInputError("workload", workload, valid_workloads())
        if WORKLOAD_FAMILY[name] != task:
            raise InvalidInputError("workload", workload, _family_workloads(task))


def _family_workloads(task: str) -> list[str]:
    return [w for w, f in WORKLOAD_FAMILY.items() if f == task]


def predict_full(
    gpu_id: str,
    task: str,
    precision: str,
    count: int = 1,
    power_limit_w: float | None = None,
    workload: str | None = None,
) -> dict[str, Any]:
    """Throughput of `count` GPUs relative to one reference GPU, with its provenance."""
    _validate(gpu_id, task, precision, count, workload)
    gpu = load_catalog().by_id[gpu_id]
    model = CalibratedModel()
    prediction = model.predict(gpu, task, precision, workload=workload)
    if prediction is None:
        raise InvalidInputError("precision", precision, _supported(gpu_id, task))
    factor = speedup(model.params.scaling, gpu, task, count)
    caveats = list(prediction.caveats)
    if count > 1 and extrapolated(model.params.scaling, gpu, count):
        caveats.append(f"{count} GPUs on {interconnect_class(gpu)}: beyond measured counts")
    power: dict[str, float] | None = None
    if power_limit_w is not None:
        try:
            limit = power_limit(gpu, power_limit_w)
        except ValueError as exc:
            raise InvalidInputError("power_limit_w", power_limit_w, [str(exc)]) from exc
        factor *= limit.throughput_factor
        power = {
            "cap_w": limit.cap_w,
            "throughput_factor": limit.throughput_factor,
            "saved_w": limit.saved_w_per_gpu * count,
        }
    low, high = prediction.interval
    return {
        "gpu_id": gpu_id,
        "task": task,
        "precision": precision,
        "workload": canonical_workload(workload) if workload else None,
        "count": count,
        "relative_throughput": prediction.relative_throughput * factor,
        "single_gpu_relative_throughput": prediction.relative_throughput,
        "multi_gpu_speedup": speedup(model.params.scaling, gpu, task, count),
        "interconnect": interconnect_class(gpu),
        "interval": [low * factor, high * factor],
        "basis": prediction.basis,
        "reference_gpu": prediction.reference_gpu,
        "model_version": prediction.model_version,
        "explanation": prediction.explanation,
        "caveats": caveats,
        "power_limit": power,
    }


def _supported(gpu_id: str, task: str) -> list[str]:
    gpu = load_catalog().by_id[gpu_id]
    model = CalibratedModel()
    return [p for p in PRECISIONS if model.predict(gpu, task, p) is not None]
