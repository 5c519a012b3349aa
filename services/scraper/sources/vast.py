"""vast.ai marketplace offers (`/api/v0/bundles/`), one listing per offer.

Each offer is a host's machine slice: `num_gpus` x `gpu_name`, `dph_total` dollars
per hour on demand (includes the default storage), `min_bid` the lowest accepted
interruptible bid (our "spot"), `geolocation` like "Quebec, CA" (may be null).

Hosts are "verified", "unverified" or "deverified" (`verification`; older answers carry
only a `verified` boolean). The query asks for verified hosts, but the answer mixes all
three, so the parser checks every offer: only a verified host's offer is priced. The
others, and offers that are not rentable or lack a GPU, a count or a price, come back as
`SkippedCloudListing`s with their reason, so the run counts them.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from services.scraper.cloud_match import SkippedCloudListing
from services.scraper.collect import Crawl
from services.scraper.errors import LayoutChanged
from services.scraper.listing import CloudListing
from services.scraper.money import decimal_or_none
from services.scraper.sources._cloud import observed, saved_page
from services.scraper.sources._common import JsonObject, load_json
from services.scraper.spec import SourceSpec
from shared.sources.specs import VAST

PROVIDER = "vast"
VERIFIED = "verified"
# Skip reasons, counted by the run as "source.<reason>".
UNVERIFIED_HOST = "unverified_host"
DEVERIFIED_HOST = "deverified_host"
UNKNOWN_VERIFICATION = "unknown_verification"
NOT_RENTABLE = "not_rentable"
MALFORMED_OFFER = "malformed_offer"


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
    """Every offer: priced listings for verified hosts, skipped ones with a reason."""
    data = load_json(body, PROVIDER, url)
    if not isinstance(data, dict) or not isinstance(data.get("offers"), list):
        raise LayoutChanged(PROVIDER, url, "no offers[] array")
    when = observed(observed_at)
    return [_listing(offer, when) for offer in data["offers"] if isinstance(offer, dict)]


def verification(offer: JsonObject) -> str | None:
    """ "verified", "unverified", "deverified", or None when the offer does not say."""
    state = offer.get("verification")
    if isinstance(state, str) and state.strip():
        return state.strip().lower()
    flag = offer.get("verified")
    if isinstance(flag, bool):
        return VERIFIED if flag else "unverified"
    return None


def _skip_reason(offer: JsonObject, gpu_name: str, count: Any, has_price: bool) -> str | None:
    if not gpu_name or not isinstance(count, int) or count < 1 or not has_price:
        return MALFORMED_OFFER
    state = verification(offer)
    if state != VERIFIED:
        return {
            "unverified": UNVERIFIED_HOST,
            "deverified": DEVERIFIED_HOST,
        }.get(state or "", UNKNOWN_VERIFICATION)
    if offer.get("rentable") is False:
        return NOT_RENTABLE
    return None


def _listing(offer: JsonObject, when: datetime) -> CloudListing:
    gpu_name = str(offer.get("gpu_name") or "").strip()
    count = offer.get("num_gpus")
    price = decimal_or_none(offer.get("dph_total"))
    spot = decimal_or_none(offer.get("min_bid"))
    region = str(offer.get("geolocation") or "unknown")
    offer_id = str(offer.get("id"))
    whole = count if isinstance(count, int) and count >= 1 else 0
    reason = _skip_reason(offer, gpu_name, count, price is not None)
    if reason is None:
        return CloudListing(
            provider=PROVIDER,
            instance_type=f"{whole}x {gpu_name}",
            gpu_name=gpu_name,
            gpu_count=whole,
            region=region,
            on_demand_usd_per_hour=price,
            spot_usd_per_hour=spot,
            observed_at=when,
            offer_id=offer_id,
            capacity_available=True,
        )
    return SkippedCloudListing(
        provider=PROVIDER,
        instance_type=f"{whole}x {gpu_name}" if whole else (gpu_name or "unknown"),
        gpu_name=gpu_name,
        gpu_count=whole,
        region=region,
        on_demand_usd_per_hour=price,
        spot_usd_per_hour=spot,
        observed_at=when,
        offer_id=offer_id,
        skip_reason=reason,
    )


# --- The source: what a run fetches, what parse-page reads, the spec -------------------


async def collect(crawl: Crawl, terms: list[str]) -> None:
    """The one offers answer (the API returns the cheapest offers in one page)."""
    url = offers_url(crawl.settings.vast_base_url)
    result = await crawl.get(url)
    crawl.harvest.cloud.extend(parse(result.body, url, observed_at=crawl.harvest.observed_at))


# A saved offers answer; its URL defaults to the configured API's query.
parse_page = saved_page(parse, lambda settings: offers_url(settings.vast_base_url))


SOURCE = SourceSpec(VAST, collect, parse_page)
