"""A market index per segment and condition: how prices of comparable cards moved.

A stale price (older than `price_stale_days`) is never used at face value: it is moved to
today by the index of its segment and condition group (shared/pricing/today.py). The
index is fitted on every stored market series (bundled and scraped) of the group's cards:

    log price(card, series, month) = card level + series offset + index(month) + noise

with a random-walk prior on the index (a penalty on month-to-month steps), solved by
least squares. The series offset absorbs what a series measures (sold averages,
the cheapest asks, median asks sit at different levels for the same card), so series that
never overlap in time are joined by the cards they share, and a gap between them is
bridged by the prior rather than read as a price jump. This is the repeat-sales idea
(Case-Shiller) with a hedonic card term, on monthly medians.

From the fit come the volatilities the estimate's band widens with:
- `card_drift`: how far one card strays from its index per month (the variance of a
  card's residual change grows with the months between its two observations);
- `obs_noise`: one monthly point's own noise (the intercept of that fit);
- `index_step`: the index's own month-to-month volatility, for the months after the
  group's newest data, where the index is carried flat.
They are measured on the data the index is fitted on; nothing is tuned to a target.
"""

from __future__ import annotations

import math
import re
import statistics
import sys
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.linalg import spsolve
from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from shared.catalog.specs import load_catalog
from shared.models import CloudOffer, PriceObservation
from shared.pricing import index_store
from shared.pricing.market import CONDITION_GROUPS, SCRAPED, source_name
from shared.pricing.measures import ASK, LIST_PRICE, NOT_MARKET_MEASURES, QUOTE_KINDS

GroupKey = tuple[str, str]  # (peer class, condition group)
# The random-walk prior's weight against one monthly point (a step of 0.1 costs as much
# as a point 0.025 off). Across months without data any weight interpolates the index
# in equal steps; where there are data, a penalty on steps also flattens a steady trend,
# so it is kept weak: at 1.0 a known fall of 2 % a month over two years came out 24 %
# short (tests/shared/pricing/test_index.py), at 0.25 within 3 points.
STEP_WEIGHT = 0.25
# A tiny pull of every unknown towards 0 fixes the levels the data leave free.
RIDGE = 1e-4
# Huber's tuning constant (95 % efficiency under normal noise) and its reweighting rounds.
HUBER_K = 1.345
HUBER_ITERATIONS = 10
# Fewer cards than this in a group: no index (one card's own series is not a market).
MIN_CARDS = 2
# Floors for the volatilities (log units): a series that happens to be flat must not
# yield a zero-width band.
MIN_OBS_NOISE = 0.03
MIN_DRIFT = 0.01
MIN_STEP = 0.005

_MONTH_NAMES = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
)
_DATED = re.compile(
    rf"@[0-9a-f]{{6,}}|\b\d{{4}}-\d{{2}}(-\d{{2}})?\b|\b({_MONTH_NAMES})-\d{{4}}\b|captured",
    re.IGNORECASE,
)


def month_of(at: datetime) -> int:
    """Months since year 0 (a plain integer axis for the index)."""
    return at.year * 12 + at.month - 1


def month_start(month: int) -> datetime:
    return datetime(month // 12, month % 12 + 1, 1, tzinfo=UTC)


def series_family(kind: str, source: str, measure: str) -> str:
    """One series per publisher and measure: a monthly report or a dated snapshot of the
    same publisher is the same series at another date."""
    if kind == SCRAPED:
        return f"{SCRAPED}:{source_name(source)}:{measure}"
    stripped = re.sub(r"\s+", " ", _DATED.sub("", source)).strip(" ,()")
    return f"{kind}:{stripped}:{measure}"


@dataclass(frozen=True, slots=True)
class MonthlyPoint:
    """A card's price in one series and month: the mean of that month's observations."""

    gpu_id: str
    group: str  # condition group: "new" or "used"
    series: str
    month: int
    usd: float
    n: int


@dataclass(frozen=True, slots=True)
class GroupIndex:
    """One segment and condition group's index, months `first`..`last` (with data)."""

    key: GroupKey
    first: int
    last: int
    values: Mapping[int, float]  # month -> log level
    cards: int
    points: int
    supported: frozenset[int]  # months with at least one point
    # Month -> the cards with a point in it (whether others than a card saw a month).
    cards_by_month: Mapping[int, frozenset[str]] = field(default_factory=dict)
    # Memory tier -> month -> the tier's log deviation from `values` (see `for_tier`).
    tier_values: Mapping[str, Mapping[int, float]] = field(default_factory=dict)
    # The tier whose deviation `values` already includes ("": the segment's own index).
    tier: str = ""

    def for_tier(self, tier: str) -> GroupIndex:
        """The index of one memory tier: the segment's plus the tier's deviation (the
        segment's alone for a tier without data)."""
        deviation = self.tier_values.get(tier)
        if deviation is None:
            return self
        values = {m: v + deviation.get(m, 0.0) for m, v in self.values.items()}
        newest = values[self.last]
        values = {m: v - newest for m, v in values.items()}
        return replace(self, values=values, tier=tier)

    def seen_by_others(self, month: int, gpu_id: str) -> bool:
        return bool(self.cards_by_month.get(month, frozenset()) - {gpu_id})

    def at(self, month: int) -> float:
        """The index at `month`, carried flat before the first and after the last."""
        return self.values[min(max(month, self.first), self.last)]

    def change(self, since: int, until: int) -> float:
        """The log change of the index between two months."""
        return self.at(until) - self.at(since)

    def unsupported(self, since: int, until: int) -> int:
        """Months after `since` up to `until` with no data in this group."""
        return sum(1 for m in range(since + 1, until + 1) if m not in self.supported)


@dataclass(frozen=True, slots=True)
class Volatility:
    """Log standard deviations the band of an estimate is made of (see module doc)."""

    obs_noise: float
    card_drift: float  # per sqrt(month)
    index_step: float  # per sqrt(month)
    pairs: int

    def spread(self, gap_months: float, unsupported: float, own_noise: float | None) -> float:
        noise = self.obs_noise if own_noise is None else max(own_noise, MIN_OBS_NOISE)
        variance = noise**2 + self.card_drift**2 * max(gap_months, 0.0)
        variance += self.index_step**2 * max(unsupported, 0.0)
        return math.sqrt(variance)


MISSING_VOLATILITY = Volatility(MIN_OBS_NOISE, MIN_DRIFT, MIN_STEP, 0)


@dataclass(frozen=True, slots=True)
class MarketIndex:
    """Every group's index and the volatilities measured with them."""

    groups: Mapping[GroupKey, GroupIndex]
    volatility: Volatility
    # gpu id -> its peer classes, the closest first (see `peer_classes`).
    peers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # gpu id -> its memory tier (see `memory_tiers`).
    tiers: Mapping[str, str] = field(default_factory=dict)
    # (gpu id, group) -> series -> month -> the monthly price the fit saw (what a sibling
    # cost when a card was last seen: shared/pricing/siblings.py).
    monthly: Mapping[tuple[str, str], Mapping[str, Mapping[int, float]]] = field(
        default_factory=dict
    )

    def series_of(self, gpu_id: str, group: str) -> Mapping[str, Mapping[int, float]]:
        """The card's monthly prices in `group`, by series."""
        return self.monthly.get((gpu_id, group), {})

    def price_near(
        self, gpu_id: str, group: str, series: str, month: int, within: int
    ) -> tuple[int, float] | None:
        """(month, usd) of the card's point in `series` closest to `month`, if one is
        within `within` months."""
        found = self.series_of(gpu_id, group).get(series, {})
        near = [m for m in found if abs(m - month) <= within]
        if not near:
            return None
        best = min(near, key=lambda m: (abs(m - month), -m))
        return best, found[best]

    def for_card(self, gpu_id: str, group: str) -> list[GroupIndex]:
        """The indexes of the card's peer classes in `group`, the closest first, each
        moved by the card's memory tier where the tier has data."""
        found = (self.groups.get((peer, group)) for peer in self.peers.get(gpu_id, ()))
        tier = self.tiers.get(gpu_id, "")
        return [index.for_tier(tier) for index in found if index is not None]


def load_points(
    session: Session, before: datetime | None = None, min_asks: int = 3
) -> list[MonthlyPoint]:
    """The monthly points of every market series (quotes, bids, list prices and
    quarantined prices left out), aggregated in SQL: one row per card, series and month.
    A source's asks of a month count only with `min_asks` of them (the market price's
    rule: two stray asks, or one retailer's, are not a market)."""
    o = PriceObservation
    month = _month_expression(session)
    query = (
        select(  # type: ignore[call-overload]
            col(o.gpu_id),
            col(o.condition),
            col(o.kind),
            col(o.source),
            col(o.measure),
            month,
            func.avg(o.price_usd),
            func.count(),
        )
        .where(
            col(o.quarantined).is_(False),
            col(o.kind).not_in(sorted(QUOTE_KINDS)),
            col(o.measure).not_in(sorted({*NOT_MARKET_MEASURES, LIST_PRICE})),
        )
        .group_by(
            col(o.gpu_id), col(o.condition), col(o.kind), col(o.source), col(o.measure), month
        )
    )
    if before is not None:
        query = query.where(col(o.observed_at) < before)
    merged: dict[tuple[str, str, str, int], tuple[float, int]] = {}
    for gpu_id, condition, kind, source, measure, month_text, mean, n in session.execute(query):
        group = _group_of(condition)
        if group is None or mean is None or float(mean) <= 0:
            continue
        if measure == ASK and n < min_asks:
            continue
        key = (gpu_id, group, series_family(kind, source, measure), _parse_month(month_text))
        held_usd, held_n = merged.get(key, (0.0, 0))
        merged[key] = (held_usd + float(mean) * n, held_n + int(n))
    return [
        MonthlyPoint(gpu, group, series, month, total / n, n)
        for (gpu, group, series, month), (total, n) in merged.items()
    ]


def _month_expression(session: Session, column: Any = None) -> Any:
    at = col(PriceObservation.observed_at) if column is None else column
    if session.get_bind().dialect.name == "postgresql":
        return func.to_char(at, "YYYY-MM")
    return func.strftime("%Y-%m", at)


def _parse_month(text: str) -> int:
    year, month = text.split("-")[:2]
    return int(year) * 12 + int(month) - 1


def _group_of(condition: str) -> str | None:
    for group, members in CONDITION_GROUPS.items():
        if condition in members:
            return group
    return None


def build_index(
    points: Sequence[MonthlyPoint],
    peers: Mapping[str, tuple[str, ...]],
    tiers: Mapping[str, str] | None = None,
) -> MarketIndex:
    """Fit every peer class's indexes, its condition groups together, and measure the
    volatilities (see the module doc). Without `tiers`, no memory-tier terms."""
    by_peer: dict[str, dict[str, list[MonthlyPoint]]] = defaultdict(lambda: defaultdict(list))
    for p in points:
        for peer in peers.get(p.gpu_id, ()):
            by_peer[peer][p.group].append(p)
    tier_of = dict(tiers or {})
    groups: dict[GroupKey, GroupIndex] = {}
    for peer, members in sorted(by_peer.items()):
        groups.update(_fit_peer(peer, members, tier_of))
    monthly: dict[tuple[str, str], dict[str, dict[int, float]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    for p in points:
        monthly[(p.gpu_id, p.group)][p.series][p.month] = p.usd
    by_card = {card: dict(series) for card, series in monthly.items()}
    index = MarketIndex(groups, MISSING_VOLATILITY, dict(peers), tier_of, by_card)
    return replace(index, volatility=_volatility(points, index))


def peer_classes() -> dict[str, tuple[str, ...]]:
    """Each catalog card's peer classes, the closest first: its segment. (Segment and
    memory tier as separate classes, with the segment as fallback, was tried on the
    2023-01 tuning cut-off of bench/price_backtest.py and estimated worse: 13.5 % against
    12.1 % median error; the tier now enters as a deviation from the segment's index,
    `memory_tiers`.)"""
    return {spec.id: (spec.segment,) for spec in load_catalog().gpus}


# Upper bounds (GB) of the memory tiers: buyers shop by the models a card holds, and the
# 2024-2026 series show the tiers moving apart (24 GB cards up, 8-12 GB cards down).
TIER_BOUNDS = (8.0, 12.0, 16.0, 24.0, 48.0, 96.0)


def memory_tier(memory_gb: float) -> str:
    for bound in TIER_BOUNDS:
        if memory_gb <= bound:
            return f"<={bound:g}GB"
    return f">{TIER_BOUNDS[-1]:g}GB"


def memory_tiers() -> dict[str, str]:
    """Each catalog card's memory tier (the hedonic index's tier-by-month term)."""
    return {spec.id: memory_tier(spec.memory_gb) for spec in load_catalog().gpus}


def market_index(
    session: Session, before: datetime | None = None, min_asks: int = 3
) -> MarketIndex:
    """The index from everything stored (before `before`, for backtests): fitted once per
    state of the stored prices (see `IndexCache`)."""
    if before is not None:
        return build_index(load_points(session, before, min_asks), peer_classes(), memory_tiers())
    return _fitted_once(
        session,
        f"market:{min_asks}",
        _market_watermark,
        lambda: build_index(load_points(session, None, min_asks), peer_classes(), memory_tiers()),
    )


class IndexCache:
    """Fitted indexes by (database, index name, revision), fitted once per key: the first
    caller produces it (shared/pricing/index_store.py's stored fit, else a fit), callers
    arriving meanwhile wait for that one result instead of fitting too. Without that, ten
    /tco requests after a new price ran ten fits at once (bench/index_burst.py). A fit
    reads every stored series and solves one least-squares problem per group; the
    watermark is one aggregate query."""

    def __init__(self, size: int = 8) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._fitted: OrderedDict[tuple[object, ...], MarketIndex] = OrderedDict()
        self._pending: dict[tuple[object, ...], Future[MarketIndex]] = {}

    def get(
        self,
        key: tuple[object, ...],
        fit: Callable[[], MarketIndex],
        then: Callable[[MarketIndex], object] | None = None,
    ) -> MarketIndex:
        """The index of `key`, produced by `fit` once; `then` runs on it in the producing
        thread after the callers waiting for it have it (storing it delays none of them)."""
        while True:
            with self._lock:
                found = self._fitted.get(key)
                if found is not None:
                    self._fitted.move_to_end(key)
                    return found
                pending = self._pending.get(key)
                leading = pending is None
                if pending is None:
                    pending = self._pending[key] = Future()
            if leading:
                fitted = self._lead(key, fit, pending)
                if then is not None:
                    then(fitted)
                return fitted
            try:
                return pending.result()
            except Exception:
                # The leader's failure may be its own (its connection, its request):
                # try again, leading if no one else does.
                continue

    def _lead(
        self, key: tuple[object, ...], fit: Callable[[], MarketIndex], pending: Future[MarketIndex]
    ) -> MarketIndex:
        try:
            fitted = fit()
        except BaseException as exc:
            with self._lock:
                del self._pending[key]
            pending.set_exception(exc)
            raise
        with self._lock:
            self._fitted[key] = fitted
            while len(self._fitted) > self._size:
                self._fitted.popitem(last=False)
            del self._pending[key]
        pending.set_result(fitted)
        return fitted

    def clear(self) -> None:
        with self._lock:
            self._fitted.clear()


# One per process: an index depends only on the stored data, which the key names.
INDEXES = IndexCache()


def _fitted_once(
    session: Session,
    name: str,
    watermark: Callable[[Session], tuple[object, ...]],
    fit: Callable[[], MarketIndex],
) -> MarketIndex:
    """Index `name` at the stored data's revision: this process's fit, else the one any
    process stored at that revision, else fitted here and stored (once per key at a time,
    see IndexCache)."""
    at = index_store.revision(name, watermark(session))
    fitted_here: list[MarketIndex] = []

    def produce() -> MarketIndex:
        stored = index_store.load(session, name, at, sys.modules[__name__])
        if isinstance(stored, MarketIndex):
            return stored
        fitted_here.append(fit())
        return fitted_here[0]

    def store(fitted: MarketIndex) -> None:
        if fitted_here:
            index_store.save_later(
                session, name, at, fitted, lambda own: index_store.revision(name, watermark(own))
            )

    return INDEXES.get((_database(session), name, at), produce, store)


def _database(session: Session) -> str:
    bind = session.get_bind()
    engine = bind if isinstance(bind, Engine) else bind.engine
    return engine.url.render_as_string(hide_password=True)


def _market_watermark(session: Session) -> tuple[object, ...]:
    """Moves with every change of the rows `load_points` reads (an insert, a delete, a
    price, a quarantine flag) and with none of the others: a posted quote, a bid or a list
    price, which the index never reads, leaves every fitted index in use."""
    o = PriceObservation
    row = session.execute(
        select(
            func.count(),
            func.max(o.id),
            func.max(o.observed_at),
            func.sum(o.price_usd),
        ).where(
            col(o.quarantined).is_(False),
            col(o.kind).not_in(sorted(QUOTE_KINDS)),
            col(o.measure).not_in(sorted({*NOT_MARKET_MEASURES, LIST_PRICE})),
        )
    ).one()
    return tuple(str(v) for v in row)


def _cloud_watermark(session: Session) -> tuple[object, ...]:
    o = CloudOffer
    row = session.execute(
        select(  # type: ignore[call-overload]
            func.count(),
            func.max(o.id),
            func.max(o.observed_at),
            func.sum(o.on_demand_usd_per_hour),
            func.sum(o.spot_usd_per_hour),
        )
    ).one()
    return tuple(str(v) for v in row)


def load_cloud_points(session: Session, before: datetime | None = None) -> list[MonthlyPoint]:
    """Monthly points of every rental series, per GPU-hour of whole GPUs: one series per
    provider and measure, the group is the pricing ("on-demand", "spot"); only offers
    observed before `before` when given (an answer as of a past date)."""
    o = CloudOffer
    month = _month_expression(session, col(o.observed_at))
    points: dict[tuple[str, str, str, int], tuple[float, int]] = {}
    for pricing, column in (("on-demand", o.on_demand_usd_per_hour), ("spot", o.spot_usd_per_hour)):
        query = (
            select(  # type: ignore[call-overload]
                col(o.gpu_id),
                col(o.provider),
                col(o.measure),
                month,
                func.avg(col(column) / col(o.gpu_count)),
                func.count(),
            )
            .where(col(column).is_not(None), col(column) > 0, col(o.gpu_count) >= 1)
            .group_by(col(o.gpu_id), col(o.provider), col(o.measure), month)
        )
        if before is not None:
            query = query.where(col(o.observed_at) < before)
        for gpu_id, provider, measure, month_text, mean, n in session.execute(query):
            if mean is None or float(mean) <= 0:
                continue
            key = (gpu_id, pricing, f"cloud:{provider}:{measure}", _parse_month(month_text))
            points[key] = (float(mean), int(n))
    return [
        MonthlyPoint(gpu, pricing, series, m, usd, n)
        for (gpu, pricing, series, m), (usd, n) in points.items()
    ]


def cloud_index(session: Session, before: datetime | None = None) -> MarketIndex:
    """How rental prices per GPU-hour of comparable cards (same segment, same pricing)
    moved: the index a rental whose offers all aged out is moved by (from offers observed
    before `before` when given: fitted per call, not cached)."""
    if before is not None:
        return build_index(load_cloud_points(session, before), peer_classes(), memory_tiers())
    return _fitted_once(
        session,
        "cloud",
        _cloud_watermark,
        lambda: build_index(load_cloud_points(session), peer_classes(), memory_tiers()),
    )


# A condition group whose index follows another's where its own data are silent: used
# prices move with new ones, spot with on-demand (the prior is on the difference of
# their steps). The used index had no consumer data for 22 months (2024-01..2025-10)
# while new prices were seen; alone, its prior carried it flat across them.
LEADERS = {"used": "new", "spot": "on-demand"}
# The memory-tier deviations' pull towards the segment's index: a tier deviates where
# several of its cards agree month after month. Chosen on the 2023-01 (tuning) cut-off
# of bench/price_backtest.py's card split among 0.25, 1 and 4 (docs/pricing.md): weaker
# pulls fitted the short gaps better and the long ones worse (24+ months: 45 % median
# error at 0.25 against 35 % without tiers).
TIER_SHRINK = 4.0
# A tier's deviation needs this many of its cards in the group (one card's own history
# is not its tier's market).
MIN_TIER_CARDS = 2


class _Design:
    """The sparse least-squares problem of one peer class: unknowns by name, rows of
    (column, coefficient) pairs with a target and whether it is a data row."""

    def __init__(self) -> None:
        self.columns: dict[tuple[object, ...], int] = {}
        self.rows: list[list[tuple[int, float]]] = []
        self.targets: list[float] = []

    def unknown(self, name: tuple[object, ...]) -> int:
        return self.columns.setdefault(name, len(self.columns))

    def add(self, terms: list[tuple[int, float]], target: float = 0.0) -> None:
        self.rows.append(terms)
        self.targets.append(target)

    def solve(self, observed: int) -> np.ndarray:
        for column in range(len(self.columns)):
            self.add([(column, RIDGE)])
        rows = [r for r, terms in enumerate(self.rows) for _ in terms]
        columns = [c for terms in self.rows for c, _ in terms]
        values = [v for terms in self.rows for _, v in terms]
        matrix = csr_matrix((values, (rows, columns)), shape=(len(self.rows), len(self.columns)))
        return _huber_solve(matrix, np.asarray(self.targets), observed)


def _fit_peer(
    peer: str, members: Mapping[str, Sequence[MonthlyPoint]], tier_of: Mapping[str, str]
) -> dict[GroupKey, GroupIndex]:
    """One peer class's indexes, its condition groups in one fit:

        log price = level(card, group) + offset(series) + index(group, month)
                    + deviation(group, memory tier, month) + noise

    with random-walk priors on the index (a follower group's on its step minus its
    leader's step, `LEADERS`) and on the tier deviations, which are also pulled to 0."""
    kept = {
        group: list(points)
        for group, points in members.items()
        if len({p.gpu_id for p in points}) >= MIN_CARDS
    }
    if not kept:
        return {}
    design = _Design()
    span = {g: (min(p.month for p in ps), max(p.month for p in ps)) for g, ps in kept.items()}
    tiers = {g: _tiers_with_data(ps, tier_of) for g, ps in kept.items()}
    observed = [p for group in sorted(kept) for p in kept[group]]
    for p in observed:
        terms = [
            (design.unknown(("level", p.gpu_id, p.group)), 1.0),
            (design.unknown(("series", p.series)), 1.0),
            (design.unknown(("index", p.group, p.month)), 1.0),
        ]
        tier = tier_of.get(p.gpu_id, "")
        if tier in tiers[p.group]:
            terms.append((design.unknown(("tier", p.group, tier, p.month)), 1.0))
        design.add(terms, math.log(p.usd))
    for group, (first, last) in sorted(span.items()):
        for m in range(first, last + 1):
            design.unknown(("index", group, m))
        leader = LEADERS.get(group)
        for m in range(first + 1, last + 1):
            terms = _step(design, ("index", group), m)
            if leader in span and span[leader][0] < m <= span[leader][1]:
                terms += [(c, -v) for c, v in _step(design, ("index", leader), m)]
            design.add(terms)
        for tier in sorted(tiers[group]):
            for m in range(first, last + 1):
                design.add([(design.unknown(("tier", group, tier, m)), TIER_SHRINK)])
                if m > first:
                    design.add(_step(design, ("tier", group, tier), m))
    solution = design.solve(len(observed))
    found: dict[GroupKey, GroupIndex] = {}
    for group, (first, last) in span.items():
        points = kept[group]
        level = [solution[design.columns[("index", group, m)]] for m in range(first, last + 1)]
        # Relative: its newest month is 0, so a level reads as "log change to now".
        values = {first + i: float(v - level[-1]) for i, v in enumerate(level)}
        tier_values = {
            tier: {
                m: float(solution[design.columns[("tier", group, tier, m)]])
                for m in range(first, last + 1)
            }
            for tier in tiers[group]
        }
        found[(peer, group)] = GroupIndex(
            key=(peer, group),
            first=first,
            last=last,
            values=values,
            cards=len({p.gpu_id for p in points}),
            points=len(points),
            supported=frozenset(p.month for p in points),
            cards_by_month=_cards_by_month(points),
            tier_values=tier_values,
        )
    return found


def _step(design: _Design, name: tuple[object, ...], month: int) -> list[tuple[int, float]]:
    return [
        (design.unknown((*name, month)), STEP_WEIGHT),
        (design.unknown((*name, month - 1)), -STEP_WEIGHT),
    ]


def _tiers_with_data(points: Sequence[MonthlyPoint], tier_of: Mapping[str, str]) -> set[str]:
    cards: dict[str, set[str]] = defaultdict(set)
    for p in points:
        if p.gpu_id in tier_of:
            cards[tier_of[p.gpu_id]].add(p.gpu_id)
    return {tier for tier, found in cards.items() if len(found) >= MIN_TIER_CARDS}


def _cards_by_month(points: Sequence[MonthlyPoint]) -> dict[int, frozenset[str]]:
    found: dict[int, set[str]] = defaultdict(set)
    for p in points:
        found[p.month].add(p.gpu_id)
    return {month: frozenset(cards) for month, cards in found.items()}


def _huber_solve(matrix: csr_matrix, target: np.ndarray, observed: int) -> np.ndarray:
    """Least squares with Huber weights on the observed rows (iteratively reweighted):
    a mislabelled month (a search that priced another card, an RTX 2070 "at" $613) pulls
    a series offset as much as a Huber loss lets it, not as much as a square does. The
    prior and ridge rows keep their weight. Solved by the sparse normal equations (the
    ridge keeps them positive definite): a peer class has up to a few thousand unknowns,
    almost all of them zero in any one row."""
    weights = np.ones(len(target))
    solution = _weighted_solve(matrix, target, weights)
    for _ in range(HUBER_ITERATIONS):
        residual = (matrix @ solution - target)[:observed]
        # At least a point's noise floor: on near-exact data a tiny scale would down-weight
        # every point against the prior rows.
        scale = max(1.4826 * float(np.median(np.abs(residual))), MIN_OBS_NOISE)
        bound = HUBER_K * scale
        weights[:observed] = np.minimum(1.0, bound / np.maximum(np.abs(residual), 1e-12))
        solution = _weighted_solve(matrix, target, weights)
    return solution


def _weighted_solve(matrix: csr_matrix, target: np.ndarray, weights: np.ndarray) -> np.ndarray:
    weighted = matrix.T.multiply(weights).tocsr()
    normal = (weighted @ matrix).tocsc()
    return np.asarray(spsolve(normal, weighted @ target))


def _volatility(points: Sequence[MonthlyPoint], market: MarketIndex) -> Volatility:
    """Fit E[r^2] = 2 obs_noise^2 + card_drift^2 * months over every pair of a card's
    consecutive monthly points, r being its log change minus the change of the index an
    estimate of that card would use (its closest peer class with an index)."""
    gaps: list[float] = []
    squares: list[float] = []
    for run in _series_runs(points):
        indexes = market.for_card(run[0].gpu_id, run[0].group)
        if not indexes:
            continue
        index = indexes[0]
        for a, b in zip(run, run[1:], strict=False):
            residual = math.log(b.usd / a.usd) - index.change(a.month, b.month)
            gaps.append(float(b.month - a.month))
            squares.append(residual**2)
    steps = [
        index.values[m + 1] - index.values[m]
        for index in market.groups.values()
        for m in range(index.first, index.last)
        if m in index.supported and m + 1 in index.supported
    ]
    index_step = _robust_sd(steps) if len(steps) >= 3 else MIN_STEP
    noise, drift = _fit_variance(gaps, squares)
    return Volatility(
        obs_noise=max(noise, MIN_OBS_NOISE),
        card_drift=max(drift, MIN_DRIFT),
        index_step=max(index_step, MIN_STEP),
        pairs=len(gaps),
    )


def _series_runs(points: Iterable[MonthlyPoint]) -> list[list[MonthlyPoint]]:
    """Each card's points in time order, whatever their series: an estimate moves a
    card's newest price, and today's price may be measured by another series, so the
    noise between series belongs in the band."""
    runs: dict[tuple[str, str], dict[int, list[MonthlyPoint]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for p in points:
        runs[(p.gpu_id, p.group)][p.month].append(p)
    ordered = []
    for months in runs.values():
        # One point per month (the most-observed series's), so a month measured by two
        # series is not a zero-month pair.
        run = [max(points, key=lambda p: p.n) for _, points in sorted(months.items())]
        if len(run) > 1:
            ordered.append(run)
    return ordered


def _fit_variance(gaps: Sequence[float], squares: Sequence[float]) -> tuple[float, float]:
    """(obs noise, drift per sqrt(month)) from squared residual changes against the gap,
    by least squares with both terms kept non-negative; squares are winsorised at their
    95th percentile so one mislabelled month does not set the band of every card."""
    if len(gaps) < 3:
        return MIN_OBS_NOISE, MIN_DRIFT
    cap = float(np.quantile(squares, 0.99))
    y = np.minimum(np.asarray(squares), cap)
    x = np.asarray(gaps)
    design = np.column_stack([np.full_like(x, 2.0), x])
    coefficients, *_ = np.linalg.lstsq(design, y, rcond=None)
    noise_var, drift_var = (float(c) for c in coefficients)
    if drift_var < 0:
        noise_var, drift_var = float(np.mean(y)) / 2, 0.0
    elif noise_var < 0:
        noise_var, drift_var = 0.0, float(np.sum(x * y) / np.sum(x * x))
    return math.sqrt(noise_var), math.sqrt(drift_var)


def _robust_sd(values: Sequence[float]) -> float:
    median = statistics.median(values)
    mad = statistics.median(abs(v - median) for v in values)
    return 1.4826 * mad if mad > 0 else statistics.pstdev(values)


def log_spread(prices: Sequence[Decimal]) -> float | None:
    """A robust standard deviation of log prices (None below 3 prices)."""
    if len(prices) < 3:
        return None
    return _robust_sd([math.log(float(p)) for p in prices if p > 0])
