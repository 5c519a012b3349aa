"""The one ingest path of card prices: quarantine, dedupe, rows, recompute after commit."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

from shared.kit.db import make_engine, migrate
from shared.kit.events import Dispatcher, TaskCall, bind_dispatcher, recompute_call
from shared.models import PriceObservation
from shared.pricing.ingest import PriceRecord, ingest_prices, observation
from shared.pricing.measures import ASK, BID, QUOTE
from shared.pricing.quarantine import QuarantineRules
from shared.seed import seed_catalog
from tests.conftest import _drop_postgres_database, new_database
from tests.factories import make_observation

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
RULES = QuarantineRules()
GPU = "rtx-3090"


class Recorder(Dispatcher):
    def __init__(self) -> None:
        self.sent: list[TaskCall] = []

    def send(self, call: TaskCall) -> None:
        self.sent.append(call)


@pytest.fixture
def session(backend: str, tmp_path: Path) -> Iterator[Session]:
    """A fresh database of its own: these tests commit, to see what is sent after it."""
    url, pg_name = new_database(backend, tmp_path)
    migrate(url)
    engine = make_engine(url)
    try:
        with Session(engine) as session:
            yield session
    finally:
        engine.dispose()
        if pg_name:
            _drop_postgres_database(pg_name)


@pytest.fixture
def market(session: Session) -> Recorder:
    """The catalog, three used RTX 3090 asks around $800 this month, and a dispatcher."""
    seed_catalog(session)
    for i, usd in enumerate(("780", "800", "820")):
        session.add(
            make_observation(
                gpu_id=GPU, usd=usd, listing_id=f"m{i}", observed_at=NOW - timedelta(days=2)
            )
        )
    session.commit()
    recorder = Recorder()
    bind_dispatcher(session, recorder)
    return recorder


def ask(listing_id: str | None, usd: str, **overrides: object) -> PriceRecord:
    values: dict[str, object] = {
        "gpu_id": GPU,
        "condition": "used",
        "usd": Decimal(usd),
        "measure": ASK,
        "kind": "scraped",
        "source": "ebay",
        "observed_at": NOW,
        "listing_id": listing_id,
        "title": "NVIDIA GeForce RTX 3090 24GB",
        "url": f"https://www.ebay.com/itm/{listing_id}",
    }
    values.update(overrides)
    return PriceRecord(**values)  # type: ignore[arg-type]


def new_rows(session: Session) -> list[PriceObservation]:
    query = select(PriceObservation).where(col(PriceObservation.source) != "test-market")
    return list(session.exec(query.order_by(col(PriceObservation.id))))


def test_a_price_far_from_the_reference_is_stored_quarantined_and_a_bid_is_not_judged(
    session: Session, market: Recorder
) -> None:
    records = [ask("ok", "750"), ask("far", "99"), ask("bid", "99", measure=BID)]
    result = ingest_prices(session, records, RULES, now=NOW)
    assert result.reasons == [None, "below_median_factor", None]
    assert [row.quarantined for row in result.rows] == [False, True, False]
    reference = result.references[(GPU, "used")]
    assert reference.usd == Decimal("800")
    assert reference.basis == "30-day median of 3 market prices"
    assert (len(result.stored), result.already_stored) == (3, 0)
    # Only the $750 ask is a usable price: a quarantined price and a bid move no score.
    assert result.gpu_ids == [GPU]
    session.commit()
    assert market.sent == [recompute_call([GPU])]
    assert [(r.listing_id, r.quarantined, r.measure) for r in new_rows(session)] == [
        ("ok", False, ASK),
        ("far", True, ASK),
        ("bid", False, BID),
    ]


def test_nothing_usable_enqueues_no_recompute(session: Session, market: Recorder) -> None:
    quote = ask(None, "5000", kind="manual", measure=QUOTE, source="vendor")
    result = ingest_prices(session, [quote, ask("bid", "99", measure=BID)], RULES, now=NOW)
    assert result.reasons == ["above_median_factor", None]
    assert result.gpu_ids == []
    session.commit()
    assert market.sent == []
    assert len(new_rows(session)) == 2


def test_rows_stored_already_or_repeated_in_the_batch_are_left_out(
    session: Session, market: Recorder
) -> None:
    ingest_prices(session, [ask("A", "790")], RULES, now=NOW)
    # "A" at the same time is stored; "B" twice in one batch is one row; "A" an hour later
    # is a new observation of the listing.
    later = NOW + timedelta(hours=1)
    batch = [ask("A", "790"), ask("B", "795"), ask("B", "799"), ask("A", "785", observed_at=later)]
    result = ingest_prices(session, batch, RULES, now=NOW)
    assert result.already_stored == 2
    assert [(r.listing_id, r.price_usd) for r in result.stored] == [
        ("B", Decimal("795")),
        ("A", Decimal("785")),
    ]
    assert len(new_rows(session)) == 3


def test_a_record_without_a_listing_id_is_a_listing_of_its_own(
    session: Session, market: Recorder
) -> None:
    quote = ask(None, "700", kind="manual", measure=QUOTE, source="vendor", owner_key_id=None)
    result = ingest_prices(session, [quote, quote], RULES, now=NOW)
    first, second = (row.listing_id or "" for row in result.stored)
    assert first.startswith("manual:") and second.startswith("manual:") and first != second
    assert result.already_stored == 0


def test_a_dry_run_judges_the_same_and_writes_and_sends_nothing(
    session: Session, market: Recorder
) -> None:
    records = [ask("ok", "750"), ask("far", "99")]
    dry = ingest_prices(session, records, RULES, now=NOW, dry_run=True)
    assert dry.reasons == [None, "below_median_factor"]
    assert (len(dry.stored), dry.gpu_ids) == (2, [GPU])
    session.commit()
    assert new_rows(session) == [] and market.sent == []


def test_text_is_cut_to_the_columns() -> None:
    long = ask("x" * 200, "750", source="s" * 200, title="t" * 600, url="u" * 2000)
    row = observation(long)
    assert (len(row.source), len(row.listing_id or ""), len(row.title or "")) == (128, 128, 512)
    assert len(row.url or "") == 1024
    assert (row.price, row.price_usd, row.currency) == (Decimal("750"), Decimal("750"), "USD")
