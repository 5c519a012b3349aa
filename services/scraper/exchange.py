"""Prices shown in another currency, in US dollars at a dated, sourced exchange rate.

The market the product compares is in US dollars. A listing keeps the amount and currency
its page shows (`RawListing.price`); the pipeline converts it with the reference rate of
the day it was observed (a sale: its sale day), and refuses it (`no_exchange_rate`) when
no rate of that day, or a few days before it, is known. Rates: the ECB's daily euro
reference rates (data/ecb_rates/PROVENANCE.md), or an operator's newer ECB file.
"""

from __future__ import annotations

import bisect
import csv
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path

from services.scraper.listing import ListingType, RawListing
from services.scraper.money import Money
from services.scraper.settings import ScraperSettings

BUNDLED_RATES = Path(__file__).parent / "data" / "ecb_rates" / "eurofxref-hist-2023-2026.csv"
ECB = "ECB euro reference rate"
USD = "USD"
EUR = "EUR"
# ECB reference days are TARGET business days: the longest gap (Easter) is four days.
DEFAULT_MAX_AGE_DAYS = 7
NO_EXCHANGE_RATE = "no_exchange_rate"


@dataclass(frozen=True)
class UsdRate:
    """US dollars per unit of `currency`, as of `day` (the reference day used)."""

    currency: str
    usd_per_unit: Decimal
    day: date
    source: str

    def __str__(self) -> str:
        return f"1 {self.currency} = {self.usd_per_unit:.6f} USD ({self.source} of {self.day})"


class RateTable:
    """Daily rates as units of each currency per euro, the ECB's form."""

    def __init__(self, per_euro: dict[str, list[tuple[date, Decimal]]], source: str) -> None:
        self._days = {code: [day for day, _ in rows] for code, rows in per_euro.items()}
        self._rates = {code: [rate for _, rate in rows] for code, rows in per_euro.items()}
        self.source = source

    @property
    def currencies(self) -> frozenset[str]:
        return frozenset(self._days) | {EUR}

    def span(self, currency: str) -> tuple[date, date] | None:
        """The first and last reference day with a rate for `currency`."""
        days = self._days.get(USD if currency == EUR else currency)
        return (days[0], days[-1]) if days else None

    def usd_rate(self, currency: str, on: date, max_age_days: int) -> UsdRate | None:
        """The rate of the newest reference day on or before `on`, at most `max_age_days`
        before it; None when there is none (a currency the table lacks, a day past its
        end or before its start)."""
        if currency == USD:
            return UsdRate(USD, Decimal(1), on, "no conversion")
        usd = self._per_euro(USD, on, max_age_days)
        if usd is None:
            return None
        if currency == EUR:
            return UsdRate(EUR, usd[1], usd[0], self.source)
        other = self._per_euro(currency, on, max_age_days)
        # One reference day for both legs of the cross rate.
        if other is None or other[0] != usd[0]:
            return None
        return UsdRate(currency, usd[1] / other[1], usd[0], self.source)

    def _per_euro(self, currency: str, on: date, max_age_days: int) -> tuple[date, Decimal] | None:
        days = self._days.get(currency)
        if not days:
            return None
        index = bisect.bisect_right(days, on) - 1
        if index < 0 or (on - days[index]).days > max_age_days:
            return None
        return days[index], self._rates[currency][index]


def read_ecb_csv(path: Path, source: str = ECB) -> RateTable:
    """An ECB `eurofxref-hist.csv`: a Date column, then one column per currency; "N/A"
    and empty cells are days without a rate."""
    per_euro: dict[str, list[tuple[date, Decimal]]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        header = [cell.strip() for cell in next(reader)]
        for row in reader:
            if not row or not row[0].strip():
                continue
            day = date.fromisoformat(row[0].strip())
            for code, cell in zip(header[1:], row[1:], strict=False):
                rate = _rate(cell)
                if code and rate is not None:
                    per_euro.setdefault(code, []).append((day, rate))
    for rows in per_euro.values():
        rows.sort()
    return RateTable(per_euro, source)


def _rate(cell: str) -> Decimal | None:
    try:
        value = Decimal(cell.strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() and value > 0 else None


def rate_table(path: Path | None = None) -> RateTable:
    """The bundled table, or the ECB file an operator points to (read once per path)."""
    return _read_once(path or BUNDLED_RATES)


@lru_cache(maxsize=4)
def _read_once(path: Path) -> RateTable:
    return read_ecb_csv(path)


@dataclass(frozen=True)
class Converted:
    usd: Decimal
    rate: UsdRate


@dataclass(frozen=True)
class Exchange:
    """Converts a run's listings: asks at the run's day, sales at their sale day."""

    table: RateTable
    observed_on: date
    max_age_days: int = DEFAULT_MAX_AGE_DAYS

    @classmethod
    def from_settings(cls, settings: ScraperSettings, observed_on: date) -> Exchange:
        table = rate_table(settings.exchange_rates_path)
        return cls(table, observed_on, settings.exchange_rate_max_age_days)

    def day_of(self, listing: RawListing) -> date:
        if listing.listing_type is ListingType.SOLD and listing.sold_at is not None:
            return min(listing.sold_at, self.observed_on)
        return self.observed_on

    def to_usd(self, money: Money, on: date) -> Converted | None:
        rate = self.table.usd_rate(money.currency, on, self.max_age_days)
        if rate is None:
            return None
        return Converted(money.amount * rate.usd_per_unit, rate)

    def missing(self, currency: str, on: date) -> str:
        """Why a price in `currency` observed on `on` has no rate, for the drop's detail."""
        span = self.table.span(currency)
        if span is None:
            return f"no {currency} rate in the {self.table.source} table"
        return (
            f"no {currency} rate within {self.max_age_days} days before {on} "
            f"({self.table.source} table: {span[0]} to {span[1]})"
        )
