"""Answers as of a past date (`as_of=YYYY-MM-DD`): only the prices observed by the end of
that day (UTC), with that day as today for every age rule (stale days, market windows,
the launch list price's age, rentals' currency) and the market index fitted on what was
observed by then. The model is today's: the answer says so.

Scrape-source health is today's knowledge, not the day's: as of a date no source is
taken as stale, and each source's newest price by then stands in for its last run.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import func
from sqlmodel import Session, select

from shared.kit.errors import InputError
from shared.kit.settings import Settings
from shared.models import CloudOffer, PriceObservation
from shared.pricing.cloud import Currency
from shared.pricing.market import PricePolicy

FIELD = "as_of"


@dataclass(frozen=True, slots=True)
class AsOf:
    """The day an answer is as of: prices observed before `before` count, and `now` is
    the moment every age is measured at (the end of the day, or the present for today)."""

    day: date
    now: datetime
    before: datetime

    @classmethod
    def of(cls, day: date, present: datetime) -> AsOf:
        before = datetime.combine(day + timedelta(days=1), time(), tzinfo=UTC)
        return cls(day, min(before, present), before)

    def policy(self, settings: Settings) -> PricePolicy:
        return replace(PricePolicy.from_settings(settings, self.now), observed_before=self.before)

    def currency(self, settings: Settings) -> Currency:
        return replace(Currency.from_settings(settings, self.now), observed_before=self.before)

    def fields(self, model_version: str) -> dict[str, object]:
        """The fields an answer as of this day adds (shared/scoring/as_of_fields.py)."""
        return {"as_of": self.day, "as_of_note": self.note(model_version)}

    def note(self, model_version: str) -> str:
        return (
            f"prices as observed by the end of {self.day.isoformat()} (UTC), aged as of that "
            f"day; the performance model is the current one ({model_version}), not the one "
            "that served on that date"
        )


def earliest_price(session: Session) -> date | None:
    """The day of the first stored price or cloud offer (None: nothing stored)."""
    found = [
        session.exec(select(func.min(PriceObservation.observed_at))).one(),
        session.exec(select(func.min(CloudOffer.observed_at))).one(),
    ]
    days = [at.astimezone(UTC).date() if at.tzinfo else at.date() for at in found if at]
    return min(days, default=None)


def parse_as_of(session: Session, text: str | None, present: datetime) -> AsOf | None:
    """The request's `as_of`, checked: a YYYY-MM-DD date from the first stored price to
    today (UTC); InputError naming the field and that range otherwise."""
    if text is None:
        return None
    today = present.astimezone(UTC).date()
    first = earliest_price(session)
    valid = [f"{first.isoformat() if first else today.isoformat()}..{today.isoformat()}"]
    where = f"a date YYYY-MM-DD from {valid[0].replace('..', ' to ')} (UTC)"
    try:
        day = date.fromisoformat(text) if len(text) == 10 else None
    except ValueError:
        day = None
    if day is None:
        raise InputError(FIELD, f"{text[:40]!r} is not a date: give {where}", valid)
    if day > today:
        raise InputError(FIELD, f"{day.isoformat()} is in the future: give {where}", valid)
    if first is None:
        raise InputError(FIELD, "no prices are stored yet: no date has an answer", None)
    if day < first:
        raise InputError(
            FIELD, f"{day.isoformat()} is before the first stored price: give {where}", valid
        )
    return AsOf.of(day, present)
