"""What each of the scraper's price sources is: its name, kind, default interval,
description and the settings it reads, written once.

The scraper's adapters declare `SOURCE = SourceSpec(<its SourceInfo here>, collect,
parse_page)` (services/scraper/spec.py), adding how the source is collected and parsed;
GET /sources and the CLI read the same objects without importing the scraper (one service
never imports another). tests/shared/sources/test_specs.py checks that each
adapter module declares the one listed here for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

HOUR = 3600


class SourceKind(StrEnum):
    # Listings of cards for sale: stored as price observations.
    MARKET = "market"
    # Hourly instance prices: stored as cloud offers.
    CLOUD = "cloud"


@dataclass(frozen=True)
class SourceInfo:
    name: str
    kind: SourceKind
    # The interval when GPU_ADVISOR_SCRAPE_SOURCES does not give one.
    default_interval_s: int
    description: str
    # Its adapter: services/scraper/sources/<module>.py.
    module: str
    # Searched per GPU family (retail, marketplaces) or fetched whole (APIs).
    searched: bool = False
    # The ScraperSettings fields this source alone reads (base URL, keys, regions).
    # They stay declared in services/scraper/settings.py: their environment names
    # (GPU_ADVISOR_SCRAPER_<FIELD>) are a public contract. Fetch pacing, page limits and
    # search terms are every source's and are not listed.
    settings: tuple[str, ...] = ()
    # One of `settings` is a secret it cannot run without (an API key, an OAuth client).
    needs_api_key: bool = False


EBAY = SourceInfo(
    "ebay",
    SourceKind.MARKET,
    6 * HOUR,
    "eBay search pages: active and sold listings",
    "ebay",
    searched=True,
    settings=("ebay_base_url",),
)
EBAY_BROWSE = SourceInfo(
    "ebay_browse",
    SourceKind.MARKET,
    6 * HOUR,
    "eBay Browse API item_summary/search (active listings; needs API keys)",
    "ebay_browse",
    searched=True,
    settings=("ebay_api_base_url", "ebay_marketplace_id", "ebay_client_id", "ebay_client_secret"),
    needs_api_key=True,
)
NEWEGG = SourceInfo(
    "newegg",
    SourceKind.MARKET,
    12 * HOUR,
    "Newegg desktop graphics card search pages",
    "newegg",
    searched=True,
    settings=("newegg_base_url",),
)
BHPHOTO = SourceInfo(
    "bhphoto",
    SourceKind.MARKET,
    12 * HOUR,
    "B&H Photo search pages",
    "bhphoto",
    searched=True,
    settings=("bhphoto_base_url",),
)
AZURE = SourceInfo(
    "azure",
    SourceKind.CLOUD,
    24 * HOUR,
    "Azure Retail Prices API, GPU VMs",
    "azure_prices",
    settings=("azure_prices_base_url",),
)
AWS = SourceInfo(
    "aws",
    SourceKind.CLOUD,
    24 * HOUR,
    "AWS EC2 bulk price list CSV per region",
    "aws_pricing",
    settings=("aws_pricing_base_url", "aws_regions"),
)
VAST = SourceInfo(
    "vast",
    SourceKind.CLOUD,
    # Marketplace offers come and go within the hour.
    HOUR,
    "vast.ai offers",
    "vast",
    settings=("vast_base_url",),
)
LAMBDA = SourceInfo(
    "lambda",
    SourceKind.CLOUD,
    6 * HOUR,
    "Lambda Cloud instance types (needs an API key)",
    "lambda_cloud",
    settings=("lambda_base_url", "lambda_api_key"),
    needs_api_key=True,
)

# By name, markets first: the order `gpu-advisor scrape` runs and lists them.
SOURCE_INFO: dict[str, SourceInfo] = {
    info.name: info for info in (EBAY, EBAY_BROWSE, NEWEGG, BHPHOTO, AZURE, AWS, VAST, LAMBDA)
}


def scrape_intervals(schedule: Mapping[str, int | None]) -> dict[str, int]:
    """Each scheduled source's interval: the one configured, else the source's default
    (a price API polled hourly, a retailer twice a day). An unknown name is refused
    with the valid ones: a typo must not schedule nothing in silence."""
    unknown = sorted(set(schedule) - set(SOURCE_INFO))
    if unknown:
        raise ValueError(
            f"GPU_ADVISOR_SCRAPE_SOURCES names unknown sources {', '.join(unknown)}; "
            f"valid: {', '.join(SOURCE_INFO)}"
        )
    return {
        name: SOURCE_INFO[name].default_interval_s if seconds is None else seconds
        for name, seconds in schedule.items()
    }
