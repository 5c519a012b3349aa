from decimal import Decimal

from shared.catalog.specs import load_catalog
from shared.pricing.system_cost import system_cost
from shared.settings import Settings

SETTINGS = Settings(
    system_cost_1_2_gpu_usd=700, system_cost_4_gpu_usd=2500, system_cost_8_gpu_usd=9000
)


def gpu(gpu_id: str):
    return load_catalog().by_id[gpu_id]


def test_build_size_picks_the_base_system():
    assert system_cost(gpu("rtx-3090"), 1, SETTINGS).usd == Decimal("700")
    assert system_cost(gpu("rtx-3090"), 2, SETTINGS).usd == Decimal("700")
    assert system_cost(gpu("rtx-3090"), 4, SETTINGS).usd == Decimal("2500")
    assert system_cost(gpu("rtx-3090"), 8, SETTINGS).usd == Decimal("9000")


def test_more_than_eight_gpus_take_several_servers():
    cost = system_cost(gpu("rtx-a6000"), 16, SETTINGS)
    assert (cost.nodes, cost.usd) == (2, Decimal("18000"))


def test_sxm_modules_always_take_a_server():
    cost = system_cost(gpu("a100-80gb-sxm4"), 1, SETTINGS)
    assert cost.node_kind == "server-8" and cost.usd == Decimal("9000")
