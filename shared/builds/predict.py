"""The one function the API and CLI call: a full prediction as a JSON-ready dict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from shared.builds.constants import AUTO, DEPLOYMENTS, MODEL_NETWORK, NETWORKS
from shared.builds.layout import plan_layout
from shared.builds.predict_request import MAX_PARAMS_B, PredictRequest
from shared.builds.serving_target import Targets, serve_to_target, serving_speed
from shared.builds.throughput import RunRequest, llm_fit, run_time, training_fit
from shared.builds.unit_cost import BUY, COST_UNITS, RENT, Costing
from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel import units
from shared.perfmodel.absolute import DEFAULT_PROMPT_TOKENS, Ratio, throughput
from shared.perfmodel.base import PRECISIONS
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.inference import ServingBatch, serving_batch
from shared.perfmodel.lambda_data import WORKLOAD_ALIASES, WORKLOAD_FAMILY, canonical_workload
from shared.perfmodel.llm_shapes import ShapeInputError, resolve
from shared.perfmodel.llm_training import (
    DEFAULT_TRAINING,
    TRAINING_MODES,
    LlmTraining,
    canonical_mode,
    matrix_share,
)
from shared.perfmodel.memory import FULL, LORA, QLORA, MemoryEstimate, llm_memory, split_across
from shared.perfmodel.power import power_limit
from shared.perfmodel.scaling import interconnect_class
from shared.perfmodel.units import TRAINING_TOKENS, Throughput
from shared.perfmodel.workloads import (
    CLASS_BASIS,
    CLASS_FAMILY,
    DEFAULT_LLM_CONTEXT,
    INFERENCE_CLASS,
    PHASES,
    TASK_CLASS,
    TRAINING_CLASSES,
    TRAINING_CV,
    TRAINING_LLM,
    TRAINING_NLP,
    WEIGHT_FORMATS,
    LlmWorkload,
    default_llm,
    weights_for,
)

# What each fine-tuning mode keeps per parameter (memory.py's accounting).
TRAINING_STATE = {
    FULL: "16 bytes per parameter (weights, gradients, fp32 master weights, Adam)",
    LORA: "frozen weights at {weights}, adapters with their Adam states",
    QLORA: "frozen weights in 4-bit NF4, adapters with their Adam states",
}

# Every /recommend task; "cv" and "nlp" are also the training families.
TASKS = tuple(TASK_CLASS)


class InvalidInputError(ValueError):
    """A bad input: names the field and the values it accepts."""

    def __init__(self, field: str, value: object, valid: list[str] | None = None) -> None:
        self.field = field
        self.valid = valid or []
        hint = f"; valid values: {', '.join(self.valid)}" if self.valid else ""
        super().__init__(f"invalid {field} {value!r}{hint}")


def _choices(deployment: str, network: str) -> None:
    if deployment not in DEPLOYMENTS:
        raise InvalidInputError("deployment", deployment, list(DEPLOYMENTS))
    if network not in NETWORKS:
        raise InvalidInputError("network", network, list(NETWORKS))


def valid_workloads() -> list[str]:
    return sorted(set(WORKLOAD_FAMILY) | set(WORKLOAD_ALIASES))


def checked_phase(task: str, phase: str | None) -> str | None:
    """`phase` if this task can be asked for it: inference only where the task has a fitted
    inference class (cv: CNN inference); llm-inference and image-generation are inference
    already. InvalidInputError names the field and the valid values otherwise."""
    if phase is None:
        return None
    if phase not in PHASES:
        raise InvalidInputError("phase", phase, list(PHASES))
    if phase == "inference" and task not in INFERENCE_CLASS:
        raise InvalidInputError(
            "phase",
            phase,
            [
                f"inference with task {', '.join(INFERENCE_CLASS)} (llm-inference and "
                "image-generation are inference tasks)",
                "training",
            ],
        )
    if phase == "training" and TASK_CLASS[task] not in TRAINING_CLASSES:
        raise InvalidInputError("phase", phase, [f"inference ({task} is an inference task)"])
    return phase


def _validate(gpu_id: str, task: str, precision: str, count: int, workload: str | None) -> None:
    catalog = load_catalog()
    if gpu_id not in catalog.by_id:
        raise InvalidInputError("gpu", gpu_id, catalog.ids)
    if task not in TASK_CLASS:
        raise InvalidInputError("task", task, list(TASKS))
    if precision not in PRECISIONS:
        raise InvalidInputError("precision", precision, list(PRECISIONS))
    if count < 1:
        raise InvalidInputError("count", count, ["an integer >= 1"])
    if workload is not None:
        name = canonical_workload(workload)
        if name not in WORKLOAD_FAMILY:
            raise InvalidInputError("workload", workload, valid_workloads())
        klass = TASK_CLASS[task]
        if klass not in TRAINING_CLASSES or klass == TRAINING_LLM:
            raise InvalidInputError(
                "workload", workload, ["only with a training task other than llm-training"]
            )
        if WORKLOAD_FAMILY[name] != CLASS_FAMILY[klass]:
            raise InvalidInputError("workload", workload, _family_workloads(CLASS_FAMILY[klass]))


def _family_workloads(family: str) -> list[str]:
    return [w for w, f in WORKLOAD_FAMILY.items() if f == family]


def llm_workload(
    task: str,
    precision: str,
    params_b: float | None,
    batch: int | None,
    context: int | None,
    weights: str | None,
    model: str | None = None,
    kv_heads: int | None = None,
    active_params_b: float | None = None,
) -> LlmWorkload | None:
    """The LLM of an llm-inference request; None for other tasks (LLM fields rejected)."""
    given = {
        "params_b": params_b,
        "batch": batch,
        "context": context,
        "weights": weights,
        "model": model,
        "kv_heads": kv_heads,
        "active_params_b": active_params_b,
    }
    if task == "llm-training":
        # llm-training takes params_b (and mode: llm_training_workload), and the tokens
        # its memory is sized for (context, batch: _training_memory); the rest is
        # inference-only.
        for name in ("params_b", "batch", "context"):
            given.pop(name)
    if task != "llm-inference":
        for name, value in given.items():
            if value is not None:
                raise InvalidInputError(name, value, ["only with task llm-inference"])
    # Checked here for llm-training too, whose memory they size.
    if batch is not None and batch < 1:
        raise InvalidInputError("batch", batch, ["an integer >= 1"])
    if context is not None and context < 1:
        raise InvalidInputError("context", context, ["an integer >= 1"])
    if task != "llm-inference":
        return None
    if params_b is not None and not 0 < params_b <= MAX_PARAMS_B:
        raise InvalidInputError("params_b", params_b, [f"a number in (0, {MAX_PARAMS_B:g}]"])
    if weights is not None and weights not in WEIGHT_FORMATS:
        raise InvalidInputError("weights", weights, list(WEIGHT_FORMATS))
    base = default_llm(precision)
    if kv_heads is not None and kv_heads < 1:
        raise InvalidInputError("kv_heads", kv_heads, ["an integer >= 1"])
    if active_params_b is not None and active_params_b <= 0:
        raise InvalidInputError("active_params_b", active_params_b, ["a number > 0"])
    size = params_b if params_b is not None or model else base.params_b
    try:
        shape = resolve(size, model, kv_heads, active_params_b)
    except ShapeInputError as exc:
        value = given.get(exc.field)
        raise InvalidInputError(exc.field, value, exc.valid or [exc.message]) from exc
    return LlmWorkload(
        params_b=size if size is not None else shape.params_b,
        weights=weights or base.weights,
        batch=batch or 1,
        context=context or DEFAULT_LLM_CONTEXT,
        active_params_b=active_params_b if model is None else shape.active_params_b,
        model=shape.name or None,
        kv_heads=kv_heads if model is None else None,
    )


def llm_training_workload(
    task: str, params_b: float | None, mode: str | None
) -> LlmTraining | None:
    """The LLM an llm-training request trains; None without size or mode (the class's
    default, an 8 B LoRA) and for other tasks (mode rejected there)."""
    if task != "llm-training":
        if mode is not None:
            raise InvalidInputError("mode", mode, ["only with task llm-training"])
        return None
    if params_b is not None and not 0 < params_b <= MAX_PARAMS_B:
        raise InvalidInputError("params_b", params_b, [f"a number in (0, {MAX_PARAMS_B:g}]"])
    if mode is not None and mode not in TRAINING_MODES:
        raise InvalidInputError("mode", mode, list(TRAINING_MODES))
    if params_b is None and mode is None:
        return None
    return LlmTraining(
        params_b if params_b is not None else DEFAULT_TRAINING.params_b,
        canonical_mode(mode) if mode is not None else DEFAULT_TRAINING.mode,
    )


def predict_request(
    model: ClassModel,
    req: PredictRequest,
    gpu_id: str | None = None,
    costing: Costing | None = None,
) -> dict[str, Any]:
    """predict_full for a request (`gpu_id`: the request's GPU already resolved;
    `costing`: today's prices, for the cost per unit)."""
    return predict_full(
        model,
        gpu_id or req.gpu,
        req.task,
        req.precision,
        req.count,
        req.power_limit_w,
        req.workload,
        params_b=req.params_b,
        mode=req.mode,
        batch=req.batch,
        context=req.context,
        weights=req.weights,
        llm_model=req.model,
        kv_heads=req.kv_heads,
        active_params_b=req.active_params_b,
        deployment=req.deployment,
        network=req.network,
        phase=req.phase,
        software=req.software,
        prompt_tokens=req.prompt_tokens,
        run=RunRequest(req.train_tokens, req.epochs, req.dataset_tokens, req.dataset_size),
        targets=Targets(req.min_tokens_per_s_per_user, req.max_ttft_ms),
        costing=costing,
    )


def predict_full(
    model: ClassModel,
    gpu_id: str,
    task: str,
    precision: str,
    count: int = 1,
    power_limit_w: float | None = None,
    workload: str | None = None,
    *,
    params_b: float | None = None,
    batch: int | None = None,
    context: int | None = None,
    weights: str | None = None,
    llm_model: str | None = None,
    kv_heads: int | None = None,
    active_params_b: float | None = None,
    deployment: str = AUTO,
    network: str = "infiniband",
    mode: str | None = None,
    phase: str | None = None,
    software: str | None = None,
    prompt_tokens: int | None = None,
    run: RunRequest | None = None,
    targets: Targets | None = None,
    costing: Costing | None = None,
) -> dict[str, Any]:
    """Throughput of `count` GPUs relative to one reference GPU and in the workload's own
    unit, with its provenance; the GPUs sit in the layout the one build model gives them
    (as on /recommend and quotes). An LLM is timed at its effective batch: what the GPUs'
    memory holds beside the weights, at most the requested batch
    (`inference.effective_batch`). A build that cannot hold the workload gets no
    throughput: `fit` says so, with the fewest GPUs that would."""
    _validate(gpu_id, task, precision, count, workload)
    _choices(deployment, network)
    phase = checked_phase(task, phase)
    run = run or RunRequest()
    _check_units_inputs(task, prompt_tokens, run)
    _check_targets(task, targets)
    llm = llm_workload(
        task, precision, params_b, batch, context, weights, llm_model, kv_heads, active_params_b
    )
    training = llm_training_workload(task, params_b, mode)
    gpu = load_catalog().by_id[gpu_id]
    layout = plan_layout([gpu], count, deployment)
    result = model.predict_task(
        gpu,
        task,
        precision,
        llm,
        count,
        workload,
        nodes=layout.node_counts,
        network=MODEL_NETWORK[network],
        training=training,
        phase=phase,
    )
    if result is None:
        if llm is not None and weights is not None:
            raise InvalidInputError("weights", weights, _supported_weights(model, gpu_id, llm))
        raise InvalidInputError("precision", precision, _supported(model, gpu_id, task))
    prediction = result.single
    factor = result.multi_gpu_speedup
    # The model times the batch the split's memory holds; the answer says which.
    serving = None if llm is None else serving_batch(gpu, llm, tp=result.tensor_parallel)
    caveats = list(prediction.caveats)
    memory = _training_memory(gpu, task, precision, training, count, context, batch)
    if memory is not None and memory.caveat is not None:
        caveats.append(memory.caveat)
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
    # One GPU's interval with the speed-up's own error, then the speed-up and power factor.
    low, high = result.single_interval
    klass = result.workload_class
    name = canonical_workload(workload) if workload else None
    if software is not None:
        _check_software(klass, software)
    fit = _fit(gpu, task, precision, training, memory, llm, layout.node_counts, result.fits)
    absolute = None
    if fit["fits"]:
        absolute = throughput(
            model,
            gpu,
            klass,
            Ratio(prediction.relative_throughput * factor, (low * factor, high * factor)),
            software=software,
            llm=result.llm,
            training=training,
            workload=name,
            tp=result.tensor_parallel,
            nodes=layout.node_counts,
            prompt_tokens=prompt_tokens or DEFAULT_PROMPT_TOKENS,
        )
    else:
        caveats.append(
            "no throughput: the build cannot hold this workload "
            f"(fit.smallest_count: {fit['smallest_count'] or 'none within one machine'})"
        )
    relative: float | None = prediction.relative_throughput * factor if fit["fits"] else None
    interval: list[float] | None = [low * factor, high * factor] if fit["fits"] else None
    target = None
    if targets is not None and targets.given and absolute is not None:
        assert result.llm is not None
        met = serve_to_target(
            model,
            gpu,
            result.llm,
            layout,
            targets,
            software=software,
            prompt_tokens=prompt_tokens or DEFAULT_PROMPT_TOKENS,
            speed=serving_speed(model, gpu, layout, factor / result.multi_gpu_speedup),
        )
        target = met.as_dict(targets)
        absolute = met.throughput
        relative = None if met.ratio is None else met.ratio.value
        interval = None if met.ratio is None else list(met.ratio.interval)
    return {
        "gpu_id": gpu_id,
        "task": task,
        "precision": precision,
        "workload": name,
        "count": count,
        "relative_throughput": relative,
        "single_gpu_relative_throughput": prediction.relative_throughput if fit["fits"] else None,
        "multi_gpu_speedup": result.multi_gpu_speedup,
        "interconnect": interconnect_class(gpu),
        "interval": interval,
        "throughput": None if absolute is None else absolute.as_dict(),
        "run": None if absolute is None else run_time(klass, name, absolute, run),
        "target": target,
        "meets_target": None if target is None else target["meets_target"],
        "cost_per_unit": _cost(costing, absolute, BUY, count, run),
        "rent_cost_per_unit": _cost(costing, absolute, RENT, count, run),
        "fit": fit,
        "basis": prediction.basis,
        "reference_gpu": prediction.reference_gpu,
        "model_version": prediction.model_version,
        "explanation": prediction.explanation + (serving.note if serving else ""),
        "caveats": caveats,
        "power_limit": power,
        "workload_class": klass,
        "class_basis": CLASS_BASIS[klass],
        "tensor_parallel": result.tensor_parallel,
        "layout": layout.as_dict(),
        "network": network if layout.nodes > 1 else None,
        "llm": None if llm is None or serving is None else _llm_answer(llm, serving),
        "prefill": _prefill(model, gpu, task, precision, llm),
        "training": _training_answer(model, task, training, memory),
    }


def _cost(
    costing: Costing | None,
    absolute: Throughput | None,
    condition: str,
    count: int,
    run: RunRequest,
) -> dict[str, Any] | None:
    """Dollars per unit of work bought or rented at today's stored price; with a stated
    fine-tune, the run's dollars too."""
    if costing is None or absolute is None:
        return None
    cost = costing.cost(absolute, condition, count)
    if cost is None:
        return None
    tokens = run.tokens
    if tokens is not None and absolute.unit == TRAINING_TOKENS:
        cost = replace(cost, run_usd=cost.usd * tokens / COST_UNITS[absolute.unit][0])
    return cost.as_dict()


def _check_targets(task: str, targets: Targets | None) -> None:
    if targets is None:
        return
    for field, value in (
        ("min_tokens_per_s_per_user", targets.min_tokens_per_s_per_user),
        ("max_ttft_ms", targets.max_ttft_ms),
    ):
        if value is None:
            continue
        if task != "llm-inference":
            raise InvalidInputError(field, value, ["only with task llm-inference"])
        if value <= 0:
            raise InvalidInputError(field, value, ["a number > 0"])


def _check_software(klass: str, software: str) -> None:
    try:
        units.software_for(klass, software)
    except units.UnknownSoftware as exc:
        raise InvalidInputError("software", software, list(exc.valid)) from exc


def _check_units_inputs(task: str, prompt_tokens: int | None, run: RunRequest) -> None:
    """The buyer's-units fields each belong to one kind of task: a 422 names the field."""
    if prompt_tokens is not None:
        if task != "llm-inference":
            raise InvalidInputError(
                "prompt_tokens", prompt_tokens, ["only with task llm-inference"]
            )
        if prompt_tokens < 1:
            raise InvalidInputError("prompt_tokens", prompt_tokens, ["an integer >= 1"])
    llm_only = {
        "train_tokens": run.train_tokens,
        "epochs": run.epochs,
        "dataset_tokens": run.dataset_tokens,
    }
    for field, value in llm_only.items():
        if value is None:
            continue
        if task != "llm-training":
            raise InvalidInputError(field, value, ["only with task llm-training"])
        if value <= 0:
            raise InvalidInputError(field, value, ["a number > 0"])
    if (run.epochs is None) != (run.dataset_tokens is None):
        missing = "dataset_tokens" if run.dataset_tokens is None else "epochs"
        given = run.epochs if run.dataset_tokens is None else run.dataset_tokens
        raise InvalidInputError(missing, None, [f"a number > 0, with {given!r} given"])
    if run.dataset_size is not None:
        if TASK_CLASS[task] not in (TRAINING_CV, TRAINING_NLP):
            raise InvalidInputError(
                "dataset_size", run.dataset_size, ["only with a cv or nlp training task"]
            )
        if run.dataset_size <= 0:
            raise InvalidInputError("dataset_size", run.dataset_size, ["a number > 0"])


def _fit(
    gpu: GpuSpec,
    task: str,
    precision: str,
    training: LlmTraining | None,
    memory: TrainingMemory | None,
    llm: LlmWorkload | None,
    nodes: Sequence[int],
    fits: bool,
) -> dict[str, Any]:
    """Whether the build holds the workload (LLMs: weights and one sequence; fine-tunes:
    their sharded memory); other tasks always run (their batch shrinks to fit)."""
    if task == "llm-inference":
        return llm_fit(gpu, llm or default_llm(precision), nodes, fits)
    if memory is not None:
        return training_fit(gpu, memory.estimate, bool(memory.answer["fits"]))
    return {
        "fits": True,
        "smallest_count": 1,
        "weights_that_fit": None,
        "basis": "a training or vision batch shrinks to what one GPU's memory holds",
    }


def _training_answer(
    model: ClassModel,
    task: str,
    training: LlmTraining | None,
    memory: TrainingMemory | None,
) -> dict[str, Any] | None:
    """llm-training: the model size and mode timed, the matrix share they give, and the
    memory they need."""
    if task != "llm-training":
        return None
    llm = training or DEFAULT_TRAINING
    ceiling = model.params.fitted.llm_training_share()
    return {
        "params_b": llm.params_b,
        "mode": llm.mode,
        "matrix_share": round(matrix_share(llm, ceiling), 4),
        "assumed": training is None,
        "memory": None if memory is None else memory.answer,
    }


@dataclass(frozen=True, slots=True)
class TrainingMemory:
    """What a fine-tune needs (the answer's `training.memory`) and, when it does not fit,
    the caveat that says so."""

    answer: dict[str, Any]
    caveat: str | None
    # The whole fine-tune's memory, before sharding over the GPUs.
    estimate: MemoryEstimate


def _training_memory(
    gpu: GpuSpec,
    task: str,
    precision: str,
    training: LlmTraining | None,
    count: int,
    context: int | None = None,
    batch: int | None = None,
) -> TrainingMemory | None:
    """llm-training: the memory the fine-tune needs for `batch` sequences of `context`
    tokens (/recommend's defaults: one of 4,096), sharded over the build's GPUs (FSDP) as
    /recommend sizes it (memory.py), and whether it fits. The speed does not depend on
    them (the matrix share depends on the size and mode)."""
    if task != "llm-training":
        return None
    llm = training or DEFAULT_TRAINING
    tokens, sequences = context or DEFAULT_LLM_CONTEXT, batch or 1
    weights = weights_for(precision)
    whole = llm_memory(llm.params_b, weights, llm.mode, context=tokens, batch=sequences)
    per_gpu = split_across(whole, count).total_gb
    held = TRAINING_STATE[llm.mode].format(weights=weights)
    plural = "s" if sequences > 1 else ""
    step = f"a batch of {sequences} {tokens:,}-token sequence{plural}"
    over = f", {per_gpu:.0f} GB per GPU over {count}," if count > 1 else ""
    fits = per_gpu <= gpu.memory_gb
    answer = {
        "total_gb": round(whole.total_gb, 2),
        "per_gpu_gb": round(per_gpu, 2),
        "fits": fits,
        "context": tokens,
        "batch": sequences,
        "basis": f"{held}; {step} with gradient checkpointing; sharded over the GPUs (FSDP)",
    }
    too_big = (
        f"a {llm.params_b:g}B {llm.mode} fine-tune needs ~{whole.total_gb:.0f} GB{over} at "
        f"{step}: does not fit on {count} x {gpu.memory_gb:g} GB"
    )
    return TrainingMemory(answer, None if fits else too_big, whole)


def _llm_answer(llm: LlmWorkload, serving: ServingBatch) -> dict[str, Any]:
    """The LLM as timed: the request's fields, its shape and the effective batch."""
    shape = serving.shape
    return {
        "params_b": llm.params_b,
        "weights": llm.weights,
        "batch": llm.batch,
        "context": llm.context,
        "model": llm.model,
        "active_params_b": llm.active_b,
        "layers": shape.layers,
        "kv_heads": shape.kv_heads,
        "head_dim": shape.head_dim,
        "attention": shape.attention,
        "shape_basis": shape.source,
        "kv_gb_per_sequence": round(serving.kv_gb_per_sequence, 4),
        "effective_batch": serving.batch,
        "sequences_held": serving.holds,
    }


def _prefill(
    model: ClassModel, gpu: GpuSpec, task: str, precision: str, llm: LlmWorkload | None
) -> dict[str, Any] | None:
    """llm-inference: the prompt's processing beside the decode answer (one GPU)."""
    if task != "llm-inference":
        return None
    prediction = model.predict_prefill(gpu, llm or default_llm(precision))
    if prediction is None:
        return None
    return {
        "workload_class": prediction.task,
        "class_basis": CLASS_BASIS[prediction.task],
        "relative_throughput": prediction.relative_throughput,
        "interval": list(prediction.interval),
        "basis": prediction.basis,
        "explanation": prediction.explanation,
        "caveats": list(prediction.caveats),
    }


def _supported(model: ClassModel, gpu_id: str, task: str) -> list[str]:
    gpu = load_catalog().by_id[gpu_id]
    return [p for p in PRECISIONS if model.predict(gpu, task, p) is not None]


def _supported_weights(model: ClassModel, gpu_id: str, llm: LlmWorkload) -> list[str]:
    gpu = load_catalog().by_id[gpu_id]
    return [
        w
        for w in WEIGHT_FORMATS
        if model.predict_task(gpu, "llm-inference", "fp16", replace(llm, weights=w)) is not None
    ]
