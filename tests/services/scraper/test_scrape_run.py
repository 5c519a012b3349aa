"""Whole scrape runs over real local HTTP into real databases (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime
from decimal import Decimal

from fastapi.testclient import TestClient
from sqlmodel import Session, select

from services.api.app import create_app
from shared.models import CloudOffer, PriceObservation, Score
from shared.sources.status import SourceStatus
from tests.services.scraper.ecb_oracle import usd_per
from tests.services.scraper.scrape_env import RUN_AT, ScrapeEnv, by_source


def observations(env: ScrapeEnv) -> list[PriceObservation]:
    with Session(env.engine) as session:
        return list(session.exec(select(PriceObservation)))


def offers(env: ScrapeEnv) -> list[CloudOffer]:
    with Session(env.engine) as session:
        return list(session.exec(select(CloudOffer)))


def statuses(env: ScrapeEnv) -> dict[str, SourceStatus]:
    with Session(env.engine) as session:
        return {s.name: s for s in session.exec(select(SourceStatus))}


def test_scrape_fills_the_database_from_every_adapter_and_recommend_uses_it(
    scrape_env: ScrapeEnv,
) -> None:
    reports = by_source(scrape_env.run())
    assert {name: r.status for name, r in reports.items()} == dict.fromkeys(reports, "ok")

    stored = observations(scrape_env)
    assert Counter(o.source for o in stored) == {
        # 4090 FE, TUF 3090, A100, the H100 priced in CAD; parts, box, laptop, a range
        # rejected.
        "ebay": 4,
        "ebay:sold": 4,
        "ebay_browse": 2,
        "newegg": 4,
        "bhphoto": 2,
    }
    assert {o.kind for o in stored} == {"scraped"}
    assert len({(o.source, o.listing_id, o.observed_at) for o in stored}) == len(stored)
    by_id = {(o.source, o.listing_id): o for o in stored}
    fe = by_id[("ebay", "256734128811")]
    # Price plus the shown shipping, dated by the run.
    assert (fe.gpu_id, fe.condition, fe.price_usd) == ("rtx-4090", "used", Decimal("1674.99"))
    assert fe.observed_at == RUN_AT
    sold = by_id[("ebay:sold", "335600002222")]
    assert (sold.gpu_id, sold.price_usd) == ("rtx-3090", Decimal("705.00"))
    assert sold.observed_at == datetime(2026, 11, 2, tzinfo=UTC)
    open_box = by_id[("ebay_browse", "296512341234/598765432100")]
    assert (open_box.gpu_id, open_box.condition) == ("rtx-a6000", "used")
    assert reports["ebay"].rejected["normalize.for_parts"] == 1
    # C $38,500.00 + C $120.00 delivery, at the ECB rate of 2026-10-30 (the newest before
    # the run's day).
    cad = by_id[("ebay", "364455667788")]
    cad_usd = (Decimal("38620.00") * usd_per("CAD", date(2026, 10, 30))).quantize(Decimal("0.01"))
    assert (cad.gpu_id, cad.price_usd) == ("h100-pcie", cad_usd)
    assert reports["ebay"].rejected["normalize.no_exchange_rate"] == 0
    assert reports["newegg"].rejected["normalize.out_of_stock"] == 1

    cloud = Counter((o.provider, o.gpu_id) for o in offers(scrape_env))
    assert cloud[("aws", "v100-16gb-sxm2")] == 1
    assert cloud[("azure", "h100-sxm5")] == 1
    assert cloud[("vast", "rtx-4090")] == 1
    assert cloud[("lambda", "a100-40gb-sxm4")] == 2
    assert {o.kind for o in offers(scrape_env)} == {"scraped"}

    assert all(s.last_success_at == RUN_AT and not s.stale for s in statuses(scrape_env).values())
    with Session(scrape_env.engine) as session:
        score = session.exec(
            select(Score).where(Score.gpu_id == "rtx-3090", Score.condition == "used")
        ).first()
    # The recompute ran after the commit: used 3090 priced from sold listings.
    assert score is not None and score.price_kind == "scraped"

    with TestClient(create_app(scrape_env.settings)) as client:
        answer = client.get("/recommend", params={"task": "cv", "memory_gb": 24}).json()
    ranked = {r["gpu"]["id"]: r["price"] for r in answer["results"]}
    assert {"rtx-3090", "rtx-4090"} <= set(ranked)
    assert ranked["rtx-3090"]["kind"] == "scraped"
    assert ranked["rtx-4090"]["kind"] == "scraped"
