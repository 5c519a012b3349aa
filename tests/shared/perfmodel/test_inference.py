"""The inference physics: what memory bandwidth, capacity, precision and splits do."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from shared.perfmodel import inference as inf
from shared.perfmodel.memory import llm_memory
from shared.perfmodel.scaling import interconnect_class
from shared.perfmodel.timemodel import Shares
from shared.perfmodel.workloads import LlmWorkload

PARAMS = inf.InferenceParams(
    arch_log={},
    matmul_efficiency=0.5,
    step_overhead_s={"s": 2e-3},
    vision_shares={"diffusion": Shares(0.2, 0.7, 0.1), "cnn-inference": Shares(0.3, 0.5, 0.2)},
)


def _decode(gpu, workload, tp=1, link="nvswitch"):
    return inf.decode_tokens_per_s(gpu, workload, PARAMS, "s", tp, link)


def test_decode_of_a_large_model_follows_memory_bandwidth(catalog):
    big = LlmWorkload(30, weights="fp16")
    h100, a100 = catalog.by_id["h100-sxm5"], catalog.by_id["a100-80gb-sxm4"]
    ratio = _decode(h100, big) / _decode(a100, big)
    bandwidth = h100.memory_bandwidth_gbs / a100.memory_bandwidth_gbs
    # Bandwidth-bound, minus the per-token overhead that both pay.
    assert 1.0 < ratio < bandwidth
    assert ratio == pytest.approx(bandwidth, rel=0.15)


def test_per_token_overhead_compresses_small_models(catalog):
    h100, a100 = catalog.by_id["h100-sxm5"], catalog.by_id["a100-80gb-sxm4"]
    small, big = LlmWorkload(1, weights="int4"), LlmWorkload(30)
    assert _decode(h100, small) / _decode(a100, small) < _decode(h100, big) / _decode(a100, big)


def test_no_batch_bonus_for_memory_that_a_fitting_model_does_not_use(catalog):
    # Same chip, 24 GB vs 48 GB: decoding a model that fits in both runs at the same speed.
    workload = LlmWorkload(7, weights="fp16")
    small = catalog.by_id["rtx-a6000"]
    bigger = replace(small, id="a6000-96gb", memory_gb=96)
    assert _decode(small, workload) == pytest.approx(_decode(bigger, workload))


def test_fp4_weights_on_blackwell_read_a_quarter_of_the_bytes(catalog):
    b200 = catalog.by_id["b200"]
    fp16 = _decode(b200, LlmWorkload(70, weights="fp16"))
    fp4 = _decode(b200, LlmWorkload(70, weights="fp4"))
    assert 2.5 < fp4 / fp16 < 4.0


def test_tensor_parallel_split_is_slower_per_gpu_and_worse_over_pcie(catalog):
    workload = LlmWorkload(70, weights="fp16", batch=32)
    # Memory for the whole batch on one card or two: the splits serve the same batch.
    h100 = replace(catalog.by_id["h100-sxm5"], memory_gb=400)
    one, two = _decode(h100, workload, 1), _decode(h100, workload, 2, "nvswitch")
    # Two GPUs are faster together but less than twice: the all-reduces cost time.
    assert one < 2 * two < 2 * one
    assert _decode(h100, workload, 2, "pcie-no-p2p") < two


def test_serving_batches_raise_throughput_until_compute_binds(catalog):
    h100 = catalog.by_id["h100-sxm5"]
    rates = [_decode(h100, LlmWorkload(8, batch=b, context=1024)) for b in (1, 16, 256)]
    assert rates[0] < rates[1] < rates[2]
    assert rates[2] / rates[1] < rates[1] / rates[0]


def test_prefill_is_matrix_bound(catalog):
    workload = LlmWorkload(7, prompt_tokens=2048)
    h100, a100 = catalog.by_id["h100-sxm5"], catalog.by_id["a100-80gb-sxm4"]
    ratio = inf.prefill_tokens_per_s(h100, workload, PARAMS, "s") / inf.prefill_tokens_per_s(
        a100, workload, PARAMS, "s"
    )
    matmul = h100.fp16_tensor_tflops / a100.fp16_tensor_tflops
    assert ratio == pytest.approx(matmul, rel=0.2)


def test_vision_is_relative_to_the_reference(catalog):
    ref = catalog.by_id["rtx-3090"]
    assert inf.vision_throughput(ref, ref, "diffusion", PARAMS) == pytest.approx(1.0)
    assert inf.vision_throughput(catalog.by_id["h100-sxm5"], ref, "diffusion", PARAMS) > 3


def test_tensor_parallel_size_is_the_fewest_gpus_that_hold_the_model(catalog):
    h100 = catalog.by_id["h100-sxm5"]
    assert inf.tensor_parallel_size(h100, 60, 8) == 1
    assert inf.tensor_parallel_size(h100, 140, 8) == 2
    assert inf.tensor_parallel_size(h100, 140, 1) is None


def test_an_nvlink_bridge_joins_two_cards_and_wider_groups_talk_over_pcie():
    workload = LlmWorkload(70, weights="fp16", batch=64)
    assert inf.allreduce_s(workload, 2, "bridge") < inf.allreduce_s(workload, 2, "pcie-p2p")
    assert inf.allreduce_s(workload, 4, "bridge") == inf.allreduce_s(workload, 4, "pcie-p2p")


def test_extra_matrix_work_per_token_only_costs_compute(catalog):
    h100, h200 = catalog.by_id["h100-sxm5"], catalog.by_id["h200-sxm"]
    plain = LlmWorkload(8, weights="fp8", batch=256)
    prefilled = replace(plain, extra_compute=30.0)
    assert _decode(h100, prefilled) < _decode(h100, plain)
    # H200 = H100 compute with more bandwidth: its edge shrinks as matrix work grows.
    edge = _decode(h200, plain) / _decode(h100, plain)
    assert 1.0 <= _decode(h200, prefilled) / _decode(h100, prefilled) < edge


def test_more_than_four_pcie_cards_all_reduce_through_host_memory():
    # Four cards per CPU socket: an 8-card ring crosses the socket link like no-P2P cards.
    workload = LlmWorkload(70, weights="fp16", batch=64)
    assert inf.allreduce_s(workload, 4, "pcie-p2p") < inf.allreduce_s(workload, 4, "pcie-no-p2p")
    assert inf.allreduce_s(workload, 8, "pcie-p2p") == inf.allreduce_s(workload, 8, "pcie-no-p2p")
    assert inf.allreduce_s(workload, 8, "bridge") == inf.allreduce_s(workload, 8, "pcie-no-p2p")
    assert inf.allreduce_s(workload, 8, "nvswitch") < inf.allreduce_s(workload, 8, "pcie-p2p")


def test_a_throughput_run_fills_its_split_with_kv_cache(catalog):
    by_id = catalog.by_id
    llm = LlmWorkload(69.0, weights="fp8", batch=128, context=2048)
    h100 = inf.filled_batch(by_id["h100-sxm5"], llm, 8)
    h200 = inf.filled_batch(by_id["h200-sxm"], llm, 8)
    assert 128 <= h100 < h200
    # The filled batch's cache and the weights fit the group's usable memory; one more does not.
    for gpu_id, batch in (("h100-sxm5", h100), ("h200-sxm", h200)):
        usable = by_id[gpu_id].memory_gb * 8 * inf.MEMORY_USABLE
        assert inf.llm_need_gb(llm.with_batch(batch)) <= usable
        assert inf.llm_need_gb(llm.with_batch(batch + 1)) > usable
    # Never below the batch asked for (the split was chosen to hold it).
    assert inf.filled_batch(by_id["l40s"], llm, 1) == 128


def test_moe_active_parameters_lower_the_decode_time(catalog):
    h100 = catalog.by_id["h100-sxm5"]
    dense = LlmWorkload(46.7, weights="fp8")
    moe = replace(dense, active_params_b=12.9)
    mixtral = replace(dense, active_params_b=12.9, model="mixtral-8x7b")
    step = inf.decode_step_s(h100, dense, PARAMS, "s")
    # A quarter of the weights read per token, and the attention of a smaller model.
    assert inf.decode_step_s(h100, moe, PARAMS, "s") < 0.5 * step
    assert inf.decode_step_s(h100, mixtral, PARAMS, "s") < 0.5 * step
    assert moe.weight_gb == dense.weight_gb


def test_decode_reads_the_kv_cache_the_memory_sizing_counts():
    llm = LlmWorkload(70.6, context=4096, model="llama-3-70b")
    assert inf.kv_bytes_per_sequence(llm) == 2 * 80 * 8 * 128 * 4096 * 2
    sized = llm_memory(70.6, "fp16", context=4096, batch=1, model="llama-3-70b")
    assert sized.activations_gb * 1e9 == pytest.approx(inf.kv_bytes_per_sequence(llm))
    unnamed = LlmWorkload(70, context=4096)
    assert inf.kv_bytes_per_sequence(unnamed) == pytest.approx(
        llm_memory(70, "fp16", context=4096).activations_gb * 1e9
    )


def test_serving_batch_is_what_the_memory_holds_beside_the_weights(catalog):
    llm = LlmWorkload(70.6, batch=32, context=4096, model="llama-3-70b")
    a6000, a100 = catalog.by_id["rtx-a6000"], catalog.by_id["a100-80gb-pcie"]
    small = inf.serving_batch(a6000, llm, 4)
    assert (small.tp, small.batch, small.holds) == (4, 28, 28)
    assert "effective batch 28 of 32 requested" in small.note
    big = inf.serving_batch(a100, llm, 4)
    assert (big.tp, big.batch) == (4, 32) and big.holds >= 32
    # The weights alone do not fit one card: the batch is left as asked, and said.
    alone = inf.serving_batch(a100, llm, 1)
    assert alone.holds == 0 and alone.batch == 32 and "do not fit" in alone.note


def test_amd_modules_all_reduce_over_infinity_fabric(catalog):
    workload = LlmWorkload(70, weights="fp16", batch=64)
    assert interconnect_class(catalog.by_id["mi300x"]) == "infinity-fabric"
    assert interconnect_class(catalog.by_id["mi355x"]) == "infinity-fabric"
    assert interconnect_class(catalog.by_id["mi210"]) == "pcie-p2p"
    fabric = inf.allreduce_s(workload, 8, "infinity-fabric")
    assert (
        inf.allreduce_s(workload, 8, "nvswitch") < fabric < inf.allreduce_s(workload, 8, "pcie-p2p")
    )


def test_decode_serves_the_batch_the_memory_holds(catalog):
    h100 = catalog.by_id["h100-sxm5"]
    llm = LlmWorkload(8, batch=48, context=8192)
    roomy = replace(h100, memory_gb=400)
    assert inf.effective_batch(h100, llm) == 48
    small = replace(h100, memory_gb=24)
    assert inf.effective_batch(small, llm) == 5
    # A user's request on the small card is timed at five sequences: the tokens per
    # second of batch 5; a benchmark row keeps its measured batch.
    served = inf.served_decode_tokens_per_s(small, llm, PARAMS, "s")
    assert served == pytest.approx(_decode(small, llm.with_batch(5)))
    assert _decode(small, llm) > served
    assert inf.served_decode_tokens_per_s(roomy, llm, PARAMS, "s") == pytest.approx(
        inf.served_decode_tokens_per_s(h100, llm, PARAMS, "s")
    )


def test_an_hbm_offset_moves_the_bandwidth_of_hbm_cards_on_its_stack_only(catalog):
    h100, rtx = catalog.by_id["h100-sxm5"], catalog.by_id["rtx-4090"]
    assert inf.memory_class(h100) == "hbm" and inf.memory_class(rtx) == "gddr"
    slower = replace(PARAMS, memory_log={inf.memory_key("hbm", "s"): math.log(0.5)})
    llm = LlmWorkload(70, batch=1)
    # Batch 1 decode is bandwidth-bound: half the achieved bandwidth, about half the speed.
    ratio = inf.decode_tokens_per_s(h100, llm, slower, "s") / _decode(h100, llm)
    assert 0.5 < ratio < 0.6
    assert inf.decode_tokens_per_s(rtx, llm, slower, "s") == pytest.approx(_decode(rtx, llm))
    other = replace(PARAMS, step_overhead_s={"s": 2e-3, "t": 2e-3})
    on_other = replace(other, memory_log={inf.memory_key("hbm", "t"): math.log(0.5)})
    assert inf.decode_tokens_per_s(h100, llm, on_other, "s") == pytest.approx(_decode(h100, llm))
