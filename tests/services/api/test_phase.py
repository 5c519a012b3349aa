"""cv inference is reachable: phase=inference (or int8) answers with the fitted CNN
inference class; a phase a task has no class for is a 422 naming it."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient


def _get(client: TestClient, url: str, **params: Any) -> dict[str, Any]:
    response = client.get(url, params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_model_predict_answers_cv_inference_with_the_cnn_class(market_client):
    training = _get(market_client, "/model/predict", gpu="h100-sxm5", task="cv")
    asked = _get(market_client, "/model/predict", gpu="h100-sxm5", task="cv", phase="inference")
    at_int8 = _get(market_client, "/model/predict", gpu="h100-sxm5", task="cv", precision="int8")
    assert training["workload_class"] == "training-cv"
    assert asked["workload_class"] == at_int8["workload_class"] == "cnn-inference"
    assert asked["relative_throughput"] == pytest.approx(at_int8["relative_throughput"])
    assert asked["relative_throughput"] != pytest.approx(training["relative_throughput"])
    # Training at int8 is not what anyone asks: said explicitly, it stays training.
    explicit = _get(
        market_client,
        "/model/predict",
        gpu="h100-sxm5",
        task="cv",
        precision="fp16",
        phase="training",
    )
    assert explicit["workload_class"] == "training-cv"


def test_recommend_ranks_cv_inference_on_the_cnn_class(market_client):
    body = _get(market_client, "/recommend", task="cv", phase="inference", limit=100)
    assert body["query"]["phase"] == "inference"
    assert body["results"]
    for result in body["results"]:
        assert "(cnn-inference (" in result["explanation"]
        low, high = result["performance"]["interval"]
        assert low < result["relative_performance"] < high
    stored = _get(market_client, "/recommend", task="cv", precision="int8", limit=100)
    assert "(cnn-inference (" in stored["results"][0]["explanation"]


@pytest.mark.parametrize(
    ("url", "params"),
    [
        ("/model/predict", {"gpu": "rtx-4090", "task": "nlp", "phase": "inference"}),
        ("/recommend", {"task": "nlp", "phase": "inference"}),
        ("/model/predict", {"gpu": "rtx-4090", "task": "llm-inference", "phase": "training"}),
        ("/recommend", {"task": "cv", "phase": "serving"}),
    ],
)
def test_a_phase_without_a_class_is_a_422_naming_it(market_client, url, params):
    response = market_client.get(url, params=params)
    assert response.status_code == 422, response.text
    assert "phase" in response.json()["message"]
