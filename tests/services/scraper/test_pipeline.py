from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from services.scraper.listing import CloudListing, Condition, RawListing
from services.scraper.money import Money
from services.scraper.pipeline import (
    PriceBounds,
    dedupe,
    normalize,
    run,
    validate,
    validate_cloud,
)
from services.scraper.settings import ScraperSettings
from services.scraper.store import to_record
from shared.pricing.ingest import PriceRecord, quarantine_reasons
from shared.pricing.quarantine import DEFAULT_FACTOR

BOUNDS = PriceBounds.from_settings(ScraperSettings())
RUN_AT = datetime(2026, 11, 5, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Match:
    gpu_id: str | None
    quantity: int | None
    reason: str


def matcher(title: str) -> Match:
    """A stand-in for the real matcher: enough rules for these tests."""
    lowered = title.lower()
    if "box only" in lowered:
        return Match(None, None, "box_only")
    if "laptop" in lowered:
        return Match(None, None, "laptop")
    quantity = 2 if "lot of 2" in lowered else None
    if "4090" in lowered:
        return Match("rtx-4090", quantity, "matched")
    if "3090" in lowered:
        return Match("rtx-3090", quantity, "matched")
    return Match(None, None, "no_gpu_found")


def listing(listing_id: str = "1", title: str = "RTX 4090 FE", **overrides: Any) -> RawListing:
    values: dict[str, Any] = {
        "source": "ebay",
        "listing_id": listing_id,
        "title": title,
        "url": f"https://www.ebay.com/itm/{listing_id}",
        "price_text": "$1,600.00",
        "price": Money(Decimal("1600.00"), "USD"),
        "shipping_text": "+$25.00 delivery",
        "shipping": Money(Decimal("25.00"), "USD"),
        "condition": Condition.USED,
    }
    values.update(overrides)
    return RawListing(**values)


def test_normalize_adds_shipping_and_divides_by_quantity() -> None:
    lot = listing("2", "2x RTX 3090 lot of 2", price=Money(Decimal("1250.00"), "USD"))
    result = normalize([listing(), lot], matcher)
    single, pair = result.kept
    assert (single.gpu_id, single.quantity, single.unit_price_usd) == (
        "rtx-4090",
        1,
        Decimal("1625.00"),
    )
    assert (pair.gpu_id, pair.quantity, pair.total_usd) == ("rtx-3090", 2, Decimal("1275.00"))
    assert pair.unit_price_usd == Decimal("637.50")
    assert result.dropped == []


def test_unknown_shipping_is_flagged_not_guessed() -> None:
    [item] = normalize([listing(shipping=None, shipping_text=None)], matcher).kept
    assert item.unit_price_usd == Decimal("1600.00")
    assert item.shipping_known is False


def test_normalize_drops_with_explicit_reasons() -> None:
    cases = {
        "price_range": listing("a", price=None, price_issue="price_range"),
        "missing_price": listing("b", price=None, price_text=None),
        "for_parts": listing("c", condition=Condition.FOR_PARTS),
        "out_of_stock": listing("d", in_stock=False),
        "no_exchange_rate": listing("e", price=Money(Decimal("2000"), "CAD")),
        "box_only": listing("f", "RTX 4090 EMPTY BOX ONLY"),
        "laptop": listing("g", "Gaming laptop RTX 4090"),
        "no_gpu_found": listing("h", "Noctua NH-D15 cooler"),
    }
    result = normalize(cases.values(), matcher)
    assert result.kept == []
    assert [d.reason for d in result.dropped] == list(cases)
    assert {d.stage for d in result.dropped} == {"normalize"}


def test_validate_bounds_and_quarantine_against_recent_median() -> None:
    items = normalize(
        [
            listing("ok"),
            listing("cheap", price=Money(Decimal("5"), "USD"), shipping=None),
            listing("huge", price=Money(Decimal("250000"), "USD")),
            listing("scam", price=Money(Decimal("300"), "USD")),
            listing("gouge", price=Money(Decimal("6000"), "USD")),
        ],
        matcher,
    ).kept
    result = validate(items, BOUNDS)
    assert [i.listing.listing_id for i in result.kept] == ["ok", "scam", "gouge"]
    assert [(d.ref, d.reason) for d in result.dropped] == [
        ("ebay:cheap", "below_minimum_price"),
        ("ebay:huge", "above_maximum_price"),
    ]
    # Judging against the market is the ingest's, for scraped and posted prices alike.
    records = [to_record(item, "ebay", RUN_AT) for item in result.kept]
    held = _held(records, {("rtx-4090", "used"): Decimal("1700")})
    assert [r.listing_id for r, reason in held if reason is None] == ["ok"]
    assert [(r.listing_id, reason) for r, reason in held if reason is not None] == [
        ("scam", "below_median_factor"),
        ("gouge", "above_median_factor"),
    ]


def _held(
    records: list[PriceRecord], medians: dict[tuple[str, str], Decimal]
) -> list[tuple[PriceRecord, str | None]]:
    """Each record with the ingest's quarantine reason against `medians`."""
    reasons = quarantine_reasons(records, medians, DEFAULT_FACTOR)
    return list(zip(records, reasons, strict=True))


def test_no_median_means_no_quarantine() -> None:
    items = normalize([listing(price=Money(Decimal("6000"), "USD"))], matcher).kept
    kept = validate(items, BOUNDS).kept
    assert len(kept) == 1
    assert quarantine_reasons([to_record(kept[0], "ebay", RUN_AT)], {}, DEFAULT_FACTOR) == [None]


def test_dedupe_keeps_first_per_source_and_id() -> None:
    items = normalize(
        [listing("1"), listing("1", price=Money(Decimal("1500"), "USD")), listing("2")], matcher
    ).kept
    other_source = replace(items[0], listing=replace(items[0].listing, source="ebay_api"))
    result = dedupe([*items, other_source])
    assert [(i.listing.source, i.listing.listing_id) for i in result.kept] == [
        ("ebay", "1"),
        ("ebay", "2"),
        ("ebay_api", "1"),
    ]
    assert result.kept[0].unit_price_usd == Decimal("1625.00")
    assert [d.reason for d in result.dropped] == ["duplicate"]


def test_run_counts_every_outcome_by_reason() -> None:
    batch = [
        listing("1"),
        listing("1"),
        listing("2", "RTX 4090 box only"),
        listing("3", price=None, price_issue="price_range"),
        listing("4", price=Money(Decimal("100"), "USD"), shipping=None),
    ]
    result = run(batch, matcher, BOUNDS)
    assert [i.listing.listing_id for i in result.accepted] == ["1", "4"]
    assert result.stats.seen == 5
    assert result.stats.accepted == 2
    assert result.stats.dropped == {
        "normalize.box_only": 1,
        "normalize.price_range": 1,
        "dedupe.duplicate": 1,
    }
    counted = result.stats.accepted + sum(result.stats.dropped.values())
    assert counted == result.stats.seen
    # The $100 lot is valid, and then held back by the ingest's quarantine (the run
    # counts it as "quarantine.below_median_factor"); the $1,625 one is not.
    records = [to_record(item, "ebay", RUN_AT) for item in result.accepted]
    held = _held(records, {("rtx-4090", "used"): Decimal("1650")})
    assert [(r.listing_id, reason) for r, reason in held] == [
        ("1", None),
        ("4", "below_median_factor"),
    ]


def test_validate_cloud() -> None:
    when = datetime(2026, 11, 5, tzinfo=UTC)
    base = CloudListing("aws", "p5.48xlarge", "H100", 8, "us-east-1", Decimal("55.04"), None, when)
    result = validate_cloud(
        [
            base,
            base,
            replace(base, region="us-west-2", on_demand_usd_per_hour=None),
            replace(base, region="eu-west-1", on_demand_usd_per_hour=Decimal("0")),
        ]
    )
    assert result.kept == [base]
    assert [d.reason for d in result.dropped] == [
        "duplicate",
        "missing_price",
        "non_positive_price",
    ]
    assert base.on_demand_usd_per_gpu_hour == Decimal("6.88")


def test_validate_cloud_merges_the_spot_and_on_demand_rows_of_one_offer() -> None:
    when = datetime(2026, 11, 5, tzinfo=UTC)
    on_demand = CloudListing(
        "azure", "Standard_NC24ads_A100_v4", "A100", 1, "eastus", Decimal("3.673"), None, when
    )
    spot = replace(on_demand, on_demand_usd_per_hour=None, spot_usd_per_hour=Decimal("0.9"))
    for rows in ([on_demand, spot], [spot, on_demand]):  # whichever page came first
        result = validate_cloud(rows)
        [merged] = result.kept
        assert (merged.on_demand_usd_per_hour, merged.spot_usd_per_hour) == (
            Decimal("3.673"),
            Decimal("0.9"),
        )
        assert result.dropped == []
    other_spot = replace(spot, spot_usd_per_hour=Decimal("0.8"))
    result = validate_cloud([on_demand, spot, other_spot])
    assert result.kept[0].spot_usd_per_hour == Decimal("0.9")  # the first price stands
    assert [d.reason for d in result.dropped] == ["duplicate"]


def test_one_listing_seen_in_many_runs_is_one_price_for_the_quarantine_median(session) -> None:
    from datetime import timedelta

    from shared.pricing.quarantine import QuarantineRules, recent_medians
    from shared.seed import seed_catalog
    from tests.factories import make_observation

    now = datetime(2026, 11, 20, tzinfo=UTC)
    settings = QuarantineRules(min_n=3)
    key = ("rtx-3060-12gb", "used")
    seed_catalog(session)

    def listing(listing_id: str, usd: str, days_ago: int = 0) -> None:
        session.add(
            make_observation(
                gpu_id=key[0],
                usd=usd,
                source="ebay",
                listing_id=listing_id,
                observed_at=now - timedelta(days=days_ago),
            )
        )

    for days_ago in range(3):  # one mispriced listing, stored by three runs
        listing("X", "2400", days_ago=days_ago)
    session.flush()
    assert recent_medians(session, {key}, now, settings) == {}  # one listing, not three
    listing("real-0", "250")
    listing("real-1", "250")
    session.flush()
    assert recent_medians(session, {key}, now, settings) == {key: Decimal("250")}


def test_without_a_recent_median_a_price_is_judged_by_the_newest_market_or_launch_price(
    session,
) -> None:
    from datetime import timedelta

    from shared.pricing.quarantine import QuarantineRules, quarantine_reason, references
    from shared.seed import seed_catalog
    from tests.factories import make_observation

    now = datetime(2026, 11, 20, tzinfo=UTC)
    seed_catalog(session)
    rules = QuarantineRules()
    used_3090, used_3080 = ("rtx-3090", "used"), ("rtx-3080-10gb", "used")
    # One report price from two months ago, no 30-day median: the newest market price.
    session.add(
        make_observation(
            gpu_id="rtx-3090",
            usd="1207",
            kind="snapshot",
            measure="cheapest_asks_mean",
            observed_at=now - timedelta(days=60),
        )
    )
    # A posted quote is no reference: it cannot lower the bar for the next one.
    session.add(make_observation(gpu_id="rtx-3080-10gb", usd="45", kind="manual", measure="quote"))
    session.flush()
    found = references(session, {used_3090, used_3080}, now, rules)
    assert found[used_3090] == Decimal("1207.00")
    assert quarantine_reason(Decimal("99"), found[used_3090]) == "below_median_factor"
    # No market data at all for the 3080: half its $699 launch price for a used card.
    assert found[used_3080] == Decimal("349.5")
    assert quarantine_reason(Decimal("40"), found[used_3080]) == "below_median_factor"
    assert quarantine_reason(Decimal("300"), found[used_3080]) is None


def test_one_broken_listing_is_dropped_and_counted_the_rest_kept() -> None:
    """Seen breaking whole runs: prices of NaN, Infinity, 1e308 or 1e999, broken Unicode,
    control characters (PostgreSQL refuses NUL)."""
    broken = {
        "nan": listing("nan", price=Money(Decimal("NaN"), "USD")),
        "inf": listing("inf", price=Money(Decimal("Infinity"), "USD")),
        "e308": listing("e308", price=Money(Decimal("1e308"), "USD")),
        "e999": listing("e999", price=Money(Decimal("1e999"), "USD")),
        "ship": listing("ship", shipping=Money(Decimal("-Infinity"), "USD")),
        "surrogate": listing("surrogate", title="RTX 4090 \ud800 FE"),
        "nul": listing("nul", title="RTX 4090\x00 FE"),
        "id": listing("bad\x07id"),
        "url": listing("url", url="https://www.ebay.com/itm/\x9b1"),
    }
    good = listing("good")
    result = normalize([*broken.values(), good], matcher)
    assert [item.listing.listing_id for item in result.kept] == ["good"]
    reasons = {
        drop.listing.listing_id: drop.reason
        for drop in result.dropped
        if isinstance(drop.listing, RawListing)
    }
    assert reasons == {
        "nan": "absurd_price",
        "inf": "absurd_price",
        "e308": "absurd_price",
        "e999": "absurd_price",
        "ship": "absurd_price",
        "surrogate": "invalid_text",
        "nul": "invalid_text",
        "bad\x07id": "invalid_text",
        "url": "invalid_text",
    }


def test_a_tab_or_newline_in_a_title_is_no_control_character() -> None:
    assert normalize([listing(title="RTX 4090\tFE\n")], matcher).kept


def test_broken_cloud_prices_and_names_are_dropped() -> None:
    base = CloudListing(
        "vast", "1x RTX 4090", "RTX 4090", 1, "us", Decimal("0.40"), None,
        datetime(2026, 11, 1, tzinfo=UTC), offer_id="1",
    )  # fmt: skip
    cases = [
        replace(base, on_demand_usd_per_hour=Decimal("NaN"), offer_id="2"),
        replace(base, on_demand_usd_per_hour=Decimal("1e999"), offer_id="3"),
        replace(base, region="us\x00east", offer_id="4"),
    ]
    result = validate_cloud([base, *cases])
    assert result.kept == [base]
    assert [d.reason for d in result.dropped] == ["absurd_price", "absurd_price", "invalid_text"]
