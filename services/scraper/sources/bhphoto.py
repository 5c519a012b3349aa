"""B&H Photo search result and product pages.

Structured data first: a JSON-LD `ItemList` of `Product`s on search pages and a
`Product` on product pages (used stock shows an `AggregateOffer` when several
units differ in price). The fallback reads the server-rendered React markup, which
B&H tags with stable `data-selenium` attributes (class names are hashed per build):
`miniProductPage` cards with `miniProductPageProductName(Link)`, the price split as
`uppedDecimalPriceFirst` "$1,599" + `uppedDecimalPriceSecond` ".99", `stockStatus`.
Item ids come from product URLs: "/c/product/1730004-REG/asus_rog_strix....html".
"""

from __future__ import annotations

import re
from urllib.parse import urlencode, urljoin, urlsplit

from bs4 import BeautifulSoup, Tag

from services.scraper.errors import LayoutChanged
from services.scraper.listing import ListingType, RawListing, price_fields
from services.scraper.money import parse_shipping
from services.scraper.sources._common import (
    href_of,
    soup_of,
    text_of,
)
from services.scraper.sources._retail import listings_from_json_ld, retail_condition

SOURCE = "bhphoto"

_ITEM_ID = re.compile(r"/c/product/(\d+-[A-Z]+)/")
_CARD = '[data-selenium="miniProductPage"]'
_RESULTS = '[data-selenium="listingProductDetailSection"]'
_NO_RESULTS = '[data-selenium="zeroResultsContainer"]'


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
    structured = listings_from_json_ld(soup, SOURCE, url, item_id)
    return structured if structured is not None else _parse_cards(soup, url)


def _parse_cards(soup: BeautifulSoup, url: str) -> list[RawListing]:
    results = soup.select_one(_RESULTS)
    if results is None:
        if soup.select_one(_NO_RESULTS) is not None:
            return []
        raise LayoutChanged(SOURCE, url, f"no JSON-LD products and no {_RESULTS}")
    cards = results.select(_CARD)
    if not cards:
        raise LayoutChanged(SOURCE, url, f"results section holds no {_CARD}")
    found = (_card_listing(card, url) for card in cards)
    return [listing for listing in found if listing is not None]


def _card_listing(card: Tag, page_url: str) -> RawListing | None:
    link = card.select_one('[data-selenium="miniProductPageProductNameLink"]')
    href = href_of(link)
    listing_id = item_id(href or "")
    if href is None or listing_id is None:
        return None
    title = text_of(card.select_one('[data-selenium="miniProductPageProductName"]'))
    price_text = _price_text(card)
    price, issue = price_fields(price_text)
    shipping_text = text_of(card.select_one('[data-selenium="shippingText"]')) or None
    return RawListing(
        source=SOURCE,
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


def _price_text(card: Tag) -> str | None:
    whole = text_of(card.select_one('[data-selenium="uppedDecimalPriceFirst"]'))
    cents = text_of(card.select_one('[data-selenium="uppedDecimalPriceSecond"]'))
    return (whole + cents) or None


def _in_stock(status: str) -> bool | None:
    lowered = status.lower()
    if not lowered:
        return None
    if "in stock" in lowered:
        return True
    # "Special Order", "More on the way", "Temporarily out of stock", "Discontinued"
    return False
