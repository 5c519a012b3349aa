"""The first history page and GPU page after new prices: the market rows and the history's
total are brought up to date with the new rows, not recomputed, and every answer equals
a cold computation's byte for byte (both backends): prices of now and back-dated ones,
quarantined ones, re-seen listings and sales, other GPUs, filters, viewers and pages."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from services.api.gpus import service as gpus_service
from services.api.prices import market_rows, service
from services.api.prices.cache import PriceCache
from services.api.prices.market_rows import MarketRows
from services.api.prices.service import market_out
from shared.catalog.specs import load_catalog
from shared.kit.db import session_scope
from shared.kit.settings import Settings
from shared.pricing.market import PricePolicy, market_price
from shared.pricing.quotes import OPERATOR, QuoteViewer
from shared.pricing.window import market_observations
from shared.scoring.compute import SourceHealth, gpu_prices
from shared.seed import seed_catalog
from tests.conftest import make_settings
from tests.factories import make_observation
from tests.services.api.prices_data import RUN2, app_with_routers, loaded_client

START = datetime(2026, 11, 20, 12, tzinfo=UTC)
GPU = "rtx-3090"
# Odd names too, as in tests/shared/pricing/test_window.py; eBay's sites share listings.
SOURCES = ("ebay", "ebay:sold", "ebay_browse", "newegg", "bhphoto", "newegg:SOLD", "bh")


class Prices:
    """Random prices: mostly scraped records of a hundred listings (so re-seen), sales, list
    prices, rows without a listing id, bundled rows, quotes, typos. Many share a time, as
    a scrape run's rows do: ties are what a ranking gets wrong first."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self._taken: set[tuple[str, str | None, datetime]] = set()

    def add(self, session: Session, when: datetime, gpu_id: str = GPU) -> None:
        rng = self.rng
        source = rng.choice(SOURCES)
        listing = None if rng.random() < 0.05 else f"L{rng.randint(0, 120)}"
        if listing is not None and (source, listing, when) in self._taken:
            listing = f"L-{len(self._taken)}"  # one record per listing and time (the table's)
        self._taken.add((source, listing, when))
        session.add(
            make_observation(
                gpu_id=gpu_id,
                condition=rng.choice(["new", "used", "refurbished"]),
                usd=Decimal(rng.randint(300, 2500)),
                kind=rng.choice(["scraped"] * 8 + ["snapshot", "manual"]),
                source=source,
                listing_id=listing,
                observed_at=when,
                quarantined=rng.random() < 0.05,
                measure="sale" if rng.random() < 0.15 else rng.choice(["ask"] * 9 + ["list_price"]),
            )
        )

    def ago(self, days: float) -> timedelta:
        """Up to `days` back: a scrape run's time (6-hourly) or any time."""
        if self.rng.random() < 0.5:
            return timedelta(hours=6 * self.rng.randint(0, int(days * 4)))
        return timedelta(days=self.rng.uniform(0, days))


@pytest.fixture
def history(session: Session) -> Session:
    seed_catalog(session)
    prices = Prices(5)
    for _ in range(500):
        back = prices.ago(prices.rng.choice([60, 8, 20]))
        prices.add(session, START - back, prices.rng.choice([GPU, GPU, "rtx-4090"]))
    # Both condition groups have a window from the start.
    session.add(make_observation(gpu_id=GPU, condition="new", source="newegg", observed_at=START))
    session.add(make_observation(gpu_id=GPU, condition="used", source="ebay", observed_at=START))
    session.flush()
    return session


@pytest.fixture
def fulls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The GPUs of each full computation of the market rows."""
    calls: list[str] = []
    real = market_rows._full

    def full(session: Session, gpu_id: str, *args: object, **kwargs: object) -> object:
        calls.append(gpu_id)
        return real(session, gpu_id, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(market_rows, "_full", full)
    return calls


def policies(now: datetime) -> list[PricePolicy]:
    """Stale sources, recorded runs or none, and list prices that age out."""
    return [
        PricePolicy(
            now=now, window_days=7, list_price_max_age_days=20, stale_sources=stale, last_runs=runs
        )
        for stale in (frozenset(), frozenset({"ebay"}), frozenset({"ebay_browse", "newegg"}))
        for runs in ({"ebay": now - timedelta(days=2)}, None)
    ]


def assert_rows_match(session: Session, rows: MarketRows, now: datetime) -> None:
    for policy in policies(now):
        cold = market_observations(session, [GPU], policy)[GPU]
        assert rows.get(session, GPU, policy) == cold, policy


def test_new_prices_are_appended_and_the_rows_are_the_databases(
    history: Session, fulls: list[str]
) -> None:
    prices = Prices(8)
    rng = prices.rng
    rows = MarketRows()
    now = START + timedelta(hours=1)
    assert_rows_match(history, rows, now)
    assert fulls == [GPU]
    for _step in range(20):
        now += timedelta(hours=rng.choice([0, 1, 6]))
        for _ in range(rng.randrange(1, 12)):
            # Mostly prices of now; some back-dated into or before the window (a late
            # scrape), some of another GPU.
            back = rng.choice([timedelta(0)] * 6 + [prices.ago(30)])
            prices.add(history, now - back, GPU if rng.random() < 0.8 else "rtx-4090")
        history.flush()
        assert_rows_match(history, rows, now)
    # Every price was appended: the windows only moved forward.
    assert fulls == [GPU]


def test_a_window_the_held_rows_cannot_tell_is_computed_again(
    session: Session, fulls: list[str]
) -> None:
    seed_catalog(session)
    rows = MarketRows()

    def add(**values: object) -> None:
        session.add(make_observation(gpu_id=GPU, source="newegg", **values))
        session.flush()

    add(condition="new", observed_at=START - timedelta(days=30), usd="1100")
    add(condition="new", observed_at=START - timedelta(days=3), usd="1200", measure="list_price")
    assert_rows_match(session, rows, START)
    assert len(fulls) == 1
    # Older than the window: not held, and nothing to compute again.
    add(condition="new", observed_at=START - timedelta(days=40), usd="1000")
    assert_rows_match(session, rows, START + timedelta(days=1))
    assert len(fulls) == 1
    # The newest new price is a list price: 18 days on it is too old to start a window
    # (20 days), and the window of the price before it starts before the rows held.
    assert_rows_match(session, rows, START + timedelta(days=18))
    assert len(fulls) == 2
    # A first used price: where its window starts is the database's to find.
    add(condition="used", observed_at=START, usd="700")
    assert_rows_match(session, rows, START + timedelta(days=18))
    assert len(fulls) == 3
    # A longer window than the rows held.
    policy = PricePolicy(now=START, window_days=60)
    assert rows.get(session, GPU, policy) == market_observations(session, [GPU], policy)[GPU]
    assert len(fulls) == 4


def test_records_of_one_time_are_all_kept(session: Session, fulls: list[str]) -> None:
    """A sale and an ask of one listing at one time: the sale is the listing's best record,
    the ask its source's newest; both are kept, and the ask of the run before neither."""
    seed_catalog(session)
    rows = MarketRows()
    run = START - timedelta(hours=6)
    ebay = {"gpu_id": GPU, "listing_id": "one", "condition": "used"}
    session.add(make_observation(source="ebay", observed_at=run - timedelta(hours=6), **ebay))
    session.add(make_observation(source="ebay", observed_at=run, **ebay))
    session.flush()
    assert_rows_match(session, rows, START)
    session.add(make_observation(source="ebay:sold", observed_at=run, usd="900", **ebay))
    session.flush()
    assert_rows_match(session, rows, START)
    kept = rows.get(session, GPU, PricePolicy(now=START))
    assert sorted((r.source, r.observed_at) for r in kept) == [
        ("ebay", run),
        ("ebay:sold", run),
    ]
    assert len(fulls) == 1


def test_an_old_entry_is_computed_again(history: Session, fulls: list[str]) -> None:
    rows = MarketRows(ttl_s=0.0)
    assert_rows_match(history, rows, START)
    Prices(1).add(history, START + timedelta(hours=1))
    history.flush()
    assert_rows_match(history, rows, START)
    assert len(fulls) == 2 * len(policies(START))


def test_no_prices_no_rows(session: Session) -> None:
    seed_catalog(session)
    assert MarketRows().get(session, GPU, PricePolicy(now=START)) == []


def test_the_gpu_detail_prices_each_kind_and_condition_from_one_reading(
    history: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GET /gpus/{id}'s prices equal market_price over each kind's rows and gpu_prices over
    all (what it computed before), from the held rows as from the database's."""
    spec = load_catalog().by_id[GPU]
    settings = make_settings("sqlite://", Path("."), load_bundled_data=False)
    rows = MarketRows()
    for policy in policies(START + timedelta(hours=1)):
        monkeypatch.setattr(SourceHealth, "policy", lambda *_args, p=policy: p)
        observations = market_observations(history, [GPU], policy)[GPU]
        by_kind = {
            f"{kind}:{condition}": market_out(price)
            for kind in sorted({o.kind for o in observations})
            for condition in ("new", "used")
            if (
                price := market_price(
                    [o for o in observations if o.kind == kind], condition, policy
                )
            )
        }
        prices = {k: market_out(v) for k, v in gpu_prices(observations, policy).items()}
        assert len(by_kind) >= 4 and prices["any"] is not None
        for held in (None, rows):
            detail = gpus_service.detail(history, spec, settings, rows=held)
            assert (detail.latest_by_kind, detail.market_prices) == (by_kind, prices)
            assert list(detail.latest_by_kind) == list(by_kind)


# condition, source, since
Filters = tuple[str | None, str | None, datetime | None]
FILTERS: list[Filters] = [
    (None, None, None),
    ("used", None, None),
    (None, "ebay", None),
    ("new", None, START - timedelta(days=5)),
]
VIEWERS: list[QuoteViewer | None] = [None, OPERATOR]


def _page(
    session: Session,
    policy: PricePolicy,
    filters: Filters,
    offset: int,
    viewer: QuoteViewer | None,
    cache: PriceCache | None = None,
    rows: MarketRows | None = None,
) -> str:
    condition, source, since = filters
    answer = service.history(
        session,
        GPU,
        condition=condition,
        source=source,
        since=since,
        limit=40,
        offset=offset,
        policy=policy,
        cache=cache,
        viewer=viewer,
        rows=rows,
    )
    return answer.model_dump_json()


def test_history_pages_after_new_prices_equal_a_cold_computation(history: Session) -> None:
    prices = Prices(13)
    rng = prices.rng
    cache, rows = PriceCache(), MarketRows()
    now = START + timedelta(hours=1)
    for step in range(8):
        policy = policies(now)[step % 6]
        for filters in FILTERS:
            for viewer in VIEWERS:
                for offset in (0, 40, 400):
                    warm = _page(history, policy, filters, offset, viewer, cache, rows)
                    assert warm == _page(history, policy, filters, offset, viewer)
        now += timedelta(hours=6)
        for _ in range(rng.randrange(1, 10)):
            back = rng.choice([timedelta(0)] * 4 + [prices.ago(10)])
            prices.add(history, now - back, GPU if rng.random() < 0.8 else "rtx-4090")
        history.flush()


def test_a_total_adds_the_rows_stored_since() -> None:
    cache = PriceCache()
    counted: list[tuple[int | None, int | None]] = []
    ids = [3, 5, 8, 9, 12]

    def count(after: int | None, up_to: int | None) -> int:
        counted.append((after, up_to))
        return sum(1 for i in ids if (after is None or i > after) and (up_to is None or i <= up_to))

    assert cache.total("k", 8, count) == 3
    assert cache.total("k", 8, count) == 3
    assert cache.total("k", 12, count) == 5
    # A request that saw an older price than the total held: the held one less the newer.
    assert cache.total("k", 9, count) == 4
    assert counted == [(None, 8), (8, 12), (9, 12)]


def test_a_total_is_counted_again_after_its_lifetime(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    monkeypatch.setattr("services.api.prices.cache.time.monotonic", lambda: clock[0])
    cache = PriceCache(ttl_s=60)
    assert cache.total("k", 1, lambda after, up_to: 10 if after is None else 1) == 10
    clock[0] += 30
    assert cache.total("k", 2, lambda after, up_to: 20 if after is None else 1) == 11
    clock[0] += 30.1  # the full count's age, not the last addition's
    assert cache.total("k", 3, lambda after, up_to: 20 if after is None else 1) == 20


FROZEN = RUN2 + timedelta(days=1)


@pytest.fixture
def frozen_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages' policies at a fixed time: a page is then a function of the data alone."""
    real = SourceHealth.policy

    def policy(self: SourceHealth, settings: Settings, now: datetime) -> PricePolicy:
        return real(self, settings, FROZEN)

    monkeypatch.setattr(SourceHealth, "policy", policy)


@pytest.fixture
def warm(
    backend: str, tmp_path_factory: pytest.TempPathFactory, frozen_policy: None
) -> Iterator[TestClient]:
    """An app asked before and after each price (its caches warm), at a fixed time."""
    with loaded_client(backend, tmp_path_factory.mktemp("incremental")) as client:
        yield client


PAGES = [
    ("/gpus/rtx-3090/prices", {}),
    ("/gpus/rtx-3090/prices?limit=2&offset=2", {}),
    ("/gpus/rtx-3090/prices?condition=used&limit=3", {}),
    ("/gpus/rtx-3090/prices?source=ebay", {}),
    ("/gpus/rtx-3090", {"accept": "application/json"}),
    ("/gpus/rtx-3090", {"accept": "text/html"}),
]


def test_pages_after_new_prices_are_a_fresh_apps_byte_for_byte(warm: TestClient) -> None:
    engine = warm.app.state.engine  # type: ignore[attr-defined]
    rng = random.Random(21)
    for step in range(4):
        for path, headers in PAGES:
            warm.get(path, headers=headers).raise_for_status()
        with session_scope(engine) as session:
            # Re-seen and sold records of the fixture's listings, back-dated ones, a
            # quarantined typo, another GPU's.
            for i in range(3):
                session.add(
                    make_observation(
                        gpu_id=GPU,
                        source=rng.choice(["ebay", "ebay:sold", "newegg", "ebay_browse"]),
                        condition=rng.choice(["used", "new", "refurbished"]),
                        listing_id=rng.choice(["A", "B", "C", "R", f"new-{step}-{i}"]),
                        usd=str(rng.randint(600, 900)),
                        observed_at=RUN2 + timedelta(hours=rng.choice([-30, -1, 1, 2 + step])),
                        quarantined=rng.random() < 0.2,
                    )
                )
            session.add(make_observation(gpu_id="rtx-4090", observed_at=RUN2))
        # A fresh app on the same database: nothing cached.
        settings = warm.app.state.settings  # type: ignore[attr-defined]
        with TestClient(app_with_routers(settings)) as cold:
            for path, headers in PAGES:
                assert (
                    warm.get(path, headers=headers).content
                    == cold.get(path, headers=headers).content
                ), (step, path, headers)
