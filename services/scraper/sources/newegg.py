"""Newegg search result and product pages.

Structured data first: product pages carry a JSON-LD `Product` with an `Offer`, and
some search pages an `ItemList`. Otherwise the grid of `.item-cell` cards is read:
`.item-title` (link + name), `.price-current` ("$<strong>1,799</strong><sup>.99</sup>",
followed by a "(3 Offers)" link), `.price-ship`, and `.item-promo` "OUT OF STOCK".
Item numbers: "N82E16814137761" for Newegg stock, "9SIA..." for marketplace sellers.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

from bs4 import BeautifulSoup, Tag

from services.scraper.collect import term_searches
from services.scraper.errors import LayoutChanged
from services.scraper.listing import ListingType, RawListing, price_fields
from services.scraper.money import parse_shipping
from services.scraper.sources._common import (
    href_of,
    saved_search_page,
    soup_of,
    text_of,
)
from services.scraper.sources._retail import listings_from_json_ld, retail_condition
from services.scraper.spec import SourceSpec
from shared.sources.specs import NEWEGG

# The source of this adapter's listings and errors (the source's name too).
LISTING_SOURCE = "newegg"
# Newegg's "Desktop Graphics Cards" category node.
GPU_CATEGORY_NODE = "100007709"

_ITEM_NUMBER = re.compile(r"/p/(?:[^/?#]+/)*([A-Z0-9]{2,}(?:-[A-Z0-9]+)*)(?:[/?#]|$)", re.I)


def search_url(
    base_url: str, query: str, *, page: int = 1, category_node: str = GPU_CATEGORY_NODE
) -> str:
    params = {"d": query, "N": category_node, "page": str(page)}
    return f"{base_url.rstrip('/')}/p/pl?{urlencode(params)}"


def item_number(url: str) -> str | None:
    """From ".../p/N82E16814137761", ".../p/1FT-0004-00599" or "?Item=9SIA..."."""
    item = parse_qs(urlsplit(url).query).get("Item")
    if item:
        return item[0]
    match = _ITEM_NUMBER.search(urlsplit(url).path)
    return match.group(1) if match else None


def parse(body: str | bytes, url: str) -> list[RawListing]:
    soup = soup_of(body)
    structured = listings_from_json_ld(soup, LISTING_SOURCE, url, item_number)
    return structured if structured is not None else _parse_grid(soup, url)


def _parse_grid(soup: BeautifulSoup, url: str) -> list[RawListing]:
    grid = soup.select_one(".item-cells-wrap")
    if grid is None:
        if soup.select_one(".result-message") is not None:
            return []  # "We have found 0 items that match ..."
        raise LayoutChanged(LISTING_SOURCE, url, "no JSON-LD products and no .item-cells-wrap grid")
    cells = grid.select(".item-cell")
    if not cells:
        raise LayoutChanged(LISTING_SOURCE, url, ".item-cells-wrap holds no .item-cell")
    found = (_cell_listing(cell, url) for cell in cells)
    return [listing for listing in found if listing is not None]


def _cell_listing(cell: Tag, page_url: str) -> RawListing | None:
    title_link = cell.select_one("a.item-title")
    href = href_of(title_link)
    listing_id = item_number(href or "")
    if title_link is None or href is None or listing_id is None:
        return None  # sponsored banners share the grid but have no item link
    title = text_of(title_link)
    price_text = _current_price(cell.select_one(".price-current"))
    price, issue = price_fields(price_text)
    shipping_text = text_of(cell.select_one(".price-ship")) or None
    return RawListing(
        source=LISTING_SOURCE,
        listing_id=listing_id,
        title=title,
        url=urljoin(page_url, href),
        price_text=price_text,
        price=price,
        price_issue=issue,
        shipping_text=shipping_text,
        shipping=parse_shipping(shipping_text) if shipping_text else None,
        condition=retail_condition(title),
        listing_type=ListingType.ACTIVE,
        in_stock=_in_stock(cell),
    )


def _current_price(element: Tag | None) -> str | None:
    if element is None:
        return None
    for noise in element.select(".price-current-num, .price-current-label"):
        noise.decompose()  # "(3 Offers)" and "Sale price:" are not the price
    text = element.get_text("").replace("\xa0", " ").strip()
    text = re.sub(r"\s*[–-]\s*$", "", text)  # an empty range suffix " – " on single prices
    return text or None


def _in_stock(cell: Tag) -> bool:
    promo = text_of(cell.select_one(".item-promo")).lower()
    button = text_of(cell.select_one(".item-button-area, .item-operate")).lower()
    return "out of stock" not in promo and "sold out" not in button


# --- The source: what a run fetches, what parse-page reads, the spec -------------------

# Results per search page.
PAGE_SIZE = 36


collect = term_searches(lambda s: s.newegg_base_url, search_url, parse, PAGE_SIZE)


# A saved search page; its URL defaults to a search of the configured site.
parse_page = saved_search_page(lambda s: s.newegg_base_url, search_url, parse)


SOURCE = SourceSpec(NEWEGG, collect, parse_page)
