"""The after-commit chain run in-process: price -> scores -> alerts and standard quotes,
against the context's own database and nowhere else."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from sqlmodel import select

from shared.kit.context import Context
from shared.kit.db import make_engine, migrate, session_scope
from shared.kit.events import enqueue_after_commit, recompute_call
from shared.models import Score
from shared.pricing.intake import PriceInput, record_price
from shared.quotes.models import Quote
from shared.seed import seed_catalog
from shared.wiring.runtime import close_context, open_context
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.factories import make_asks


@pytest.fixture
def eager(backend: str, tmp_path: Path) -> Iterator[Context]:
    url, pg_name = new_database(backend, tmp_path)
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
    engine.dispose()
    ctx = open_context(make_settings(url, tmp_path, inprocess_mode="eager"))
    yield ctx
    close_context(ctx)
    if pg_name:
        _drop_postgres_database(pg_name)


def test_a_committed_price_updates_scores_and_the_standard_quotes_using_it(eager: Context):
    with eager.session() as session:
        # A posted quote runs the chain too (its alerts), but never prices a ranking.
        price = PriceInput("rtx-3090", Decimal("500"), "used", "vendor")
        record_price(session, price, eager.settings)
    with eager.session() as session:
        assert session.exec(select(Score).where(Score.gpu_id == "rtx-3090")).all() == []
        session.add_all(make_asks(usd="777", observed_at=datetime.now(UTC)))
        session.flush()
        enqueue_after_commit(session, recompute_call(["rtx-3090"]))
    with eager.session() as session:
        scores = session.exec(select(Score).where(Score.gpu_id == "rtx-3090")).all()
        quote = session.exec(
            select(Quote).where(Quote.standard_key == "4x-rtx-3090-used-workstation")
        ).one()
    assert scores and all(s.price_usd == Decimal("777.00") for s in scores)
    gpu_line = json.loads(quote.result_json)["line_items"][0]
    assert gpu_line["category"] == "gpu" and Decimal(gpu_line["unit_usd"]) == Decimal("777.00")
    assert quote.model_version == eager.model.version


def test_a_rolled_back_price_enqueues_nothing(eager: Context):
    with pytest.raises(RuntimeError), eager.session() as session:
        price = PriceInput("rtx-3090", Decimal("555"), "used", "vendor")
        record_price(session, price, eager.settings)
        raise RuntimeError("the request failed after the price was added")
    with eager.session() as session:
        assert session.exec(select(Score)).all() == []
        assert session.exec(select(Quote)).all() == []


def test_work_from_a_session_without_a_dispatcher_is_refused(eager: Context):
    # Never silently sent to some process-wide default (it used to be ./var's database).
    with pytest.raises(RuntimeError, match="no dispatcher"), session_scope(eager.engine) as session:
        enqueue_after_commit(session, recompute_call(["rtx-3090"]))


def test_jobs_of_two_contexts_write_to_their_own_databases(
    eager: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # The environment points at a third database: nothing may reach it.
    default_dir = tmp_path / "default"
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(default_dir))
    monkeypatch.delenv("GPU_ADVISOR_DATABASE_URL", raising=False)
    url, pg_name = new_database("sqlite", tmp_path)
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
    engine.dispose()
    other = open_context(make_settings(url, tmp_path, inprocess_mode="eager"))
    try:
        for ctx, usd in ((eager, "600"), (other, "900")):
            with ctx.session() as session:
                session.add_all(make_asks(usd=usd, observed_at=datetime.now(UTC)))
                session.flush()
                enqueue_after_commit(session, recompute_call(["rtx-3090"]))
        for ctx, usd in ((eager, "600.00"), (other, "900.00")):
            with ctx.session() as session:
                scores = session.exec(select(Score).where(Score.gpu_id == "rtx-3090")).all()
            assert scores and {s.price_usd for s in scores} == {Decimal(usd)}
    finally:
        close_context(other)
    assert not default_dir.exists()
