"""Reading the bundled data files, and the small parsing helpers the readers share."""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Skip:
    """A source row that yields no record, and why (every drop is counted)."""

    reason: str


def data_file(*parts: str) -> Traversable:
    """A file under shared/data/, read through importlib.resources so it works when installed."""
    return resources.files("shared").joinpath("data", *parts)


def read_csv(*parts: str) -> list[dict[str, str]]:
    text = data_file(*parts).read_text("utf-8")
    return list(csv.DictReader(text.splitlines()))


def parse_price(text: str) -> Decimal | None:
    """A positive price from a plain decimal string; None for blank, zero or garbage.

    The SkyPilot-format catalogs write 0 (Vast spot) or leave the cell empty when a price is
    missing, so neither is a real price.
    """
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() and value > 0 else None


def utc_midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def count_skips(outcomes: Iterable[object]) -> Counter[str]:
    return Counter(outcome.reason for outcome in outcomes if isinstance(outcome, Skip))


def records_only(outcomes: Iterable[T | Skip]) -> Iterator[T]:
    for outcome in outcomes:
        if not isinstance(outcome, Skip):
            yield outcome
