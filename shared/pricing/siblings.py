"""An estimate checked against what its siblings cost today.

A stale price moved by an index can be far from the market while a sibling (same
segment, architecture and memory tier: an RTX 3090 for an RTX 3090 Ti) has a fresh
price. The sibling-implied price is the sibling's fresh price times the ratio of the two
cards' prices in the same series and month when the card was last seen. Where it lies
outside the estimate's band, the card is not priced on that estimate: it is listed as
needing a current price, with both figures. The same holds for two orderings the market
keeps and a moved estimate can break: a used price above the new one, and a card with
more memory priced below its smaller variant (an RTX 3080 12 GB under the 10 GB).
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from shared.catalog.specs import load_catalog
from shared.pricing.index import MarketIndex, memory_tier

# The sibling's price must be from within this many months of the card's last price (a
# monthly series is often a month short on one card).
PAIR_MONTHS = 2
NEEDS_PRICE = "needs a current price"


@dataclass(frozen=True, slots=True)
class Estimate:
    """What the checks read of an estimated price (a `TodayPrice`)."""

    gpu_id: str
    usd: Decimal
    band_low: Decimal
    band_high: Decimal
    last_usd: Decimal
    month: int  # of the observation it rests on
    series: str


@dataclass(frozen=True, slots=True)
class Implied:
    """The price a card's fresh siblings imply, and from which."""

    usd: Decimal
    siblings: tuple[tuple[str, Decimal, float], ...]  # (sibling id, fresh usd, ratio)

    def describe(self) -> str:
        parts = ", ".join(f"{gpu} ${usd:,.0f} x {ratio:.2f}" for gpu, usd, ratio in self.siblings)
        return f"${self.usd:,.0f} implied by its siblings' fresh prices ({parts})"


@cache
def family() -> dict[str, tuple[tuple[str, ...], ...]]:
    """Each catalog card's siblings, the closest first: same segment, architecture and
    memory tier; then same segment and memory tier (an RTX 3090 for an RTX 4090, when
    no Ada card has 24 GB: buyers price cards by the models they hold)."""
    gpus = load_catalog().gpus
    tier = {g.id: (g.segment, memory_tier(g.memory_gb)) for g in gpus}
    arch = {g.id: g.architecture for g in gpus}
    found: dict[str, tuple[tuple[str, ...], ...]] = {}
    for g in gpus:
        same_tier = [o.id for o in gpus if o.id != g.id and tier[o.id] == tier[g.id]]
        close = tuple(o for o in same_tier if arch[o] == arch[g.id])
        found[g.id] = (close, tuple(o for o in same_tier if arch[o] != arch[g.id]))
    return found


@cache
def variants() -> dict[str, tuple[tuple[str, float], ...]]:
    """Each card's memory variants (the same card with another memory size: the ids
    differ only in their "NNgb" part), with their memory."""
    gpus = load_catalog().gpus
    stem = {g.id: re.sub(r"-?\d+gb", "", g.id) for g in gpus}
    return {
        g.id: tuple(
            (o.id, o.memory_gb)
            for o in gpus
            if o.id != g.id and stem[o.id] == stem[g.id] and o.memory_gb != g.memory_gb
        )
        for g in gpus
    }


def related(gpu_ids: set[str]) -> set[str]:
    """The cards whose prices the checks of these cards read."""
    found = set(gpu_ids)
    for gpu_id in gpu_ids:
        for siblings in family().get(gpu_id, ()):
            found.update(siblings)
        found.update(v for v, _ in variants().get(gpu_id, ()))
    return found


def implied_price(
    estimate: Estimate, group: str, fresh: Mapping[str, Decimal], index: MarketIndex
) -> Implied | None:
    """The median of the prices the card's fresh siblings imply (None: no sibling with
    a fresh price and a price in the card's series near its last month)."""
    found = []
    for siblings in family().get(estimate.gpu_id, ()):
        for sibling in siblings:
            now = fresh.get(sibling)
            ratio = last_ratio(index, estimate.gpu_id, sibling, group)
            if now is not None and ratio is not None:
                found.append((sibling, now, ratio))
        if found:
            break
    if not found:
        return None
    logs = [math.log(float(now) * ratio) for _, now, ratio in found]
    usd = Decimal(str(math.exp(statistics.median(logs)))).quantize(Decimal("1"))
    return Implied(usd, tuple(found))


def last_ratio(index: MarketIndex, gpu_id: str, sibling: str, group: str) -> float | None:
    """The card's price over the sibling's when both were last seen in one series (the
    same measure of the same publisher, within PAIR_MONTHS of each other)."""
    best: tuple[int, float] | None = None
    for series, months in index.series_of(gpu_id, group).items():
        for month, usd in months.items():
            near = index.price_near(sibling, group, series, month, PAIR_MONTHS)
            if near is None or near[1] <= 0 or (best is not None and month <= best[0]):
                continue
            best = (month, usd / near[1])
    return None if best is None else best[1]


def disagreement(
    estimate: Estimate,
    group: str,
    fresh: Mapping[str, Decimal],
    new_price: Decimal | None,
    index: MarketIndex,
) -> str | None:
    """Why this estimate cannot be ranked on, or None (see the module doc)."""
    own = (
        f"estimated ${estimate.usd:,.0f} (band ${estimate.band_low:,.0f}-"
        f"${estimate.band_high:,.0f})"
    )
    implied = implied_price(estimate, group, fresh, index)
    if implied is not None and not estimate.band_low <= implied.usd <= estimate.band_high:
        return f"{NEEDS_PRICE}: {own}, outside it {implied.describe()}"
    if group == "used" and new_price is not None and estimate.usd > new_price:
        return f"{NEEDS_PRICE}: {own} used, above its new price ${new_price:,.0f}"
    spec = load_catalog().get(estimate.gpu_id)
    memory = spec.memory_gb if spec is not None else 0.0
    for other, other_memory in variants().get(estimate.gpu_id, ()):
        price = fresh.get(other)
        if price is None:
            continue
        if other_memory < memory and estimate.usd < price:
            return f"{NEEDS_PRICE}: {own}, below its smaller variant {other} at ${price:,.0f}"
        if other_memory > memory and estimate.usd > price:
            return f"{NEEDS_PRICE}: {own}, above its larger variant {other} at ${price:,.0f}"
    return None
