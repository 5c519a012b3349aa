"""eBay search result pages (www.ebay.com/sch/i.html), active and sold listings.

Current markup is `li.s-card` (2025 redesign); the older `li.s-item` markup is still
served to some clients and is parsed as a fallback. Quirks handled:
- the first card is often a "Shop on eBay" placeholder with a fake item id;
- after `li.srp-river-answer--REWRITE_START` come "Results matching fewer words",
  which are not results for the query and are ignored;
- titles carry hidden "New Listing" and "Opens in a new window or tab" spans;
- multi-variation listings show a price range, which is rejected, not guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from urllib.parse import parse_qs, urlencode, urlsplit

from bs4 import Tag

from services.scraper.errors import LayoutChanged
from services.scraper.listing import (
    Condition,
    ListingType,
    RawListing,
    condition_from_text,
    price_fields,
)
from services.scraper.money import is_price_range, parse_shipping
from services.scraper.sources._common import class_list, href_of, soup_of, text_of

SOURCE = "ebay"
# eBay category "Computer Components & Parts > Graphics/Video Cards".
GPU_CATEGORY_ID = "27386"
RESULTS_PER_PAGE = 240

_ITEM_ID = re.compile(r"/itm/(?:[^/?#]+/)?(\d{9,15})(?:[/?#]|$)")
_SOLD_DATE = re.compile(r"Sold\s+([A-Z][a-z]{2})\s+(\d{1,2}),\s+(\d{4})")
_QUANTITY = re.compile(r"(\d[\d,]*)\s+(?:available|left)\b", re.IGNORECASE)
_PLACEHOLDER_TITLES = {"shop on ebay"}
_HIDDEN_TITLE_BITS = (".clipped", ".LIGHT_HIGHLIGHT", ".s-card__new-listing")


def search_url(
    base_url: str,
    query: str,
    *,
    sold: bool = False,
    page: int = 1,
    per_page: int = RESULTS_PER_PAGE,
    category_id: str = GPU_CATEGORY_ID,
) -> str:
    """Search URL; `sold=True` gives completed sold listings, most recently ended first."""
    params = {"_nkw": query, "_sacat": category_id, "_ipg": str(per_page), "_pgn": str(page)}
    if sold:
        params |= {"LH_Sold": "1", "LH_Complete": "1", "_sop": "13"}
    return f"{base_url.rstrip('/')}/sch/i.html?{urlencode(params)}"


def parse(body: str | bytes, url: str) -> list[RawListing]:
    soup = soup_of(body)
    results = soup.select_one("ul.srp-results")
    no_results = soup.select_one(".srp-save-null-search") is not None
    if results is None:
        if no_results:
            return []
        raise LayoutChanged(SOURCE, url, "no ul.srp-results container")
    cards = _cards_before_rewrite(results)
    if not cards and not no_results:
        raise LayoutChanged(SOURCE, url, "results container holds no s-card/s-item")
    sold_page = _is_sold_search(url)
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
    parsed = (_listing(_fields(card), origin, sold_page) for card in cards)
    return [listing for listing in parsed if listing is not None]


def _cards_before_rewrite(results: Tag) -> list[Tag]:
    cards: list[Tag] = []
    for item in results.find_all("li", recursive=False):
        classes = class_list(item)
        if "srp-river-answer--REWRITE_START" in classes:
            break
        if "s-card" in classes or "s-item" in classes:
            cards.append(item)
    return cards


def _is_sold_search(url: str) -> bool:
    return parse_qs(urlsplit(url).query).get("LH_Sold") == ["1"]


@dataclass(frozen=True)
class _CardFields:
    title: str
    href: str | None
    price_texts: list[str]
    shipping_text: str | None
    subtitle: str
    sold_text: str
    details: list[str]


def _fields(card: Tag) -> _CardFields:
    if "s-card" in class_list(card):
        return _s_card_fields(card)
    return _s_item_fields(card)


def _s_card_fields(card: Tag) -> _CardFields:
    rows = [text_of(row) for row in card.select(".s-card__attribute-row")]
    return _CardFields(
        title=_title(card.select_one(".s-card__title")),
        href=href_of(card.select_one("a[href*='/itm/']")),
        price_texts=[text_of(p) for p in card.select(".s-card__price")],
        shipping_text=_shipping_row(rows),
        subtitle=text_of(card.select_one(".s-card__subtitle")),
        sold_text=text_of(card.select_one(".s-card__caption")),
        details=rows,
    )


def _s_item_fields(card: Tag) -> _CardFields:
    sold = card.select_one(".s-item__caption, .s-item__title--tagblock .POSITIVE")
    shipping = text_of(card.select_one(".s-item__shipping, .s-item__logisticsCost"))
    return _CardFields(
        title=_title(card.select_one(".s-item__title")),
        href=href_of(card.select_one("a.s-item__link")),
        price_texts=[text_of(p) for p in card.select(".s-item__price")],
        shipping_text=shipping or None,
        subtitle=text_of(card.select_one(".SECONDARY_INFO")),
        sold_text=text_of(sold),
        details=[text_of(d) for d in card.select(".s-item__detail")],
    )


def _title(element: Tag | None) -> str:
    if element is None:
        return ""
    for hidden in element.select(", ".join(_HIDDEN_TITLE_BITS)):
        hidden.decompose()
    return text_of(element)


def _shipping_row(rows: list[str]) -> str | None:
    for row in rows:
        if re.search(r"\b(delivery|shipping)\b", row, re.IGNORECASE):
            return row
    return None


def _listing(fields: _CardFields, origin: str, sold_page: bool) -> RawListing | None:
    item_id = _item_id(fields.href)
    if item_id is None or fields.title.lower() in _PLACEHOLDER_TITLES:
        return None  # ads and the "Shop on eBay" placeholder are not listings
    sold_at = _sold_date(fields.sold_text)
    price_text = " to ".join(fields.price_texts) if fields.price_texts else None
    price, issue = price_fields(price_text)
    if price_text is not None and is_price_range(price_text):
        price, issue = None, "price_range"
    return RawListing(
        source=SOURCE,
        listing_id=item_id,
        title=fields.title,
        url=f"{origin}/itm/{item_id}",
        price_text=price_text,
        price=price,
        price_issue=issue,
        shipping_text=fields.shipping_text,
        shipping=parse_shipping(fields.shipping_text) if fields.shipping_text else None,
        condition=_condition(fields.subtitle),
        listing_type=ListingType.SOLD if sold_at or sold_page else ListingType.ACTIVE,
        sold_at=sold_at,
        quantity_available=_quantity(fields.details),
    )


def _item_id(href: str | None) -> str | None:
    match = _ITEM_ID.search(href or "")
    return match.group(1) if match else None


def _sold_date(text: str) -> date | None:
    match = _SOLD_DATE.search(text)
    if match is None:
        return None
    return datetime.strptime(" ".join(match.groups()), "%b %d %Y").date()


def _condition(subtitle: str) -> Condition:
    # The subtitle reads "Pre-Owned · NVIDIA · 24 GB": the condition comes first.
    return condition_from_text(subtitle.split("·")[0])


def _quantity(details: list[str]) -> int | None:
    for detail in details:
        if re.search(r"\blast one\b", detail, re.IGNORECASE):
            return 1
        match = _QUANTITY.search(detail)
        if match:
            return int(match.group(1).replace(",", ""))
    return None
