"""`gpu-advisor parse-page`: parse a saved page offline, one JSON line per listing or offer.

For checking an adapter on a page saved from a source (or a fixture) without fetching
anything: each line says what the adapter read and what a scrape run would make of it.
"""

from __future__ import annotations

import importlib
import json
import sys
import warnings
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from shared.sources.specs import SOURCE_INFO, SourceKind

if TYPE_CHECKING:
    from services.scraper.listing import RawListing
    from services.scraper.money import Money
    from services.scraper.settings import ScraperSettings
    from services.scraper.spec import SourceSpec
    from services.scraper.verdict import CloudVerdict, ListingVerdict

Json = dict[str, Any]


def _names(kind: SourceKind) -> str:
    return ", ".join(name for name, info in SOURCE_INFO.items() if info.kind is kind)


def source_spec(name: str) -> SourceSpec:
    """The SourceSpec its module declares, importing that module alone: the registry
    imports every adapter, which was most of this command's time."""
    module = f"services.scraper.sources.{SOURCE_INFO[name].module}"
    spec: SourceSpec = importlib.import_module(module).SOURCE
    return spec


# Paragraphs are single lines: the help renderer wraps them to the terminal.
HELP = (
    "Parse a saved page of SOURCE offline; print one JSON line per listing or offer.\n\n"
    "Every line has source, listing_id, title, price (decimal string or null), currency, "
    "condition, listing_type, quantity, gpu_id and reason (null when the line is priced "
    "and matched; otherwise the price issue, the title matcher's rejection or the "
    "pipeline's).\n\n"
    f"Market sources ({_names(SourceKind.MARKET)}): one line per listing; quantity "
    "and gpu_id come from the title matcher.\n\n"
    f"Cloud sources ({_names(SourceKind.CLOUD)}): one line per instance type and region (per "
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
    source: Annotated[str, typer.Option("--source", help=f"one of: {', '.join(SOURCE_INFO)}")],
    url: Annotated[
        str | None, typer.Option("--url", help="URL the page came from; default: see above")
    ] = None,
) -> None:
    """Parse a saved page offline; one JSON line per listing or offer (see --help)."""
    # Every source reads its own saved pages (SourceSpec.parse_page).
    if source not in SOURCE_INFO:
        valid = ", ".join(SOURCE_INFO)
        raise typer.BadParameter(
            f"unknown source {source!r}; valid: {valid}", param_hint="--source"
        )
    try:
        body = file.read_bytes()
    except OSError as exc:
        _fail(2, f"cannot read {file}: {exc.strerror or exc}")
    from services.scraper.blocks import block_page
    from services.scraper.errors import ParseError
    from services.scraper.settings import get_scraper_settings

    spec = source_spec(source)
    blocked_by = block_page(body)
    if blocked_by is not None:
        refused = "the site refused the request; no listings were read"
        _fail(1, f"{source}: {file} is blocked: {blocked_by}; {refused}")
    try:
        with warnings.catch_warnings():
            # Parser warnings (undecodable bytes...) would break the one-line stderr contract.
            warnings.simplefilter("ignore")
            lines = page_lines(spec, body, url, get_scraper_settings())
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
    spec: SourceSpec, body: bytes, url: str | None, settings: ScraperSettings
) -> list[Json]:
    """The JSON objects for one page, in page order."""
    from services.scraper.exchange import Exchange
    from services.scraper.pipeline import PriceBounds
    from services.scraper.verdict import cloud_verdicts, listing_verdict
    from shared.matching.titles import match_title

    now = datetime.now(UTC)
    page = spec.parse_page(body, url, settings, now)
    if spec.kind is SourceKind.CLOUD:
        return [_cloud_line(spec.name, verdict) for verdict in cloud_verdicts(page.offers)]
    bounds = PriceBounds.from_settings(settings)
    # As a run today would: another currency at today's rate (a sale, its day's).
    exchange = Exchange.from_settings(settings, now.date())
    return [
        _market_line(spec.name, listing, listing_verdict(listing, match_title, bounds, exchange))
        for listing in page.listings
    ]


def _market_line(source: str, listing: RawListing, verdict: ListingVerdict) -> Json:
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
