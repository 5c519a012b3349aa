"""vast.ai: only verified hosts' offers become prices; the rest are counted, not lost.

The sample (samples/vast/verification_states.json) is synthetic: written in the shape of
the bundles answer, with verified, unverified and deverified hosts mixed as the real
marketplace mixes them even when the query asks for verified ones.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from sqlmodel import Session, select

from services.scraper import store
from services.scraper.cloud_match import SkippedCloudListing
from services.scraper.listing import CloudListing
from services.scraper.sources import vast
from shared.models import CloudOffer
from tests.services.scraper.fixture_server import SAMPLES_DIR, sample_file
from tests.services.scraper.scrape_env import PATHS, ScrapeEnv

OBSERVED_AT = datetime(2026, 11, 5, 12, 0, tzinfo=UTC)
SAMPLE = SAMPLES_DIR / "vast" / "verification_states.json"


def parsed() -> list[CloudListing]:
    return vast.parse(SAMPLE.read_bytes(), "https://console.vast.ai/api/v0/bundles/")


def test_only_verified_offers_are_priced_and_the_others_carry_their_reason() -> None:
    listings = parsed()
    priced = [item for item in listings if not isinstance(item, SkippedCloudListing)]
    skipped = [item for item in listings if isinstance(item, SkippedCloudListing)]
    assert [item.offer_id for item in priced] == ["21000101", "21000104", "21000106"]
    assert Counter(item.skip_reason for item in skipped) == {
        vast.UNVERIFIED_HOST: 2,
        vast.DEVERIFIED_HOST: 2,
        vast.NOT_RENTABLE: 1,  # verified, but not rentable
    }
    assert all(item.capacity_available for item in priced)


@pytest.mark.parametrize(
    ("fields", "state"),
    [
        ({"verification": "verified"}, "verified"),
        ({"verification": "Deverified", "verified": True}, "deverified"),
        ({"verified": True}, "verified"),
        ({"verified": False}, "unverified"),
        ({}, None),
    ],
)
def test_verification_state_from_either_field(fields: dict[str, object], state: str | None):
    assert vast.verification(fields) == state


def test_an_offer_that_does_not_say_it_is_verified_is_not_priced() -> None:
    offer = {"id": 1, "gpu_name": "RTX 4090", "num_gpus": 1, "dph_total": 0.3}
    body = json.dumps({"offers": [offer]}).encode()
    [listing] = vast.parse(body, "u", observed_at=OBSERVED_AT)
    assert isinstance(listing, SkippedCloudListing)
    assert listing.skip_reason == vast.UNKNOWN_VERIFICATION


def test_a_cheaper_deverified_offer_does_not_replace_the_verified_one() -> None:
    offers, drops = store.to_cloud_offers(parsed(), "vast")
    by_type = {(o.instance_type, o.region): o for o in offers}
    # The deverified 8x H100 in the same region asks 14.40; the verified one 17.99 is kept.
    h100 = by_type[("8x H100 SXM", "Oregon, US")]
    assert h100.on_demand_usd_per_hour == Decimal("17.99")
    assert len(offers) == 3
    assert Counter(d.reason for d in drops) == {
        vast.UNVERIFIED_HOST: 2,
        vast.DEVERIFIED_HOST: 2,
        vast.NOT_RENTABLE: 1,
    }


def test_a_scrape_run_counts_the_dropped_offers_by_reason(scrape_env: ScrapeEnv) -> None:
    scrape_env.server.route(PATHS["vast"], sample_file("vast", "verification_states.json"))
    [report] = scrape_env.run(["vast"])
    assert report.status == "ok"
    assert (report.listings, report.cloud_offers) == (8, 3)
    assert report.rejected == {
        "source.unverified_host": 2,
        "source.deverified_host": 2,
        "source.not_rentable": 1,
    }
    summary = report.as_dict()
    assert summary["rejected"]["source.deverified_host"] == 2
    assert summary["unmapped"] == {"total": 0, "names": []}  # refused, not unmapped
    with Session(scrape_env.engine) as session:
        stored = session.exec(select(CloudOffer)).all()
    assert sorted(float(o.on_demand_usd_per_hour or 0) for o in stored) == [0.412, 0.81, 17.99]
