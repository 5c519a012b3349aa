"""A GPU's market rows (shared/pricing/window.py), brought up to date by the prices stored
since: what the price history's market price and the GPU page are computed from.

Reading the market window of the most listed card again after each of its new prices cost
135-250 ms at a million prices (bench/scale_data.py; ~60 ms of it ranking a week of its
scraped rows per listing in SQL, the rest loading those and its 2.5k bundled rows), on
the first history page and GPU page after every price. Prices are append-only and their
quarantine is decided when they are stored (shared/pricing/ingest.py), so an entry holds
every row a window can reach and appends the rows with a higher id: the GPU's other
kinds whole, and per scraped condition group every unquarantined row from its window's
start at the full computation on (`floor`). The newest price only moves forward, so
later windows start no earlier; each answer takes the window of its own policy from the
held rows and keeps what `market_observations` keeps (window.best_offers), in the same id
order.

A window that would start before the floor (the newest was a list price that has aged
out of use, or a longer window), a group's first price, or an entry older than `ttl_s`
computes the entry again: a commit of a lower id seen late (two writers) is at most that
old, as in cache.py and charts/series_cache.py.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from operator import attrgetter

from sqlalchemy import ColumnElement, select
from sqlmodel import Session, col

from services.api.prices.cache import price_version
from shared.models import PriceObservation
from shared.pricing.market import CONDITION_GROUPS, SCRAPED, PricePolicy
from shared.pricing.measures import LIST_PRICE
from shared.pricing.window import (
    COLUMNS,
    GROUP_OF,
    MarketRow,
    RecordKey,
    best_offers,
    market_observations,
    newest_scraped,
    outranks,
    record_of,
)

_by_id = attrgetter("id")
# Answers kept per entry: one per policy seen since the last price (stale sources change
# rarely, list prices age out rarely).
_ANSWERS = 4
AnswerKey = tuple[tuple[tuple[str, datetime], ...], frozenset[str]]


@dataclass(frozen=True, slots=True)
class _Group:
    """A scraped condition group's unquarantined rows from `floor` on, in id order, less
    the records a later one of their listing outranks (window.outranks): a listing
    re-seen by every scrape holds one or two rows, not one per scrape."""

    floor: datetime
    rows: tuple[MarketRow, ...]
    records: dict[RecordKey, tuple[MarketRow, ...]]  # the rows held, per listing
    # Where a window can start: the newest row that is no list price, and the list
    # prices' dates (whether one may start a window depends on `now`).
    newest_market: datetime | None
    list_prices: tuple[datetime, ...]

    @classmethod
    def of(cls, floor: datetime, rows: Iterable[MarketRow]) -> _Group:
        return cls(floor, (), {}, None, ()).adding(rows)

    def adding(self, rows: Iterable[MarketRow]) -> _Group:
        # An older price than the floor is older than any window the entry can serve.
        new = [r for r in rows if r.observed_at >= self.floor]
        records = dict(self.records)
        added: list[MarketRow] = []
        dropped: set[int] = set()
        for row in new:
            key = record_of(row)
            if key is None:
                added.append(row)
                continue
            held = records.get(key, ())
            if any(outranks(h, row) for h in held):
                continue  # a back-dated record of a listing seen since
            beaten = {h.id for h in held if outranks(row, h)}
            records[key] = (*(h for h in held if h.id not in beaten), row)
            dropped |= beaten
            added.append(row)
        markets = [r.observed_at for r in new if r.measure != LIST_PRICE]
        if self.newest_market is not None:
            markets.append(self.newest_market)
        return _Group(
            self.floor,
            tuple(r for r in (*self.rows, *added) if r.id not in dropped),
            records,
            max(markets, default=None),
            self.list_prices + tuple(r.observed_at for r in new if r.measure == LIST_PRICE),
        )

    def start(self, policy: PricePolicy) -> datetime | None:
        """The window's start under `policy` (newest_scraped's rule); None when the held
        rows cannot tell it."""
        try:
            oldest_list_price = policy.now - timedelta(days=policy.list_price_max_age_days)
        except OverflowError:  # an age limit beyond the calendar: every list price counts
            oldest_list_price = datetime.min.replace(tzinfo=policy.now.tzinfo)
        usable = [at for at in self.list_prices if at >= oldest_list_price]
        if self.newest_market is not None:
            usable.append(self.newest_market)
        if not usable:
            return None
        start = max(usable) - timedelta(days=policy.window_days)
        return start if start >= self.floor else None


@dataclass(slots=True)
class _Entry:
    computed: float  # time.monotonic() of the full computation
    version: int  # newest price id the entry has seen
    other: tuple[MarketRow, ...]  # every kind but scraped, whole
    groups: dict[str, _Group]  # the groups with a window
    answers: dict[AnswerKey, tuple[MarketRow, ...]] = field(default_factory=dict)


class MarketRows:
    """Per GPU, the rows `market_observations` returns, updated with each new price."""

    def __init__(self, ttl_s: float = 60.0, max_entries: int = 64) -> None:
        self._ttl_s = ttl_s
        self._max = max_entries
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, _Entry] = OrderedDict()

    def get(self, session: Session, gpu_id: str, policy: PricePolicy) -> list[MarketRow]:
        version = price_version(session)
        if version is None:
            return []
        with self._lock:
            entry = self._entries.get(gpu_id)
        if entry is not None and time.monotonic() - entry.computed > self._ttl_s:
            entry = None
        if entry is not None and entry.version < version:
            entry = _updated(session, gpu_id, entry, version)
        rows = None if entry is None else _answer(entry, policy)
        if entry is None or rows is None:
            entry = _full(session, gpu_id, policy, version)
            rows = _answer(entry, policy)
            if rows is None:
                # The newest price was committed between the full computation's reads.
                return market_observations(session, [gpu_id], policy)[gpu_id]
        with self._lock:
            self._entries[gpu_id] = entry
            self._entries.move_to_end(gpu_id)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return list(rows)


def _rows(session: Session, *where: ColumnElement[bool]) -> list[MarketRow]:
    table = PriceObservation.__table__.c  # type: ignore[attr-defined]
    query = select(*(table[name] for name in COLUMNS)).where(
        col(PriceObservation.quarantined).is_(False), *where
    )
    return sorted((MarketRow(*values) for values in session.execute(query)), key=_by_id)


def _full(session: Session, gpu_id: str, policy: PricePolicy, version: int) -> _Entry:
    o = PriceObservation
    mine = (col(o.gpu_id) == gpu_id, col(o.id) <= version)
    # As market_observations reads them: two index ranges around "scraped".
    other = _rows(session, *mine, (col(o.kind) < SCRAPED) | (col(o.kind) > SCRAPED))
    groups = {}
    for (_, group), newest in newest_scraped(session, [gpu_id], policy).items():
        floor = newest - timedelta(days=policy.window_days)
        rows = _rows(
            session,
            *mine,
            col(o.kind) == SCRAPED,
            col(o.condition).in_(CONDITION_GROUPS[group]),
            col(o.observed_at) >= floor,
        )
        groups[group] = _Group.of(floor, rows)
    return _Entry(time.monotonic(), version, tuple(other), groups)


def _updated(session: Session, gpu_id: str, entry: _Entry, version: int) -> _Entry | None:
    """The entry with the GPU's prices stored since appended; None: compute it again."""
    o = PriceObservation
    new = _rows(session, col(o.gpu_id) == gpu_id, col(o.id) > entry.version, col(o.id) <= version)
    if not new:
        return _Entry(entry.computed, version, entry.other, entry.groups, entry.answers)
    scraped: dict[str, list[MarketRow]] = {}
    for row in new:
        # Scraped rows of no market condition are in no window (market_observations).
        if row.kind == SCRAPED and row.condition in GROUP_OF:
            scraped.setdefault(GROUP_OF[row.condition], []).append(row)
    if not scraped.keys() <= entry.groups.keys():
        return None  # a group's first window: where it starts is the database's to say
    groups = dict(entry.groups)
    for group, rows in scraped.items():
        groups[group] = groups[group].adding(rows)
    other = entry.other + tuple(r for r in new if r.kind != SCRAPED)
    return _Entry(entry.computed, version, other, groups)


def _answer(entry: _Entry, policy: PricePolicy) -> tuple[MarketRow, ...] | None:
    starts = []
    for group, held in sorted(entry.groups.items()):
        start = held.start(policy)
        if start is None:
            return None
        starts.append((group, start))
    key = (tuple(starts), policy.stale_sources)
    found = entry.answers.get(key)
    if found is None:
        window = [
            row
            for group, start in starts
            for row in entry.groups[group].rows
            if row.observed_at >= start
        ]
        offers = best_offers(window, policy.stale_sources)
        found = tuple(sorted((*entry.other, *offers), key=_by_id))
        if len(entry.answers) >= _ANSWERS:
            entry.answers.clear()
        entry.answers[key] = found
    return found
