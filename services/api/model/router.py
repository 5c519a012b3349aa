"""GET /model/predict: the performance model's answer for one GPU."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from services.api.deps import ModelDep
from services.api.errors import InvalidParameter
from shared.builds.predict import InvalidInputError, predict_full
from shared.catalog.aliases import resolve_alias

router = APIRouter(tags=["model"])


@router.get("/model/predict")
def model_predict(
    gpu: Annotated[str, Query(description="catalog id or a common spelling", max_length=128)],
    task: Annotated[
        str,
        Query(
            description="any /recommend task: cv, nlp, llm-inference, image-generation, video, "
            "rl, kaggle, prototyping"
        ),
    ],
    precision: Annotated[str, Query(description="fp16, bf16, tf32, fp32, fp8 or int8")],
    count: Annotated[int, Query(ge=1, le=64)] = 1,
    power_limit_w: Annotated[float | None, Query(gt=0, le=2000)] = None,
    workload: Annotated[str | None, Query(max_length=64)] = None,
    params_b: Annotated[
        float | None, Query(le=10000, description="llm-inference: model size in billions")
    ] = None,
    # The upper bounds of /recommend (the model names the lower ones): past them a query
    # is a typo.
    batch: Annotated[
        int | None, Query(le=4096, description="llm-inference: sequences at once")
    ] = None,
    context: Annotated[int | None, Query(le=2_000_000, description="llm-inference: tokens")] = None,
    weights: Annotated[
        str | None, Query(description="llm-inference: fp16, bf16, fp8, int8, int4 or fp4")
    ] = None,
    deployment: Annotated[
        str, Query(description="machines for count GPUs: auto, workstation or datacenter")
    ] = "auto",
    network: Annotated[
        str, Query(description="between machines: infiniband or ethernet")
    ] = "infiniband",
    *,
    model: ModelDep,
) -> dict[str, Any]:
    """Throughput relative to the reference GPU, with interval, basis, workload class and
    model version."""
    try:
        return predict_full(
            model,
            resolve_alias(gpu) or gpu,
            task,
            precision,
            count,
            power_limit_w,
            workload,
            params_b=params_b,
            batch=batch,
            context=context,
            weights=weights,
            deployment=deployment,
            network=network,
        )
    except InvalidInputError as exc:
        valid = exc.valid if exc.field != "gpu" else None
        message = str(exc) if exc.field != "gpu" else f"unknown GPU {gpu!r}; GET /gpus lists ids"
        raise InvalidParameter(exc.field, message, valid) from exc
