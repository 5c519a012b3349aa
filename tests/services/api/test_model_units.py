"""/model/predict in the buyer's units (issue 38): throughput, cost per unit of work at
today's stored prices, run times, and the units fields' 422s, over HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from tests.services.api.units_checks import check_cost


def _predict(client: Any, **params: Any) -> dict[str, Any]:
    response = client.get("/model/predict", params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.parametrize(
    ("task", "unit"),
    [
        ("cv", "usd per 1k images"),
        ("nlp", "usd per 1k sequences"),
        ("llm-inference", "usd per 1M output tokens"),
        ("llm-training", "usd per 1M training tokens"),
        ("image-generation", "usd per 1k images"),
    ],
)
def test_every_task_answers_its_unit_and_its_cost(bundled_client, task, unit):
    body = _predict(bundled_client, gpu="rtx-4090", task=task, precision="fp16")
    throughput = body["throughput"]
    assert throughput["value"] > 0 and throughput["software"] and throughput["basis"]
    cost = body["cost_per_unit"]
    assert cost is not None and cost["unit"] == unit and cost["basis"]
    check_cost(cost, throughput)


def test_renting_costs_the_hourly_price_over_the_work(bundled_client):
    body = _predict(bundled_client, gpu="h100-sxm5", task="llm-inference", batch=32, count=2)
    rent = body["rent_cost_per_unit"]
    assert rent is not None and "per GPU-hour" in rent["basis"]
    check_cost(rent, body["throughput"])
    gpu = bundled_client.get("/gpus/h100-sxm5").json()
    hourly = float(gpu["today_prices"]["cloud:on-demand"]["usd"])
    assert rent["usd_per_hour"] == pytest.approx(hourly * 2, rel=1e-4)


def test_a_stated_fine_tune_gets_its_hours_and_dollars(bundled_client):
    body = _predict(
        bundled_client,
        gpu="rtx-4090",
        task="llm-training",
        params_b=8,
        mode="lora",
        train_tokens=1e8,
    )
    value = body["throughput"]["value"]
    assert body["run"]["hours"] == pytest.approx(1e8 / value / 3600, rel=1e-3)
    low, high = body["run"]["hours_interval"]
    assert low < body["run"]["hours"] < high
    cost = body["cost_per_unit"]
    assert cost["run_usd"] == pytest.approx(cost["usd"] * 100, rel=1e-3)
    epochs = _predict(
        bundled_client,
        gpu="rtx-4090",
        task="llm-training",
        params_b=8,
        mode="lora",
        epochs=2,
        dataset_tokens=5e7,
    )
    assert epochs["run"]["hours"] == pytest.approx(body["run"]["hours"], rel=1e-9)
    cv = _predict(bundled_client, gpu="rtx-4090", task="cv", dataset_size=1_281_167)
    assert cv["run"]["what"] == "one epoch" and cv["run"]["unit"] == "images"


def test_a_build_that_cannot_hold_the_model_has_no_cost(bundled_client):
    body = _predict(bundled_client, gpu="rtx-4090", task="llm-inference", params_b=70)
    assert body["fit"]["fits"] is False
    assert body["throughput"] is None and body["cost_per_unit"] is None


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"task": "cv", "software": "vllm"}, "software"),
        ({"task": "llm-inference", "software": "pytorch"}, "software"),
        ({"task": "cv", "prompt_tokens": 10}, "prompt_tokens"),
        ({"task": "cv", "train_tokens": 1e9}, "train_tokens"),
        ({"task": "llm-training", "epochs": 2}, "dataset_tokens"),
        ({"task": "llm-inference", "dataset_size": 10}, "dataset_size"),
        ({"task": "cv", "min_tokens_per_s_per_user": 10}, "min_tokens_per_s_per_user"),
    ],
)
def test_a_units_field_that_does_not_apply_is_a_422(bundled_client, params, field):
    response = bundled_client.get("/model/predict", params={"gpu": "rtx-4090", **params})
    assert response.status_code == 422, response.text
    assert response.json()["message"].startswith(f"{field}:")
