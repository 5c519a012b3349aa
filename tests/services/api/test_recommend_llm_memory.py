"""/recommend and /model/predict size an LLM by its shape: grouped-query KV, the batch a
card's memory holds, mixture-of-experts active parameters, the fine-tuning modes."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient


def _get(client: TestClient, url: str, **params: Any) -> dict[str, Any]:
    response = client.get(url, params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_an_8b_lora_lists_24_gb_cards(market_client):
    body = _get(
        market_client, "/recommend", task="llm-training", params_b=8, mode="lora", limit=100
    )
    estimate = body["query"]["memory_estimate"]
    assert estimate["checkpointing"] is True
    assert "with gradient checkpointing" in estimate["formula"]
    assert body["query"]["memory_gb"] < 24
    ids = {r["gpu"]["id"] for r in body["results"]}
    # The market's 24 GB cards: RTX 3090, RTX 4090, Tesla P40.
    assert {"rtx-3090", "rtx-4090"} <= ids
    assert any(r["gpu"]["memory_gb"] == 24 for r in body["results"])


def test_fine_tuning_modes_full_and_qlora(market_client):
    full = _get(market_client, "/recommend", task="llm-training", params_b=8, mode="full")
    assert full["query"]["memory_estimate"]["mode"] == "full"
    # 16 bytes per parameter: no single card of the market holds an 8B full fine-tune.
    assert full["query"]["memory_gb"] > 130 and full["results"] == []
    old = _get(market_client, "/recommend", task="llm-training", params_b=8, mode="full-finetune")
    assert old["query"]["memory_gb"] == full["query"]["memory_gb"]
    qlora = _get(
        market_client,
        "/recommend",
        task="llm-training",
        model="llama-2-70b",
        mode="qlora",
        context=256,
        batch=4,
        count=2,
        limit=100,
    )
    estimate = qlora["query"]["memory_estimate"]
    assert estimate["model"] == "llama-2-70b" and estimate["params_b"] == 69.0
    # Answer.AI's 2 x 24 GB FSDP QLoRA of Llama-2 70B.
    assert qlora["query"]["memory_gb"] < 24
    assert "rtx-3090" in {r["gpu"]["id"] for r in qlora["results"]}


def test_llama3_70b_for_32_users_is_about_190_gb(market_client):
    body = _get(
        market_client,
        "/recommend",
        task="llm-inference",
        model="llama-3-70b",
        batch=32,
        count=4,
        limit=100,
    )
    estimate = body["query"]["memory_estimate"]
    assert 185 < estimate["total_gb"] < 200
    assert estimate["kv_heads"] == 8 and estimate["layers"] == 80
    assert estimate["breakdown_gb"]["KV cache"] == pytest.approx(42.95, abs=0.01)
    assert "published config.json of meta-llama/Meta-Llama-3-70B" in estimate["shape_basis"]
    assert "8 of 64 heads keep K/V" in estimate["formula"]
    # Ranked by one sequence beside the weights; each card at the batch it holds.
    assert body["query"]["memory_gb"] == estimate["min_per_gpu_gb"] < estimate["per_gpu_gb"]
    by_id = {r["gpu"]["id"]: r for r in body["results"]}
    # 4 x 48 GB: the weights leave room for 28 of the 32 sequences.
    assert "effective batch 28 of 32 requested" in by_id["rtx-a6000"]["explanation"]
    assert by_id["rtx-a6000"]["effective_batch"] == 28
    # 4 x 80 GB hold all 32.
    assert "effective batch 32 (all requested fit" in by_id["a100-80gb-pcie"]["explanation"]
    assert by_id["a100-80gb-pcie"]["effective_batch"] == 32


def test_effective_batch_is_smaller_than_requested_on_a_small_card(market_client):
    params = {"task": "llm-inference", "params_b": 8, "batch": 48, "context": 8192}
    small = _get(market_client, "/model/predict", gpu="rtx-4090", **params)
    big = _get(market_client, "/model/predict", gpu="h100-sxm5", **params)
    # 16 GB of weights leave ~6 GB: five sequences of 1.14 GB KV cache each.
    assert small["llm"]["batch"] == 48
    assert small["llm"]["effective_batch"] == 5
    assert small["llm"]["sequences_held"] == 5
    assert "effective batch 5 of 48 requested" in small["explanation"]
    # 80 GB hold all 48 (55 GB of cache beside 16 GB of weights).
    assert big["llm"]["effective_batch"] == 48
    # The batch a card holds is what it serves: more memory, more throughput here.
    assert big["relative_throughput"] / small["relative_throughput"] > 3


def test_moe_models_report_their_active_parameters_and_shape(market_client):
    params = {"task": "llm-inference", "weights": "fp8", "gpu": "h100-sxm5"}
    mixtral = _get(market_client, "/model/predict", model="mixtral-8x7b", **params)
    assert mixtral["llm"]["params_b"] == 46.7
    assert mixtral["llm"]["active_params_b"] == 12.9 and mixtral["llm"]["kv_heads"] == 8
    assert mixtral["llm"]["layers"] == 32
    moe = _get(market_client, "/model/predict", params_b=46.7, active_params_b=12.9, **params)
    assert moe["llm"]["active_params_b"] == 12.9
    # (Decode time against a dense model of the same size: tests/shared/perfmodel/
    # test_inference.py; relative throughputs of different models do not compare.)


def test_amd_modules_split_over_infinity_fabric(market_client):
    body = _get(
        market_client,
        "/model/predict",
        gpu="mi300x",
        task="llm-inference",
        model="llama-3.1-405b",
        weights="fp8",
        count=8,
    )
    assert body["interconnect"] == "infinity-fabric"
    assert body["tensor_parallel"] > 1
    assert any("infinity-fabric" in c for c in body["caveats"])


@pytest.mark.parametrize(
    ("url", "params", "field", "hint"),
    [
        ("/recommend", {"task": "llm-inference", "model": "llama-9-7b"}, "model", "llama-3-70b"),
        (
            "/model/predict",
            {"gpu": "h100-sxm5", "task": "llm-inference", "model": "llama-9-7b"},
            "model",
            "mixtral-8x7b",
        ),
        ("/recommend", {"task": "llm-inference", "kv_heads": 8}, "kv_heads", "params_b"),
        (
            "/recommend",
            {"task": "llm-inference", "model": "llama-3-70b", "params_b": 8},
            "params_b",
            "70.6B",
        ),
        (
            "/recommend",
            {"task": "llm-inference", "params_b": 8, "active_params_b": 20},
            "active_params_b",
            "at most params_b",
        ),
        (
            "/model/predict",
            {"gpu": "h100-sxm5", "task": "llm-inference", "model": "llama-3-70b", "kv_heads": 16},
            "kv_heads",
            "8 KV heads",
        ),
        (
            "/model/predict",
            {"gpu": "h100-sxm5", "task": "cv", "model": "llama-3-8b"},
            "model",
            "llm-inference",
        ),
        ("/recommend", {"task": "llm-training", "params_b": 8, "mode": "pretrain"}, "mode", ""),
    ],
)
def test_bad_llm_descriptions_are_422(market_client, url, params, field, hint):
    response = market_client.get(url, params={"precision": "fp16", **params})
    assert response.status_code == 422, response.text
    body = response.json()
    assert field in body["message"]
    assert hint in body["message"] + str(body.get("detail"))


def test_llm_training_speed_follows_the_model_size(market_client):
    """A 1B full fine-tune spends little time in large matrix multiplies (the share by
    size, docs/model/llm_training.md): the H100's lead over an RTX 4090 shrinks against
    the 8B LoRA the stored ranking assumes, and the answer says what it timed."""

    def results(**llm: Any) -> dict[str, Any]:
        body = _get(
            market_client,
            "/recommend",
            task="llm-training",
            sort="performance",
            limit=100,
            **llm,
        )
        return {r["gpu"]["id"]: r for r in body["results"]}

    small, default = results(params_b=1, mode="full"), results(params_b=8, mode="lora")
    assert "1B full" in small["h100-pcie"]["explanation"]
    assert "8B lora" in default["h100-pcie"]["explanation"]

    def lead(by_id: dict[str, Any]) -> float:
        return float(by_id["h100-pcie"]["relative_performance"]) / float(
            by_id["rtx-4090"]["relative_performance"]
        )

    assert lead(small) < lead(default)
