"""A price-drop alert reads only the prices a drop can depend on, with the same answer as
over the whole history."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import select

from shared.alerts.triggers import (
    PriceDropPct,
    _market_drop,
    _price_drop,
    drop_history_since,
    parse_trigger,
)
from shared.kit.db import session_scope
from shared.models import PriceObservation
from shared.sources.status import SourceStatus, stale_source_names
from tests.factories import make_observation, plain_settings
from tests.shared.alerts.conftest import T0

SOURCES = ("ebay", "ebay:sold", "newegg", "quiet-shop")


def _history(rng: random.Random) -> list[PriceObservation]:
    """A year of prices with a fall in some months, listings re-seen, a source that went
    quiet long ago and list prices."""
    rows = []
    for day in range(0, 400, rng.choice((1, 2, 3))):
        level = 1000 * (0.7 if 20 <= day < 60 or 200 <= day < 230 else 1.0)
        for _ in range(rng.randint(1, 4)):
            source = rng.choice(SOURCES if day > 150 else SOURCES[:3])
            rows.append(
                make_observation(
                    condition=rng.choice(("used", "used", "new", "refurbished")),
                    usd=f"{level * rng.uniform(0.9, 1.1):.2f}",
                    source=source,
                    measure="sale" if source.endswith(":sold") else "ask",
                    listing_id=f"l-{rng.randint(0, 60)}",
                    observed_at=T0 - timedelta(days=day, hours=rng.randint(0, 23)),
                )
            )
    for months in (1, 5, 20):
        rows.append(
            make_observation(
                condition="new",
                kind="msrp",
                source="launch",
                measure="list_price",
                usd="1499.00",
                listing_id=None,
                observed_at=T0 - timedelta(days=30 * months),
            )
        )
    return rows


@pytest.mark.parametrize("seed", range(6))
def test_a_drop_over_the_recent_history_equals_one_over_all_of_it(db: Engine, seed: int) -> None:
    rng = random.Random(seed)
    settings = plain_settings()
    with session_scope(db) as session:
        session.add_all(_history(rng))
        if seed % 2:
            session.add(SourceStatus(name="newegg", interval_s=3600, stale=True))
    trigger = parse_trigger(
        {"type": "price_drop_pct", "gpu_id": "rtx-3090", "condition": "any", "pct": 5}
    )
    assert isinstance(trigger, PriceDropPct)
    fired = 0
    with session_scope(db) as session:
        everything = session.exec(
            select(PriceObservation).where(PriceObservation.quarantined == False)  # noqa: E712
        ).all()
        stale = stale_source_names(session)
        for days_back in (0, 25, 40, 205, 300):
            now = T0 - timedelta(days=days_back)
            assert any(o.observed_at < drop_history_since(now, settings) for o in everything)
            read = _price_drop(session, trigger, settings, now)
            whole = [
                f
                for group in ("new", "used")
                if (f := _market_drop(everything, trigger, group, now, stale, settings))
            ]
            expected = max(whole, key=lambda f: f.data["drop_pct"], default=None)
            assert read == expected, (seed, days_back)
            fired += read is not None
    assert fired >= 2  # the falls are seen, not only their absence
