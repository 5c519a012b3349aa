"""What every source's collector crawls with: the `Crawl` handle, the `Harvest` it
fills, and the paging helpers.

Each source's own collector (which URLs, in what order, when to stop) lives in its
module, `services/scraper/sources/<site>.py`. A collector fetches through the shared
`Fetcher` and hands bodies to its pure parser; it raises on the first failure (fetch or
parse), so a run either harvests every page it planned or stores nothing: a
half-harvested eBay run would make the listings on the missing pages look sold.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from services.scraper.fetch_result import FetchResult
from services.scraper.listing import CloudListing, RawListing

if TYPE_CHECKING:
    # Types only: an adapter parsing a saved page (gpu-advisor parse-page) never fetches,
    # so it need not import httpx and the settings layer.
    from services.scraper.fetch import Fetcher
    from services.scraper.settings import ScraperSettings

log = logging.getLogger(__name__)

# A result page at least this full probably has a next page; eBay pads pages with ads
# and placeholders, so "full" is a little less than the page size.
FULL_PAGE_RATIO = 0.9

PageHook = Callable[[str, str], None]


@dataclass
class Harvest:
    """What one source run fetched and parsed, before the pipeline."""

    observed_at: datetime
    listings: list[RawListing] = field(default_factory=list)
    cloud: list[CloudListing] = field(default_factory=list)
    pages: int = 0
    not_modified: int = 0
    # A search stopped at max_pages with more pages left: listings it did not see may
    # still be listed, so their absence says nothing about a sale.
    capped: bool = False


@dataclass(frozen=True)
class Crawl:
    fetcher: Fetcher
    settings: ScraperSettings
    harvest: Harvest
    source: str
    on_page: PageHook

    async def get(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        check_robots: bool = True,
    ) -> FetchResult:
        result = await self.fetcher.fetch(url, headers=headers, check_robots=check_robots)
        self.harvest.pages += 1
        self.harvest.not_modified += int(result.not_modified)
        self.on_page(self.source, url)
        return result


Collector = Callable[[Crawl, list[str]], Awaitable[None]]


def same_origin(url: str, base_url: str) -> bool:
    """Follow a next-page link only to the configured host: never send our API token,
    or our requests, somewhere a response told us to go."""
    a, b = urlsplit(url), urlsplit(base_url)
    return (a.scheme, a.hostname, _port(a.scheme, a.port)) == (
        b.scheme,
        b.hostname,
        _port(b.scheme, b.port),
    )


def _port(scheme: str, port: int | None) -> int | None:
    return port if port is not None else {"http": 80, "https": 443}.get(scheme)


def next_link(crawl: Crawl, link: str | None, base_url: str) -> str | None:
    """An API's next-page link, or None when there is none or it leaves `base_url`."""
    if link is not None and not same_origin(link, base_url):
        log.warning("%s: not following next-page link off %s: %s", crawl.source, base_url, link)
        return None
    return link


def _is_full(count: int, page_size: int) -> bool:
    return count >= page_size * FULL_PAGE_RATIO


def term_searches(
    base_url: Callable[[ScraperSettings], str],
    search_url: Callable[..., str],
    parse: Callable[[str, str], list[RawListing]],
    page_size: int,
) -> Collector:
    """A retailer's collector: each term's search pages (`search_url(base, term,
    page=n)`), while they come back full."""

    async def collect(crawl: Crawl, terms: list[str]) -> None:
        base = base_url(crawl.settings)
        for term in terms:

            def url(page: int, term: str = term) -> str:
                return search_url(base, term, page=page)

            await paged_search(crawl, url, parse, page_size)

    return collect


async def paged_search(
    crawl: Crawl,
    build_url: Callable[[int], str],
    parse: Callable[[str, str], list[RawListing]],
    page_size: int,
    headers: Mapping[str, str] | None = None,
) -> None:
    """Search pages 1, 2, ... up to `max_pages`, while each page is about full."""
    for page in range(1, crawl.settings.max_pages + 1):
        result = await crawl.get(build_url(page), headers=headers)
        found = parse(result.text, result.url)
        crawl.harvest.listings.extend(found)
        if not _is_full(len(found), page_size):
            return
    crawl.harvest.capped = True
