"""eBay search result pages (www.ebay.com/sch/i.html), active and sold listings.

Current markup is `li.s-card` (2025 redesign); the older `li.s-item` markup is still
served to some clients and is parsed as a fallback. Checked against real captured pages
(tests/services/scraper/samples/ebay/real_*). Quirks handled:
- the "Shop on eBay" placeholder cards carry a fake item id;
- a "rewrite" answer (`srp-river-answer--REWRITE_START`), inside the list or just before
  it, starts results for a loosened query ("Results matching fewer words"), which are not
  results for the query and are ignored; "N items found from eBay international sellers"
  is the same answer for exact matches from abroad, which are kept;
- titles carry hidden "New Listing" and "Opens in a new window or tab" spans;
- a multi-variation listing shows a price range, in s-card as three `s-card__price` spans
  ("$3.25", " to ", "$195.87"): rejected, never stored at either end;
- a sold "Best offer accepted" shows the asking price struck through; the price paid is
  not on the page, so no price is stored;
- the condition is in a subtitle row, not always the first one.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import date, datetime
from urllib.parse import parse_qs, urlencode, urlsplit

from bs4 import BeautifulSoup, Tag

from services.scraper.errors import LayoutChanged
from services.scraper.listing import (
    Condition,
    ListingType,
    RawListing,
    condition_from_text,
    price_fields,
)
from services.scraper.money import Money, parse_shipping
from services.scraper.sources._common import (
    class_list,
    decode_markup,
    fast_soup,
    href_of,
    text_of,
)

SOURCE = "ebay"
# eBay category "Computer Components & Parts > Graphics/Video Cards".
GPU_CATEGORY_ID = "27386"
RESULTS_PER_PAGE = 240
# eBay localizes by the requester's address (a capture of www.ebay.com made from Peru came
# back in Spanish with prices in soles): ask for US English on every page request.
REQUEST_HEADERS = {"Accept-Language": "en-US,en;q=0.9"}
# Delivery country United States (eBay country id 1), so that prices are shown in US
# dollars rather than converted for the requester's country.
US_BUYER_PARAMS = {"_fcid": "1"}
SOLD_PARAMS = {"LH_Sold": "1", "LH_Complete": "1"}

_ITEM_ID = re.compile(r"/itm/(?:[^/?#]+/)?(\d{9,15})(?:[/?#]|$)")
_SOLD_DATE = re.compile(r"Sold\s+([A-Z][a-z]{2})\s+(\d{1,2}),\s+(\d{4})")
_QUANTITY = re.compile(r"(\d[\d,]*)\s+(?:available|left)\b", re.IGNORECASE)
_SHIPPING = re.compile(r"\b(?:delivery|shipping|postage)\b", re.IGNORECASE)
_BEST_OFFER_ACCEPTED = re.compile(r"\bbest offer accepted\b", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
# eBay's condition labels, as shown in a subtitle row; a seller's tagline is free text.
_CONDITION_LABEL = re.compile(
    r"brand new|new|new \(other\)|new other\b.*|new with(?:out)?\b.*|open box|pre-owned|used"
    r"|(?:certified|excellent|very good|good|seller|manufacturer)?\s*-?\s*refurbished"
    r"|remanufactured|for parts or not working|parts only",
    re.IGNORECASE,
)
_PLACEHOLDER_TITLES = {"shop on ebay"}
_HIDDEN_TITLE_CLASSES = frozenset({"clipped", "LIGHT_HIGHLIGHT", "s-card__new-listing"})
_STRUCK_CLASSES = frozenset({"strikethrough", "STRIKETHROUGH"})
_REWRITE_START = "srp-river-answer--REWRITE_START"
_S_CARD_CLASSES = frozenset(
    {
        "s-card__title",
        "s-card__price",
        "s-card__subtitle",
        "s-card__caption",
        "s-card__attribute-row",
    }
)
# Raw-markup markers of the results column and of its list (attribute quotes optional:
# eBay serves minified markup).
_RESULTS_COLUMN = re.compile(r"<div\b[^>]*?[\s\"'=]srp-river-results[\s\"'>]")
_RESULTS_LIST = re.compile(r"<ul\b[^>]*?[\s\"'=]srp-results[\s\"'>]")
_LINK_TAG = re.compile(r"<link\b[^>]*>", re.IGNORECASE)
_CANONICAL = re.compile(r"\brel\s*=\s*[\"']?canonical\b", re.IGNORECASE)
_HREF = re.compile(r"\bhref\s*=\s*[\"']?([^\"'\s>]+)", re.IGNORECASE)


def search_url(
    base_url: str,
    query: str,
    *,
    sold: bool = False,
    page: int = 1,
    per_page: int = RESULTS_PER_PAGE,
    category_id: str = GPU_CATEGORY_ID,
    us_buyer: bool = False,
) -> str:
    """Search URL; `sold=True` gives completed sold listings, most recently ended first;
    `us_buyer=True` asks for prices as shown to a buyer in the US."""
    params = {"_nkw": query, "_sacat": category_id, "_ipg": str(per_page), "_pgn": str(page)}
    if sold:
        params |= SOLD_PARAMS | {"_sop": "13"}
    if us_buyer:
        params |= US_BUYER_PARAMS
    return f"{base_url.rstrip('/')}/sch/i.html?{urlencode(params)}"


def as_sold_search(url: str) -> str:
    """The same search URL marked as a sold-listings search."""
    parts = urlsplit(url)
    params = parse_qs(parts.query, keep_blank_values=True)
    params |= {name: [value] for name, value in SOLD_PARAMS.items()}
    return parts._replace(query=urlencode(params, doseq=True)).geturl()


def is_sold_search(url: str) -> bool:
    return parse_qs(urlsplit(url).query).get("LH_Sold") == ["1"]


def canonical_search_url(body: str | bytes) -> str | None:
    """The search URL a saved page names as its canonical link, if it is an eBay search.

    eBay leaves the sold flag out of it: a sold page is told by its "Sold" captions.
    """
    markup = decode_markup(body)
    head_end = markup.find("</head")
    for tag in _LINK_TAG.findall(markup if head_end < 0 else markup[:head_end]):
        if not _CANONICAL.search(tag):
            continue
        href = _HREF.search(tag)
        url = html.unescape(href.group(1)) if href else ""
        parts = urlsplit(url)
        if (
            parts.scheme in ("http", "https")
            and "ebay." in parts.netloc
            and parts.path == "/sch/i.html"
        ):
            return url
    return None


def parse(body: str | bytes, url: str) -> list[RawListing]:
    """The listings of one search page, in page order."""
    markup = decode_markup(body)
    region = _results_region(markup)
    if region is not None:
        results = _results(fast_soup(region))
        if results is not None and results.shown:
            return _listings(results.cards, url)
    # No cards in the cut (an empty search, or markup the cut does not fit): the whole
    # page tells "no results" from "layout changed".
    return parse_soup(fast_soup(markup), url)


def parse_soup(soup: BeautifulSoup, url: str) -> list[RawListing]:
    """The listings of a whole page's soup, from any parser: what `parse` must match."""
    results = _results(soup)
    no_results = soup.select_one(".srp-save-null-search") is not None
    if results is None:
        if no_results:
            return []
        raise LayoutChanged(SOURCE, url, "no ul.srp-results container")
    if not results.shown and not no_results:
        raise LayoutChanged(SOURCE, url, "results container holds no s-card/s-item")
    return _listings(results.cards, url)


def _results_region(markup: str) -> str | None:
    """The page from the results column on, or None when its markers are missing.

    The header, filters and inline data above the results are most of a page, and
    building a soup for them was most of the parse time; what follows the list is mostly
    scripts, cheap to parse, so the cut needs no end (and cannot end too early).
    """
    listing = _RESULTS_LIST.search(markup)
    if listing is None:
        return None
    column = _RESULTS_COLUMN.search(markup, 0, listing.start())
    return None if column is None else markup[column.start() :]


@dataclass(frozen=True)
class _Results:
    # The query's results, in page order.
    cards: list[Tag]
    # Cards in the list, results of a loosened query included.
    shown: int


def _results(soup: BeautifulSoup) -> _Results | None:
    listing = soup.select_one("ul.srp-results")
    if listing is None:
        return None
    rewritten = any(_is_rewrite(sibling) for sibling in _previous_tags(listing))
    cards: list[Tag] = []
    shown = 0
    for item in listing.find_all("li", recursive=False):
        classes = class_list(item)
        if _is_rewrite(item):
            rewritten = True
        elif "s-card" in classes or "s-item" in classes:
            shown += 1
            if not rewritten:
                cards.append(item)
    return _Results(cards, shown)


def _previous_tags(element: Tag) -> list[Tag]:
    return [sibling for sibling in element.previous_siblings if isinstance(sibling, Tag)]


def _is_rewrite(answer: Tag) -> bool:
    """An answer after which results are for a loosened query, not for the query."""
    if _REWRITE_START not in class_list(answer):
        return False
    # The UK capture: "685 items found from eBay international sellers" opens a list of
    # exact matches from sellers abroad.
    return "international sellers" not in text_of(answer).lower()


def _listings(cards: list[Tag], url: str) -> list[RawListing]:
    sold_page = is_sold_search(url)
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
    parsed = (_listing(_fields(card), origin, sold_page) for card in cards)
    return [listing for listing in parsed if listing is not None]


@dataclass(frozen=True)
class _CardFields:
    title: str
    href: str | None
    # Texts of the price elements shown as the price, and of those struck through.
    price_texts: list[str]
    struck_texts: list[str]
    shipping_text: str | None
    subtitles: list[str]
    sold_text: str
    details: list[str]


def _fields(card: Tag) -> _CardFields:
    if "s-card" in class_list(card):
        return _s_card_fields(card)
    return _s_item_fields(card)


def _s_card_fields(card: Tag) -> _CardFields:
    # One walk over the card instead of a CSS query per field: the queries took longer
    # than building the tree.
    found, href = _collect(card, _S_CARD_CLASSES)
    rows = [text_of(row) for row in found.get("s-card__attribute-row", [])]
    shown, struck = _split_struck(found.get("s-card__price", []))
    titles = found.get("s-card__title")
    captions = found.get("s-card__caption")
    return _CardFields(
        title=_title(titles[0] if titles else None),
        href=href,
        price_texts=shown,
        struck_texts=struck,
        shipping_text=_shipping_row(rows),
        subtitles=[text_of(s) for s in found.get("s-card__subtitle", [])],
        sold_text=text_of(captions[0] if captions else None),
        details=rows,
    )


def _s_item_fields(card: Tag) -> _CardFields:
    sold = card.select_one(".s-item__caption, .s-item__title--tagblock .POSITIVE")
    shipping = text_of(card.select_one(".s-item__shipping, .s-item__logisticsCost"))
    shown, struck = _split_struck(card.select(".s-item__price"))
    return _CardFields(
        title=_title(card.select_one(".s-item__title")),
        href=href_of(card.select_one("a.s-item__link")),
        price_texts=shown,
        struck_texts=struck,
        shipping_text=shipping or None,
        subtitles=[text_of(s) for s in card.select(".SECONDARY_INFO")],
        sold_text=text_of(sold),
        details=[text_of(d) for d in card.select(".s-item__detail")],
    )


def _collect(card: Tag, wanted: frozenset[str]) -> tuple[dict[str, list[Tag]], str | None]:
    """Descendants carrying each wanted class, in page order, and the first item link."""
    found: dict[str, list[Tag]] = {}
    href: str | None = None
    for element in card.descendants:
        if not isinstance(element, Tag):
            continue
        if href is None and element.name == "a":
            link = href_of(element)
            href = link if link is not None and "/itm/" in link else None
        for name in wanted.intersection(class_list(element)):
            found.setdefault(name, []).append(element)
    return found, href


def _split_struck(prices: list[Tag]) -> tuple[list[str], list[str]]:
    shown: list[str] = []
    struck: list[str] = []
    for price in prices:
        (struck if _is_struck(price) else shown).append(text_of(price))
    return shown, struck


def _is_struck(element: Tag) -> bool:
    if _STRUCK_CLASSES.intersection(class_list(element)):
        return True
    return any(
        isinstance(inner, Tag) and _STRUCK_CLASSES.intersection(class_list(inner))
        for inner in element.descendants
    )


def _title(element: Tag | None) -> str:
    if element is None:
        return ""
    hidden = [
        inner
        for inner in element.descendants
        if isinstance(inner, Tag) and _HIDDEN_TITLE_CLASSES.intersection(class_list(inner))
    ]
    for inner in hidden:
        if not inner.decomposed:  # inside one removed before it
            inner.decompose()
    return text_of(element)


def _shipping_row(rows: list[str]) -> str | None:
    for row in rows:
        if _SHIPPING.search(row):
            return row
    return None


def _listing(fields: _CardFields, origin: str, sold_page: bool) -> RawListing | None:
    item_id = _item_id(fields.href)
    if item_id is None or fields.title.lower() in _PLACEHOLDER_TITLES:
        return None  # ads and the "Shop on eBay" placeholder are not listings
    sold_at = _sold_date(fields.sold_text)
    sold = sold_at is not None or sold_page
    price_text, price, issue = _price(fields, sold)
    # "Free delivery" on a page priced in pounds is free in pounds.
    currency = price.currency if price is not None else "USD"
    shipping_text = fields.shipping_text
    return RawListing(
        source=SOURCE,
        listing_id=item_id,
        title=fields.title,
        url=f"{origin}/itm/{item_id}",
        price_text=price_text,
        price=price,
        price_issue=issue,
        shipping_text=shipping_text,
        shipping=parse_shipping(shipping_text, currency) if shipping_text else None,
        condition=_condition(fields.subtitles),
        listing_type=ListingType.SOLD if sold else ListingType.ACTIVE,
        sold_at=sold_at,
        quantity_available=_quantity(fields.details),
    )


def _price(fields: _CardFields, sold: bool) -> tuple[str | None, Money | None, str | None]:
    """(price text, price, issue): a range or an accepted offer gets no price."""
    amounts = [text for text in fields.price_texts if _DIGIT.search(text)]
    if len(amounts) > 1:
        # s-card shows a range as separate spans, the " to " between them one of them.
        return " to ".join(amounts), None, "price_range"
    text = amounts[0] if amounts else " ".join(t for t in fields.price_texts if t) or None
    offer_accepted = any(_BEST_OFFER_ACCEPTED.search(detail) for detail in fields.details)
    if offer_accepted or (text is None and fields.struck_texts):
        # The asking price is what the page shows; the accepted offer is not on it.
        reason = "best_offer_accepted" if offer_accepted or sold else "struck_through_price"
        return text or fields.struck_texts[0], None, reason
    price, issue = price_fields(text)
    return text, price, issue


def _item_id(href: str | None) -> str | None:
    match = _ITEM_ID.search(href or "")
    return match.group(1) if match else None


def _sold_date(text: str) -> date | None:
    match = _SOLD_DATE.search(text)
    if match is None:
        return None
    return datetime.strptime(" ".join(match.groups()), "%b %d %Y").date()


def _condition(subtitles: list[str]) -> Condition:
    """The first eBay condition label in any subtitle row ("Pre-Owned · NVIDIA · 24 GB"),
    else the first segment that reads as a condition: a seller's tagline may come first."""
    segments = [part.strip() for subtitle in subtitles for part in subtitle.split("·")]
    for segment in segments:
        if _CONDITION_LABEL.fullmatch(segment):
            return condition_from_text(segment)
    for segment in segments:
        condition = condition_from_text(segment)
        if condition is not Condition.UNKNOWN:
            return condition
    return Condition.UNKNOWN


def _quantity(details: list[str]) -> int | None:
    for detail in details:
        if re.search(r"\blast one\b", detail, re.IGNORECASE):
            return 1
        match = _QUANTITY.search(detail)
        if match:
            return int(match.group(1).replace(",", ""))
    return None
