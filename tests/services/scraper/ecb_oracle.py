"""The bundled ECB table read directly, as the tests' own account of a day's rate."""

from __future__ import annotations

import csv
from datetime import date
from decimal import Decimal

from services.scraper.exchange import BUNDLED_RATES


def ecb_row(day: date) -> dict[str, Decimal]:
    """Units per euro of each currency on `day`, which must be a reference day."""
    with BUNDLED_RATES.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["Date"] == day.isoformat():
                return {code: Decimal(value) for code, value in row.items() if code != "Date"}
    raise LookupError(f"no ECB row dated {day}")


def usd_per(currency: str, day: date) -> Decimal:
    row = ecb_row(day)
    return row["USD"] if currency == "EUR" else row["USD"] / row[currency]
