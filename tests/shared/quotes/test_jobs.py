"""Standard quotes recomputed on price changes: stored once, ids kept, idempotent."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import pytest
from sqlmodel import Session, select

from shared.kit.settings import Settings
from shared.perfmodel.registry import get_model
from shared.quotes import jobs
from shared.quotes.models import Quote
from shared.seed import seed_catalog
from tests.factories import make_asks

SETTINGS = Settings(environment="test", broker_url="")
MODEL = get_model()
NOW = datetime(2026, 11, 1, tzinfo=UTC)


@pytest.fixture
def priced(session: Session) -> Session:
    seed_catalog(session)
    for gpu_id, condition, usd in [("rtx-3090", "used", "800"), ("rtx-a6000", "new", "4500")]:
        session.add_all(make_asks(gpu_id=gpu_id, condition=condition, usd=usd, observed_at=NOW))
    session.flush()
    return session


def _standard(session: Session) -> dict[str, Quote]:
    rows = session.exec(select(Quote).where(Quote.standard_key.is_not(None)))  # type: ignore[union-attr]
    return {q.standard_key: q for q in rows if q.standard_key}


def test_recompute_stores_priced_builds_and_skips_unpriced(priced: Session) -> None:
    summary = jobs.recompute_standard_quotes(priced, None, SETTINGS, MODEL)
    assert "4x-rtx-3090-used-workstation" in summary["updated"]
    assert "8x-h100-sxm5-server" in summary["skipped"]
    stored = _standard(priced)
    assert set(stored) == set(summary["updated"])
    assert stored["4x-rtx-3090-used-workstation"].gpu_ids == "rtx-3090"


def test_recompute_is_idempotent_and_follows_price_changes(priced: Session) -> None:
    jobs.recompute_standard_quotes(priced, None, SETTINGS, MODEL)
    before = {k: (q.id, q.total_usd) for k, q in _standard(priced).items()}
    again = jobs.recompute_standard_quotes(priced, ["rtx-3090"], SETTINGS, MODEL)
    assert again["updated"] == [] and again["unchanged"] == ["4x-rtx-3090-used-workstation"]
    later = datetime(2026, 11, 20, tzinfo=UTC)
    priced.add_all(make_asks(gpu_id="rtx-3090", usd="600", observed_at=later))
    priced.flush()
    changed = jobs.recompute_standard_quotes(priced, ["rtx-3090"], SETTINGS, MODEL)
    assert changed["updated"] == ["4x-rtx-3090-used-workstation"]
    after = _standard(priced)["4x-rtx-3090-used-workstation"]
    old_id, old_total = before["4x-rtx-3090-used-workstation"]
    assert after.id == old_id and after.total_usd == old_total - 4 * 200


class OneSession:
    """A context whose unit of work is the test's rolled-back session."""

    settings, model = SETTINGS, MODEL

    def __init__(self, session: Session) -> None:
        self._session = session

    @contextmanager
    def session(self) -> Iterator[Session]:
        yield self._session


def test_the_job_runs_in_the_session_of_its_context(priced: Session) -> None:
    summary = jobs.recompute_standard_quotes_job(OneSession(priced), ["rtx-a6000"])  # type: ignore[arg-type]
    assert sorted(summary["updated"]) == [
        "2x-rtx-a6000-new-workstation",
        "4x-rtx-a6000-new-workstation",
        "8x-rtx-a6000-server",
    ]
