"""Quotes: prices posted to us (POST /prices, `gpu-advisor prices add`).

They are shown beside the market price and fire alerts, but never set it; the best
quote is the cheapest recent one that passed quarantine.

A quote belongs to whoever posted it. One posted with an API key (`owner_key_id`) is
that key's: only that key sees it (best_quote, price history) and only its alerts fire on
it; a customer's negotiated price must not reach another customer. A quote added with the
CLI has no key: an operator quote. Keys with `all_quotes` (operators' keys) see, and are
alerted on, every quote, operator quotes included; so is the operator at the CLI.
Anonymous callers see none. Market prices (scraped, bundled) are everyone's.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import exists, false, true
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select

from shared.models import PriceObservation
from shared.pricing.measures import QUOTE_KINDS, is_quote
from shared.pricing.quarantine import MARKET_GROUPS

QuoteKey = tuple[str, str]  # (gpu id, market group: "new" or "used")
# Where a session records whose quotes its answers may show (see `show_quotes_to`).
_VIEWER = "gpu_advisor.quote_viewer"


@dataclass(frozen=True, slots=True)
class QuoteViewer:
    """Whose quotes a caller sees: its own key's (`key_id`), or every quote (`all_quotes`:
    an operator's key, the CLI)."""

    key_id: int | None
    all_quotes: bool = False

    def sees(self, observation: PriceObservation) -> bool:
        """Whether this caller sees `observation` (market prices: always)."""
        if not is_quote(observation.kind) or self.all_quotes:
            return True
        return self.key_id is not None and observation.owner_key_id == self.key_id

    def quotes_seen(self) -> ColumnElement[bool]:
        """SQL: the quotes (among quote rows) this caller sees."""
        if self.all_quotes:
            return true()
        if self.key_id is None:
            return false()
        return col(PriceObservation.owner_key_id) == self.key_id


# The operator at the CLI: every quote.
OPERATOR = QuoteViewer(None, all_quotes=True)


def sees(viewer: QuoteViewer | None, observation: PriceObservation) -> bool:
    """Whether `viewer` (None: anonymous) sees `observation`."""
    if viewer is None:
        return not is_quote(observation.kind)
    return viewer.sees(observation)


def visible(viewer: QuoteViewer | None) -> ColumnElement[bool]:
    """SQL: the price rows `viewer` (None: anonymous) sees: market prices and its quotes."""
    not_quote = col(PriceObservation.kind).not_in(sorted(QUOTE_KINDS))
    if viewer is not None and viewer.all_quotes:
        return true()
    if viewer is None or viewer.key_id is None:
        return not_quote
    return not_quote | viewer.quotes_seen()


def hidden_quotes(viewer: QuoteViewer | None) -> ColumnElement[bool]:
    """SQL: the quote rows `viewer` does not see (the complement of `visible` among
    quotes; few rows, found through the (gpu, kind, ...) index)."""
    is_quote_row = col(PriceObservation.kind).in_(sorted(QUOTE_KINDS))
    if viewer is None:
        return is_quote_row
    return is_quote_row & ~viewer.quotes_seen()


def recent_quotes(
    session: Session,
    gpu_ids: Collection[str],
    now: datetime,
    max_age_days: int,
    viewer: QuoteViewer | None,
) -> list[PriceObservation]:
    """Quotes of these GPUs from the last `max_age_days` that `viewer` sees, newest first.
    Anonymous callers (None) see none."""
    if not gpu_ids or viewer is None:
        return []
    query = (
        select(PriceObservation)
        .where(
            col(PriceObservation.gpu_id).in_(sorted(set(gpu_ids))),
            col(PriceObservation.kind).in_(sorted(QUOTE_KINDS)),
            PriceObservation.observed_at >= now - timedelta(days=max_age_days),
            viewer.quotes_seen(),
        )
        .order_by(col(PriceObservation.observed_at).desc(), col(PriceObservation.id).desc())
    )
    return list(session.exec(query))


def sees_recent_quotes(
    session: Session, viewer: QuoteViewer | None, now: datetime, max_age_days: int
) -> bool:
    """Whether `viewer` may see any quote of the last `max_age_days`: when not, its answers
    are the anonymous ones (an answer cache can share them). A viewer of every quote is
    assumed to (no index finds every recent quote cheaply)."""
    if viewer is None:
        return False
    if viewer.all_quotes:
        return True
    query = select(
        exists().where(
            col(PriceObservation.owner_key_id) == viewer.key_id,
            col(PriceObservation.observed_at) >= now - timedelta(days=max_age_days),
        )
    )
    return bool(session.exec(query).one())


def best_quotes(quotes: Collection[PriceObservation]) -> dict[QuoteKey, PriceObservation]:
    """The cheapest quote per GPU and market group, quarantined ones left out."""
    best: dict[QuoteKey, PriceObservation] = {}
    for quote in quotes:
        if quote.quarantined:
            continue
        key = (quote.gpu_id, MARKET_GROUPS.get(quote.condition, quote.condition))
        held = best.get(key)
        if held is None or quote.price_usd < held.price_usd:
            best[key] = quote
    return best


def best_for(
    best: dict[QuoteKey, PriceObservation], gpu_id: str, condition: str
) -> PriceObservation | None:
    """The best quote for a ranking condition ("new", "used" or "any")."""
    groups = ("new", "used") if condition == "any" else (condition,)
    found = [q for g in groups if (q := best.get((gpu_id, g))) is not None]
    return min(found, key=lambda q: q.price_usd) if found else None


def show_quotes_to(session: Session, viewer: QuoteViewer | None) -> None:
    """Record on a request's session whose quotes its answers may show, for code that is
    handed the session but not the caller (GET /recommend's ranking, whose signature
    belongs to the ranking; as the session carries its dispatcher, shared/kit/events.py).
    """
    session.info[_VIEWER] = viewer


def quotes_shown_to(session: Session) -> QuoteViewer | None:
    """The viewer `show_quotes_to` recorded; None (anonymous: no quotes) when none was."""
    viewer = session.info.get(_VIEWER)
    return viewer if isinstance(viewer, QuoteViewer) else None
