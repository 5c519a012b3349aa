from __future__ import annotations

import pytest

from shared.perfmodel.memory import estimate_shape, fits, llm_memory, split_across


def test_7b_fp16_weights_are_14_gb():
    est = llm_memory(7, "fp16", "inference", context=4096, batch=1)
    assert est.weights_gb == pytest.approx(14.0)
    # Llama-2 7B: 32 layers x 4096 hidden: 0.5 MB of KV cache per token.
    layers, hidden = estimate_shape(7)
    assert layers == 33 and hidden == pytest.approx(4096, rel=0.05)
    exact = llm_memory(7, "fp16", "inference", context=4096, layers=32, hidden=4096)
    assert exact.activations_gb == pytest.approx(2 * 32 * 4096 * 4096 * 2 / 1e9)
    assert exact.total_gb == pytest.approx(1.0 + 1.05 * (14.0 + 2.147), rel=1e-3)


def test_quantization_and_modes():
    assert llm_memory(7, "int8").weights_gb == pytest.approx(7.0)
    assert llm_memory(7, "int4").weights_gb == pytest.approx(3.5)
    full = llm_memory(7, "bf16", "full-finetune", context=2048, batch=1)
    assert full.weights_gb + full.gradients_gb + full.optimizer_gb == pytest.approx(112.0)
    lora = llm_memory(7, "int4", "lora", context=2048, batch=1)
    assert lora.total_gb < 24.0 < full.total_gb
    gqa = llm_memory(70, "fp16", "inference", kv_fraction=0.125)
    assert gqa.activations_gb < llm_memory(70, "fp16", "inference").activations_gb


def test_split_across_gpus():
    # Llama-2 70B: grouped-query attention with 8 of 64 heads for K/V.
    est = llm_memory(70, "fp16", "inference", context=4096, kv_fraction=0.125)
    assert not fits(est, 80.0)
    assert fits(est, 80.0, count=2)
    per_gpu = split_across(est, 4)
    assert per_gpu.weights_gb == pytest.approx(35.0)
    assert per_gpu.overhead_gb >= 1.0


def test_bad_inputs():
    with pytest.raises(ValueError, match="precision"):
        llm_memory(7, "fp6")
    with pytest.raises(ValueError, match="mode"):
        llm_memory(7, "fp16", "pretrain")
    with pytest.raises(ValueError):
        split_across(llm_memory(7), 0)
