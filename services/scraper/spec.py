"""What a price source declares about itself: its module-level `SOURCE` spec.

Each public module of `services/scraper/sources/` is one source, as a Scrapy spider is
one class: its parsers, its collector (which pages, in what order), the settings it
reads, its `gpu-advisor parse-page` entry, and a `SOURCE = SourceSpec(...)` naming it.
The registry (`registry.py`) discovers them; nothing lists the sources by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from services.scraper.collect import Collector
from services.scraper.listing import CloudListing, RawListing
from services.scraper.settings import ScraperSettings

HOUR = 3600
# The query of the default search URL parse-page gives a saved page when no --url is
# passed: it only matters for relative links and the kind of page (active or sold).
PAGE_QUERY = "graphics card"


class SourceKind(StrEnum):
    # Listings of cards for sale: stored as price observations.
    MARKET = "market"
    # Hourly instance prices: stored as cloud offers.
    CLOUD = "cloud"


@dataclass(frozen=True)
class ParsedPage:
    """What one saved page holds: listings (market sources) or offers (cloud sources)."""

    listings: list[RawListing] = field(default_factory=list)
    offers: list[CloudListing] = field(default_factory=list)


# (page body, the URL it came from or None for the source's default, settings, the
# time to stamp cloud offers with) -> the page's listings or offers.
PageParser = Callable[[bytes, str | None, ScraperSettings, datetime], ParsedPage]


@dataclass(frozen=True)
class SourceSpec:
    name: str
    kind: SourceKind
    collector: Collector
    # `gpu-advisor parse-page --source <name>`: how a saved page of this source is read.
    parse_page: PageParser
    default_interval_s: int
    description: str
    # Searched per GPU family (retail, marketplaces) or fetched whole (APIs).
    searched: bool = False
    # The ScraperSettings fields this source alone reads (base URL, keys, regions).
    # They stay declared in services/scraper/settings.py: their environment names
    # (GPU_ADVISOR_SCRAPER_<FIELD>) are a public contract. Fetch pacing, page limits and
    # search terms are every source's and are not listed.
    settings: tuple[str, ...] = ()

    @property
    def env_vars(self) -> tuple[str, ...]:
        """The environment variables of `settings`, as operators set them."""
        prefix = ScraperSettings.model_config.get("env_prefix") or ""
        return tuple(f"{prefix}{name}".upper() for name in self.settings)
