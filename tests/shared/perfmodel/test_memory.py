from __future__ import annotations

import pytest

from shared.perfmodel.memory import (
    estimate_shape,
    fits,
    llm_memory,
    max_sequences,
    split_across,
)


def test_7b_fp16_weights_are_14_gb():
    est = llm_memory(7, "fp16", "inference", context=4096, batch=1)
    assert est.weights_gb == pytest.approx(14.0)
    layers, hidden = estimate_shape(7)
    assert layers == 33 and hidden == pytest.approx(4096, rel=0.05)
    # Llama-2 7B keeps every head's K and V: 32 layers x 4096: 0.5 MB of KV cache per token.
    exact = llm_memory(6.74, "fp16", "inference", context=4096, model="llama-2-7b")
    assert exact.activations_gb == pytest.approx(2 * 32 * 4096 * 4096 * 2 / 1e9)
    assert exact.total_gb == pytest.approx(1.0 + 1.05 * (13.48 + 2.147), rel=1e-3)
    # The original interface: explicit layers and hidden, with a kv_fraction of 1 (MHA).
    legacy = llm_memory(7, "fp16", context=4096, layers=32, hidden=4096, kv_fraction=1.0)
    assert legacy.activations_gb == pytest.approx(exact.activations_gb)


def test_quantization_and_modes():
    assert llm_memory(7, "int8").weights_gb == pytest.approx(7.0)
    assert llm_memory(7, "int4").weights_gb == pytest.approx(3.5)
    full = llm_memory(7, "bf16", "full-finetune", context=2048, batch=1)
    assert full.weights_gb + full.gradients_gb + full.optimizer_gb == pytest.approx(112.0)
    lora = llm_memory(7, "int4", "lora", context=2048, batch=1)
    assert lora.total_gb < 24.0 < full.total_gb
    # Grouped-query attention is the default from 7B: 8 KV heads, far below multi-head.
    default = llm_memory(70, "fp16", "inference")
    assert default.shape is not None and default.shape.kv_heads == 8
    assert default.activations_gb < llm_memory(70, "fp16", kv_fraction=1.0).activations_gb


def test_full_is_an_alias_of_full_finetune():
    alias = llm_memory(8, "bf16", "full", context=2048)
    assert alias == llm_memory(8, "bf16", "full-finetune", context=2048)
    assert alias.mode == "full-finetune"


def test_split_across_gpus():
    # Llama-2 70B: grouped-query attention with 8 of 64 heads for K/V.
    est = llm_memory(69.0, "fp16", "inference", context=4096, model="llama-2-70b")
    assert not fits(est, 80.0)
    assert fits(est, 80.0, count=2)
    per_gpu = split_across(est, 4)
    assert per_gpu.weights_gb == pytest.approx(34.5)
    assert per_gpu.overhead_gb >= 1.0


def test_llama3_70b_serving_32_users_is_about_190_gb_not_500():
    # Issue 25: 503 GB "needed" when every head was given its own K and V.
    est = llm_memory(70.6, "fp16", context=4096, batch=32, model="llama-3-70b")
    # 141.2 GB weights + 2 x 80 layers x 8 KV heads x 128 x 131,072 tokens x 2 B = 42.9 GB
    # KV cache + 1 GB + 5 % = 10.2 GB overhead.
    assert est.weights_gb == pytest.approx(141.2)
    assert est.activations_gb == pytest.approx(2 * 80 * 8 * 128 * 32 * 4096 * 2 / 1e9)
    assert est.activations_gb == pytest.approx(42.95, abs=0.01)
    assert est.total_gb == pytest.approx(194.4, abs=0.1)
    assert 180 < est.total_gb < 200
    # A 70B model of unknown shape: the estimated shape with 8 KV heads lands close by.
    unnamed = llm_memory(70, "fp16", context=4096, batch=32)
    assert 180 < unnamed.total_gb < 200
    # The old assumption (all 64 heads keep K/V) is what the issue reports.
    assert llm_memory(70, "fp16", context=4096, batch=32, kv_fraction=1.0).total_gb > 500


def test_8b_lora_at_fp16_fits_a_24_gb_card_with_checkpointing():
    lora = llm_memory(8.03, "fp16", "lora", context=4096, model="llama-3-8b")
    assert lora.checkpointing is True
    assert lora.total_gb == pytest.approx(20.3, abs=0.2)
    assert fits(lora, 24.0)
    unnamed = llm_memory(8, "fp16", "lora", context=4096)
    assert fits(unnamed, 24.0)
    # Without checkpointing every layer keeps its activations: no longer fits.
    stored = llm_memory(8.03, "fp16", "lora", context=4096, model="llama-3-8b", checkpointing=False)
    assert stored.checkpointing is False
    assert not fits(stored, 24.0)


def test_a_full_fine_tune_of_8b_does_not_fit_24_gb():
    full = llm_memory(8, "bf16", "full", context=4096)
    assert full.total_gb > 130
    assert not fits(full, 24.0)
    assert not fits(full, 24.0, count=2)


def test_qlora_70b_fits_two_24_gb_cards_as_answer_ai_ran_it():
    # Answer.AI fsdp_qlora, benchmarking/small_gpu_benchmarking.sh: Llama-2 70B QLoRA on
    # 2 x A5000 24 GB, FSDP, gradient checkpointing, batch 2 per GPU at 256 tokens.
    qlora = llm_memory(69.0, "bf16", "qlora", context=256, batch=4, model="llama-2-70b")
    # The frozen base in NF4 (4.127 bits per weight) whatever the compute precision.
    assert qlora.weights_gb == pytest.approx(69.0 * 4.127 / 8 + 69.0 * 0.005 * 2, rel=1e-6)
    per_gpu = split_across(qlora, 2)
    assert per_gpu.total_gb < 24.0
    assert fits(qlora, 24.0, count=2)
    # It does not fit one card, and 16-bit LoRA of the same model does not fit two.
    assert not fits(qlora, 24.0)
    lora = llm_memory(69.0, "bf16", "lora", context=256, batch=4, model="llama-2-70b")
    assert not fits(lora, 24.0, count=2)


def test_moe_weights_count_every_expert_and_kv_follows_the_shape():
    mixtral = llm_memory(46.7, "fp16", context=4096, model="mixtral-8x7b")
    assert mixtral.weights_gb == pytest.approx(93.4)
    # Mixtral's attention is Mistral 7B's: 32 layers x 8 KV heads x 128.
    assert mixtral.kv_bytes_per_token == 2 * 32 * 8 * 128 * 2
    # Unnamed, the shape comes from the active size, not the total.
    unnamed = llm_memory(46.7, "fp16", context=4096, active_params_b=12.9)
    dense = llm_memory(46.7, "fp16", context=4096)
    assert unnamed.weights_gb == dense.weights_gb
    assert unnamed.kv_bytes_per_token < dense.kv_bytes_per_token


def test_max_sequences_is_the_largest_batch_that_fits():
    one = llm_memory(70.6, "fp16", context=4096, model="llama-3-70b")
    for count in (2, 4):
        held = max_sequences(one, 80.0, count)
        at = llm_memory(70.6, "fp16", context=4096, batch=held, model="llama-3-70b")
        above = llm_memory(70.6, "fp16", context=4096, batch=held + 1, model="llama-3-70b")
        assert fits(at, 80.0, count) and not fits(above, 80.0, count)
    assert max_sequences(one, 80.0, 1) == 0


def test_bad_inputs():
    with pytest.raises(ValueError, match="precision"):
        llm_memory(7, "fp6")
    with pytest.raises(ValueError, match="mode"):
        llm_memory(7, "fp16", "pretrain")
    with pytest.raises(ValueError):
        split_across(llm_memory(7), 0)
    with pytest.raises(ValueError, match="unknown model"):
        llm_memory(7, model="llama-9-7b")
