from __future__ import annotations

import pytest

from shared.catalog.specs import load_catalog
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


@pytest.mark.parametrize("gpu_id", ["h100-sxm5", "rtx-3090", "rtx-a6000"])
def test_build_speedup_never_exceeds_the_gpu_count_and_grows_sanely(gpu_id: str) -> None:
    from shared.perfmodel.registry import GPUS_PER_NODE, multi_gpu_speedup
    from shared.perfmodel.scaling import balanced_nodes

    gpu = load_catalog().by_id[gpu_id]
    previous = 0.0
    for count in range(1, 65):
        speed = multi_gpu_speedup(gpu, count, "nlp")
        assert speed <= count
        # With the same number of nodes, one more GPU adds at most one GPU of speed. (A
        # new node re-balances the cards: 4+4 over InfiniBand can beat 8 GeForce cards
        # without peer-to-peer in one box.)
        same_nodes = len(balanced_nodes(count, GPUS_PER_NODE)) == len(
            balanced_nodes(max(1, count - 1), GPUS_PER_NODE)
        )
        if same_nodes:
            assert speed - previous <= 1.0 + 1e-9, f"{count} GPUs"
        previous = speed


def test_balanced_nodes_fill_as_few_nodes_as_possible_evenly() -> None:
    from shared.perfmodel.scaling import balanced_nodes

    assert balanced_nodes(8, 8) == [8]
    assert balanced_nodes(9, 8) == [5, 4]
    assert balanced_nodes(17, 8) == [6, 6, 5]
    assert balanced_nodes(3, 4) == [3]
