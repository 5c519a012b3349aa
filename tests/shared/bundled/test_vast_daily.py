"""vast.ai's daily marketplace (CCIR, Feb-Mar 2026): one median per card and day, on-demand
only, modded and ambiguous boards counted and left out."""

from __future__ import annotations

import statistics
from collections import defaultdict
from datetime import UTC, datetime
from decimal import Decimal

from shared.bundled._data import Skip, read_csv
from shared.bundled.vast_daily import (
    NONSTANDARD_VRAM,
    VAST_DAILY_FILE,
    iter_vast_daily,
    vast_daily_gpu,
    vast_daily_skips,
)
from shared.catalog.specs import load_catalog


def test_each_record_is_the_median_of_that_days_offers_of_one_card():
    rows = read_csv(*VAST_DAILY_FILE)
    offers: dict[tuple[str, str], list[Decimal]] = defaultdict(list)
    for row in rows:
        gpu = vast_daily_gpu(row)
        if isinstance(gpu, str):
            offers[(gpu, row["date"])].append(Decimal(row["usd_per_gpu_hour"]))
    records = list(iter_vast_daily())
    assert len(records) == len(offers) == 53
    for record in records:
        prices = offers[(record.gpu_id, record.observed_at.date().isoformat())]
        median = Decimal(statistics.median(prices)).quantize(Decimal("0.00001"))
        assert record.on_demand_usd_per_hour == median
        assert f"median of {len(prices)} listed offer" in record.source
        assert record.spot_usd_per_hour is None and record.measure == "marketplace_median"
        assert record.observed_at.tzinfo is UTC and record.observed_at.hour == 0
        assert "CC BY 4.0" in record.source and record.provider == "vastai"


def test_the_rtx_4090_gets_dated_on_demand_prices_and_no_spot():
    days = {r.observed_at: r for r in iter_vast_daily() if r.gpu_id == "rtx-4090"}
    assert len(days) == 8
    first = days[datetime(2026, 2, 27, tzinfo=UTC)]
    assert Decimal("0.2") < (first.on_demand_usd_per_hour or 0) < Decimal("0.7")


def test_every_record_is_a_catalog_card():
    catalog = load_catalog().by_id
    assert {r.gpu_id for r in iter_vast_daily()} <= set(catalog)


def test_ambiguous_and_modded_boards_are_counted_not_mapped():
    skips = vast_daily_skips()
    assert skips == {"V100 form factor unknown (PCIe or SXM2)": 369, NONSTANDARD_VRAM: 19}
    modded = {"gpu_name": "RTX 4090", "gpu_ram_mib": "49140"}
    assert vast_daily_gpu(modded) == Skip(NONSTANDARD_VRAM)
    assert vast_daily_gpu({"gpu_name": "A100 PCIE", "gpu_ram_mib": "40960"}) == "a100-40gb-pcie"
    assert vast_daily_gpu({"gpu_name": "A100 PCIE", "gpu_ram_mib": "81920"}) == "a100-80gb-pcie"
    assert vast_daily_gpu({"gpu_name": "L40S", "gpu_ram_mib": "46068"}) == "l40s"
