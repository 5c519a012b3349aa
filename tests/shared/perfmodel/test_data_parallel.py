"""Data-parallel scaling: the physics of the step, and what the product answers with it."""

from __future__ import annotations

import math

import pytest

from shared.catalog.specs import load_catalog
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.data_parallel import (
    Step,
    achieved_gbs,
    efficiency,
    load_data_parallel_params,
    widened,
)
from shared.perfmodel.llm_training import LlmTraining
from shared.perfmodel.memory import FULL, LORA


@pytest.fixture(scope="module")
def model() -> ClassModel:
    return ClassModel()


def test_one_gpu_is_fully_efficient_and_more_bytes_or_less_compute_cost_more() -> None:
    step = Step(compute_s=0.5, gradient_bytes=1e9, label="x")
    assert efficiency(step, 10.0, 1) == 1.0
    eight = efficiency(step, 10.0, 8)
    assert 0 < eight < efficiency(step, 10.0, 2) < 1
    assert efficiency(Step(0.5, 2e9, "x"), 10.0, 8) < eight
    assert efficiency(Step(1.0, 1e9, "x"), 10.0, 8) > eight
    assert efficiency(step, 40.0, 8) > eight
    with pytest.raises(ValueError):
        efficiency(step, 10.0, 0)


def test_links_order_as_their_hardware_for_cards_of_one_pcie_generation() -> None:
    catalog, share = load_catalog().by_id, load_data_parallel_params().share
    no_p2p = achieved_gbs(catalog["rtx-3090"], share)  # PCIe 4, no P2P
    p2p = achieved_gbs(catalog["rtx-a6000"], share)  # PCIe 4, P2P
    fabric = achieved_gbs(catalog["a100-80gb-sxm4"], share)  # PCIe 4 slot, NVSwitch
    assert no_p2p < p2p <= fabric


def test_a_big_model_at_a_small_batch_scales_worse_than_a_cnn_on_the_same_box(model) -> None:
    gpu = load_catalog().by_id["rtx-4090"]
    cnn = model.predict_task(gpu, "cv", "fp16", count=8, workload="resnet50")
    bert = model.predict_task(gpu, "nlp", "fp16", count=8, workload="bert_large")
    assert cnn is not None and bert is not None
    assert bert.multi_gpu_speedup < 0.7 * cnn.multi_gpu_speedup
    assert cnn.multi_gpu_speedup > 7  # Lambda: ResNet-50 on 2 RTX 4090s, 0.95 per GPU


def test_adapters_scale_almost_linearly_and_a_full_fine_tune_does_not(model) -> None:
    gpu = load_catalog().by_id["rtx-3090"]
    lora = model.predict_task(gpu, "llm-training", "fp16", count=8, training=LlmTraining(8, LORA))
    full = model.predict_task(gpu, "llm-training", "fp16", count=8, training=LlmTraining(8, FULL))
    assert lora is not None and full is not None
    assert lora.multi_gpu_speedup > 7.9
    assert full.multi_gpu_speedup < lora.multi_gpu_speedup - 0.5


def test_a_faster_card_on_the_same_link_scales_worse(model) -> None:
    catalog = load_catalog().by_id
    old = model.predict_task(catalog["rtx-3090"], "nlp", "fp16", count=8)
    new = model.predict_task(catalog["rtx-4090"], "nlp", "fp16", count=8)
    assert old is not None and new is not None
    # Same memory, same PCIe 4 without P2P: the 4090's shorter step waits longer.
    assert new.multi_gpu_speedup < old.multi_gpu_speedup


def test_a_multi_gpu_answer_carries_the_speed_ups_error(model) -> None:
    gpu = load_catalog().by_id["rtx-4090"]
    one = model.predict_task(gpu, "nlp", "fp16")
    eight = model.predict_task(gpu, "nlp", "fp16", count=8)
    assert one is not None and eight is not None
    assert one.speedup_half_width == 0 and eight.speedup_half_width > 0
    width = [math.log(high / low) for low, high in (one.interval, eight.interval)]
    assert width[1] > width[0]
    low, high = eight.interval
    assert low < eight.relative_throughput < high
    assert "GB of gradients" in eight.single.explanation


def test_widening_adds_in_quadrature_and_zero_changes_nothing() -> None:
    assert widened((0.5, 2.0), 1.0, 0.0) == pytest.approx((0.5, 2.0))
    low, high = widened((0.5, 2.0), 1.0, math.log(2))
    assert low == pytest.approx(math.exp(-math.sqrt(2) * math.log(2)))
    assert high == pytest.approx(1 / low)
