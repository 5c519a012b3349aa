"""B&H Photo search result and product pages.

Three readings of the same page, most structured first:

1. The React app's product state, JSON in the `bh-preloaded-data` attribute of the app
   root (an attribute value, so HTML-escaped JSON). Its shape here is taken from a
   description of the real page, not from a capture: product objects anywhere in the
   tree, each with `skuNo` + `itemSource` (the "1730004-REG" id product URLs carry) or a
   `detailsUrl`, a `shortDescription` (or `name`), a `price` (number, numeric string, or
   an object with `value`/`amount` and `currency`) and optionally `inStock` /
   `stockStatus`. A tree with no such object falls through to the next reading.
2. A JSON-LD `ItemList` of `Product`s on search pages and a `Product` on product pages
   (used stock shows an `AggregateOffer` when several units differ in price).
3. The server-rendered markup, tagged with stable `data-selenium` attributes (class names
   are hashed per build): `miniProductPage` cards with `miniProductPageProductName(Link)`,
   `stockStatus`, and the price split in two elements: `uppedDecimalPriceFirst` "$1,049"
   and `uppedDecimalPriceSecond` "00", the cents drawn as a superscript with no dot.
   Joined as text they read "$1,04900" (1.049 to a price parser) or "$84900"; they are
   parsed as dollars and cents instead.

Item ids come from product URLs: "/c/product/1730004-REG/asus_rog_strix....html".
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

from bs4 import BeautifulSoup, Tag

from services.scraper.collect import term_searches
from services.scraper.errors import LayoutChanged
from services.scraper.listing import ListingType, RawListing, price_fields
from services.scraper.money import Money, is_price_range, parse_shipping
from services.scraper.sources._common import (
    JsonObject,
    href_of,
    saved_search_page,
    soup_of,
    text_of,
)
from services.scraper.sources._retail import listings_from_json_ld, retail_condition
from services.scraper.spec import SourceSpec
from shared.sources.specs import BHPHOTO

# The source of this adapter's listings and errors (the source's name too).
LISTING_SOURCE = "bhphoto"

_ITEM_ID = re.compile(r"/c/product/(\d+-[A-Z]+)/")
_CARD = '[data-selenium="miniProductPage"]'
_RESULTS = '[data-selenium="listingProductDetailSection"]'
_NO_RESULTS = '[data-selenium="zeroResultsContainer"]'
PRELOADED_ATTRIBUTE = "bh-preloaded-data"

# "$1,049" or "$849": whole dollars, thousands grouped by commas; an inline ".99" is
# tolerated for pages that print the cents in the same element.
_DOLLARS = re.compile(r"(?:US)?\$\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{2}))?")
# The cents element: exactly two digits, with or without the dot.
_CENTS = re.compile(r"\.?(\d{2})")
_NAME_KEYS = ("shortDescription", "name")
_URL_KEYS = ("detailsUrl", "url")


def search_url(base_url: str, query: str, *, page: int = 1) -> str:
    params = {"q": query, "sts": "ma"}
    if page > 1:
        params["pn"] = str(page)
    return f"{base_url.rstrip('/')}/c/search?{urlencode(params)}"


def item_id(url: str) -> str | None:
    match = _ITEM_ID.search(urlsplit(url).path)
    return match.group(1) if match else None


def parse(body: str | bytes, url: str) -> list[RawListing]:
    soup = soup_of(body)
    preloaded = _preloaded_listings(soup, url)
    if preloaded is not None:
        return preloaded
    structured = listings_from_json_ld(soup, LISTING_SOURCE, url, item_id)
    return structured if structured is not None else _parse_cards(soup, url)


def split_price(dollars_text: str, cents_text: str) -> tuple[str | None, Money | None, str | None]:
    """(price text, price, issue) from B&H's dollars element and its cents element.

    The text is rebuilt with the dot the page draws as a superscript, so that anyone
    re-reading `price_text` gets the same amount.
    """
    whole, cents = dollars_text.strip(), cents_text.strip()
    if not whole and not cents:
        return None, None, "missing_price"
    shown = f"{whole} {cents}".strip()
    if is_price_range(whole):
        return shown, None, "price_range"
    dollars = _DOLLARS.fullmatch(whole)
    cents_match = _CENTS.fullmatch(cents) if cents else None
    if dollars is None or (cents and cents_match is None):
        return shown, None, "unparseable_price"
    inline_cents = dollars.group(2)
    if inline_cents is not None and cents_match is not None:
        return shown, None, "unparseable_price"  # cents twice: not a layout we know
    digits = dollars.group(1).replace(",", "")
    fraction = inline_cents or (cents_match.group(1) if cents_match else "00")
    text = f"${dollars.group(1)}.{fraction}"
    return text, Money(Decimal(f"{digits}.{fraction}"), "USD"), None


def _preloaded_listings(soup: BeautifulSoup, page_url: str) -> list[RawListing] | None:
    """Listings from the app state; None when there is none we can read."""
    holder = soup.select_one(f"[{PRELOADED_ATTRIBUTE}]")
    if holder is None:
        return None
    raw = holder.get(PRELOADED_ATTRIBUTE)
    if not isinstance(raw, str):
        return None
    try:
        # The parser already turned &quot; and friends back into characters.
        state = json.loads(raw, parse_float=Decimal)
    except json.JSONDecodeError:
        return None  # a truncated attribute: JSON-LD and the markup still hold the page
    found = [_preloaded_listing(product, page_url) for product in _products(state)]
    listings = [listing for listing in found if listing is not None]
    return listings or None


def _products(node: Any) -> Iterator[JsonObject]:
    """Product-like objects in page order; a product's own children are not searched."""
    if isinstance(node, list):
        for item in node:
            yield from _products(item)
    elif isinstance(node, dict):
        if _is_product(node):
            yield node
        else:
            for value in node.values():
                yield from _products(value)


def _is_product(node: JsonObject) -> bool:
    has_name = any(isinstance(node.get(key), str) for key in _NAME_KEYS)
    return has_name and "price" in node and _preloaded_id(node) is not None


def _preloaded_id(node: JsonObject) -> str | None:
    sku, source = node.get("skuNo"), node.get("itemSource")
    if isinstance(sku, int | str) and isinstance(source, str) and str(sku).strip().isdigit():
        return f"{str(sku).strip()}-{source.strip().upper()}"
    url = _preloaded_url(node)
    return item_id(url) if url else None


def _preloaded_url(node: JsonObject) -> str | None:
    for key in _URL_KEYS:
        value = node.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _preloaded_listing(product: JsonObject, page_url: str) -> RawListing | None:
    listing_id = _preloaded_id(product)
    title = next(
        (str(product[key]).strip() for key in _NAME_KEYS if isinstance(product.get(key), str)),
        "",
    )
    if listing_id is None or not title:
        return None
    href = _preloaded_url(product)
    price_text, price, issue = _preloaded_price(product.get("price"))
    return RawListing(
        source=LISTING_SOURCE,
        listing_id=listing_id,
        title=title,
        url=urljoin(page_url, href) if href else page_url,
        price_text=price_text,
        price=price,
        price_issue=issue,
        condition=retail_condition(title),
        listing_type=ListingType.ACTIVE,
        in_stock=_preloaded_stock(product),
    )


def _preloaded_price(
    value: Any, currency: str = "USD"
) -> tuple[str | None, Money | None, str | None]:
    if isinstance(value, dict):
        code = value.get("currency")
        inner = value.get("value", value.get("amount"))
        return _preloaded_price(inner, code if isinstance(code, str) else currency)
    if value is None or isinstance(value, bool) or value == "":
        return None, None, "missing_price"
    if isinstance(value, str):
        money, issue = price_fields(value, currency)
        return value, money, issue
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        return str(value), None, "unparseable_price"
    if not amount.is_finite():
        return str(value), None, "unparseable_price"
    text = f"{amount} {currency}"
    try:
        return text, Money(amount, currency.upper()), None
    except ValueError:
        return text, None, "unparseable_price"  # not an ISO currency code


def _preloaded_stock(product: JsonObject) -> bool | None:
    flag = product.get("inStock")
    if isinstance(flag, bool):
        return flag
    status = product.get("stockStatus")
    return _in_stock(status) if isinstance(status, str) else None


def _parse_cards(soup: BeautifulSoup, url: str) -> list[RawListing]:
    results = soup.select_one(_RESULTS)
    if results is None:
        if soup.select_one(_NO_RESULTS) is not None:
            return []
        raise LayoutChanged(LISTING_SOURCE, url, f"no JSON-LD products and no {_RESULTS}")
    cards = results.select(_CARD)
    if not cards:
        raise LayoutChanged(LISTING_SOURCE, url, f"results section holds no {_CARD}")
    found = (_card_listing(card, url) for card in cards)
    return [listing for listing in found if listing is not None]


def _card_listing(card: Tag, page_url: str) -> RawListing | None:
    link = card.select_one('[data-selenium="miniProductPageProductNameLink"]')
    href = href_of(link)
    listing_id = item_id(href or "")
    if href is None or listing_id is None:
        return None
    title = text_of(card.select_one('[data-selenium="miniProductPageProductName"]'))
    price_text, price, issue = split_price(
        text_of(card.select_one('[data-selenium="uppedDecimalPriceFirst"]')),
        text_of(card.select_one('[data-selenium="uppedDecimalPriceSecond"]')),
    )
    shipping_text = text_of(card.select_one('[data-selenium="shippingText"]')) or None
    return RawListing(
        source=LISTING_SOURCE,
        listing_id=listing_id,
        title=title or text_of(link),
        url=urljoin(page_url, href),
        price_text=price_text,
        price=price,
        price_issue=issue,
        shipping_text=shipping_text,
        shipping=parse_shipping(shipping_text) if shipping_text else None,
        condition=retail_condition(title),
        listing_type=ListingType.ACTIVE,
        in_stock=_in_stock(text_of(card.select_one('[data-selenium="stockStatus"]'))),
    )


def _in_stock(status: str) -> bool | None:
    lowered = status.lower()
    if not lowered:
        return None
    if "in stock" in lowered:
        return True
    # "Special Order", "More on the way", "Temporarily out of stock", "Discontinued"
    return False


# --- The source: what a run fetches, what parse-page reads, the spec -------------------

# Results per search page.
PAGE_SIZE = 24


collect = term_searches(lambda s: s.bhphoto_base_url, search_url, parse, PAGE_SIZE)


# A saved search page; its URL defaults to a search of the configured site.
parse_page = saved_search_page(lambda s: s.bhphoto_base_url, search_url, parse)


SOURCE = SourceSpec(BHPHOTO, collect, parse_page)
