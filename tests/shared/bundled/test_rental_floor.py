"""The one-offer rental band is measured on the bundled data, not set by eye."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from datetime import date
from decimal import Decimal

from shared.bundled.price_feed import iter_feed_offers
from shared.pricing.cloud import ONE_OFFER_LOG_SD
from shared.pricing.index import log_spread


def test_one_offer_spread_is_the_typical_spread_between_providers_of_a_card():
    by_day: dict[tuple[date, str], list[Decimal]] = defaultdict(list)
    for record in iter_feed_offers():
        assert record.on_demand_usd_per_hour is not None
        by_day[(record.observed_at.date(), record.gpu_id)].append(record.on_demand_usd_per_hour)
    spreads = [s for v in by_day.values() if (s := log_spread(v)) is not None]
    assert len(spreads) == 613  # card-days with 3 or more providers
    assert math.isclose(statistics.median(spreads), ONE_OFFER_LOG_SD, abs_tol=0.001)
