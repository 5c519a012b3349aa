"""The bundled eBay snapshot prices are exactly what the live adapter and pipeline make of
the real captured responses."""

from __future__ import annotations

import csv
from importlib import resources
from pathlib import Path

from services.scraper.snapshot_bundle import main, snapshot_rows
from shared.bundled.ebay_snapshots import iter_ebay_snapshot_prices

RAW = Path(__file__).parent / "samples" / "ebay_browse" / "snapshots"
BUNDLED = resources.files("shared").joinpath(
    "data", "retail_prices", "ebay-browse-snapshots", "listings.csv"
)


def test_the_bundled_csv_is_regenerated_exactly_from_the_raw_responses(tmp_path):
    out = tmp_path / "listings.csv"
    assert main([str(RAW), str(out)]) == 0
    assert out.read_text("utf-8") == BUNDLED.read_text("utf-8")


def test_junk_and_unbuyable_listings_are_not_prices():
    rows = snapshot_rows(RAW)
    raw_items = sum(1 for _ in RAW.glob("search-listings-*.json"))
    assert raw_items == 23 and 500 < len(rows) < 1491  # of 1,491 real items
    titles = " ".join(r["title"].lower() for r in rows)
    for junk in ("backplate", "keychain", "for parts", "box only"):
        assert junk not in titles
    assert {r["condition"] for r in rows} <= {"new", "used", "refurbished"}


def test_records_are_dated_asks_with_attribution():
    records = list(iter_ebay_snapshot_prices())
    with BUNDLED.open("r", encoding="utf-8") as handle:
        assert len(records) == sum(1 for _ in csv.DictReader(handle))
    rtx_5090 = [r for r in records if r.gpu_id == "rtx-5090"]
    assert rtx_5090 and all(r.observed_at.date().isoformat() == "2025-11-25" for r in rtx_5090)
    assert all(r.measure == "ask" and "GPU Poet" in r.source for r in records)
    # December 2023 captures are dated at their newest listing, never earlier.
    t4 = {r.observed_at.date().isoformat() for r in records if r.gpu_id == "t4"}
    assert t4 == {"2023-12-21"}
