"""The price chart's series, brought up to date by the periods new prices fall into.

Prices are append-only (services/scraper/store.py, intake) and nearly all arrive dated
now, so after a new price of a popular card only its last period changes: recomputing
that period costs a few thousand rows where the whole history costs a quarter of a
million at a million prices (bench/gpu_page.py). The newest price id names what an entry
has seen; the prices with a higher id tell which periods to recompute. A price dated
before the first period, or a span that needs longer periods, recomputes everything, and
so does an entry older than `ttl_s`: a commit of a lower id seen late (two writers) is
then at most that old, as in prices/cache.py.

The periods redone are aggregated here, from their prices held sorted (`_Tail`) plus the
new ones: redoing the last week's period of the most listed card in SQL still read ~10k
rows after each of its prices (~20-60 ms). Its median is computed as the database
computes it (percentile_cont's interpolation on PostgreSQL, statistics.median on SQLite),
so an updated series equals a full computation's exactly.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session

from services.api.charts import data
from services.api.charts.service import periods, prices, span
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
    tail: _Tail | None = None  # read by the first update


@dataclass(frozen=True, slots=True)
class _Tail:
    """The prices of the periods from `index` on, sorted per series and period."""

    index: int
    values: dict[PeriodKey, tuple[float, ...]]

    def adding(
        self,
        rows: Iterable[tuple[tuple[str, str, str], datetime, float]],
        origin: datetime,
        days: int,
    ) -> _Tail:
        new: dict[PeriodKey, list[float]] = {}
        for key, at, usd in rows:
            new.setdefault((key, (at - origin).days // days), []).append(usd)
        values = dict(self.values)
        for period, found in new.items():
            values[period] = tuple(sorted((*values.get(period, ()), *found)))
        return _Tail(self.index, values)

    def periods(self, start: int, postgres: bool) -> list[data.Period]:
        return [
            (key, index, _median(found, postgres), found[0], found[-1], len(found))
            for (key, index), found in self.values.items()
            if index >= start
        ]


def _median(ordered: Sequence[float], postgres: bool) -> float:
    """The median of sorted values as `periods` gets it from the database."""
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[mid]
    low, high = ordered[mid - 1], ordered[mid]
    if postgres:
        return low + 0.5 * (high - low)  # percentile_cont(0.5): float8 interpolation
    return (low + high) / 2  # statistics.median (charts/data.py:periods_of)


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
    stored = {"after_id": entry.version, "up_to": version}
    first, last, n = span(session, gpu_id, condition, since, **stored)
    if n == 0 or first is None or last is None:
        entry.version = version
        return entry
    newest = max(entry.last, last)
    if first < entry.origin or data.period_days(entry.origin, newest) != entry.days:
        return _full(session, key, version)
    origin, days = entry.origin, entry.days
    index = (first - origin).days // days
    if entry.tail is not None and index >= entry.tail.index:
        tail = entry.tail.adding(prices(session, gpu_id, condition, since, **stored), origin, days)
    else:
        # The prices of the periods from the first new price's on, up to this version
        # (the next update adds the ones stored since).
        start = origin + timedelta(days=index * days)
        since = start if since is None else max(since, start)
        found = prices(session, gpu_id, condition, since, up_to=version)
        tail = _Tail(index, {}).adding(found, origin, days)
    postgres = session.connection().dialect.name == "postgresql"
    kept = {k: p for k, p in entry.periods.items() if k[1] < index}
    kept.update({(p[0], p[1]): p for p in tail.periods(index, postgres)})
    series = data.series_of(kept.values(), origin, days)
    return _Entry(entry.computed, version, origin, newest, days, kept, series, tail)
