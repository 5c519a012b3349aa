"""What the charts show, as plain data: shared by the matplotlib images and the pages' SVG.

Keeping the numbers here (and not in either renderer) is what makes the PNG, the SVG
image and the page's inline chart agree with each other and with /recommend.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Literal

from services.api.recommend.schemas import RecommendResponse

Metric = Literal["perf_per_dollar", "performance", "cost_per_unit"]
METRIC_TITLES: dict[Metric, str] = {
    "perf_per_dollar": "Performance per $1,000",
    "performance": "Relative performance",
    "cost_per_unit": "Dollars per unit of work (shorter is cheaper)",
}
# Metrics whose bars carry the price they rest on beside them (the others the basis).
PRICED_METRICS = ("perf_per_dollar", "cost_per_unit")
_NAME_PREFIXES = ("NVIDIA ", "AMD ", "GeForce ")


def short_name(name: str) -> str:
    """'NVIDIA GeForce RTX 3090' -> 'RTX 3090': bar labels must fit a narrow column."""
    changed = True
    while changed:
        changed = False
        for prefix in _NAME_PREFIXES:
            if name.startswith(prefix):
                name, changed = name[len(prefix) :], True
    return name.replace(" Ada Generation", " Ada")


def short_source(source: str) -> str:
    """Drop the '(repo@commit)' provenance suffix for legends; tables keep the full text."""
    head, _, _ = source.partition(" (")
    return head or source


@dataclass(frozen=True, slots=True)
class Bar:
    """One ranked GPU of a /recommend answer, as a bar with the model's interval."""

    rank: int
    gpu_id: str
    name: str
    memory_gb: float
    value: float
    low: float
    high: float
    price_usd: Decimal
    condition: str
    kind: str
    observed: date
    basis: str
    count: int
    # What the value counts in, where it is not the metric's own (cost per unit: the unit).
    unit: str = ""

    @property
    def label(self) -> str:
        """'$704 used · snapshot · 2023-10-31': what the price is and how old."""
        build = f"{self.count}x " if self.count > 1 else ""
        return (
            f"{build}${self.price_usd:,.0f} {self.condition} · {self.kind} · "
            f"{self.observed.isoformat()}"
        )

    @property
    def short(self) -> str:
        return short_name(self.name)


def bars(response: RecommendResponse, metric: Metric) -> list[Bar]:
    """Bars in /recommend's order; perf per dollar is per $1,000 of the whole build."""
    out = []
    for r in response.results:
        low, high = r.performance.interval
        unit = ""
        if metric == "cost_per_unit":
            if r.cost_per_unit is None:
                continue
            value, (low, high) = r.cost_per_unit.usd, r.cost_per_unit.interval
            unit = r.cost_per_unit.unit
        elif metric == "perf_per_dollar":
            per = 1000 / float(r.total_cost_usd)
            value, low, high = r.perf_per_1000_usd, low * per, high * per
        else:
            value = r.relative_performance
        out.append(
            Bar(
                rank=r.rank,
                gpu_id=r.gpu.id,
                name=r.gpu.name,
                memory_gb=r.gpu.memory_gb,
                value=value,
                # The interval brackets the value; guard rounding so error bars never invert.
                low=min(low, value),
                high=max(high, value),
                price_usd=r.price.usd,
                condition=r.price.condition,
                kind=r.price.kind,
                observed=r.price.observed_at.date(),
                basis=r.performance.basis,
                count=r.count,
                unit=unit,
            )
        )
    return out


def describe_query(response: RecommendResponse) -> str:
    """One line naming the query, for chart titles and text alternatives."""
    q = response.query
    parts = [q.task, q.precision, f">= {q.memory_gb:g} GB", f"condition {q.condition}"]
    if q.count > 1:
        parts.append(f"{q.count} GPUs per build")
    if q.budget_usd is not None:
        parts.append(f"<= ${q.budget_usd:,.0f} per GPU")
    if q.datacenter:
        parts.append("datacenter licence")
    return ", ".join(parts)


def bars_text(items: Sequence[Bar], metric: Metric) -> str:
    """The chart as sentences: the text alternative of both image formats."""
    units = {"perf_per_dollar": " per $1,000", "performance": "x the reference"}
    # A cost per 1k images is a fraction of a cent: significant figures, not decimals.
    cost = metric == "cost_per_unit"
    digits, interval = (".3g", "interval") if cost else (".3f", "model interval")
    return "\n".join(
        f"{b.rank}. {b.name} ({b.memory_gb:g} GB): {b.value:{digits}}"
        f"{units.get(metric, ' ' + b.unit.replace('usd ', 'dollars '))} "
        f"({interval} {b.low:{digits}}-{b.high:{digits}}, {b.basis}); {b.label}"
        for b in items
    )


# --- price history ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Observation:
    observed_at: datetime
    usd: float
    condition: str
    kind: str
    source: str


@dataclass(frozen=True, slots=True)
class Bucket:
    """Observations of one series within one period: the median and the spread."""

    start: datetime
    median: float
    low: float
    high: float
    n: int


@dataclass(frozen=True, slots=True)
class Series:
    condition: str
    source: str
    kind: str
    buckets: tuple[Bucket, ...]

    @property
    def label(self) -> str:
        return f"{self.condition} · {short_source(self.source)}"

    @property
    def n(self) -> int:
        return sum(b.n for b in self.buckets)

    @property
    def first(self) -> datetime:
        return self.buckets[0].start

    @property
    def last(self) -> datetime:
        return self.buckets[-1].start


# Enough periods for a readable line, few enough for a light page.
MAX_BUCKETS = 160
_PERIOD_DAYS = (1, 7, 14, 30, 91)


def bucket_days(observations: Sequence[Observation]) -> int:
    """The shortest period (day, week, ... quarter) giving at most MAX_BUCKETS buckets."""
    if not observations:
        return 1
    times = [o.observed_at for o in observations]
    return period_days(min(times), max(times))


def period_days(first: datetime, last: datetime) -> int:
    """The shortest period giving at most MAX_BUCKETS buckets from `first` to `last`."""
    span = (last - first).days + 1
    for days in _PERIOD_DAYS:
        if math.ceil(span / days) <= MAX_BUCKETS:
            return days
    return _PERIOD_DAYS[-1]


# One period of one series: (condition, source, kind), period index, median, low, high, n.
Period = tuple[tuple[str, str, str], int, float, float, float, int]


def price_series(observations: Iterable[Observation]) -> list[Series]:
    """One series per (condition, source): per-period median with min-max spread."""
    items = list(observations)
    if not items:
        return []
    origin, days = min(o.observed_at for o in items), bucket_days(items)
    return series_of(periods_of(items, origin, days), origin, days)


def periods_of(observations: Iterable[Observation], origin: datetime, days: int) -> list[Period]:
    """Per-period figures of the observations, periods of `days` counted from `origin`."""
    grouped: dict[tuple[str, str, str], dict[int, list[float]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for o in observations:
        index = (o.observed_at - origin).days // days
        grouped[(o.condition, o.source, o.kind)][index].append(o.usd)
    return [
        (key, index, statistics.median(values), min(values), max(values), len(values))
        for key, by_index in grouped.items()
        for index, values in by_index.items()
    ]


def series_of(periods: Iterable[Period], origin: datetime, days: int) -> list[Series]:
    """Series from per-period figures (computed here or by the database)."""
    grouped: dict[tuple[str, str, str], list[tuple[int, Bucket]]] = defaultdict(list)
    for key, index, median, low, high, n in periods:
        start = origin + timedelta(days=index * days)
        grouped[key].append((index, Bucket(start, median, low, high, n)))
    series = [
        Series(condition, source, kind, tuple(b for _, b in sorted(buckets, key=lambda x: x[0])))
        for (condition, source, kind), buckets in grouped.items()
    ]
    # New before used, then by source: a stable legend order across GPUs.
    series.sort(key=lambda s: (s.condition != "new", s.condition, s.source, s.kind))
    return series


def series_text(gpu_name: str, series: Sequence[Series]) -> str:
    if not series:
        return f"No price observations of {gpu_name}."
    lines = [f"Price history of {gpu_name} (median per period, with min-max spread):"]
    for s in series:
        last = s.buckets[-1]
        lines.append(
            f"{s.label} ({s.kind}): {s.n} prices from {s.first.date()} to {s.last.date()}; "
            f"latest period median ${last.median:,.0f} (${last.low:,.0f}-${last.high:,.0f})"
        )
    return "\n".join(lines)
