"""What the cloud adapters share."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Protocol

from services.scraper.listing import CloudListing
from services.scraper.settings import ScraperSettings
from services.scraper.spec import PageParser, ParsedPage


class CloudParse(Protocol):
    def __call__(
        self, body: str | bytes, url: str, *, observed_at: datetime | None = None
    ) -> list[CloudListing]: ...


def observed(observed_at: datetime | None) -> datetime:
    """The caller's observation time, or now; always timezone-aware UTC."""
    when = observed_at or datetime.now(UTC)
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def saved_page(parse: CloudParse, default_url: Callable[[ScraperSettings], str]) -> PageParser:
    """The `parse-page` entry of a cloud API: a saved answer read by the adapter's own
    parser, its URL defaulting to the configured API's (`default_url`)."""

    def parse_page(
        body: bytes, url: str | None, settings: ScraperSettings, observed_at: datetime
    ) -> ParsedPage:
        return ParsedPage(offers=parse(body, url or default_url(settings), observed_at=observed_at))

    return parse_page
