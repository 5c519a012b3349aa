"""The power-limited matrix clock of server modules (module_power.py) and its fit."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from shared.catalog.specs import load_catalog
from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.class_params import FittedParams
from shared.perfmodel.class_rows import memory_batch_factor, prepare
from shared.perfmodel.lab import classeval
from shared.perfmodel.lab import classfit as cf
from shared.perfmodel.module_power import power_headroom_log, watts_per_tflops
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
