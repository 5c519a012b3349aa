"""What the two retailer adapters share: JSON-LD products to listings, title conditions."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urljoin

from bs4 import BeautifulSoup

from services.scraper.listing import Condition, ListingType, RawListing, condition_from_text
from services.scraper.sources._common import (
    JsonObject,
    json_ld_nodes,
    json_ld_products,
    offer_fields,
)


def retail_condition(title: str) -> Condition:
    """Retailers sell new unless the title says refurbished / open box / used."""
    condition = condition_from_text(title)
    return Condition.NEW if condition is Condition.UNKNOWN else condition


def listings_from_json_ld(
    soup: BeautifulSoup,
    source: str,
    page_url: str,
    id_from_url: Callable[[str], str | None],
) -> list[RawListing] | None:
    """The page's JSON-LD products as listings; None when it has none (use the markup)."""
    products = json_ld_products(json_ld_nodes(soup))
    if not products:
        return None
    found = (listing_from_product(source, p, page_url, id_from_url) for p in products)
    return [listing for listing in found if listing is not None]


def listing_from_product(
    source: str,
    product: JsonObject,
    page_url: str,
    id_from_url: Callable[[str], str | None],
) -> RawListing | None:
    """A JSON-LD Product as a listing; None when it has neither name nor an id."""
    title = str(product.get("name") or "").strip()
    url = urljoin(page_url, str(product.get("url") or page_url))
    listing_id = id_from_url(url) or _text_id(product)
    if not title or listing_id is None:
        return None
    offer = offer_fields(product)
    return RawListing(
        source=source,
        listing_id=listing_id,
        title=title,
        url=url,
        price_text=offer.price_text,
        price=offer.price,
        price_issue=offer.price_issue,
        condition=offer.condition or retail_condition(title),
        listing_type=ListingType.ACTIVE,
        in_stock=offer.in_stock,
    )


def _text_id(product: JsonObject) -> str | None:
    for key in ("sku", "productID", "mpn"):
        value = product.get(key)
        if isinstance(value, str | int) and str(value).strip():
            return str(value).strip()
    return None
