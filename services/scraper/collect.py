"""Crawling loops: which URLs each source fetches, in what order, and when to stop.

A collector fetches through the shared `Fetcher` and hands bodies to its pure adapter;
it raises on the first failure (fetch or parse), so a run either harvests every page it
planned or stores nothing: a half-harvested eBay run would make the listings on the
missing pages look sold.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlsplit

from services.scraper.errors import SourceNotConfigured
from services.scraper.fetch import Fetcher
from services.scraper.fetch_result import FetchResult
from services.scraper.listing import CloudListing, RawListing
from services.scraper.settings import ScraperSettings
from services.scraper.sources import (
    aws_pricing,
    azure_prices,
    bhphoto,
    ebay,
    ebay_browse,
    lambda_cloud,
    newegg,
    vast,
)

log = logging.getLogger(__name__)

# A result page at least this full probably has a next page; eBay pads pages with ads
# and placeholders, so "full" is a little less than the page size.
FULL_PAGE_RATIO = 0.9
NEWEGG_PAGE_SIZE = 36
BHPHOTO_PAGE_SIZE = 24

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


def _next_link(crawl: Crawl, link: str | None, base_url: str) -> str | None:
    if link is not None and not same_origin(link, base_url):
        log.warning("%s: not following next-page link off %s: %s", crawl.source, base_url, link)
        return None
    return link


def _is_full(count: int, page_size: int) -> bool:
    return count >= page_size * FULL_PAGE_RATIO


async def _paged_search(
    crawl: Crawl,
    build_url: Callable[[int], str],
    parse: Callable[[str, str], list[RawListing]],
    page_size: int,
    headers: Mapping[str, str] | None = None,
) -> None:
    for page in range(1, crawl.settings.max_pages + 1):
        result = await crawl.get(build_url(page), headers=headers)
        found = parse(result.text, result.url)
        crawl.harvest.listings.extend(found)
        if not _is_full(len(found), page_size):
            return
    crawl.harvest.capped = True


async def collect_ebay(crawl: Crawl, terms: list[str]) -> None:
    """Active and sold search pages per term (sold pages give the used-market price)."""
    base = crawl.settings.ebay_base_url
    for term in terms:
        for sold in (False, True):

            def url(page: int, term: str = term, sold: bool = sold) -> str:
                return ebay.search_url(base, term, sold=sold, page=page, us_buyer=True)

            await _paged_search(crawl, url, ebay.parse, ebay.RESULTS_PER_PAGE, ebay.REQUEST_HEADERS)


async def collect_ebay_browse(crawl: Crawl, terms: list[str]) -> None:
    settings = crawl.settings
    if not settings.ebay_client_id or not settings.ebay_client_secret.get_secret_value():
        raise SourceNotConfigured(crawl.source, "GPU_ADVISOR_SCRAPER_EBAY_CLIENT_ID/_SECRET")
    token = await ebay_browse.fetch_token(crawl.fetcher, settings)
    headers = ebay_browse.search_headers(token, settings.ebay_marketplace_id)
    for term in terms:
        url: str | None = ebay_browse.search_url(settings.ebay_api_base_url, term)
        for _ in range(settings.max_pages):
            if url is None:
                break
            # An authenticated API, not a crawl of the site: robots.txt does not apply.
            result = await crawl.get(url, headers=headers, check_robots=False)
            crawl.harvest.listings.extend(ebay_browse.parse(result.body, url))
            link = ebay_browse.next_page_url(result.body, url)
            url = _next_link(crawl, link, settings.ebay_api_base_url)
        if url is not None:
            crawl.harvest.capped = True


async def collect_newegg(crawl: Crawl, terms: list[str]) -> None:
    base = crawl.settings.newegg_base_url
    for term in terms:

        def url(page: int, term: str = term) -> str:
            return newegg.search_url(base, term, page=page)

        await _paged_search(crawl, url, newegg.parse, NEWEGG_PAGE_SIZE)


async def collect_bhphoto(crawl: Crawl, terms: list[str]) -> None:
    base = crawl.settings.bhphoto_base_url
    for term in terms:

        def url(page: int, term: str = term) -> str:
            return bhphoto.search_url(base, term, page=page)

        await _paged_search(crawl, url, bhphoto.parse, BHPHOTO_PAGE_SIZE)


async def collect_azure(crawl: Crawl, _terms: list[str]) -> None:
    base = crawl.settings.azure_prices_base_url
    url: str | None = azure_prices.prices_url(base)
    when = crawl.harvest.observed_at
    for _ in range(crawl.settings.max_api_pages):
        if url is None:
            return
        result = await crawl.get(url)
        crawl.harvest.cloud.extend(azure_prices.parse(result.body, url, observed_at=when))
        url = _next_link(crawl, azure_prices.next_page_url(result.body, url), base)


async def collect_aws(crawl: Crawl, _terms: list[str]) -> None:
    for region in crawl.settings.aws_regions:
        url = aws_pricing.offer_file_url(crawl.settings.aws_pricing_base_url, region)
        result = await crawl.get(url)
        found = aws_pricing.parse(result.body, url, observed_at=crawl.harvest.observed_at)
        crawl.harvest.cloud.extend(found)


async def collect_vast(crawl: Crawl, _terms: list[str]) -> None:
    url = vast.offers_url(crawl.settings.vast_base_url)
    result = await crawl.get(url)
    crawl.harvest.cloud.extend(vast.parse(result.body, url, observed_at=crawl.harvest.observed_at))


async def collect_lambda(crawl: Crawl, _terms: list[str]) -> None:
    key = crawl.settings.lambda_api_key.get_secret_value()
    if not key:
        raise SourceNotConfigured(crawl.source, "GPU_ADVISOR_SCRAPER_LAMBDA_API_KEY")
    url = lambda_cloud.instance_types_url(crawl.settings.lambda_base_url)
    result = await crawl.get(url, headers=lambda_cloud.request_headers(key), check_robots=False)
    found = lambda_cloud.parse(result.body, url, observed_at=crawl.harvest.observed_at)
    crawl.harvest.cloud.extend(found)
