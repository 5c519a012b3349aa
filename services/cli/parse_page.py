"""`gpu-advisor parse-page`: parse a saved page offline, one JSON line per listing or offer.

For checking an adapter on a page saved from a source (or a fixture) without fetching
anything: each line says what the adapter read and what a scrape run would make of it.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from services.scraper.blocks import block_page
from services.scraper.errors import ParseError
from services.scraper.listing import CloudListing, RawListing
from services.scraper.money import Money
from services.scraper.pipeline import PriceBounds
from services.scraper.registry import SOURCES
from services.scraper.settings import ScraperSettings, get_scraper_settings
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
from services.scraper.verdict import CloudVerdict, cloud_verdicts, listing_verdict
from shared.matching.titles import match_title

# The query of the default search URLs: it only matters for relative links and page kind.
DEFAULT_QUERY = "graphics card"
DEFAULT_AWS_REGION = "us-east-1"

Json = dict[str, Any]


@dataclass(frozen=True)
class _Page:
    """How to read a saved page of one source."""

    parse: Callable[[bytes, str], list[RawListing]] | None
    parse_cloud: Callable[[bytes, str, datetime], list[CloudListing]] | None
    default_url: Callable[[ScraperSettings], str]


def _market(
    parse: Callable[[bytes, str], list[RawListing]], url: Callable[[ScraperSettings], str]
) -> _Page:
    return _Page(parse, None, url)


def _cloud(
    parse: Callable[..., list[CloudListing]], url: Callable[[ScraperSettings], str]
) -> _Page:
    def read(body: bytes, page_url: str, when: datetime) -> list[CloudListing]:
        return parse(body, page_url, observed_at=when)

    return _Page(None, read, url)


PAGES: dict[str, _Page] = {
    "ebay": _market(ebay.parse, lambda s: ebay.search_url(s.ebay_base_url, DEFAULT_QUERY)),
    "ebay_browse": _market(
        ebay_browse.parse, lambda s: ebay_browse.search_url(s.ebay_api_base_url, DEFAULT_QUERY)
    ),
    "newegg": _market(newegg.parse, lambda s: newegg.search_url(s.newegg_base_url, DEFAULT_QUERY)),
    "bhphoto": _market(
        bhphoto.parse, lambda s: bhphoto.search_url(s.bhphoto_base_url, DEFAULT_QUERY)
    ),
    "azure": _cloud(azure_prices.parse, lambda s: azure_prices.prices_url(s.azure_prices_base_url)),
    "aws": _cloud(
        aws_pricing.parse,
        lambda s: aws_pricing.offer_file_url(s.aws_pricing_base_url, DEFAULT_AWS_REGION),
    ),
    "vast": _cloud(vast.parse, lambda s: vast.offers_url(s.vast_base_url)),
    "lambda": _cloud(
        lambda_cloud.parse, lambda s: lambda_cloud.instance_types_url(s.lambda_base_url)
    ),
}


# Paragraphs are single lines: the help renderer wraps them to the terminal.
HELP = (
    "Parse a saved page of SOURCE offline; print one JSON line per listing or offer.\n\n"
    "Every line has source, listing_id, title, price (decimal string or null), currency, "
    "condition, listing_type, quantity, gpu_id and reason (null when the line is priced "
    "and matched; otherwise the price issue, the title matcher's rejection or the "
    "pipeline's).\n\n"
    "Market sources (ebay, ebay_browse, newegg, bhphoto): one line per listing; quantity "
    "and gpu_id come from the title matcher.\n\n"
    "Cloud sources (azure, aws, vast, lambda): one line per instance type and region (per "
    "offer on vast), with its on-demand and spot prices on the same line: price is the "
    "hourly price of the whole instance, on demand (spot when there is no on-demand "
    "price; `pricing` says which), spot_price the spot one; quantity is the GPUs per "
    "instance.\n\n"
    "--url is the URL the page was fetched from. It defaults to the source's search or "
    "API URL; for ebay it defaults to the page's own canonical search link, and a page "
    'whose cards carry "Sold <date>" captions is read as a sold search.\n\n'
    "listing_type is active (an asking price), sold (a sale) or auction (a live auction: "
    "the price is its current bid, stored as a bid, never as a market price).\n\n"
    "Exit codes: 0 parsed; 1 the page cannot be parsed, or is a site's bot-check page "
    "(blocked: the site refused the request, which is not a page without listings; one "
    "line on stderr, nothing on stdout); 2 the file cannot be read or the source is "
    "unknown."
)


def parse_page(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="saved page: HTML, JSON or CSV")],
    source: Annotated[str, typer.Option("--source", help=f"one of: {', '.join(SOURCES)}")],
    url: Annotated[
        str | None, typer.Option("--url", help="URL the page came from; default: see above")
    ] = None,
) -> None:
    """Parse a saved page offline; one JSON line per listing or offer (see --help)."""
    page = PAGES.get(source)
    if page is None:
        valid = ", ".join(SOURCES)
        raise typer.BadParameter(
            f"unknown source {source!r}; valid: {valid}", param_hint="--source"
        )
    try:
        body = file.read_bytes()
    except OSError as exc:
        _fail(2, f"cannot read {file}: {exc.strerror or exc}")
    blocked_by = block_page(body)
    if blocked_by is not None:
        refused = "the site refused the request; no listings were read"
        _fail(1, f"{source}: {file} is blocked: {blocked_by}; {refused}")
    try:
        with warnings.catch_warnings():
            # Parser warnings (undecodable bytes...) would break the one-line stderr contract.
            warnings.simplefilter("ignore")
            lines = page_lines(source, page, body, url, get_scraper_settings())
    except ParseError as exc:
        _fail(1, f"{source}: cannot parse {file}: {type(exc).__name__}: {exc.reason}")
    except Exception as exc:  # the contract: any page we cannot read is exit 1, one line
        _fail(1, f"{source}: cannot parse {file}: {type(exc).__name__}: {exc}")
    for line in lines:
        sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")


def _fail(code: int, message: str) -> NoReturn:
    sys.stderr.write(f"parse-page: {' '.join(message.split())}\n")
    raise typer.Exit(code)


def page_lines(
    source: str, page: _Page, body: bytes, url: str | None, settings: ScraperSettings
) -> list[Json]:
    """The JSON objects for one page, in page order."""
    page_url = url or page.default_url(settings)
    if page.parse_cloud is not None:
        offers = page.parse_cloud(body, page_url, datetime.now(UTC))
        return [_cloud_line(source, verdict) for verdict in cloud_verdicts(offers)]
    assert page.parse is not None
    if source == "ebay" and url is None:
        listings = _ebay_listings(body, ebay.canonical_search_url(body) or page_url)
    else:
        listings = page.parse(body, page_url)
    bounds = PriceBounds.from_settings(settings)
    return [_market_line(source, listing, bounds) for listing in listings]


def _ebay_listings(body: bytes, url: str) -> list[RawListing]:
    listings = ebay.parse(body, url)
    if ebay.is_sold_search(url) or not any(item.sold_at for item in listings):
        return listings
    # "Sold <date>" captions: a sold search, whose uncaptioned cards are sales too.
    return ebay.parse(body, ebay.as_sold_search(url))


def _market_line(source: str, listing: RawListing, bounds: PriceBounds) -> Json:
    verdict = listing_verdict(listing, match_title, bounds)
    return {
        "source": source,
        "listing_id": listing.listing_id,
        "title": listing.title,
        "price": _amount(listing.price),
        "currency": listing.price.currency if listing.price else None,
        "condition": listing.condition.value,
        "listing_type": listing.listing_type.value,
        "quantity": verdict.quantity,
        "gpu_id": verdict.gpu_id,
        "reason": verdict.reason,
        "price_text": listing.price_text,
        "shipping": _amount(listing.shipping),
        "shipping_currency": listing.shipping.currency if listing.shipping else None,
        "shipping_text": listing.shipping_text,
        "sold_at": listing.sold_at.isoformat() if listing.sold_at else None,
        "quantity_available": listing.quantity_available,
        "in_stock": listing.in_stock,
        "url": listing.url,
    }


def _cloud_line(source: str, verdict: CloudVerdict) -> Json:
    offer = verdict.listing
    on_demand, spot = offer.on_demand_usd_per_hour, offer.spot_usd_per_hour
    price, pricing = (on_demand, "on_demand") if on_demand is not None else (spot, "spot")
    count = offer.gpu_count or None  # 0: an adapter could not tell
    return {
        "source": source,
        "listing_id": offer.offer_id or f"{offer.instance_type}:{offer.region}",
        "title": f"{count or '?'}x {offer.gpu_name}" if offer.gpu_name else offer.instance_type,
        "price": _decimal(price),
        "currency": "USD" if price is not None else None,
        "condition": None,
        "listing_type": None,
        "quantity": count,
        "gpu_id": verdict.gpu_id,
        "reason": verdict.reason,
        "pricing": pricing if price is not None else None,
        "on_demand_price": _decimal(on_demand),
        "spot_price": _decimal(spot),
        "price_per_gpu": _decimal(
            offer.on_demand_usd_per_gpu_hour
            if on_demand is not None
            else offer.spot_usd_per_gpu_hour
        ),
        "provider": offer.provider,
        "instance_type": offer.instance_type,
        "region": offer.region,
        "gpu_name": offer.gpu_name,
        "gpu_count": count,
        "offer_id": offer.offer_id,
        "capacity_available": offer.capacity_available,
    }


def _amount(money: Money | None) -> str | None:
    return None if money is None else str(money.amount)


def _decimal(value: Decimal | None) -> str | None:
    return None if value is None else str(value)
