"""What a price source declares about itself: its module-level `SOURCE` spec.

Each public module of `services/scraper/sources/` is one source, as a Scrapy spider is
one class: its parsers, its collector (which pages, in what order), its `gpu-advisor
parse-page` entry, and a `SOURCE = SourceSpec(...)` joining them to what the source is
(its name, kind, interval, description and settings: a `SourceInfo` of
shared/sources/specs.py, which GET /sources reads too). The registry (`registry.py`)
discovers them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from services.scraper.collect import Collector
from services.scraper.listing import CloudListing, RawListing
from services.scraper.settings import ScraperSettings
from shared.sources.specs import SourceInfo, SourceKind

__all__ = ["PAGE_QUERY", "PageParser", "ParsedPage", "SourceKind", "SourceSpec"]

# The query of the default search URL parse-page gives a saved page when no --url is
# passed: it only matters for relative links and the kind of page (active or sold).
PAGE_QUERY = "graphics card"


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
    info: SourceInfo
    collector: Collector
    # `gpu-advisor parse-page --source <name>`: how a saved page of this source is read.
    parse_page: PageParser

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def kind(self) -> SourceKind:
        return self.info.kind

    @property
    def default_interval_s(self) -> int:
        return self.info.default_interval_s

    @property
    def description(self) -> str:
        return self.info.description

    @property
    def searched(self) -> bool:
        return self.info.searched

    @property
    def settings(self) -> tuple[str, ...]:
        return self.info.settings

    @property
    def env_vars(self) -> tuple[str, ...]:
        """The environment variables of `settings`, as operators set them."""
        prefix = ScraperSettings.model_config.get("env_prefix") or ""
        return tuple(f"{prefix}{name}".upper() for name in self.settings)
