"""GPU Poet's monthly market reports (Dec 2025 - Sep 2026) and one launch list price.

Attribute "GPU Poet (gpupoet.com)" wherever these numbers are shown (CC BY-SA 4.0): the
source string of every record does. Each report number says what it measures; numbers
whose condition the report does not state (any-condition best deals, median listings,
means of all active listings) are left out, because a price must say whether it is new
or used. Corrections published in a later report replace the original number; a number
the source retracted is left out.
"""

from __future__ import annotations

import calendar
import re
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime
from decimal import Decimal

from shared.bundled._data import Skip, count_skips, read_csv, records_only, utc_midnight
from shared.bundled.records import MSRP, NEW, SNAPSHOT, USED, PriceRecord
from shared.catalog.specs import load_catalog
from shared.pricing.measures import CHEAPEST_ASKS_MEAN, LIST_PRICE

REPORTS_FILE = ("retail_prices", "gpupoet-market-reports-2026", "prices.csv")
ATTRIBUTION = "gpupoet.com, CC BY-SA 4.0"
# Report measure -> the condition it prices. Every "best deal" is the mean of the three
# cheapest active eBay + Amazon asks of the month (the site's own method).
MEASURE_CONDITIONS = {
    "best_deal_used": USED,
    "best_deal_resale": USED,
    "new_on_amazon_avg3cheapest": NEW,
}
_CORRECTED = re.compile(r"CORRECTED in ([a-z]+-\d{4}) report to (\d+)")
_MONTH = re.compile(r"(\d{4})-(\d{2})\??")

# A launch list price for a catalog card that has no official MSRP (gpu_catalog.csv):
# Connection's retail listing of the boxed Workstation Edition in March 2025, as GPU Poet's
# spec file (activescott/gpu-agent@be14fc82, data/gpu-data) reports it.
LIST_PRICES = (
    (
        "rtx-pro-6000-blackwell",
        Decimal("8565"),
        date(2025, 3, 18),
        "launch retail list price (Connection, Mar 2025) via GPU Poet spec data",
    ),
)


def month_end(label: str) -> datetime:
    """'2026-09' -> 2026-09-30 00:00 UTC; '2025-12?' (uncertain month) -> its month end."""
    match = _MONTH.fullmatch(label.strip())
    if match is None:
        raise ValueError(f"not a data month: {label!r}")
    year, month = int(match.group(1)), int(match.group(2))
    return datetime(year, month, calendar.monthrange(year, month)[1], tzinfo=UTC)


# A report that does not say which variant it priced ("A100 PCIe", 40 or 80 GB; "V100",
# PCIe or SXM2) prices neither: the two differ by up to 2x, and the catalog id in the CSV
# was a guess.
_VARIANT_UNSTATED = re.compile(r"(40/80GB|form factor|VRAM variant|PCIe/SXM) not stated")


def _usd(row: dict[str, str]) -> Decimal | Skip:
    note = row["note"]
    if "RETRACTED" in note:
        return Skip("retracted by the source")
    if _VARIANT_UNSTATED.search(note):
        return Skip("variant not stated")
    corrected = _CORRECTED.search(note)
    return Decimal(corrected.group(2) if corrected else row["usd"])


def _row_outcome(row: dict[str, str]) -> PriceRecord | Skip:
    condition = MEASURE_CONDITIONS.get(row["measure"])
    if condition is None:
        return Skip("condition not stated")
    if row["catalog_id"] not in load_catalog().by_id:
        return Skip("GPU not in catalog")
    usd = _usd(row)
    if isinstance(usd, Skip):
        return usd
    month = row["data_month"].rstrip("?")
    return PriceRecord(
        gpu_id=row["catalog_id"],
        condition=condition,
        price_usd=usd,
        kind=SNAPSHOT,
        source=f"GPU Poet {row['report']} market report ({ATTRIBUTION})",
        url=None,
        listing_id=f"gpupoet:{row['catalog_id']}:{month}:{row['measure']}",
        title=row["gpu_as_written"],
        observed_at=month_end(row["data_month"]),
        measure=CHEAPEST_ASKS_MEAN,
    )


def _outcomes() -> Iterator[PriceRecord | Skip]:
    for row in read_csv(*REPORTS_FILE):
        yield _row_outcome(row)


def iter_gpupoet_prices() -> Iterator[PriceRecord]:
    """One record per report number that states its condition; dated at the month's end."""
    return records_only(_outcomes())


def gpupoet_skips() -> Counter[str]:
    return count_skips(_outcomes())


def iter_gpupoet_list_prices() -> Iterator[PriceRecord]:
    for gpu_id, usd, launched, what in LIST_PRICES:
        yield PriceRecord(
            gpu_id=gpu_id,
            condition=NEW,
            price_usd=usd,
            kind=MSRP,
            source=f"{what} ({ATTRIBUTION})",
            url=None,
            listing_id=f"msrp:{gpu_id}",
            title=None,
            observed_at=utc_midnight(launched),
            measure=LIST_PRICE,
        )
