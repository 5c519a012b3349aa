"""The power-limited matrix clock of server modules and HBM cards (module_power.py), its
fits, and where the product uses it."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from shared.catalog.specs import load_catalog
from shared.perfmodel import inference as inf
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.class_params import FittedParams
from shared.perfmodel.class_rows import memory_batch_factor, prepare
from shared.perfmodel.classmodel import load_class_params
from shared.perfmodel.lab import classeval
from shared.perfmodel.lab import classfit as cf
from shared.perfmodel.module_power import (
    card_power_headroom_log,
    power_headroom_log,
    watts_per_tflops,
)
from shared.perfmodel.timemodel import Shares
from shared.perfmodel.workloads import LlmWorkload
from tests.shared.perfmodel.synthetic import training_rows


def test_a_module_is_compared_with_its_architectures_best_fed_module():
    by_id = load_catalog().by_id
    # MI300X and MI325X: the same peaks at 750 W and 1000 W.
    assert power_headroom_log(by_id["mi300x"]) == pytest.approx(math.log(750 / 1000))
    assert power_headroom_log(by_id["mi325x"]) == 0.0
    # MI350X against MI355X: fewer watts per (also lower) peak TFLOPS.
    mi350x, mi355x = by_id["mi350x"], by_id["mi355x"]
    assert mi350x.fp16_tensor_tflops is not None and mi355x.fp16_tensor_tflops is not None
    expected = math.log((1000 / mi350x.fp16_tensor_tflops) / (1400 / mi355x.fp16_tensor_tflops))
    assert power_headroom_log(mi350x) == pytest.approx(expected)
    assert power_headroom_log(by_id["gb300"]) == 0.0 > power_headroom_log(by_id["b200"])


def test_cards_and_modules_whose_power_feeds_a_cpu_are_left_out():
    by_id = load_catalog().by_id
    for gpu_id in ("l40s", "h100-pcie", "rtx-4090", "gh200"):
        assert watts_per_tflops(by_id[gpu_id]) is None
        assert power_headroom_log(by_id[gpu_id]) == 0.0
    # H100 SXM is Hopper's best-fed module once GH200 (Grace included) is left out.
    assert power_headroom_log(by_id["h100-sxm5"]) == 0.0


def _rows(gpus: tuple[str, ...], tables: dict[str, float]):
    return training_rows("llama2_70b_lora", tables, gpus)


def test_the_power_term_slows_the_matrix_time_of_a_power_short_module():
    rows = {r.gpu.id: r for r in _rows(("mi300x", "mi325x"), {"t": 1.0})}
    limited = FittedParams(gemm_share={"llama2_70b_lora": 1.0}, power_exponent=1.0)
    free = FittedParams(gemm_share={"llama2_70b_lora": 1.0})

    def ratio(params: FittedParams) -> float:
        log = cf.predict_log(rows["mi325x"], params, None)  # type: ignore[arg-type]
        return math.exp(log - cf.predict_log(rows["mi300x"], params, None))  # type: ignore[arg-type]

    # Same peaks: without the power term only the memory batch factor (256 vs 192 GB).
    specs = load_catalog().by_id
    batch = {
        gpu_id: memory_batch_factor(specs[gpu_id], specs["rtx-3090"], bm.TRAINING_NLP, "fp8")
        for gpu_id in rows
    }
    memory = batch["mi325x"] / batch["mi300x"]
    assert 1.0 < memory < 1.1
    assert ratio(free) == pytest.approx(memory)
    assert ratio(limited) == pytest.approx(memory * 1000 / 750)


def test_fit_recovers_a_planted_power_exponent():
    gpus = ("mi300x", "mi325x", "mi350x", "mi355x", "b200", "gb300", "h100-sxm5", "a100-80gb-sxm4")
    planted = FittedParams(gemm_share={"llama2_70b_lora": 0.9}, power_exponent=0.6)
    # Enough tables for the data to outweigh the exponent's prior (1/3, sd 0.3).
    tables = {f"t{i}": float(i) for i in range(1, 9)}
    rows = []
    for r in _rows(gpus, tables):
        value = math.exp(cf.predict_log(r, planted, None)) * tables[r.m.table_id]  # type: ignore[arg-type]
        rows += prepare([replace(r.m, value=value)], classeval.training_base)
    assert cf.fit(rows).power_exponent == pytest.approx(0.6, abs=0.1)


def test_hbm_cards_are_compared_with_their_architectures_best_fed_hbm_part():
    by_id = load_catalog().by_id
    # Hopper's best-fed HBM part is the 600 W H200 NVL (same peak as the 400 W H100 NVL).
    assert card_power_headroom_log(by_id["h200-nvl"]) == 0.0
    assert card_power_headroom_log(by_id["h100-nvl"]) == pytest.approx(math.log(400 / 600))
    pcie = by_id["h100-pcie"]
    assert pcie.fp16_tensor_tflops is not None
    expected = math.log((350 / pcie.fp16_tensor_tflops) / (600 / 835.5))
    assert card_power_headroom_log(pcie) == pytest.approx(expected)
    # Ampere: A100 PCIe (300 W) against the SXM4 module (400 W), same peak.
    assert card_power_headroom_log(by_id["a100-80gb-pcie"]) == pytest.approx(math.log(0.75))
    # GDDR parts are other dies; GH200's power includes its CPU.
    for gpu_id in ("l40s", "rtx-4090", "a10", "gh200"):
        assert card_power_headroom_log(by_id[gpu_id]) == 0.0


def test_the_vision_power_clock_slows_power_short_cards_and_not_llm_decode():
    by_id = load_catalog().by_id
    ref = by_id["rtx-3090"]
    free = inf.InferenceParams(
        arch_log={},
        matmul_efficiency=0.5,
        step_overhead_s={"s": 2e-3},
        vision_shares={bm.CNN_INFERENCE: Shares(0.2, 0.7, 0.1)},
    )
    limited = replace(free, vision_power_exponent=0.5)

    def vision(gpu_id: str, params: inf.InferenceParams) -> float:
        return inf.vision_throughput(by_id[gpu_id], ref, bm.CNN_INFERENCE, params)

    assert vision("h100-nvl", limited) < vision("h100-nvl", free)
    for gpu_id in ("h200-nvl", "l40s", "rtx-4090"):
        assert vision(gpu_id, limited) == vision(gpu_id, free)
    workload = LlmWorkload(8, weights="fp16", batch=32)
    nvl = by_id["h100-nvl"]
    assert inf.decode_tokens_per_s(nvl, workload, limited, "s") == inf.decode_tokens_per_s(
        nvl, workload, free, "s"
    )


def _vision_rows(tables: dict[str, float], gpus: tuple[str, ...]):
    protos = [
        bm.Measurement(
            bm.MLPERF_INFERENCE,
            table,
            bm.CNN_INFERENCE,
            "resnet50 Offline",
            gpu_id,
            1,
            None,
            1.0,
            "samples/s",
            False,
            "synthetic",
        )
        for table in tables
        for gpu_id in gpus
    ]
    return prepare(protos, classeval.training_base)


def test_fit_recovers_a_planted_vision_power_exponent():
    gpus = (
        "h100-nvl",
        "h100-pcie",
        "h100-sxm5",
        "h200-nvl",
        "a100-40gb-pcie",
        "a100-80gb-pcie",
        "a100-80gb-sxm4",
        "l40s",
        "rtx-4090",
        "rtx-3090",
    )
    planted = FittedParams(
        vision_shares={bm.CNN_INFERENCE: Shares(0.2, 0.7, 0.1)}, vision_power_exponent=0.6
    )
    tables = {f"t{i}": float(i) for i in range(1, 9)}
    ref = load_catalog().by_id["rtx-3090"]
    rows = []
    for r in _vision_rows(tables, gpus):
        value = math.exp(cf.predict_log(r, planted, ref)) * tables[r.m.table_id]
        rows += prepare([replace(r.m, value=value)], classeval.training_base)
    assert cf.fit(rows).vision_power_exponent == pytest.approx(0.6, abs=0.1)


def test_the_served_vision_classes_carry_a_fitted_power_exponent():
    fitted = load_class_params().fitted
    # Fitted on MLPerf Inference's vision tables (docs/model/classes.md, eighth round).
    assert 0.0 < fitted.vision_power_exponent <= 1.0
