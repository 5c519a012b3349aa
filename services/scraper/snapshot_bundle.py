"""Bundle real eBay Browse API search snapshots as dated asking prices.

The snapshots (GPU Poet's captures of `item_summary/search`, CC BY-SA 4.0) go through the
same adapter and pipeline a live run uses: the Browse parser, the title matcher, the
condition and currency rules, the price bounds and the dedupe. What survives is written
to a CSV the product reads at start (`shared/bundled/ebay_snapshots.py`); a test
regenerates it from the raw files, so the two cannot drift apart.

    python -m services.scraper.snapshot_bundle RAW_DIR OUT_CSV
"""

from __future__ import annotations

import csv
import json
import sys
from datetime import date
from pathlib import Path

from services.scraper import pipeline
from services.scraper.settings import ScraperSettings
from services.scraper.sources import ebay_browse
from shared.matching.titles import match_title

# Capture day per search, from the upstream commit dates. "Dec 2023" and undated captures
# are dated at the newest listing they hold (never before 2023-12-01 for the December
# ones): the earliest day they can be from, so their age is never understated.
STATED = {
    "nvidia-geforce-rtx-4070": date(2025, 11, 25),
    "nvidia-geforce-rtx-4070-ti": date(2025, 11, 25),
    "nvidia-geforce-rtx-5070-ti": date(2025, 11, 25),
    "nvidia-geforce-rtx-5090": date(2025, 11, 25),
    "amd-radeon-rx-7600-xt": date(2025, 11, 25),
    "nvidia-tesla-p100": date(2024, 1, 11),
    "nvidia-tesla-v100-16gb": date(2024, 1, 11),
    "amd-radeon-rx-7700-xt": date(2024, 1, 17),
}
DECEMBER_2023 = date(2023, 12, 1)
COLUMNS = ("search", "captured", "item_id", "gpu_id", "condition", "unit_usd", "quantity", "title")
URL = "https://api.ebay.com/buy/browse/v1/item_summary/search?q={search}"


def capture_day(search: str, items: list[dict[str, object]]) -> date:
    if search in STATED:
        return STATED[search]
    created = [str(i.get("itemCreationDate", ""))[:10] for i in items]
    newest = max((date.fromisoformat(d) for d in created if d), default=DECEMBER_2023)
    return max(newest, DECEMBER_2023)


def snapshot_rows(raw_dir: Path) -> list[dict[str, str]]:
    """One row per listing a live run would have stored, all searches, sorted."""
    bounds = pipeline.PriceBounds.from_settings(ScraperSettings())
    rows: list[dict[str, str]] = []
    for path in sorted(raw_dir.glob("search-listings-*.json")):
        search = path.stem.removeprefix("search-listings-")
        items = json.loads(path.read_text("utf-8"))
        body = json.dumps({"itemSummaries": items, "total": len(items)})
        listings = ebay_browse.parse(body, URL.format(search=search))
        # No quarantine here: a snapshot has no earlier market; the market price's
        # outlier fences apply when it is read.
        # No exchange rates: most capture days are estimates (the newest listing's day),
        # and a rate must be of the day the price was seen, so a price the seller set in
        # another currency stays out of the bundle (counted as no_exchange_rate).
        result = pipeline.run(listings, match_title, bounds)
        captured = capture_day(search, items).isoformat()
        rows.extend(
            {
                "search": search,
                "captured": captured,
                "item_id": item.listing.listing_id,
                "gpu_id": item.gpu_id,
                "condition": item.condition,
                "unit_usd": str(item.unit_price_usd),
                "quantity": str(item.quantity),
                "title": item.listing.title,
            }
            for item in result.accepted
        )
    return sorted(rows, key=lambda r: (r["search"], r["item_id"]))


def write_csv(rows: list[dict[str, str]], out: Path) -> None:
    with out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    rows = snapshot_rows(Path(argv[0]))
    write_csv(rows, Path(argv[1]))
    print(f"{len(rows)} listings -> {argv[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
