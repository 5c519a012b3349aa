"""Tom's Hardware monthly average eBay sold prices, Oct 2021 - Oct 2023 (used condition)."""

from __future__ import annotations

import calendar
import re
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal

from shared.bundled._data import Skip, count_skips, read_csv, records_only
from shared.bundled.mapping import EBAY_GPUS
from shared.bundled.records import SNAPSHOT, USED, PriceRecord
from shared.pricing.measures import SOLD_AVERAGE

EBAY_FILE = ("retail_prices", "ebay-sold-monthly-2021-2023", "gpu_time_series.csv")
EBAY_SOURCE = (
    "Tom's Hardware monthly eBay sold averages (buttke/ebay-2021-2023-gpu-prices@be920472)"
)
# The collation labelled the last month "November 2023", but it holds October 2023 prices;
# no row is labelled October 2023.
MONTH_LABEL_FIXES = {"November 2023": (2023, 10)}
_DOLLARS = re.compile(r"\$(\d{1,3}(?:,\d{3})*|\d+)(\.\d+)?")


def parse_dollars(text: str) -> Decimal | None:
    """'$1,770' -> Decimal('1770'); None for the blanks and dashes the table uses for no sales."""
    match = _DOLLARS.fullmatch(text.strip())
    if match is None:
        return None
    return Decimal(match.group(1).replace(",", "") + (match.group(2) or ""))


def price_month(label: str) -> tuple[int, int]:
    """(year, month) the prices of a row belong to."""
    if label in MONTH_LABEL_FIXES:
        return MONTH_LABEL_FIXES[label]
    parsed = datetime.strptime(label, "%B %Y")
    return parsed.year, parsed.month


def month_end(year: int, month: int) -> datetime:
    last_day = calendar.monthrange(year, month)[1]
    return datetime(year, month, last_day, tzinfo=UTC)


def _row_outcome(row: dict[str, str]) -> PriceRecord | Skip:
    gpu_id = EBAY_GPUS.get(row["GPU"])
    if gpu_id is None:
        return Skip("GPU not in catalog")
    price = parse_dollars(row["eBay Price"])
    if price is None or price <= 0:
        return Skip("no price that month")
    year, month = price_month(row["Month"])
    return PriceRecord(
        gpu_id=gpu_id,
        condition=USED,
        price_usd=price,
        kind=SNAPSHOT,
        source=EBAY_SOURCE,
        url=None,
        listing_id=f"ebay-monthly:{gpu_id}:{year:04d}-{month:02d}",
        title=row["GPU"],
        observed_at=month_end(year, month),
        measure=SOLD_AVERAGE,
    )


def _outcomes() -> Iterator[PriceRecord | Skip]:
    for row in read_csv(*EBAY_FILE):
        yield _row_outcome(row)


def iter_ebay_monthly_prices() -> Iterator[PriceRecord]:
    """One record per catalog GPU and month: the average eBay sold price that month."""
    return records_only(_outcomes())


def ebay_skips() -> Counter[str]:
    return count_skips(_outcomes())
