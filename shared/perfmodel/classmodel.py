"""The product's performance model: one workload class per task, each with its physics.

Training classes use the Lambda-calibrated roofline (`calibrated.py`, Lambda's own
measurements where it has them) times the architecture offset fitted on MLPerf Training.
LLM and vision inference use `inference.py` with the parameters fitted on MLPerf
Inference, llmperf and llama.cpp tables (`classfit.py`).
Every answer names its class and basis; intervals are the 80 % intervals of the class's
leave-one-table-out errors (`params/classes-<version>.json`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel import inference as inf
from shared.perfmodel import prefill
from shared.perfmodel.anchors import ANCHORS
from shared.perfmodel.base import Prediction
from shared.perfmodel.calibrated import WIDEN_NEW_ARCHITECTURE, CalibratedModel
from shared.perfmodel.class_params import FittedParams
from shared.perfmodel.class_rows import gemm_time
from shared.perfmodel.data_parallel import (
    DataParallelParams,
    Step,
    load_data_parallel_params,
    widened,
)
from shared.perfmodel.features import data_precision, rates
from shared.perfmodel.lambda_data import canonical_workload
from shared.perfmodel.llm_training import DEFAULT_TRAINING, LlmTraining, matrix_share
from shared.perfmodel.matrix_clock import (
    matrix_clock_log,
    matrix_fraction,
    matrix_time,
    training_time_log,
)
from shared.perfmodel.memory import MemoryEstimate, fits, llm_memory
from shared.perfmodel.module_power import power_headroom_log
from shared.perfmodel.scaling import NETWORK_EFFICIENCY, balanced_nodes, interconnect_class
from shared.perfmodel.workloads import (
    CLASS_BASIS,
    CLASS_FAMILY,
    DIFFUSION,
    LLM_CLASSES,
    LLM_DECODE,
    LLM_PREFILL,
    LLM_SERVING,
    TRAINING_CLASSES,
    TRAINING_LLM,
    TRAINING_NLP,
    LlmWorkload,
    default_llm,
    implied_phase,
    llm_class,
    runs_weights,
    task_class,
)

CLASS_MODEL_VERSION = "calibrated-2026.12.10"
PARAMS_DIR = Path(__file__).parent / "params"
# Software stack whose fitted per-step overhead a class uses: single-user decode as in
# llama.cpp / Ollama, serving as in vLLM.
CLASS_STACK = {LLM_DECODE: "llama.cpp", LLM_PREFILL: "llama.cpp"}
SERVING_STACK = "vllm"
GROUP_TABLES = {
    inf.LLM_GROUP: "LLM",
    inf.VISION_GROUP: "vision-inference (MLPerf ResNet, RetinaNet, 3D U-Net, SDXL)",
}
FAMILY_TASKS = {"cv": "cv", "nlp": "nlp"}
# The Lambda workload whose step (batch, gradient bytes) sets a training class's
# data-parallel scaling when the request names none: the CNN of Lambda's cv rows, the
# BERT the served nlp class is fitted on.
SCALING_WORKLOAD = {"cv": "resnet50", "nlp": "bert_large_squad"}
# The MLPerf Training benchmark whose fitted matrix share the served nlp class carries.
BERT = "bert"
# The smallest memory among the GPUs of MLPerf's LLM training rows (H100 SXM): below it
# the training-llm share is an extrapolation.
LLM_TRAINING_SMALLEST_GB = 80.0


@dataclass(frozen=True, slots=True)
class ClassParams:
    fitted: FittedParams
    # Log half-width of the 80 % interval of one GPU's value, by class.
    half_width: dict[str, float]
    calibration: str
    evaluation: dict[str, Any] = field(default_factory=dict)
    # Architectures each training class measured in the fit (absent before 2026.12.9).
    measured_architectures: dict[str, list[str]] | None = None

    def measured(self, klass: str, architecture: str) -> bool:
        """Whether the fit's tables measured `architecture` in training class `klass`
        (True for parameter files that do not record it)."""
        if self.measured_architectures is None:
            return True
        return architecture in self.measured_architectures.get(klass, [])


def params_path(version: str = CLASS_MODEL_VERSION) -> Path:
    return PARAMS_DIR / f"classes-{version}.json"


@lru_cache(maxsize=4)
def load_class_params(version: str = CLASS_MODEL_VERSION) -> ClassParams:
    data = json.loads(params_path(version).read_text())
    return ClassParams(
        FittedParams.from_json(data["fitted"]),
        data["half_width"],
        data["calibration"],
        data.get("evaluation", {}),
        data.get("measured_architectures"),
    )


@dataclass(frozen=True, slots=True)
class TaskPrediction:
    """A prediction for `count` GPUs with its class and how the GPUs share the work."""

    single: Prediction
    workload_class: str
    multi_gpu_speedup: float
    tensor_parallel: int = 1
    llm: LlmWorkload | None = None
    # Log half-width of the 80 % interval of the speed-up's held-out error (0 for one GPU
    # or where the speed-up is not modelled: independent replicas of inference).
    speedup_half_width: float = 0.0
    # False when an LLM's weights and one sequence's KV cache do not fit the split the
    # machine allows: the value is then a figure for a build that cannot run, which
    # answers withhold.
    fits: bool = True

    @property
    def relative_throughput(self) -> float:
        """Throughput of the whole build relative to one reference GPU."""
        return self.single.relative_throughput * self.multi_gpu_speedup

    @property
    def single_interval(self) -> tuple[float, float]:
        """One GPU's interval widened by the speed-up's own error (before the speed-up)."""
        single = self.single
        return widened(single.interval, single.relative_throughput, self.speedup_half_width)

    @property
    def interval(self) -> tuple[float, float]:
        """One GPU's interval times the speed-up, widened by the speed-up's own error."""
        low, high = self.single_interval
        return low * self.multi_gpu_speedup, high * self.multi_gpu_speedup


class ClassModel:
    """Implements `PerformanceModel`; `task` is a /recommend task (or cv/nlp)."""

    def __init__(self, version: str = CLASS_MODEL_VERSION) -> None:
        self.version = version
        self.reference_gpu = "rtx-3090"
        self.training = CalibratedModel()

    @property
    def params(self) -> ClassParams:
        return load_class_params(self.version)

    @property
    def data_parallel(self) -> DataParallelParams:
        return load_data_parallel_params()

    def predict(self, gpu: GpuSpec, task: str, precision: str) -> Prediction | None:
        result = self.predict_task(gpu, task, precision)
        return None if result is None else result.single

    def predict_task(
        self,
        gpu: GpuSpec,
        task: str,
        precision: str,
        llm: LlmWorkload | None = None,
        count: int = 1,
        workload: str | None = None,
        nodes: Sequence[int] | None = None,
        network: str = "infiniband",
        training: LlmTraining | None = None,
        phase: str | None = None,
    ) -> TaskPrediction | None:
        """`count` GPUs in machines of `nodes` GPUs each joined by `network` (the product
        passes the layout of shared/builds; without one, servers of 8). `training`: the
        LLM an llm-training request trains (default: an 8 B LoRA, llm_training.py)."""
        layout = list(nodes) if nodes is not None else balanced_nodes(count, 8)
        family = FAMILY_TASKS.get(task, task)
        klass = task_class(family, llm, implied_phase(family, precision, phase))
        if klass in TRAINING_CLASSES:
            found = self._training(gpu, klass, precision, layout, network, workload, training)
            reading = other_tensor_reading(gpu)
            if found is None or reading is None:
                return found
            # A tensor rate no measurement of the card settles: the interval holds the
            # prediction at the other reading too.
            other = self._training(reading, klass, precision, layout, network, workload, training)
            if other is None:
                return found
            interval = _spanning(found.single.interval, other.single.interval)
            return replace(found, single=replace(found.single, interval=interval))
        if klass in LLM_CLASSES:
            return self._llm(gpu, klass, llm or default_llm(precision), layout)
        return self._vision(gpu, klass, precision, count)

    def cluster_speedup(
        self, gpu: GpuSpec, node_counts: list[int], network: str, step: Step
    ) -> float:
        """Speed-up over one GPU of nodes holding `node_counts` GPUs each: each node's
        data-parallel speed-up for the workload's `step` (data_parallel.py), added up, times
        the network's efficiency per doubling of nodes (fitted for InfiniBand; 10 GbE is
        the assumption in scaling.py)."""
        inside = sum(self.data_parallel.speedup(gpu, step, n) for n in node_counts)
        if len(node_counts) == 1:
            return inside
        net = self.network_efficiency(network)
        return float(inside * net ** math.log2(len(node_counts)))

    def training_step(
        self,
        gpu: GpuSpec,
        klass: str,
        precision: str,
        relative: float,
        workload: str | None = None,
        training: LlmTraining | None = None,
    ) -> Step:
        """One GPU's training step for the class's data-parallel scaling: the named Lambda
        workload, the LLM being fine-tuned, else the class's default workload."""
        scaling = self.data_parallel
        if klass == TRAINING_LLM:
            llm = training or DEFAULT_TRAINING
            return scaling.llm_step(gpu, llm.params_b, llm.mode, relative)
        name = canonical_workload(workload) if workload else SCALING_WORKLOAD[CLASS_FAMILY[klass]]
        return scaling.workload_step(gpu, name, data_precision(precision), relative)

    def network_efficiency(self, network: str) -> float:
        """Efficiency per doubling of nodes: fitted on MLPerf for InfiniBand."""
        if network == "infiniband":
            return self.params.fitted.network_eta
        return NETWORK_EFFICIENCY[network]

    def _interval(self, klass: str, value: float) -> tuple[float, float]:
        half = self.params.half_width[klass]
        return value * math.exp(-half), value * math.exp(half)

    def _training(
        self,
        gpu: GpuSpec,
        klass: str,
        precision: str,
        nodes: list[int],
        network: str,
        workload: str | None,
        training: LlmTraining | None = None,
        phase: str | None = None,
    ) -> TaskPrediction | None:
        base = self.training.predict(gpu, CLASS_FAMILY[klass], precision, workload=workload)
        if base is None:
            return None
        value, interval, basis = base.relative_throughput, base.interval, base.basis
        explanation = base.explanation
        # Lambda's measurements too: MLPerf's many submitters are the wider evidence of
        # an architecture's training speed (docs/model/classes.md, "looked at").
        offset = self.params.fitted.arch_log.get(inf.TRAINING_GROUP, {})
        arch = offset.get(gpu.architecture, 0.0)
        if arch:
            explanation += f"; {gpu.architecture} offset x{math.exp(arch):.2f} (MLPerf fit)"
        # A power-short module's matrix multiplies, as in the fit's rows (matrix_clock.py).
        clock = self._matrix_clock_log(gpu, klass, precision, workload)
        if clock:
            explanation += (
                f"; matrix multiplies at the power-limited clock of {gpu.tdp_w} W: "
                f"x{math.exp(clock):.2f}"
            )
        # Transformer training: MLPerf's benchmarks spend a fitted share of their time in
        # large matrix multiplies that scale with the matrix rate alone; nlp is served as
        # the fit predicts BERT, llm-training as it predicts the LLM benchmarks.
        share, fitted_on = self._matrix_share(klass, training)
        llm = self._matrix_share_log(gpu, klass, precision, value, clock, share)
        caveats = base.caveats
        if llm:
            explanation += (
                f"; {share:.0%} of the reference's time in large matrix multiplies at "
                f"{precision} ({fitted_on}): x{math.exp(llm):.2f}"
            )
            if klass == TRAINING_LLM and gpu.memory_gb < LLM_TRAINING_SMALLEST_GB:
                caveats += (
                    "llm-training is fitted on MLPerf LLM runs of datacenter modules of "
                    f"{LLM_TRAINING_SMALLEST_GB:g} GB and more: for a {gpu.memory_gb:g} GB card "
                    "it is an extrapolation",
                )
        if arch or clock or llm:
            base_value = value
            value *= math.exp(arch + clock + llm)
            interval = self._interval(klass, value)
            measured = self.params.measured(klass, gpu.architecture)
            if not gpu.has_tensor_cores or not measured:
                # No MLPerf or Lambda table measured a card without Tensor Cores training
                # CNNs or transformers with the vendors' libraries, nor this architecture in
                # this class; the base's widening for that stays (the fitted offset is
                # another workload's, or one workload's on one software).
                interval = _wider(interval, base.interval, base_value, value)
            if arch and not measured and gpu.architecture not in ANCHORS:
                # The offset is read off other classes' tables: the interval holds the
                # prediction without it too (an anchored architecture's interval comes
                # from its measured ratios instead, _anchored).
                interval = _spanning(interval, self._interval(klass, value * math.exp(-arch)))
                caveats += (
                    f"no {klass} table measures {gpu.architecture}: its offset "
                    f"(x{math.exp(arch):.2f}) comes from other training benchmarks, and the "
                    "interval also holds the prediction without it",
                )
            basis = "calibrated-model"
        single = replace(
            base,
            relative_throughput=value,
            interval=interval,
            basis=basis,
            model_version=self.version,
            explanation=f"{klass} ({CLASS_BASIS[klass]}): {explanation}",
            caveats=caveats,
        )
        single = self._anchored(gpu, klass, precision, workload, training, single)
        step = self.training_step(
            gpu, klass, precision, single.relative_throughput, workload, training
        )
        speedup = self.cluster_speedup(gpu, nodes, network, step)
        spread = 0.0
        if sum(nodes) > 1:
            spread = self.data_parallel.half_width
            single = replace(
                single,
                explanation=f"{single.explanation}; {sum(nodes)} GPUs: {step.label} step "
                f"{step.compute_s:.2g} s, {step.gradient_bytes / 1e9:.2g} GB of gradients "
                f"per all-reduce over {interconnect_class(gpu)}",
            )
        return TaskPrediction(single, klass, speedup, speedup_half_width=spread)

    def _anchored(
        self,
        gpu: GpuSpec,
        klass: str,
        precision: str,
        workload: str | None,
        training: LlmTraining | None,
        single: Prediction,
    ) -> Prediction:
        """A card of an anchored architecture (anchors.py): its same-software partner's
        prediction times the measured ratios, the interval from the partner's low end at
        the lowest ratio to its high end at the highest, and in a class the ratios were not
        measured in, out to the fitted offset's value too (a sibling of the anchored card
        moves by the base model's ratio to it)."""
        anchor = ANCHORS.get(gpu.architecture)
        if anchor is None:
            return single
        catalog = load_catalog().by_id
        partner = self._training(
            catalog[anchor.partner], klass, precision, [1], "infiniband", workload, training
        )
        if partner is None:
            return single
        scale = 1.0
        if gpu.id != anchor.gpu_id:
            measured = self.training.predict(catalog[anchor.gpu_id], CLASS_FAMILY[klass], precision)
            own = self.training.predict(gpu, CLASS_FAMILY[klass], precision)
            if measured is None or own is None:
                return single
            scale = own.relative_throughput / measured.relative_throughput
        low_ratio, high_ratio = anchor.spread
        p_low, p_high = partner.single.interval
        low, high = p_low * low_ratio * scale, p_high * high_ratio * scale
        if klass != anchor.measured_class:
            # Borrowed from another workload: the fitted offset's reading of the same
            # evidence stays inside what the interval allows.
            low = min(low, single.relative_throughput)
            high = max(high, single.relative_throughput)
        return replace(
            single,
            relative_throughput=partner.single.relative_throughput * anchor.central * scale,
            interval=(low, high),
            basis="calibrated-model",
            explanation=(
                f"{klass}: {anchor.partner}'s prediction x {anchor.central:.2f}, the geometric "
                f"mean of {anchor.gpu_id} / {anchor.partner} measured on the same software "
                f"({anchor.source}: "
                + ", ".join(f"{r:.2f}" for _, r in anchor.ratios)
                + "); no table measures this architecture in any other training workload: "
                "the interval spans those ratios and, in other workloads, the fitted "
                "architecture offset's value"
            ),
            caveats=(
                *single.caveats,
                f"{gpu.architecture}: priced against {anchor.partner} from one benchmark on "
                f"one software ({anchor.software}); other frameworks "
                f"({anchor.other_software}) may differ",
            ),
        )

    def _matrix_share(self, klass: str, training: LlmTraining | None = None) -> tuple[float, str]:
        """The share of the reference's time in large matrix multiplies a training class
        carries, and what it was fitted on (cv: none, as no CNN benchmark has one).
        llm-training's depends on the model's size and mode (llm_training.py)."""
        fitted = self.params.fitted
        if klass == TRAINING_LLM:
            llm = training or DEFAULT_TRAINING
            share = matrix_share(llm, fitted.llm_training_share())
            return share, (
                f"{llm.params_b:g}B {llm.mode}: MLPerf LLM training fit by model size, "
                "docs/model/llm_training.md"
            )
        if klass == TRAINING_NLP:
            return fitted.gemm_share.get(BERT, 0.0), "MLPerf BERT training fit"
        return 0.0, ""

    def _matrix_share_log(
        self, gpu: GpuSpec, klass: str, precision: str, base: float, clock: float, share: float
    ) -> float:
        """Log factor of a matrix-multiply share on the Lambda mix's prediction."""
        if not share:
            return 0.0
        fitted = self.params.fitted
        ref = load_catalog().by_id[self.reference_gpu]
        gemm = matrix_time(
            gemm_time(gpu, ref, precision, klass),
            power_headroom_log(gpu),
            fitted.power_exponent,
            fitted.gemm_arch_log(gpu.architecture),
        )
        mix = math.log(base) + clock
        return training_time_log(mix, gemm, share) - mix

    def _matrix_clock_log(
        self, gpu: GpuSpec, klass: str, precision: str, workload: str | None
    ) -> float:
        """Log factor of the power-limited matrix clock on the Lambda mix (<= 0)."""
        ref = load_catalog().by_id[self.reference_gpu]
        name = canonical_workload(workload) if workload is not None else None
        fraction = matrix_fraction(gpu, ref, CLASS_FAMILY[klass], precision, name)
        exponent = self.params.fitted.power_exponent
        return matrix_clock_log(fraction, power_headroom_log(gpu), exponent)

    def _vision(
        self, gpu: GpuSpec, klass: str, precision: str, count: int
    ) -> TaskPrediction | None:
        if rates(gpu, precision) is None:
            return None  # the GPU cannot run the requested precision at all (fp8 on Ampere)
        ref = load_catalog().by_id[self.reference_gpu]
        value = inf.vision_throughput(gpu, ref, klass, self.params.fitted.inference())
        precision_rule = "FP8 where the GPU has it" if klass == DIFFUSION else "INT8"
        single = self._modelled(
            gpu,
            klass,
            precision,
            value,
            f"{klass} ({CLASS_BASIS[klass]}); {precision_rule} as in MLPerf Inference; "
            f"{gpu.id} has {gpu.memory_bandwidth_gbs:g} GB/s",
            [f"{klass}: ranked at the precision MLPerf submitters use, not {precision}"],
        )
        # Independent images or batches per GPU: MLPerf Inference scales ~linearly.
        return TaskPrediction(single, klass, count)

    def _llm(
        self, gpu: GpuSpec, klass: str, llm: LlmWorkload, nodes: list[int]
    ) -> TaskPrediction | None:
        if not runs_weights(gpu, llm.weights):
            return None
        params = self.params.fitted.inference()
        stack = CLASS_STACK.get(klass, SERVING_STACK)
        ref = load_catalog().by_id[self.reference_gpu]
        # The same shape (KV heads, MoE active size) the speed uses (inference.py).
        estimate = llm_memory(
            llm.params_b,
            llm.weights,
            context=llm.context,
            batch=llm.batch,
            shape=inf.workload_shape(llm),
        )
        need = estimate.total_gb
        # Tensor parallelism stays inside one machine.
        largest = max(nodes)
        tp, fitting = _split(gpu, estimate, largest)
        link = interconnect_class(gpu)
        one = inf.served_decode_tokens_per_s(gpu, llm, params, stack)
        per_gpu = inf.served_decode_tokens_per_s(gpu, llm, params, stack, tp, link)
        reference = inf.served_decode_tokens_per_s(ref, replace(llm, weights="fp16"), params, stack)
        value = one / reference
        caveats = []
        if not fitting:
            caveats.append(
                f"{llm.params_b:g}B at {llm.weights} needs ~{need:.0f} GB: does not fit on "
                f"{largest} x {gpu.memory_gb:g} GB in one machine"
            )
        if tp > 1:
            caveats.append(f"split over {tp} GPUs (tensor parallel over {link})")
        single = self._modelled(
            gpu,
            klass,
            llm.weights,
            value,
            f"{klass} ({CLASS_BASIS[klass]}): {llm.params_b:g}B, {llm.weights} weights, "
            f"batch {llm.batch}, context {llm.context}; {gpu.id} has "
            f"{gpu.memory_bandwidth_gbs:g} GB/s; reference {self.reference_gpu} at fp16",
            caveats,
        )
        # Replicas of a `tp`-GPU group in each machine, relative to one GPU alone.
        replicas = sum(n // tp for n in nodes)
        factor = per_gpu * tp * replicas / one
        # The whole batch may not fit where the weights and one sequence do: the speed is
        # then timed at the batch the memory holds (effective_batch), not withheld.
        runs = fitting or inf.sequences_held(gpu, llm, tp) > 0
        return TaskPrediction(single, klass, factor, tp, llm, fits=runs)

    def predict_serving(
        self, gpu: GpuSpec, llm: LlmWorkload, nodes: Sequence[int]
    ) -> TaskPrediction | None:
        """LLM decode timed as a server times it (the serving class and stack) at any batch,
        one included: a latency target's search over concurrencies stays on one physics."""
        return self._llm(gpu, LLM_SERVING, llm, list(nodes))

    def predict_prefill(
        self, gpu: GpuSpec, llm: LlmWorkload, stack: str | None = None
    ) -> Prediction | None:
        """Prompt processing (the time to the first token) of one GPU relative to the
        reference at 16 bits on `stack` (default: the software stack of the request's
        class): the software-aware prefill model (prefill.py), with its held-out 80 %
        interval."""
        if not runs_weights(gpu, llm.weights):
            return None
        stack = stack or CLASS_STACK.get(llm_class(llm), SERVING_STACK)
        ref = load_catalog().by_id[self.reference_gpu]
        overhead = self.params.fitted.inference().step_overhead_s.get(stack)
        est = prefill.predict_relative(gpu, ref, llm, stack, overhead)
        caveats = [
            f"{LLM_PREFILL}: {est.family} matrix rate x the achieved share of a "
            f"{est.chip_class} {gpu.architecture} card; interval from held-out errors "
            "(docs/model/prefill.md)"
        ]
        if est.sm_busy is not None:
            caveats.append(
                f"{stack}'s quantised matrix kernels: this prompt's tiles of 128 weight rows "
                f"x 128 tokens, in waves of one per SM, keep {est.sm_busy:.0%} of its "
                f"{gpu.sm_count} SMs busy, a factor on the achieved rate (the wave model of "
                "docs/model/prefill.md, not a measured occupancy)"
            )
        if not est.architecture_measured:
            caveats.append(
                f"{gpu.architecture}: no {est.family} prefill table measured it "
                "(extrapolated; interval widened)"
            )
        return Prediction(
            gpu_id=gpu.id,
            task=LLM_PREFILL,
            precision=llm.weights,
            relative_throughput=est.relative,
            interval=est.interval,
            basis="calibrated-model",
            reference_gpu=self.reference_gpu,
            model_version=self.version,
            explanation=f"{LLM_PREFILL} ({CLASS_BASIS[LLM_PREFILL]}): {llm.params_b:g}B, "
            f"{llm.weights} weights, {llm.prompt_tokens} prompt tokens on {stack}; reference "
            f"{self.reference_gpu} at fp16",
            caveats=tuple(caveats),
        )

    def _modelled(
        self,
        gpu: GpuSpec,
        klass: str,
        precision: str,
        value: float,
        explanation: str,
        caveats: list[str],
    ) -> Prediction:
        """A model prediction (not a measurement) with the class's 80 % interval, widened
        where no table of the class's model group measured the GPU's architecture."""
        interval = self._interval(klass, value)
        group = inf.LLM_GROUP if klass in LLM_CLASSES else inf.VISION_GROUP
        reference = load_catalog().by_id[self.reference_gpu].architecture
        fitted = self.params.fitted.arch_log.get(group, {})
        if gpu.architecture != reference and gpu.architecture not in fitted:
            # The log half-width doubles, as the training base does for a new architecture.
            low, high = interval
            widen = WIDEN_NEW_ARCHITECTURE
            interval = (value * (low / value) ** widen, value * (high / value) ** widen)
            caveats = [
                *caveats,
                f"{gpu.architecture}: in none of the {GROUP_TABLES[group]} tables the model "
                f"is fitted on, so {reference}'s efficiency is assumed (extrapolated; "
                "interval widened)",
            ]
        return Prediction(
            gpu_id=gpu.id,
            task=klass,
            precision=precision,
            relative_throughput=value,
            interval=interval,
            basis="calibrated-model",
            reference_gpu=self.reference_gpu,
            model_version=self.version,
            explanation=explanation,
            caveats=tuple(caveats),
        )


# Matrix rates whose FP32-accumulate figure is halved on half-rate cards (catalog notes).
HALF_RATE_COLUMNS = (
    "fp16_tensor_tflops",
    "bf16_tensor_tflops",
    "tf32_tensor_tflops",
    "fp8_tensor_tflops",
)


def other_tensor_reading(gpu: GpuSpec) -> GpuSpec | None:
    """`gpu` at the FP32-accumulate tensor rate its catalog row does not take but no
    measurement of it rules out: the full-rate count (the catalog's FP16-accumulate column)
    for half-rate figures carried over by analogy, half for an assumed full rate. None
    where the row's rate is settled."""
    full, fp16 = gpu.fp16_accumulate_tflops, gpu.fp16_tensor_tflops
    if gpu.carried_over_from and gpu.half_rate_fp32_accumulate and full and fp16:
        factor = full / fp16
    elif gpu.full_rate_assumed:
        factor = 0.5
    else:
        return None
    scaled = {
        column: factor * value
        for column in HALF_RATE_COLUMNS
        if (value := getattr(gpu, column)) is not None
    }
    return replace(gpu, sources="", **scaled)


def _spanning(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return min(a[0], b[0]), max(a[1], b[1])


def _wider(
    interval: tuple[float, float], base: tuple[float, float], base_value: float, value: float
) -> tuple[float, float]:
    """The class interval around `value`, widened as far as the base prediction was (the
    base widens for what the calibration data do not cover: a new architecture, no Tensor
    Cores, AMD's software). The base compounds its factors (an RX 7900 XTX at 8x the log
    width: 0.4-78x for 8 cards); here the class width at most quadruples in log terms, as
    two of `_modelled`'s doublings."""
    class_half = math.log(interval[1] / value)
    base_half = math.log(base[1] / base_value)
    if base_half <= class_half:
        return interval
    half = class_half * min(base_half / class_half, WIDEN_NEW_ARCHITECTURE**2)
    return value * math.exp(-half), value * math.exp(half)


def _split(gpu: GpuSpec, estimate: MemoryEstimate, count: int) -> tuple[int, bool]:
    """Tensor-parallel group size by the memory estimate /recommend filters with, and
    whether it holds the model (else the largest split `count` allows)."""
    tp = inf.smallest_split(lambda n: fits(estimate, gpu.memory_gb, n), count, per_node=count)
    if tp is not None:
        return tp, True
    return max(t for t in inf.TP_SIZES if t <= count), False
