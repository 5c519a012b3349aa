"""Cluster quotes without a database: PSU, cooling, licence, networking, mixed types."""

from __future__ import annotations

from decimal import Decimal

import pytest

from shared.catalog.specs import load_catalog
from shared.kit.settings import Settings
from shared.perfmodel.registry import get_model
from shared.quotes.count import resolve_count
from shared.quotes.lines import GpuPick
from shared.quotes.quote import ClusterQuote, quote_cluster
from shared.quotes.schemas import ClusterRequest, GpuCount

SETTINGS = Settings(environment="test", broker_url="")


def pick(gpu_id: str, count: int, usd: str = "1000") -> GpuPick:
    return GpuPick(gpu_id, count, Decimal(usd), "used", "scraped", "test-market", None)


def quote(**overrides: object) -> ClusterQuote:
    req = ClusterRequest.model_validate({"gpu": "rtx-3090", "count": 4, **overrides})
    picks = [pick(req.gpu, req.count or 1), *(pick(g.gpu, g.count) for g in req.additional_gpus)]
    return quote_cluster(req, picks, SETTINGS, get_model())


def test_4x_rtx_3090_workstation_flags_psu_outlet_cooling_and_proposes_a_power_limit() -> None:
    q = quote()
    assert q.flags["psu_over_outlet"] and q.flags["cooling"]
    assert q.power.node_watts == 4 * 350 + 200
    assert q.power.psu_watts_needed == 1760 and q.power.psu_watts == 2000
    limit = q.power.suggested_power_limit
    assert limit is not None and limit["cap_w"] == 310
    assert 0 < limit["speed_cost_pct"] < 10 and limit["node_watts"] <= 1600 / 1.1
    text = " ".join(q.warnings)
    assert "1600 W a single US outlet" in text and "310 W per GPU" in text
    assert "3-slot" in text and "no more than 3 per chassis" in text
    categories = {line.category for line in q.line_items}
    assert {"gpu", "node", "cpu-ram-storage", "psu", "cooling"} <= categories
    assert q.total_usd == sum(line.total_usd for line in q.line_items)


def test_power_limit_lowers_watts_and_throughput() -> None:
    free, capped = quote(), quote(power_limit_w=300)
    assert capped.power.gpu_watts == 300
    assert capped.performance.relative_throughput < free.performance.relative_throughput
    assert not capped.flags["psu_over_outlet"]


def test_8x_geforce_in_a_datacenter_warns_about_the_licence_unless_allowed() -> None:
    q = quote(count=8, deployment="datacenter")
    assert q.flags["licence"]
    assert any(w.startswith("licence:") for w in q.warnings)
    assert q.layout.node_kind == "server-8" and q.layout.nodes == 1
    allowed = quote(count=8, deployment="datacenter", allow_geforce=True)
    assert not allowed.flags["licence"]
    assert not any(w.startswith("licence:") for w in allowed.warnings)
    assert any("allow_geforce" in n for n in allowed.notes)
    workstation = quote(count=2)
    assert not workstation.flags["licence"]


def test_two_slot_cards_have_no_cooling_issue() -> None:
    q = quote(gpu="rtx-a6000", count=4)
    assert not q.flags["cooling"] and not q.flags["psu_over_outlet"]
    assert not q.warnings


def test_multi_node_infiniband_prices_ports_and_scales_better_than_ethernet() -> None:
    ib = quote(gpu="rtx-a6000", count=16, deployment="datacenter")
    eth = quote(gpu="rtx-a6000", count=16, deployment="datacenter", network="ethernet")
    assert ib.layout.nodes == 2 and ib.flags["multi_node"]
    assert ib.network["link_gbits"] == 200 and ib.network["meets_minimum"] is True
    assert ib.network["switch_ports"] == 2
    assert [line.quantity for line in ib.line_items if line.category == "network"] == [2, 2, 2]
    assert eth.network["meets_minimum"] is False
    assert any(w.startswith("network:") for w in eth.warnings)
    assert ib.performance.relative_throughput > eth.performance.relative_throughput
    single = quote(gpu="rtx-a6000", count=8, deployment="datacenter")
    assert not [line for line in single.line_items if line.category == "network"]
    assert ib.performance.total_speedup < 2 * single.performance.total_speedup


def test_workstations_hold_four_gpus_and_sxm_modules_take_servers() -> None:
    assert quote(gpu="rtx-a6000", count=6, deployment="workstation").layout.nodes == 2
    sxm = quote(gpu="h100-sxm5", count=4)
    assert sxm.layout.node_kind == "server-8"


@pytest.mark.parametrize(
    ("gpu", "count", "deployment", "node_counts"),
    [
        # GeForce cards stay in workstations (driver licence; <= 4 per machine).
        ("rtx-3090", 6, "workstation", (3, 3)),
        ("rtx-3090", 2, "workstation", (2,)),
        # Other PCIe cards fill a workstation, then 8-GPU servers.
        ("rtx-a6000", 4, "workstation", (4,)),
        ("rtx-a6000", 6, "datacenter", (6,)),
        ("rtx-a6000", 9, "datacenter", (5, 4)),
        # Modules only come on server baseboards.
        ("h100-sxm5", 2, "datacenter", (2,)),
    ],
)
def test_auto_deployment_is_the_default_and_says_why(
    gpu: str, count: int, deployment: str, node_counts: tuple[int, ...]
) -> None:
    q = quote(gpu=gpu, count=count)
    assert q.request.deployment == "auto"
    assert (q.layout.deployment, q.layout.node_counts) == (deployment, node_counts)
    assert q.layout.reason != "requested"
    assert q.notes[0].startswith(f"layout: {q.layout.describe()}")


def test_mixed_gpu_types_warn_and_run_at_the_slowest_pace() -> None:
    mixed = quote(count=2, additional_gpus=[GpuCount(gpu="rtx-3060-12gb", count=2)])
    assert mixed.flags["mixed_types"]
    assert any(w.startswith("mixed GPU types") for w in mixed.warnings)
    slow = quote(gpu="rtx-3060-12gb", count=4)
    assert mixed.performance.single_gpu_relative == slow.performance.single_gpu_relative


def test_budget_and_perf_per_dollar() -> None:
    q = quote(budget_usd=Decimal("1000"))
    assert q.within_budget is False and any(w.startswith("budget:") for w in q.warnings)
    assert q.perf_per_1000_usd == pytest.approx(
        q.performance.relative_throughput / float(q.total_usd) * 1000
    )
    assert q.yearly_power["kwh"] == round(1600 * 0.15 * 24 * 365 / 1000, 1)


def test_count_from_targets() -> None:
    spec = load_catalog().by_id["rtx-a6000"]
    assert resolve_count(ClusterRequest(gpu="rtx-a6000", memory_gb=200), spec, get_model()) == 5
    target = ClusterRequest(gpu="rtx-a6000", target_relative_throughput=3)
    count = resolve_count(target, spec, get_model())
    assert quote(gpu="rtx-a6000", count=count).performance.relative_throughput >= 3
    assert quote(gpu="rtx-a6000", count=count - 1).performance.relative_throughput < 3


@pytest.mark.parametrize(
    ("gpu", "deployment", "count", "nodes"),
    [("h100-sxm5", "datacenter", 9, (5, 4)), ("rtx-a6000", "workstation", 17, (4, 4, 3, 3, 3))],
)
def test_uneven_builds_count_power_and_speed_for_the_gpus_they_have(
    gpu: str, deployment: str, count: int, nodes: tuple[int, ...]
) -> None:
    q = quote(gpu=gpu, count=count, deployment=deployment)
    spec = load_catalog().by_id[gpu]
    system = q.power.system_watts_per_node
    assert q.power.total_kw == pytest.approx((count * spec.tdp_w + len(nodes) * system) / 1000)
    assert q.performance.total_speedup < count
    # Speed of the nodes actually built (5 + 4, not 2 x 5), over the fitted network.
    expected = get_model().predict_task(spec, "cv", "fp16", count=count, nodes=list(nodes))
    assert expected is not None
    assert q.performance.total_speedup == pytest.approx(expected.multi_gpu_speedup)


def test_a_quote_and_each_compared_candidate_cost_per_unit_of_work() -> None:
    """Issue 38: the cluster's throughput in the task's unit and its dollars per unit owned
    over the horizon at the quote's utilization, by the same arithmetic as /recommend."""
    from decimal import Decimal

    from shared.builds.unit_cost import COST_UNITS
    from shared.kit.settings import Settings
    from shared.perfmodel.classmodel import ClassModel
    from shared.quotes.lines import GpuPick
    from shared.quotes.quote import quote_cluster
    from shared.quotes.schemas import ClusterRequest

    req = ClusterRequest(gpu="rtx-4090", count=4, task="llm-inference", gpu_price_usd=Decimal(1800))
    pick = GpuPick("rtx-4090", 4, Decimal(1800), "new", "input", "request", None)
    quote = quote_cluster(req, [pick], Settings(), ClassModel())
    assert quote.throughput is not None and quote.cost_per_unit is not None
    throughput, cost = quote.throughput, quote.cost_per_unit
    assert throughput["unit"] == "output tokens/s" and cost["unit"] == "usd per 1M output tokens"
    scale, _ = COST_UNITS["output tokens/s"]
    assert cost["usd"] == pytest.approx(
        float(cost["usd_per_hour"]) / float(cost["units_per_hour"]) * scale, rel=1e-3
    )
    # Owned over the TCO horizon: purchase plus electricity over the busy hours.
    hours = 3 * 8760 * float(str(quote.yearly_power["utilization"]))
    energy = float(str(quote.yearly_power["usd"])) * 3
    assert float(cost["usd_per_hour"]) == pytest.approx(
        (float(quote.total_usd) + energy) / hours, rel=1e-3
    )
