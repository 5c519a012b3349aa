import pytest


def test_model_predict_llm_training_takes_the_model_size_and_mode(market_client):
    params = {"gpu": "h100-sxm5", "task": "llm-training", "precision": "fp16"}
    default = market_client.get("/model/predict", params=params).json()
    assert default["training"] == {
        "params_b": 8.0,
        "mode": "lora",
        "matrix_share": default["training"]["matrix_share"],
        "assumed": True,
    }
    small = market_client.get(
        "/model/predict", params={**params, "params_b": 0.1, "mode": "full"}
    ).json()
    assert small["training"]["params_b"] == 0.1 and not small["training"]["assumed"]
    assert small["training"]["matrix_share"] < default["training"]["matrix_share"]
    assert small["relative_throughput"] < default["relative_throughput"]
    assert "0.1B full" in small["explanation"]
    # The memory model's older name stays accepted.
    legacy = market_client.get(
        "/model/predict", params={**params, "params_b": 70, "mode": "full-finetune"}
    ).json()
    assert legacy["training"]["mode"] == "full"
    other = market_client.get("/model/predict", params={**params, "task": "nlp"}).json()
    assert other["training"] is None


@pytest.mark.parametrize(
    ("params", "field", "hint"),
    [
        ({"task": "llm-training", "mode": "dora"}, "mode", "qlora"),
        ({"task": "llm-training", "params_b": 0}, "params_b", "(0,"),
        ({"task": "llm-training", "batch": 4}, "batch", "llm-inference"),
        ({"task": "llm-training", "weights": "int4"}, "weights", "llm-inference"),
        ({"task": "nlp", "mode": "lora"}, "mode", "llm-training"),
        ({"task": "llm-inference", "mode": "lora"}, "mode", "llm-training"),
    ],
)
def test_model_predict_llm_training_bad_input_is_422(market_client, params, field, hint):
    response = market_client.get(
        "/model/predict", params={"gpu": "rtx-3090", "precision": "fp16", **params}
    )
    assert response.status_code == 422, response.text
    assert response.json()["message"].startswith(f"{field}:")
    assert hint in response.json()["message"]
