"""The scale bench's generator: deterministic, shaped like the scraper's data, insertable."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import cast

from sqlalchemy import func, select

from bench.scale_data import (
    OFFER_COLUMNS,
    PRICE_COLUMNS,
    ScaleSpec,
    base_price,
    insert_all,
    offer_rows,
    price_rows,
)
from services.scraper.registry import SOURCES, SourceKind
from shared.catalog.specs import load_catalog
from shared.kit.db import make_engine, migrate, session_scope
from shared.models import CloudOffer, PriceObservation
from shared.pricing.market import SOLD_SUFFIX
from shared.pricing.quarantine import MARKET_GROUPS, list_price_reference, quarantine_reason
from shared.seed import seed_catalog

SPEC = ScaleSpec(20_000)


def rows(spec: ScaleSpec = SPEC) -> list[dict[str, object]]:
    return [dict(zip(PRICE_COLUMNS, row, strict=True)) for row in price_rows(spec)]


def test_the_same_seed_gives_the_same_rows_and_another_seed_others() -> None:
    small = ScaleSpec(2000)
    assert list(price_rows(small)) == list(price_rows(small))
    assert list(offer_rows(small)) == list(offer_rows(small))
    assert list(price_rows(small)) != list(price_rows(ScaleSpec(2000, seed=16)))


def test_exactly_the_rows_asked_for_each_unique_as_the_table_requires() -> None:
    made = rows()
    assert len(made) == SPEC.rows
    assert len({(r["source"], r["listing_id"], r["observed_at"]) for r in made}) == SPEC.rows
    offers = [dict(zip(OFFER_COLUMNS, o, strict=True)) for o in offer_rows(SPEC)]
    assert len(offers) == SPEC.rows // 50
    unique = ("provider", "instance_type", "region", "observed_at")  # uq_cloud_offer
    assert len({tuple(o[c] for c in unique) for o in offers}) == len(offers)
    assert len({o["gpu_id"] for o in offers}) > 10


def test_popular_consumer_cards_get_most_rows_and_the_catalog_a_long_tail() -> None:
    per_gpu = Counter(str(r["gpu_id"]) for r in rows())
    (top, top_n), *_ = per_gpu.most_common()
    assert top == "rtx-3090" and top_n > SPEC.rows * 0.1
    assert len(per_gpu) > len(load_catalog().ids) * 0.6
    consumer = {g for g, s in load_catalog().by_id.items() if s.segment == "consumer"}
    assert sum(n for g, n in per_gpu.items() if g in consumer) > SPEC.rows * 0.6


def test_sources_conditions_and_measures_are_the_scrapers() -> None:
    made = rows()
    market = {name for name, spec in SOURCES.items() if spec.kind is SourceKind.MARKET}
    names = {str(r["source"]).removesuffix(SOLD_SUFFIX) for r in made}
    assert names == market
    assert {r["condition"] for r in made} == {"new", "used", "refurbished"}
    sold = [r for r in made if str(r["source"]).endswith(SOLD_SUFFIX)]
    assert sold and {r["measure"] for r in sold} == {"sale"}
    assert {r["measure"] for r in made if r not in sold} == {"ask"}
    assert {r["kind"] for r in made} == {"scraped"}
    # Listings are re-seen by later scrapes: fewer listings than rows.
    assert len({(r["source"], r["listing_id"]) for r in made}) < SPEC.rows * 0.6


def test_a_year_of_dates_with_the_newest_week_covered() -> None:
    made = rows()
    times = [cast(datetime, r["observed_at"]) for r in made]
    assert min(times) >= SPEC.start and max(times) <= SPEC.end
    recent = [t for t in times if t >= SPEC.end - timedelta(days=7)]
    old = [t for t in times if t < SPEC.start + timedelta(days=90)]
    assert len(recent) > SPEC.rows * 0.02 and old


def test_outliers_are_few_and_those_stored_quarantined_fail_the_rule() -> None:
    made = rows()
    held = [r for r in made if r["quarantined"]]
    assert 0 < len(held) < SPEC.rows * 0.01
    catalog = load_catalog().by_id
    for r in held:
        gpu = catalog[str(r["gpu_id"])]
        group = MARKET_GROUPS[str(r["condition"])]
        reference = list_price_reference(Decimal(str(base_price(gpu))), group)
        assert quarantine_reason(Decimal(str(r["price_usd"])), reference) is not None


def test_rows_insert_into_the_migrated_schema(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'scale.db'}"
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
    assert insert_all(engine, ScaleSpec(1500)) == (1500, 30)
    with session_scope(engine) as session:
        assert session.execute(select(func.count()).select_from(PriceObservation)).scalar() == 1500
        assert session.execute(select(func.count()).select_from(CloudOffer)).scalar() == 30
    engine.dispose()
