"""A build's throughput in the workload's own unit: the class model's ratio to the reference
GPU times the measured level of the workload and software (units.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel import inference as inf
from shared.perfmodel import prefill
from shared.perfmodel import units as u
from shared.perfmodel.classmodel import CLASS_STACK, SERVING_STACK, ClassModel
from shared.perfmodel.llm_training import DEFAULT_TRAINING, LlmTraining
from shared.perfmodel.workloads import (
    DIFFUSION,
    LLM_CLASSES,
    TRAINING_CLASSES,
    TRAINING_LLM,
    LlmWorkload,
)

DEFAULT_PROMPT_TOKENS = 512
# The concurrency a serving stack's only bundled absolute table ran at (llmperf: vLLM).
MEASURED_CONCURRENCY = {"decode@vllm": 64}
UNITS_DOC = "docs/model/units.md"


@dataclass(frozen=True, slots=True)
class Ratio:
    """The class model's answer for a build: its throughput relative to one reference GPU
    and that value's 80 % interval."""

    value: float
    interval: tuple[float, float]


def throughput(
    model: ClassModel,
    gpu: GpuSpec,
    klass: str,
    ratio: Ratio,
    *,
    software: str | None = None,
    llm: LlmWorkload | None = None,
    training: LlmTraining | None = None,
    workload: str | None = None,
    tp: int = 1,
    nodes: Sequence[int] = (1,),
    prompt_tokens: int = DEFAULT_PROMPT_TOKENS,
) -> u.Throughput:
    """The build's units per second (images per minute for image generation), its interval
    and basis. `software` is checked against the class (units.UnknownSoftware)."""
    chosen = u.software_for(klass, software)
    chip = prefill.chip_class(gpu)
    if klass in LLM_CLASSES:
        assert llm is not None
        return _llm(model, gpu, klass, ratio, chosen, chip, llm, tp, nodes, prompt_tokens)
    if klass in TRAINING_CLASSES:
        return _training(klass, ratio, chosen, chip, training, workload)
    return _vision(klass, ratio, chosen, chip)


def _scaled(ratio: Ratio, factor: float, use: u.LevelUse) -> tuple[float, tuple[float, float]]:
    value = ratio.value * factor
    low, high = ratio.interval
    return value, u.combine(value, (low * factor, high * factor), use.log_half_width)


def _basis(use: u.LevelUse, what: str) -> str:
    level = use.level
    return (
        f"calibrated: the model's ratio to the reference GPU x {what} measured on "
        f"{level.basis}; 80 % interval: the ratio's and the level's spread across tables "
        f"({UNITS_DOC})"
    )


def _training(
    klass: str,
    ratio: Ratio,
    software: str,
    chip: str,
    training: LlmTraining | None,
    workload: str | None,
) -> u.Throughput:
    use = u.use_level(u.training_kind(klass, workload), software, chip)
    if klass == TRAINING_LLM:
        llm = training or DEFAULT_TRAINING
        factor = use.level.scale / u.training_flops_per_token(llm)
        what = (
            f"the reference's useful training FLOP/s ({use.level.scale / 1e12:.1f} T) over "
            f"{u.training_flops_per_token(llm) / 1e9:.3g} GFLOP a token ({llm.params_b:g}B "
            f"{llm.mode})"
        )
        described = f"{llm.params_b:g}B {llm.mode} fine-tune"
    else:
        factor = use.level.scale
        name = workload or u.DEFAULT_WORKLOAD[klass]
        what = f"the reference's {name} rate ({factor:.4g} {u.training_unit(klass, workload)})"
        described = name
    value, interval = _scaled(ratio, factor, use)
    return u.Throughput(
        value=value,
        unit=u.training_unit(klass, workload),
        interval=interval,
        software=software,
        basis=_basis(use, what),
        caveats=use.caveats,
        workload=described,
    )


def _vision(klass: str, ratio: Ratio, software: str, chip: str) -> u.Throughput:
    use = u.use_level(klass, software, chip)
    per_minute = klass == DIFFUSION
    factor = use.level.scale * (60.0 if per_minute else 1.0)
    value, interval = _scaled(ratio, factor, use)
    if per_minute:
        described = (
            f"SDXL-class, {u.SDXL_RESOLUTION} x {u.SDXL_RESOLUTION}, {u.SDXL_STEPS} steps "
            "(MLPerf Inference's setting)"
        )
    else:
        described = "ResNet-50-class CNN inference (MLPerf Inference Offline)"
    return u.Throughput(
        value=value,
        unit=u.IMAGES_MIN if per_minute else u.IMAGES_S,
        interval=interval,
        software=software,
        basis=_basis(use, f"the reference's {u.IMAGES_S} ({use.level.scale:.4g})"),
        caveats=use.caveats,
        workload=described,
    )


def _llm(
    model: ClassModel,
    gpu: GpuSpec,
    klass: str,
    ratio: Ratio,
    software: str,
    chip: str,
    llm: LlmWorkload,
    tp: int,
    nodes: Sequence[int],
    prompt_tokens: int,
) -> u.Throughput:
    params = model.params.fitted.inference()
    ref = load_catalog().by_id[model.reference_gpu]
    stack = u.MODEL_STACK[software]
    reference = replace(llm, weights="fp16", prompt_tokens=prompt_tokens)
    ref_tps = inf.served_decode_tokens_per_s(ref, reference, params, stack)
    use = u.use_level("decode", software, chip)
    value, interval = _scaled(ratio, ref_tps * use.level.scale, use)
    # Each sequence gets one token a step: a user's rate is the group's over its batch.
    replicas = max(1, sum(n // tp for n in nodes))
    batch = inf.effective_batch(gpu, llm, tp)
    per_user = value / (replicas * batch)
    low, high = interval
    ttft = _ttft(model, gpu, llm.with_batch(batch), software, chip, tp, prompt_tokens, stack)
    caveats = [*use.caveats, *ttft.caveats]
    measured_at = MEASURED_CONCURRENCY.get(use.level.key)
    if measured_at is not None and batch < measured_at / 4:
        caveats.append(
            f"{use.level.key.split('@')[1]}'s level and per-step overhead are measured at "
            f"{measured_at} concurrent requests only; at {batch} the per-user figure is an "
            "extrapolation (likely low: the fitted step overhead)"
        )
    class_stack = CLASS_STACK.get(klass, SERVING_STACK)
    if class_stack != stack:
        caveats.append(
            f"ratios between cards from the {class_stack} fit; the level is {software}'s"
        )
    return u.Throughput(
        value=value,
        unit=u.OUTPUT_TOKENS,
        interval=interval,
        software=software,
        basis=_basis(
            use,
            f"the reference's decode physics ({ref_tps:.4g} tokens/s at this model and batch) "
            f"x {software}'s achieved share ({use.level.scale:.2f})",
        ),
        per_user=per_user,
        per_user_interval=(low / (replicas * batch), high / (replicas * batch)),
        ttft_ms=ttft.ms,
        ttft_ms_interval=ttft.interval,
        concurrency=batch * replicas,
        prompt_tokens=prompt_tokens,
        caveats=tuple(caveats),
        workload=f"{llm.params_b:g}B at {llm.weights}, {batch} sequence(s) per group of {tp}",
    )


@dataclass(frozen=True, slots=True)
class Ttft:
    ms: float
    interval: tuple[float, float]
    caveats: tuple[str, ...]


def _ttft(
    model: ClassModel,
    gpu: GpuSpec,
    llm: LlmWorkload,
    software: str,
    chip: str,
    tp: int,
    prompt_tokens: int,
    stack: str,
) -> Ttft:
    """A new request's prompt at the group's prefill rate, plus the decode step it joins
    (no queueing: an idle server, or chunked prefill that gives it the next step)."""
    asked = replace(llm, prompt_tokens=prompt_tokens)
    relative = model.predict_prefill(gpu, asked, stack)
    ref = load_catalog().by_id[model.reference_gpu]
    overhead = model.params.fitted.inference().step_overhead_s.get(stack)
    reference = replace(asked, weights="fp16", bits_per_weight=None)
    ref_rate = prefill.product_prefill_tokens_per_s(ref, reference, stack, overhead)
    use = u.use_level("prefill", software, chip)
    assert relative is not None  # decode ran these weights, so prefill does
    rate = relative.relative_throughput * ref_rate * use.level.scale * tp
    per_relative = ref_rate * use.level.scale * tp
    low, high = u.combine(
        rate,
        (relative.interval[0] * per_relative, relative.interval[1] * per_relative),
        use.log_half_width,
    )
    # The step it joins: one of the running batch's (llm is at the served batch).
    step_s = inf.decode_step_s(gpu, llm, model.params.fitted.inference(), stack, tp)

    def ms(r: float) -> float:
        return (prompt_tokens / r + step_s) * 1000.0

    caveats = tuple(f"time to first token: {c}" for c in use.caveats)
    return Ttft(ms(rate), (ms(high), ms(low)), caveats)
