"""The market index: a repeat-sales fit of how comparable cards' prices moved."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from shared.pricing.index import MonthlyPoint, build_index, month_of, series_family

START = month_of(datetime(2024, 1, 1, tzinfo=UTC))
PEERS = {"card-a": ("consumer",), "card-b": ("consumer",), "card-c": ("consumer",)}


def _trend(monthly: float, months: int, *, offsets: dict[str, float]) -> list[MonthlyPoint]:
    """Three cards of different levels falling `monthly` (log) a month, each month's price
    measured by series "sold" for the first half and "asks" (at +`offsets`) after."""
    points = []
    for card, level in (("card-a", 6.0), ("card-b", 7.0), ("card-c", 6.5)):
        for m in range(months):
            series = "sold" if m < months // 2 else "asks"
            log_price = level + monthly * m + offsets[series]
            points.append(MonthlyPoint(card, "used", series, START + m, math.exp(log_price), 3))
    return points


def test_the_index_recovers_a_common_trend_across_a_change_of_series():
    # Asks sit 30 % above sales: switching series mid-way must not read as a jump.
    points = _trend(-0.02, 24, offsets={"sold": 0.0, "asks": 0.3})
    index = build_index(points, PEERS)
    [group] = index.for_card("card-a", "used")
    assert math.isclose(group.change(START, START + 23), -0.02 * 23, abs_tol=0.03)
    # Where every card changes series at once, that month's step cannot be told from the
    # series offset: it is read as no step, never as the offset's +30 % jump.
    assert abs(group.change(START + 11, START + 12)) < 0.03


def test_one_mislabelled_month_barely_moves_the_index():
    points = _trend(0.0, 12, offsets={"sold": 0.0, "asks": 0.0})
    # A search that priced another card: one month of card-b at 5x.
    bad = next(p for p in points if p.gpu_id == "card-b" and p.month == START + 5)
    points[points.index(bad)] = MonthlyPoint(
        "card-b", "used", bad.series, bad.month, bad.usd * 5, 3
    )
    [group] = build_index(points, PEERS).for_card("card-a", "used")
    assert abs(group.change(START, START + 5)) < 0.1


def test_a_card_alone_is_no_market_and_other_groups_stay_apart():
    points = [MonthlyPoint("card-a", "used", "sold", START + m, 100.0, 3) for m in range(6)]
    points += [MonthlyPoint("card-b", "new", "asks", START + m, 100.0, 3) for m in range(6)]
    index = build_index(points, PEERS)
    assert index.for_card("card-a", "used") == []
    assert index.for_card("card-b", "new") == []
    assert index.for_card("unknown", "used") == []


def test_the_band_widens_with_the_months_moved_and_the_months_unseen():
    index = build_index(_trend(-0.02, 24, offsets={"sold": 0.0, "asks": 0.1}), PEERS)
    volatility = index.volatility
    assert volatility.pairs > 0
    near = volatility.spread(1, 0, None)
    far = volatility.spread(24, 0, None)
    unseen = volatility.spread(24, 12, None)
    assert near < far < unseen


def test_a_dated_report_of_a_publisher_is_one_series():
    april = series_family("snapshot", "GPU Poet april-2026 market report (gpupoet.com)", "x")
    june = series_family("snapshot", "GPU Poet june-2026 market report (gpupoet.com)", "x")
    snap = series_family("snapshot", "eBay search via GPU Poet, captured 2023-12-01", "ask")
    other_day = series_family("snapshot", "eBay search via GPU Poet, captured 2025-11-25", "ask")
    assert april == june and snap == other_day and april != snap
    assert series_family("scraped", "ebay:sold", "sale") == series_family("scraped", "ebay", "sale")


def _tiers_apart() -> list[MonthlyPoint]:
    """Two memory tiers of one segment over two years: the 24 GB cards rise 2 % a month,
    the 8 GB cards fall 2 % a month (how the 2024-2026 consumer series moved)."""
    points = []
    for card, level, monthly in (
        ("big-a", 7.0, 0.02),
        ("big-b", 7.3, 0.02),
        ("small-a", 5.5, -0.02),
        ("small-b", 5.8, -0.02),
    ):
        for m in range(24):
            usd = math.exp(level + monthly * m)
            points.append(MonthlyPoint(card, "used", "sold", START + m, usd, 3))
    return points


def test_a_memory_tier_moving_apart_from_its_segment_gets_its_own_index():
    peers = dict.fromkeys(("big-a", "big-b", "small-a", "small-b"), ("consumer",))
    tiers = {"big-a": "<=24GB", "big-b": "<=24GB", "small-a": "<=8GB", "small-b": "<=8GB"}
    pooled = build_index(_tiers_apart(), peers)
    tiered = build_index(_tiers_apart(), peers, tiers)
    [flat] = pooled.for_card("big-a", "used")
    [big] = tiered.for_card("big-a", "used")
    [small] = tiered.for_card("small-a", "used")
    # Pooled, the two tiers cancel; by tier, each moves towards its own cards (+-0.46 in
    # log), shrunk to the segment by TIER_SHRINK (two cards a tier are little evidence).
    pooled_change = flat.change(START, START + 23)
    assert abs(pooled_change) < 0.05
    assert big.change(START, START + 23) > pooled_change + 0.04
    assert small.change(START, START + 23) < pooled_change - 0.04


def _new_then_slower(m: int) -> float:
    """New prices fall 5 % a month for a year, then 1 % a month (log)."""
    return -0.05 * m if m < 12 else -0.6 - 0.01 * (m - 12)


def test_a_used_index_follows_the_new_one_across_months_without_used_data():
    peers = dict.fromkeys(("card-a", "card-b"), ("consumer",))
    points = []
    for card, level in (("card-a", 7.0), ("card-b", 6.0)):
        for m in range(24):
            new_usd = math.exp(level + _new_then_slower(m))
            points.append(MonthlyPoint(card, "new", "shop", START + m, new_usd, 3))
            # Used prices (40 % below new) are seen only in the first and last 4 months.
            if m < 4 or m >= 20:
                used_usd = math.exp(level - 0.4 + _new_then_slower(m))
                points.append(MonthlyPoint(card, "used", "ebay", START + m, used_usd, 3))
    [used] = build_index(points, peers).for_card("card-a", "used")
    # Across the gap the used index steps as the new one did (-5 % then -1 % a month),
    # not in equal steps between its two ends (-3 % a month) nor flat.
    assert math.isclose(used.values[START + 8] - used.values[START + 7], -0.05, abs_tol=0.01)
    assert math.isclose(used.values[START + 16] - used.values[START + 15], -0.01, abs_tol=0.01)
