"""GET /model/predict: the performance model's answer for one GPU."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from services.api.deps import ModelDep
from services.api.errors import InvalidParameter
from shared.builds.predict import InvalidInputError, PredictRequest, predict_request
from shared.catalog.aliases import catalog_id

router = APIRouter(tags=["model"])


@router.get("/model/predict")
def model_predict(
    query: Annotated[PredictRequest, Query()],
    model: ModelDep,
) -> dict[str, Any]:
    """Throughput relative to the reference GPU, with interval, basis, workload class and
    model version."""
    gpu_id = catalog_id("gpu", query.gpu)  # an unknown name is a 422 with the closest ids
    try:
        return predict_request(model, query, gpu_id)
    except InvalidInputError as exc:
        raise InvalidParameter(exc.field, str(exc), exc.valid) from exc
