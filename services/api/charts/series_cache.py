"""The price chart's series, brought up to date by the periods new prices fall into.

Prices are append-only (services/scraper/store.py, intake) and nearly all arrive dated
now, so after a new price of a popular card only its last period changes: recomputing
that period costs a few thousand rows where the whole history costs a quarter of a
million at a million prices (bench/gpu_page.py). The newest price id names what an entry
has seen; the prices with a higher id tell which periods to recompute. A price dated
before the first period, or a span that needs longer periods, recomputes everything, and
so does an entry older than `ttl_s`: a commit of a lower id seen late (two writers) is
then at most that old, as in prices/cache.py.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session

from services.api.charts import data
from services.api.charts.service import periods, span
from services.api.prices.cache import price_version
from services.api.prices.market_rows import MarketRows

Key = tuple[str, str | None, datetime | None]
PeriodKey = tuple[tuple[str, str, str], int]


@dataclass
class _Entry:
    computed: float  # time.monotonic() of the full computation
    version: int  # newest price id the entry has seen
    origin: datetime
    last: datetime
    days: int
    periods: dict[PeriodKey, data.Period]
    series: list[data.Series]


class SeriesCache:
    """Series by (GPU, condition, since), updated period by period.

    It carries the app's market rows too (prices/market_rows.py), updated the same way:
    the GPU page is handed this cache alone (web/router.py), and the price history and
    the JSON detail use the same rows rather than a second copy of each window."""

    def __init__(
        self, ttl_s: float = 60.0, max_entries: int = 256, market_rows: MarketRows | None = None
    ) -> None:
        self._ttl_s = ttl_s
        self._max = max_entries
        self._lock = threading.Lock()
        self._entries: OrderedDict[Key, _Entry] = OrderedDict()
        self.market_rows = market_rows or MarketRows(ttl_s)

    def get(
        self,
        session: Session,
        gpu_id: str,
        condition: str | None = None,
        since: datetime | None = None,
    ) -> list[data.Series]:
        key: Key = (gpu_id, condition, since)
        version = price_version(session)
        with self._lock:
            entry = self._entries.get(key)
        if version is None:
            return []
        if entry is None or time.monotonic() - entry.computed > self._ttl_s:
            entry = _full(session, key, version)
        elif entry.version != version:
            entry = _updated(session, key, entry, version)
        if entry is None:
            return []
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return entry.series


def _full(session: Session, key: Key, version: int) -> _Entry | None:
    gpu_id, condition, since = key
    first, last, _ = span(session, gpu_id, condition, since)
    if first is None or last is None:
        return None
    days = data.period_days(first, last)
    found = periods(session, gpu_id, condition, since, first, days)
    by_key = {(p[0], p[1]): p for p in found}
    series = data.series_of(by_key.values(), first, days)
    return _Entry(time.monotonic(), version, first, last, days, by_key, series)


def _updated(session: Session, key: Key, entry: _Entry, version: int) -> _Entry | None:
    """The entry with the periods of the prices stored since it was computed redone."""
    gpu_id, condition, since = key
    first, last, n = span(session, gpu_id, condition, since, after_id=entry.version)
    if n == 0 or first is None or last is None:
        entry.version = version
        return entry
    newest = max(entry.last, last)
    if first < entry.origin or data.period_days(entry.origin, newest) != entry.days:
        return _full(session, key, version)
    index = (first - entry.origin).days // entry.days
    start = entry.origin + timedelta(days=index * entry.days)
    redone = periods(session, gpu_id, condition, since, entry.origin, entry.days, start)
    kept = {k: p for k, p in entry.periods.items() if k[1] < index}
    kept.update({(p[0], p[1]): p for p in redone})
    series = data.series_of(kept.values(), entry.origin, entry.days)
    return _Entry(entry.computed, version, entry.origin, newest, entry.days, kept, series)
