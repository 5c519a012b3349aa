"""A scraped listing and the same price posted to POST /prices go through one ingest
function (shared/pricing/ingest.py) and become the same row, quarantine included; only
what each door says of the price differs (kind, measure, listing id, time, owner)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from services.api.app import create_app
from services.scraper import runner
from services.scraper.collect import Harvest
from services.scraper.listing import Condition, ListingType, RawListing
from services.scraper.money import Money
from services.scraper.registry import get_source
from services.scraper.settings import ScraperSettings
from shared.alerts.keys import create_key
from shared.kit.db import make_engine, migrate, session_scope
from shared.kit.events import Dispatcher, TaskCall, bind_dispatcher
from shared.kit.settings import Settings
from shared.models import PriceObservation
from shared.pricing import intake
from shared.pricing.ingest import Ingested, PriceRecord, ingest_prices
from shared.pricing.measures import ASK, QUOTE
from shared.seed import seed_catalog
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.factories import make_observation

GPU = "rtx-4090"
TITLE = "NVIDIA GeForce RTX 4090 Founders Edition 24GB GDDR6X"
# The columns the ingest decides from the price itself; the rest say which door it came
# in by (id, kind, measure, listing id, observed at, owner).
SAME_COLUMNS = (
    "gpu_id",
    "condition",
    "price",
    "currency",
    "price_usd",
    "source",
    "url",
    "title",
    "quantity",
    "quarantined",
)


@dataclass
class Doors:
    client: TestClient
    url: str
    settings: Settings
    calls: list[tuple[list[PriceRecord], Ingested]]


class Recorder(Dispatcher):
    def send(self, call: TaskCall) -> None:
        pass


@pytest.fixture
def doors(backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Doors]:
    """A database with used RTX 4090 asks around $1,550 this week, the API with a write
    key, and every call of the ingest function by either door recorded."""
    url, pg_name = new_database(backend, tmp_path)
    migrate(url)
    engine = make_engine(url)
    now = datetime.now(UTC)
    with session_scope(engine) as session:
        seed_catalog(session)
        for i, usd in enumerate(("1500", "1550", "1600")):
            session.add(
                make_observation(
                    gpu_id=GPU, usd=usd, listing_id=f"m{i}", observed_at=now - timedelta(days=2)
                )
            )
    with session_scope(engine) as session:
        key = create_key(session, "doors", "write")
    engine.dispose()
    calls: list[tuple[list[PriceRecord], Ingested]] = []

    def recorded(session: Session, records: Any, *args: Any, **kwargs: Any) -> Ingested:
        result = ingest_prices(session, records, *args, **kwargs)
        calls.append((list(records), result))
        return result

    # Both doors call the function by the name they imported.
    monkeypatch.setattr(intake, "ingest_prices", recorded)
    monkeypatch.setattr(runner, "ingest_prices", recorded)
    settings = make_settings(url, tmp_path, load_bundled_data=False)
    with TestClient(create_app(settings)) as client:
        client.headers["Authorization"] = f"Bearer {key.key}"
        yield Doors(client, url, settings, calls)
    if pg_name:
        _drop_postgres_database(pg_name)


def post(doors: Doors, usd: str, item: str) -> dict[str, Any]:
    body = {
        "gpu_id": GPU,
        "usd": usd,
        "condition": "used",
        "source": "ebay",
        "title": TITLE,
        "url": f"https://www.ebay.com/itm/{item}",
    }
    response = doors.client.post("/prices", json=body)
    assert response.status_code == 201, response.text
    answer: dict[str, Any] = response.json()
    return answer


def scrape(doors: Doors, usd: str, item: str) -> runner.RunReport:
    """One eBay run that saw one listing, stored as a run stores it."""
    listing = RawListing(
        source="ebay",
        listing_id=item,
        title=TITLE,
        url=f"https://www.ebay.com/itm/{item}",
        price_text=f"${usd}",
        price=Money(Decimal(usd), "USD"),
        shipping_text="Free delivery",
        shipping=Money(Decimal(0), "USD"),
        condition=Condition.USED,
        listing_type=ListingType.ACTIVE,
    )
    harvest = Harvest(datetime.now(UTC), listings=[listing], pages=1)
    engine = make_engine(doors.url)
    try:
        with session_scope(engine) as session:
            bind_dispatcher(session, Recorder())
            return runner.store_harvest(
                session, get_source("ebay"), harvest, ScraperSettings(), doors.settings
            )
    finally:
        engine.dispose()


def row(doors: Doors, **where: Any) -> PriceObservation:
    engine = make_engine(doors.url)
    try:
        with Session(engine) as session:
            query = select(PriceObservation)
            for name, value in where.items():
                query = query.where(getattr(PriceObservation, name) == value)
            found: PriceObservation = session.exec(query).one()
            return found
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    ("usd", "quarantine_reason"), [("1450", None), ("99", "below_median_factor")]
)
def test_a_scraped_listing_and_a_posted_price_make_the_same_row(
    doors: Doors, usd: str, quarantine_reason: str | None
) -> None:
    # Posted first: a quote never enters the reference the scraped price is judged by.
    created = post(doors, usd, "135792468024")
    report = scrape(doors, usd, "135792468024")
    assert created["quarantine_reason"] == quarantine_reason
    assert (report.quarantined, report.stored) == ((1, 0) if quarantine_reason else (0, 1))

    # Both doors called the one ingest function, with one record each...
    [(posted, posted_result), (scraped, scraped_result)] = doors.calls
    [posted_record], [scraped_record] = posted, scraped
    # ...that differ only in what says which door the price came in by.
    door = {"kind", "measure", "listing_id", "observed_at", "owner_key_id"}
    assert (
        dataclasses.replace(scraped_record, **{name: getattr(posted_record, name) for name in door})
        == posted_record
    )
    assert (posted_record.kind, posted_record.measure) == ("manual", QUOTE)
    assert (scraped_record.kind, scraped_record.measure) == ("scraped", ASK)
    assert posted_result.reasons == scraped_result.reasons == [quarantine_reason]
    # A usable price is sent to the recompute by either door, a quarantined one by none.
    expected_gpus = [] if quarantine_reason else [GPU]
    assert posted_result.gpu_ids == scraped_result.gpu_ids == expected_gpus

    quote = row(doors, kind="manual")
    scraped_row = row(doors, kind="scraped", listing_id="135792468024")
    for name in SAME_COLUMNS:
        assert getattr(quote, name) == getattr(scraped_row, name), name
    assert quote.price_usd == Decimal(usd).quantize(Decimal("0.01"))
    assert quote.quarantined is (quarantine_reason is not None)
