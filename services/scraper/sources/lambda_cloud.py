"""Lambda Cloud `GET /api/v1/instance-types` (API key as a Bearer token).

`data` maps an instance type name to its `instance_type` (price in integer
`price_cents_per_hour`, `specs.gpus`, `gpu_description` like "H100 (80 GB SXM5)")
and `regions_with_capacity_available`. Lambda has no spot market. A type with no
capacity anywhere still has a list price: it is kept once, region "", capacity False.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from services.scraper.collect import Crawl
from services.scraper.errors import LayoutChanged, SourceNotConfigured
from services.scraper.listing import CloudListing
from services.scraper.sources._cloud import observed, saved_page
from services.scraper.sources._common import JsonObject, load_json
from services.scraper.spec import SourceSpec
from shared.sources.specs import LAMBDA

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


# --- The source: what a run fetches, what parse-page reads, the spec -------------------


async def collect(crawl: Crawl, terms: list[str]) -> None:
    """The instance types, with the API key; refused unconfigured without one."""
    key = crawl.settings.lambda_api_key.get_secret_value()
    if not key:
        raise SourceNotConfigured(crawl.source, "GPU_ADVISOR_SCRAPER_LAMBDA_API_KEY")
    url = instance_types_url(crawl.settings.lambda_base_url)
    # An authenticated API, not a crawl of the site: robots.txt does not apply.
    result = await crawl.get(url, headers=request_headers(key), check_robots=False)
    crawl.harvest.cloud.extend(parse(result.body, url, observed_at=crawl.harvest.observed_at))


# A saved instance-types answer; its URL defaults to the configured API's.
parse_page = saved_page(parse, lambda settings: instance_types_url(settings.lambda_base_url))


SOURCE = SourceSpec(LAMBDA, collect, parse_page)
