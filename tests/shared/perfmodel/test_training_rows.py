"""How the fit's training rows time their matrix multiplies: FP8 only with the vendors'
libraries, and cards without Tensor Cores at the 16-bit gain the calibrated base allows."""

from __future__ import annotations

import pytest

from shared.catalog.specs import load_catalog
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.calibrated import NO_TENSOR_CORE_FP16_GAIN
from shared.perfmodel.class_rows import (
    REFERENCE_GPU,
    base_clock,
    gemm_time,
    memory_batch_factor,
    prepare,
)
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.lab import classeval
from shared.perfmodel.workloads import TRAINING_NLP


def _row(gpu_id: str, independent: bool) -> bm.Measurement:
    return bm.Measurement(
        bm.MLPERF_TRAINING,
        "mlperf-training v5.0 closed bert",
        TRAINING_NLP,
        "bert",
        gpu_id,
        6,
        None,
        1.0,
        "samples/min per accelerator (derived)",
        True,
        "synthetic",
        independent_framework=independent,
    )


def test_an_independent_framework_trains_in_16_bits_where_the_vendors_use_fp8():
    ref = load_catalog().by_id[REFERENCE_GPU]
    vendor, tinygrad = prepare(
        [_row("rtx-4090", False), _row("rtx-4090", True)], classeval.training_base
    )
    assert vendor.gemm_time == pytest.approx(gemm_time(vendor.gpu, ref, "fp8"))
    assert tinygrad.gemm_time == pytest.approx(gemm_time(tinygrad.gpu, ref, "fp16"))
    # FP8 doubles the RTX 4090's matrix rate (330.3 against 165.2 TFLOPS).
    assert tinygrad.gemm_time == pytest.approx(2 * vendor.gemm_time, rel=1e-3)


def test_a_card_without_tensor_cores_gets_the_bases_16_bit_gain_not_its_wmma_peak():
    by_id = load_catalog().by_id
    xtx, ref = by_id["rx-7900-xtx"], by_id[REFERENCE_GPU]
    peak, ref_peak = xtx.fp16_tensor_tflops, ref.fp16_tensor_tflops
    assert peak is not None and ref_peak is not None
    assert not xtx.has_tensor_cores and peak == pytest.approx(122.8)
    capped = xtx.fp32_tflops * NO_TENSOR_CORE_FP16_GAIN
    assert capped < peak
    batch = memory_batch_factor(xtx, ref, TRAINING_NLP, "fp16")
    assert base_clock(xtx, ref, TRAINING_NLP) == 1.0
    assert gemm_time(xtx, ref, "fp16") == pytest.approx(ref_peak / capped / batch)


def test_a_card_with_tensor_cores_keeps_its_peak_at_the_bases_sustained_clock():
    by_id = load_catalog().by_id
    ref = by_id[REFERENCE_GPU]
    for gpu_id in ("rtx-4090", "l4", "h100-sxm5"):
        gpu = by_id[gpu_id]
        peak, ref_peak = gpu.fp16_tensor_tflops, ref.fp16_tensor_tflops
        assert peak is not None and ref_peak is not None
        batch = memory_batch_factor(gpu, ref, TRAINING_NLP, "fp16")
        clock = base_clock(gpu, ref, TRAINING_NLP)
        assert gemm_time(gpu, ref, "fp16") == pytest.approx(ref_peak / peak / clock / batch)
    # The 72 W L4 cannot hold its boost clock; an H100 SXM can.
    assert base_clock(by_id["l4"], ref, TRAINING_NLP) < 0.8
    assert base_clock(by_id["h100-sxm5"], ref, TRAINING_NLP) == 1.0


@pytest.mark.parametrize("task", ["nlp", "llm-training"])
def test_the_product_ranks_the_rtx_4090_over_the_rx_7900_xtx_as_measured(task):
    """tinygrad's BERT (MLPerf Training v4.1 and v5.0, its own tables) is the one table
    with the RX 7900 XTX: the RTX 4090 ran 1.12-1.42x as fast per GPU."""
    by_id = load_catalog().by_id
    model = ClassModel()
    fast = model.predict_task(by_id["rtx-4090"], task, "fp16")
    slow = model.predict_task(by_id["rx-7900-xtx"], task, "fp16")
    assert fast is not None and slow is not None
    assert 1.0 < fast.relative_throughput / slow.relative_throughput < 1.5
