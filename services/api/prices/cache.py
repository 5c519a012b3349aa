"""Price history answers' costly parts, reused while no price was stored.

A page of a popular card's history is cheap with its index; its market price and its
total are not (the market window and a count of a year of rows). Pages of the same
history repeat them. Prices are append-only (shared/pricing/ingest.py, their one way
in), so the newest price id names the data they were computed from; a short lifetime
bounds what `now` moves meanwhile (price ages, staleness) and a commit of a lower id
seen late.
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


class PriceCache:
    """Values by (key, price version), each kept for at most `ttl_s` seconds."""

    def __init__(self, ttl_s: float = 60.0, max_entries: int = 1024) -> None:
        self._ttl_s = ttl_s
        self._max = max_entries
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[Hashable, int | None], tuple[float, object]] = (
            OrderedDict()
        )

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
