"""The 2026 data bundled on top of the older snapshots: what each number measures, the
corrections the source published, and which rows are left out and why."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from shared.bundled.cloud_index import cloud_median_skips, iter_cloud_medians
from shared.bundled.gpupoet import gpupoet_skips, iter_gpupoet_list_prices, iter_gpupoet_prices
from shared.catalog.specs import load_catalog


def _poet(gpu_id: str, month: str, measure: str = "best_deal_used"):
    listing_id = f"gpupoet:{gpu_id}:{month}:{measure}"
    return [r for r in iter_gpupoet_prices() if r.listing_id == listing_id]


def test_report_numbers_say_what_they_measure_and_when():
    [sep_3090] = _poet("rtx-3090", "2026-09")
    assert sep_3090.price_usd == Decimal("1207") and sep_3090.condition == "used"
    assert sep_3090.measure == "cheapest_asks_mean" and sep_3090.kind == "snapshot"
    assert sep_3090.observed_at == datetime(2026, 9, 30, tzinfo=UTC)
    assert "GPU Poet" in sep_3090.source and "CC BY-SA 4.0" in sep_3090.source
    [new_5090] = _poet("rtx-5090", "2026-09", "new_on_amazon_avg3cheapest")
    assert new_5090.condition == "new" and new_5090.price_usd == Decimal("5258")


def test_published_corrections_replace_and_retractions_remove_numbers():
    assert _poet("rtx-5090", "2026-07", "best_deal") == []  # any condition: left out
    [aug_5090] = _poet("rtx-5090", "2026-08", "best_deal_resale")
    assert aug_5090.price_usd == Decimal("3897")  # corrected from 3254 in the October report
    assert _poet("h200-nvl", "2026-08") == []  # retracted: rested on a mislabelled listing
    assert gpupoet_skips() == {
        "condition not stated": 31,
        "retracted by the source": 1,
        "variant not stated": 7,
    }


def test_a_price_of_an_unstated_variant_prices_neither_variant():
    # "A100 PCIe, 40/80GB not stated": $12,600 in August 2026 is neither the 40 GB card's
    # price nor the 80 GB card's.
    assert _poet("a100-40gb-pcie", "2026-08", "best_deal_used") == []
    assert not [r for r in iter_gpupoet_prices() if r.gpu_id.startswith("a100-")]


def test_every_report_gpu_is_a_catalog_card():
    catalog = load_catalog().by_id
    records = list(iter_gpupoet_prices())
    assert len(records) == 67 and all(r.gpu_id in catalog for r in records)
    assert {"h200-nvl", "h100-pcie", "l40s"} <= {r.gpu_id for r in records}


def test_rtx_pro_6000_gets_its_launch_retail_list_price():
    [record] = iter_gpupoet_list_prices()
    assert record.gpu_id == "rtx-pro-6000-blackwell" and record.measure == "list_price"
    assert record.price_usd == Decimal("8565") and record.kind == "msrp"


def test_cloud_index_medians_are_per_gpu_hour_by_segment():
    records = list(iter_cloud_medians())
    index = [r for r in records if r.provider == "gpu-price-index"]
    assert {r.gpu_id for r in index} == {
        "b300",
        "b200",
        "h200-sxm",
        "h100-sxm5",
        "h100-nvl",
        "h100-pcie",
        "mi300x",
        "a100-80gb-sxm4",
        "a100-80gb-pcie",
        "a100-40gb-sxm4",
        "l40s",
    }
    [b200] = [
        r
        for r in index
        if r.instance_type == "B200 hyperscaler median"
        and r.observed_at == datetime(2026, 10, 5, tzinfo=UTC)
    ]
    assert b200.gpu_count == 1 and b200.measure == "segment_median"
    assert b200.on_demand_usd_per_hour is not None and b200.spot_usd_per_hour is None
    spot = [r for r in index if r.instance_type.endswith("spot median")]
    assert spot and all(r.on_demand_usd_per_hour is None and r.spot_usd_per_hour for r in spot)
    # 10 GPUs x 7 days of the "index" series, plus B300's 7 since B300 is in the catalog.
    assert cloud_median_skips() == {"aggregate of the other series": 77}
    b300 = [r for r in index if r.gpu_id == "b300"]
    assert len(b300) == 23 and {r.instance_type.split()[0] for r in b300} == {"B300"}


def test_marketplace_percentiles_map_by_board():
    market = [r for r in iter_cloud_medians() if r.provider == "primeintellect"]
    assert len(market) == 7 * 29 and {r.measure for r in market} == {"marketplace_median"}
    by_type = {r.instance_type: r.gpu_id for r in market}
    assert by_type["A100_80GB_PCIe marketplace median"] == "a100-80gb-pcie"
    assert by_type["H100_80GB_SXM5 marketplace median"] == "h100-sxm5"
