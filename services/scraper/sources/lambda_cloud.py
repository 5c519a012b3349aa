"""Lambda Cloud `GET /api/v1/instance-types` (API key as a Bearer token).

`data` maps an instance type name to its `instance_type` (price in integer
`price_cents_per_hour`, `specs.gpus`, `gpu_description` like "H100 (80 GB SXM5)")
and `regions_with_capacity_available`. Lambda has no spot market. A type with no
capacity anywhere still has a list price: it is kept once, region "", capacity False.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from services.scraper.errors import LayoutChanged
from services.scraper.listing import CloudListing
from services.scraper.sources._cloud import observed
from services.scraper.sources._common import JsonObject, load_json

PROVIDER = "lambda"
INSTANCE_TYPES_PATH = "/api/v1/instance-types"


def instance_types_url(base_url: str) -> str:
    return f"{base_url.rstrip('/')}{INSTANCE_TYPES_PATH}"


def request_headers(api_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}", "Accept": "application/json"}


def parse(
    body: str | bytes, url: str, *, observed_at: datetime | None = None
) -> list[CloudListing]:
    data = load_json(body, PROVIDER, url)
    if not isinstance(data, dict) or not isinstance(data.get("data"), dict):
        raise LayoutChanged(PROVIDER, url, "no data{} object")
    when = observed(observed_at)
    listings: list[CloudListing] = []
    for name, entry in sorted(data["data"].items()):
        if isinstance(entry, dict):
            listings.extend(_listings(name, entry, when))
    return listings


def _listings(name: str, entry: JsonObject, when: datetime) -> list[CloudListing]:
    spec = entry.get("instance_type") or {}
    cents = spec.get("price_cents_per_hour")
    gpus = (spec.get("specs") or {}).get("gpus")
    if not isinstance(cents, int) or not isinstance(gpus, int) or gpus < 1:
        return []  # CPU-only types carry gpus == 0
    regions = [r.get("name", "") for r in entry.get("regions_with_capacity_available") or []]

    def listing(region: str, available: bool) -> CloudListing:
        return CloudListing(
            provider=PROVIDER,
            instance_type=str(spec.get("name") or name),
            gpu_name=str(spec.get("gpu_description") or name),
            gpu_count=gpus,
            region=region,
            on_demand_usd_per_hour=Decimal(cents) / 100,
            spot_usd_per_hour=None,
            observed_at=when,
            capacity_available=available,
        )

    if not regions:
        return [listing("", False)]
    return [listing(str(region), True) for region in regions]
