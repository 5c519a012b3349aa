"""GET /model/predict: the performance model's answer for one GPU."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from services.api.deps import ModelDep, SessionDep, SettingsDep
from services.api.errors import InvalidParameter
from services.api.openapi_inputs import (
    LLM_SERVING_RULE,
    LLM_SHAPE_RULE,
    PHASE_RULE,
    SOFTWARE_RULE,
    inputs,
    one_of,
    rule,
)
from shared.builds.constants import DEPLOYMENTS, NETWORKS
from shared.builds.predict import TASKS, InvalidInputError, predict_request, valid_workloads
from shared.builds.predict_request import PredictRequest
from shared.catalog.aliases import catalog_id
from shared.catalog.specs import load_catalog
from shared.perfmodel.base import PRECISIONS
from shared.perfmodel.llm_shapes import MODEL_NAMES
from shared.perfmodel.llm_training import TRAINING_MODES
from shared.perfmodel.units import SOFTWARE
from shared.perfmodel.workloads import PHASES, WEIGHT_FORMATS
from shared.scoring.card_prices import costing_for

router = APIRouter(tags=["model"])

# PredictRequest keeps its names plain strings (the CLI shares it, and predict_full names
# the valid values in its errors): the document lists the values predict_full takes.
PREDICT_INPUTS = inputs(
    rules=[
        rule(
            "LLM serving fields: only with task llm-inference (params_b also with "
            "llm-training, and context and batch, which size its memory)",
            "params_b",
            "batch",
            "context",
            "weights",
            "model",
            "kv_heads",
            "active_params_b",
        ),
        rule("only with task llm-training", "mode"),
        rule("only with a training task other than llm-training, of its family", "workload"),
        PHASE_RULE,
        LLM_SHAPE_RULE,
        rule(
            "a precision (and LLM weights) the model times on this GPU for this task",
            "precision",
            "weights",
        ),
        rule("within this GPU's power range", "power_limit_w"),
        LLM_SERVING_RULE,
        rule(
            "only with task llm-training (epochs with dataset_tokens)",
            "train_tokens",
            "epochs",
            "dataset_tokens",
        ),
        rule("only with a cv or nlp training task", "dataset_size"),
        SOFTWARE_RULE,
    ],
    task=one_of(TASKS),
    precision=one_of(PRECISIONS),
    mode=one_of(TRAINING_MODES),
    weights=one_of(WEIGHT_FORMATS),
    phase=one_of(PHASES),
    deployment=one_of(DEPLOYMENTS),
    network=one_of(NETWORKS),
    workload=one_of(valid_workloads()),
    model=one_of(MODEL_NAMES),
    params_b={"exclusiveMinimum": 0},
    active_params_b={"exclusiveMinimum": 0},
    batch={"minimum": 1},
    context={"minimum": 1},
    kv_heads={"minimum": 1},
    software=one_of(SOFTWARE),
    prompt_tokens={"minimum": 1},
    train_tokens={"exclusiveMinimum": 0},
    epochs={"exclusiveMinimum": 0},
    dataset_tokens={"exclusiveMinimum": 0},
    dataset_size={"exclusiveMinimum": 0},
    min_tokens_per_s_per_user={"exclusiveMinimum": 0},
    max_ttft_ms={"exclusiveMinimum": 0},
)


@router.get("/model/predict", openapi_extra=PREDICT_INPUTS)
def model_predict(
    query: Annotated[PredictRequest, Query()],
    model: ModelDep,
    session: SessionDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    """Throughput relative to the reference GPU and in the workload's own unit
    (`throughput`), with interval, basis, workload class and model version; `fit` says
    whether the build holds the workload (no throughput when it does not)."""
    gpu_id = catalog_id("gpu", query.gpu)  # an unknown name is a 422 with the closest ids
    gpu = load_catalog().by_id[gpu_id]
    costing = costing_for(session, settings, gpu, query.count, query.deployment, query.network)
    try:
        return predict_request(model, query, gpu_id, costing)
    except InvalidInputError as exc:
        raise InvalidParameter(exc.field, str(exc), exc.valid) from exc
