"""GET /model/predict: the performance model's answer for one GPU."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from services.api.deps import ModelDep
from services.api.errors import InvalidParameter
from shared.builds.predict import InvalidInputError, PredictRequest, predict_request
from shared.catalog.aliases import resolve_alias

router = APIRouter(tags=["model"])


@router.get("/model/predict")
def model_predict(
    query: Annotated[PredictRequest, Query()],
    model: ModelDep,
) -> dict[str, Any]:
    """Throughput relative to the reference GPU, with interval, basis, workload class and
    model version."""
    try:
        return predict_request(model, query, resolve_alias(query.gpu) or query.gpu)
    except InvalidInputError as exc:
        gpu = query.gpu
        valid = exc.valid if exc.field != "gpu" else None
        message = str(exc) if exc.field != "gpu" else f"unknown GPU {gpu!r}; GET /gpus lists ids"
        raise InvalidParameter(exc.field, message, valid) from exc
