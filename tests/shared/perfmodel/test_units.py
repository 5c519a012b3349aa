"""Absolute throughput: the class model's ratio times the measured level (units.py)."""

from __future__ import annotations

import csv
import math
from importlib import resources
from typing import Any

import pytest

from shared.builds.predict import InvalidInputError, predict_full
from shared.perfmodel import units as u
from shared.perfmodel.classmodel import ClassModel

GPUS = ("rtx-3090", "rtx-4090", "a100-80gb-sxm4", "h100-sxm5", "l40s")


@pytest.fixture(scope="module")
def model() -> ClassModel:
    return ClassModel()


def _lambda_rtx3090(workload: str) -> float:
    """Lambda's measured one-GPU fp16 rate of the RTX 3090 (the bundled CSV)."""
    path = resources.files("shared.perfmodel").joinpath("data", "pytorch-train-throughput-fp16.csv")
    rows = csv.DictReader(path.read_text().splitlines())
    [row] = [r for r in rows if r["name_gpu"] == "RTX 3090" and float(r["num_gpu"]) == 1]
    return float(row[workload])


@pytest.mark.parametrize(
    ("task", "workload"), [("cv", "resnet50"), ("nlp", "bert_large_squad"), ("cv", "ssd")]
)
def test_the_reference_card_lands_near_its_own_measurement(
    model: ClassModel, task: str, workload: str
) -> None:
    """The level is read off every Lambda GPU, not the reference alone: the reference's
    own measured rate is recovered within the class's interval."""
    answer = predict_full(model, "rtx-3090", task, "fp16", workload=workload)
    throughput = answer["throughput"]
    measured = _lambda_rtx3090(workload)
    low, high = throughput["interval"]
    assert low <= measured <= high
    assert throughput["value"] == pytest.approx(measured, rel=0.25)
    assert throughput["unit"] == u.WORKLOAD_UNIT[workload]


@pytest.mark.parametrize(
    ("task", "unit"),
    [
        ("cv", u.IMAGES_S),
        ("nlp", u.SEQUENCES_S),
        ("llm-training", u.TRAINING_TOKENS),
        ("image-generation", u.IMAGES_MIN),
        ("llm-inference", u.OUTPUT_TOKENS),
    ],
)
def test_the_unit_is_the_ratio_times_one_level_for_every_card(
    model: ClassModel, task: str, unit: str
) -> None:
    """The absolute figure keeps the ratio's order: value / relative is the same level for
    every card of one workload and software (so ranking by either agrees)."""
    levels = []
    for gpu in GPUS:
        answer = predict_full(model, gpu, task, "fp16")
        throughput = answer["throughput"]
        assert throughput["unit"] == unit
        low, high = throughput["interval"]
        assert low < throughput["value"] < high
        levels.append(throughput["value"] / answer["relative_throughput"])
    assert max(levels) / min(levels) == pytest.approx(1.0, abs=2e-3)


def test_the_interval_is_the_ratios_widened_by_the_levels_spread(model: ClassModel) -> None:
    answer = predict_full(model, "rtx-4090", "cv", "fp16")
    rel_low, rel_high = answer["interval"]
    value = answer["throughput"]["value"]
    low, high = answer["throughput"]["interval"]
    ratio = answer["relative_throughput"]
    assert low / value < rel_low / ratio and high / value > rel_high / ratio


def test_serving_answers_per_user_and_time_to_first_token(model: ClassModel) -> None:
    one = predict_full(model, "h100-sxm5", "llm-inference", "fp16", batch=1)["throughput"]
    assert one["per_user"] == pytest.approx(one["value"], rel=1e-3)
    assert one["software"] == u.LLAMA_CPP
    many = predict_full(model, "h100-sxm5", "llm-inference", "fp16", batch=32)["throughput"]
    assert many["software"] == u.VLLM and many["concurrency"] == 32
    assert many["per_user"] * 32 == pytest.approx(many["value"], rel=1e-3)
    short = predict_full(model, "h100-sxm5", "llm-inference", "fp16", prompt_tokens=256)
    long = predict_full(model, "h100-sxm5", "llm-inference", "fp16", prompt_tokens=4096)
    short_ms, long_ms = short["throughput"]["ttft_ms"], long["throughput"]["ttft_ms"]
    # Sixteen times the prompt: the prompt's part grows sixteenfold, the step does not.
    assert 4 < long_ms / short_ms < 16
    low, high = long["throughput"]["ttft_ms_interval"]
    assert low < long_ms < high


def test_software_changes_the_level_and_an_unmeasured_one_widens(model: ClassModel) -> None:
    def ask(software: str) -> Any:
        answer = predict_full(
            model, "h100-sxm5", "llm-inference", "fp16", batch=16, software=software
        )
        return answer["throughput"]

    vllm, sglang, trt = ask("vllm"), ask("sglang"), ask("trt-llm")
    assert vllm["software"] == "vllm" and trt["software"] == "trt-llm"
    assert vllm["value"] != trt["value"]

    def width(throughput: Any) -> float:
        low, high = throughput["interval"]
        return math.log(high / low)

    assert width(sglang) > width(vllm)
    assert any("no bundled table measures sglang" in c for c in sglang["caveats"])


@pytest.mark.parametrize(
    ("task", "kwargs", "field"),
    [
        ("llm-inference", {"software": "pytorch"}, "software"),
        ("cv", {"software": "vllm"}, "software"),
        ("llm-inference", {"software": "tgi"}, "software"),
        ("cv", {"prompt_tokens": 100}, "prompt_tokens"),
    ],
)
def test_a_software_or_field_the_task_cannot_take_names_the_field(
    model: ClassModel, task: str, kwargs: dict[str, object], field: str
) -> None:
    with pytest.raises(InvalidInputError) as caught:
        predict_full(model, "rtx-4090", task, "fp16", **kwargs)  # type: ignore[arg-type]
    assert caught.value.field == field
    if field == "software":
        assert caught.value.valid and set(caught.value.valid) <= set(u.SOFTWARE)


def test_levels_are_what_the_lab_fits_from_the_bundled_tables() -> None:
    """The served levels are regenerated, not edited: a refit from the bundled rows gives
    the same values (bench/units_report.py --write-params writes them)."""
    from shared.perfmodel.lab import units_fit as uf

    fitted = uf.fitted_levels(uf.all_rows())
    served = u.load_levels().levels
    assert set(fitted) == set(served)
    for key, level in fitted.items():
        assert served[key].scale == pytest.approx(level.scale, rel=1e-9), key
        assert served[key].tables == level.tables


def test_every_class_and_default_software_has_a_level() -> None:
    levels = u.load_levels().levels
    for klass, software in u.DEFAULT_SOFTWARE.items():
        kind = "decode" if klass.startswith("llm-") else klass
        if klass in u.DEFAULT_WORKLOAD:
            kind = u.training_kind(klass, None)
        assert u.level_key(kind, software) in levels, (klass, software)
