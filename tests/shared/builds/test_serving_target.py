"""Serving to a latency target (issue 38, part 3)."""

from __future__ import annotations

from typing import Any

import pytest

from shared.builds.layout import plan_layout
from shared.builds.predict import InvalidInputError, predict_full
from shared.builds.serving_target import Targets, serve_to_target
from shared.catalog.specs import load_catalog
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.workloads import LlmWorkload


@pytest.fixture(scope="module")
def model() -> ClassModel:
    return ClassModel()


def _ask(model: ClassModel, gpu: str = "h100-sxm5", **targets: float) -> dict[str, Any]:
    return predict_full(
        model,
        gpu,
        "llm-inference",
        "fp16",
        1,
        params_b=8,
        weights="fp8",
        targets=Targets(**targets),
    )


@pytest.mark.parametrize("gpu", ["h100-sxm5", "rtx-4090", "l40s"])
def test_a_stricter_target_never_raises_throughput_or_concurrency(
    model: ClassModel, gpu: str
) -> None:
    llm = LlmWorkload(8.0, weights="fp8" if gpu != "rtx-4090" else "fp16")
    layout = plan_layout([load_catalog().by_id[gpu]], 1)
    spec = load_catalog().by_id[gpu]
    previous = None
    # Per-user floors from lax to strict: the concurrency and the total only fall.
    for floor in (1, 5, 10, 15, 20, 25):
        met = serve_to_target(model, spec, llm, layout, Targets(floor, None), prompt_tokens=512)
        if not met.meets:
            break
        assert met.throughput is not None and met.throughput.per_user is not None
        assert met.throughput.per_user >= floor
        if previous is not None and previous.throughput is not None:
            assert met.concurrency is not None and previous.concurrency is not None
            assert met.concurrency <= previous.concurrency
            assert met.throughput.value <= previous.throughput.value * (1 + 1e-9)
        previous = met
    assert previous is not None, "a 1 token/s floor is met by any of these cards"
    ttft_previous = None
    for ceiling in (2000.0, 500.0, 200.0, 100.0, 80.0):
        met = serve_to_target(model, spec, llm, layout, Targets(None, ceiling), prompt_tokens=512)
        if not met.meets:
            assert met.failing == ("max_ttft_ms",) and met.throughput is None
            break
        assert met.throughput is not None and met.throughput.ttft_ms is not None
        assert met.throughput.ttft_ms <= ceiling
        if ttft_previous is not None and ttft_previous.throughput is not None:
            assert met.throughput.value <= ttft_previous.throughput.value * (1 + 1e-9)
        ttft_previous = met


def test_the_answer_is_the_largest_concurrency_that_meets_the_target(model: ClassModel) -> None:
    answer = _ask(model, min_tokens_per_s_per_user=20)
    target, throughput = answer["target"], answer["throughput"]
    assert answer["meets_target"] is True
    assert throughput["per_user"] >= 20 and target["concurrency"] == throughput["concurrency"]
    # One more user per GPU and each gets less than the floor (the cap is not memory here).
    more = predict_full(
        model,
        "h100-sxm5",
        "llm-inference",
        "fp16",
        1,
        params_b=8,
        weights="fp8",
        batch=target["concurrency"] + 1,
        software="vllm",
    )
    assert more["throughput"]["per_user"] < 20


def test_a_target_no_concurrency_meets_names_what_to_relax(model: ClassModel) -> None:
    answer = _ask(model, min_tokens_per_s_per_user=5000)
    assert answer["meets_target"] is False
    assert answer["throughput"] is None and answer["relative_throughput"] is None
    assert answer["target"]["failing"] == ["min_tokens_per_s_per_user"]
    both = _ask(model, min_tokens_per_s_per_user=5000, max_ttft_ms=1)
    assert set(both["target"]["failing"]) == {"min_tokens_per_s_per_user", "max_ttft_ms"}


@pytest.mark.parametrize(
    ("task", "targets", "field"),
    [
        ("cv", Targets(20, None), "min_tokens_per_s_per_user"),
        ("llm-inference", Targets(None, 0), "max_ttft_ms"),
    ],
)
def test_targets_only_for_llm_inference_and_positive(
    model: ClassModel, task: str, targets: Targets, field: str
) -> None:
    with pytest.raises(InvalidInputError) as caught:
        predict_full(model, "rtx-4090", task, "fp16", targets=targets)
    assert caught.value.field == field
