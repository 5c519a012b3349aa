"""Price history answers' costly parts, reused while no price was stored.

A page of a popular card's history is cheap with its index; its market price and its
total are not (the market window and a count of a year of rows). Pages of the same
history repeat them. Prices are append-only (shared/pricing/ingest.py, their one way
in), so the newest price id names the data they were computed from; a short lifetime
bounds what `now` moves meanwhile (price ages, staleness) and a commit of a lower id
seen late. A total outlives new prices: the rows with a higher id are added to it
(counting the most listed card's year of rows again took ~200 ms at a million prices,
bench/scale.py); its full count is redone after the same lifetime.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar, cast

from sqlalchemy import func
from sqlmodel import Session, select

from shared.models import PriceObservation

T = TypeVar("T")


def price_version(session: Session) -> int | None:
    """The newest price id: one primary-key lookup."""
    return session.exec(select(func.max(PriceObservation.id))).one()


# Rows with after < id <= up_to (after None: from the first; up_to None: to the last).
Count = Callable[[int | None, int | None], int]


class PriceCache:
    """Values by (key, price version), each kept for at most `ttl_s` seconds; and running
    totals by key."""

    def __init__(self, ttl_s: float = 60.0, max_entries: int = 1024) -> None:
        self._ttl_s = ttl_s
        self._max = max_entries
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[Hashable, int | None], tuple[float, object]] = (
            OrderedDict()
        )
        # key -> (time.monotonic() of the full count, version, total at that version)
        self._totals: OrderedDict[Hashable, tuple[float, int | None, int]] = OrderedDict()

    def total(self, key: Hashable, version: int | None, count: Count) -> int:
        """How many rows `count` finds up to `version`: the total held for an older
        version plus the rows stored since, or a full count."""
        with self._lock:
            held = self._totals.get(key)
        if (
            held is None
            or held[1] is None
            or version is None
            or time.monotonic() - held[0] > self._ttl_s
        ):
            entry = (time.monotonic(), version, count(None, version))
        elif held[1] > version:  # another request counted to a newer price: keep its
            return held[2] - count(version, held[1])
        elif held[1] == version:
            return held[2]
        else:
            entry = (held[0], version, held[2] + count(held[1], version))
        with self._lock:
            self._totals[key] = entry
            self._totals.move_to_end(key)
            while len(self._totals) > self._max:
                self._totals.popitem(last=False)
        return entry[2]

    def get(self, key: Hashable, version: int | None, compute: Callable[[], T]) -> T:
        entry_key = (key, version)
        with self._lock:
            entry = self._entries.get(entry_key)
            if entry is not None and time.monotonic() - entry[0] <= self._ttl_s:
                self._entries.move_to_end(entry_key)
                return cast(T, entry[1])
        value = compute()
        with self._lock:
            self._entries[entry_key] = (time.monotonic(), value)
            self._entries.move_to_end(entry_key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return value
