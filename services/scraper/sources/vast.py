"""vast.ai marketplace offers (`/api/v0/bundles/`), one listing per offer.

Each offer is a host's machine slice: `num_gpus` x `gpu_name`, `dph_total` dollars
per hour on demand (includes the default storage), `min_bid` the lowest accepted
interruptible bid (our "spot"), `geolocation` like "Quebec, CA" (may be null).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from services.scraper.errors import LayoutChanged
from services.scraper.listing import CloudListing
from services.scraper.money import decimal_or_none
from services.scraper.sources._cloud import observed
from services.scraper.sources._common import JsonObject, load_json

PROVIDER = "vast"


def offers_url(base_url: str, gpu_name: str | None = None, *, limit: int = 1000) -> str:
    """Verified, rentable, on-demand offers, cheapest first; optionally one GPU model."""
    query: dict[str, Any] = {
        "verified": {"eq": True},
        "rentable": {"eq": True},
        "external": {"eq": False},
        "type": "on-demand",
        "order": [["dph_total", "asc"]],
        "limit": limit,
    }
    if gpu_name:
        query["gpu_name"] = {"eq": gpu_name}
    encoded = urlencode({"q": json.dumps(query, separators=(",", ":"))})
    return f"{base_url.rstrip('/')}/api/v0/bundles/?{encoded}"


def parse(
    body: str | bytes, url: str, *, observed_at: datetime | None = None
) -> list[CloudListing]:
    data = load_json(body, PROVIDER, url)
    if not isinstance(data, dict) or not isinstance(data.get("offers"), list):
        raise LayoutChanged(PROVIDER, url, "no offers[] array")
    when = observed(observed_at)
    found = (_listing(offer, when) for offer in data["offers"] if isinstance(offer, dict))
    return [listing for listing in found if listing is not None]


def _listing(offer: JsonObject, when: datetime) -> CloudListing | None:
    gpu_name = str(offer.get("gpu_name") or "").strip()
    count = offer.get("num_gpus")
    price = decimal_or_none(offer.get("dph_total"))
    if not gpu_name or not isinstance(count, int) or count < 1 or price is None:
        return None
    if offer.get("rentable") is False:
        return None
    return CloudListing(
        provider=PROVIDER,
        instance_type=f"{count}x {gpu_name}",
        gpu_name=gpu_name,
        gpu_count=count,
        region=str(offer.get("geolocation") or "unknown"),
        on_demand_usd_per_hour=price,
        spot_usd_per_hour=decimal_or_none(offer.get("min_bid")),
        observed_at=when,
        offer_id=str(offer.get("id")),
        capacity_available=True,
    )
