"""Workload classes and the precisions the hardware has."""

from __future__ import annotations

import pytest

from shared.catalog.tasks import TASK_NAMES
from shared.perfmodel import workloads as w


def test_every_recommend_task_maps_to_a_class():
    assert set(w.TASK_CLASS) == set(TASK_NAMES)
    assert all(c in w.WORKLOAD_CLASSES for c in w.TASK_CLASS.values())
    assert w.task_class("llm-inference") == w.LLM_DECODE
    assert w.task_class("llm-inference", w.LlmWorkload(70, batch=32)) == w.LLM_SERVING
    assert w.task_class("image-generation") == w.DIFFUSION
    with pytest.raises(ValueError):
        w.task_class("mining")


@pytest.mark.parametrize(
    ("gpu_id", "fp8", "fp4"),
    [
        ("rtx-3090", False, False),  # Ampere: neither
        ("a100-80gb-sxm4", False, False),
        ("rtx-4090", True, False),  # Ada: FP8
        ("h100-sxm5", True, False),  # Hopper: FP8
        ("b200", True, True),  # Blackwell: both
        ("rtx-5090", True, True),
        ("mi300x", True, False),  # CDNA 3: FP8
        ("mi355x", True, True),  # CDNA 4: both
    ],
)
def test_low_precision_only_where_the_hardware_has_it(catalog, gpu_id, fp8, fp4):
    gpu = catalog.by_id[gpu_id]
    assert w.runs_weights(gpu, "fp8") is fp8
    assert w.runs_weights(gpu, "fp4") is fp4
    # Integer weights run everywhere (dequantised where there are no integer units).
    assert w.runs_weights(gpu, "int4") and w.runs_weights(gpu, "int8")


def test_fp4_rates_follow_the_datasheets(catalog):
    assert w.fp4_rate(catalog.by_id["b200"]) == pytest.approx(9000)  # 9 PF dense
    assert w.fp4_rate(catalog.by_id["b300"]) == pytest.approx(13500)  # Blackwell Ultra
    assert w.fp4_rate(catalog.by_id["h100-sxm5"]) is None


def test_compute_rate_falls_back_to_16_bit_for_weight_only_formats(catalog):
    ampere = catalog.by_id["rtx-3090"]
    assert w.compute_rate(ampere, "int4") == ampere.fp16_tensor_tflops
    hopper = catalog.by_id["h100-sxm5"]
    assert w.compute_rate(hopper, "fp8") == hopper.fp8_tensor_tflops


def test_weight_bytes_follow_the_format():
    assert w.LlmWorkload(70, weights="fp16").weight_gb == pytest.approx(140)
    assert w.LlmWorkload(70, weights="fp8").weight_gb == pytest.approx(70)
    assert w.LlmWorkload(70, weights="int4").weight_gb < 40
    moe = w.LlmWorkload(46.7, active_params_b=12.9)
    assert moe.active_b == 12.9 and moe.weight_gb == pytest.approx(93.4)
