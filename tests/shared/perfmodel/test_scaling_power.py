from __future__ import annotations

import pytest

from shared.perfmodel.params import load_params
from shared.perfmodel.power import power_limit, throughput_factor
from shared.perfmodel.scaling import (
    NVSWITCH,
    PCIE_NO_P2P,
    PCIE_P2P,
    fit_scaling,
    interconnect_class,
    multi_node_speedup,
    speedup,
)


def test_interconnect_classes(catalog):
    assert interconnect_class(catalog.by_id["a100-80gb-sxm4"]) == NVSWITCH
    assert interconnect_class(catalog.by_id["rtx-3090"]) == PCIE_NO_P2P
    assert interconnect_class(catalog.by_id["rtx-a6000"]) == PCIE_P2P


def test_n_gpus_never_faster_than_n_times_one(catalog):
    scaling = load_params().scaling
    for gpu in catalog.gpus:
        for task in ("cv", "nlp"):
            previous = 0.0
            for count in range(1, 65):
                value = speedup(scaling, gpu, task, count)
                assert value <= count + 1e-9
                assert value >= previous  # more GPUs never slower either
                previous = value


def test_scaling_is_fitted_on_measurements(catalog):
    fitted = fit_scaling()
    assert fitted == load_params().scaling
    scaling = fitted
    # Measured: 2x RTX 3090 (no P2P) resnet50 fp16 1751 vs 905 per GPU = 1.93x.
    assert speedup(scaling, catalog.by_id["rtx-3090"], "cv", 2) == pytest.approx(1.93, abs=0.05)
    geforce = speedup(scaling, catalog.by_id["rtx-3090"], "nlp", 8)
    datacenter = speedup(scaling, catalog.by_id["h100-pcie"], "nlp", 8)
    assert geforce < datacenter


def test_multi_node():
    assert multi_node_speedup(7.0, 1, "infiniband") == pytest.approx(7.0)
    ib = multi_node_speedup(7.0, 4, "infiniband")
    eth = multi_node_speedup(7.0, 4, "ethernet-10g")
    assert eth < ib <= 28.0


def test_power_limit_matches_the_2080_ti_measurement(catalog):
    limit = power_limit(catalog.by_id["rtx-2080-ti"], 200)
    assert limit.throughput_factor == pytest.approx(0.93, abs=0.002)
    assert limit.saved_w_per_gpu == 50
    assert throughput_factor(350, 400) == 1.0
    assert throughput_factor(350, 300) > throughput_factor(350, 250)
    with pytest.raises(ValueError):
        throughput_factor(350, 50)
