"""eBay search result pages (www.ebay.com/sch/i.html), active and sold listings.

Current markup is `li.s-card` (2025 redesign); the older `li.s-item` markup is still
served to some clients and is parsed as a fallback. Checked against real captured pages
(tests/services/scraper/samples/ebay/real_*: www.ebay.com, www.ebay.co.uk, www.ebay.de).
Quirks handled:
- the "Shop on eBay" placeholder cards carry a fake item id;
- a "rewrite" answer (`srp-river-answer--REWRITE_START`) between result cards starts
  results for a loosened query ("Results matching fewer words", "Ergebnisse für weniger
  Suchbegriffe" after the one exact match of an eBay.de search), which are not results
  for the query and are ignored. The same answer placed before the first card is a notice
  about the whole list ("we simplified your search results" on a Spanish-UI page, "685
  items found from eBay international sellers") and hides nothing: whatever it says, the
  cards after it are the page's results, and the title matcher judges each one. "N items
  found from eBay international sellers" between cards starts exact matches from abroad,
  also kept;
- result cards of which none reads as a listing are a changed layout (`LayoutChanged`),
  never "no listings";
- titles carry hidden "New Listing" and "Opens in a new window or tab" spans;
- a multi-variation listing shows a price range, in s-card as three `s-card__price` spans
  ("$3.25", " to ", "$195.87"; "EUR 2,99", "bis", "EUR 7,99" on eBay.de): rejected, never
  stored at either end;
- a live auction shows its current bid as the price and its bid count in a row ("12 bids",
  "7 Gebote", on the Spanish UI "3 pujas" or "Oferta actual"): read as
  `ListingType.AUCTION`, a bid and not an asking price; on a sold page the same card is a
  finished auction, a sale;
- a sold "Best offer accepted" shows the asking price struck through; the price paid is
  not on the page, so no price is stored;
- the condition is in a subtitle row, not always the first one (eBay.de: "Neu | Privat");
- prices keep the currency shown: eBay.de's "EUR 17,72" is euros, a page converted for a
  visitor from Peru or Singapore shows "S/. 16.88" or "S$ 12.50" (services/scraper/money.py);
  the pipeline converts them at a dated rate, never reads them as dollars;
- an item page (`/itm/<id>`) is not a search page: refused with a `LayoutChanged`.

Pages are 1-3 MB: the tree is built by lxml directly (BeautifulSoup's tree over lxml was
four fifths of the parse time) from the results column on, and each card is read in one
walk. `bench/parse_speed.py` measures it.

Kept whole because it is one source as `sources/` defines them: the search-URL builders,
the parser of one page format (whose helpers serve the one card walk), the collector,
the parse-page entry and the `SOURCE` spec at the end.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from urllib.parse import parse_qs, urlencode, urlsplit

from lxml import html as lxml_html
from lxml.etree import ParserError, _Element

from services.scraper.collect import Crawl, paged_search
from services.scraper.errors import LayoutChanged
from services.scraper.listing import (
    Condition,
    ListingType,
    RawListing,
    condition_from_text,
    price_fields,
)
from services.scraper.money import Money, parse_shipping
from services.scraper.settings import ScraperSettings
from services.scraper.sources._common import decode_markup
from services.scraper.spec import PAGE_QUERY, ParsedPage, SourceSpec
from shared.sources.specs import EBAY

# The source of this adapter's listings and errors (the source's name too).
LISTING_SOURCE = "ebay"
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
_SHIPPING = re.compile(
    r"\b(?:delivery|shipping|postage|lieferung|versand|env[ií]o)\b", re.IGNORECASE
)
# A live auction's bid count: "1 bid", "12 bids · 1d 4h left"; eBay.de "7 Gebote", Spanish
# UI "3 pujas", "1 oferta" (a count: "o Mejor oferta", best offer, has none).
_BID_COUNT = re.compile(
    r"(?<![\w.,])\d[\d.,]*\s+(?:bids?|gebote?|pujas?|ofertas?)\b", re.IGNORECASE
)
# The label of an auction's price: "Current bid", Spanish UI "Oferta actual" / "Puja
# actual", eBay.de "Aktuelles Gebot". A time left alone is not read as an auction: a
# fixed-price listing ends too.
_CURRENT_BID = re.compile(
    r"\b(?:current bid|oferta actual|puja actual|aktuelles gebot)\b", re.IGNORECASE
)
# "Best offer accepted"; Spanish UI "Mejor oferta aceptada".
_BEST_OFFER_ACCEPTED = re.compile(
    r"\bbest offer accepted\b|\bmejor oferta aceptada\b", re.IGNORECASE
)
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
_S_ITEM_CLASSES = frozenset(
    {
        "s-item__title",
        "s-item__link",
        "s-item__price",
        "s-item__caption",
        "s-item__title--tagblock",
        "s-item__shipping",
        "s-item__logisticsCost",
        "SECONDARY_INFO",
        "s-item__detail",
        "s-item__bids",
    }
)
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
        results = _results(_tree(region))
        if results is not None and results.shown:
            return _read(results, url)
    # No cards in the cut (an empty search, or markup the cut does not fit): the whole
    # page tells "no results" from "layout changed".
    return parse_whole(markup, url)


def parse_whole(markup: str, url: str) -> list[RawListing]:
    """The listings of the whole page, without the cut: what `parse` must match."""
    root = _tree(markup)
    results = _results(root)
    no_results = next(_with_class(root, "srp-save-null-search"), None) is not None
    if results is None:
        if no_results:
            return []
        if _is_item_page(root):
            raise LayoutChanged(
                LISTING_SOURCE, url, "an item page (/itm/), not a search results page"
            )
        raise LayoutChanged(LISTING_SOURCE, url, "no ul.srp-results container")
    if not results.shown and not no_results:
        raise LayoutChanged(LISTING_SOURCE, url, "results container holds no s-card/s-item")
    return _read(results, url)


def _read(results: _Results, url: str) -> list[RawListing]:
    listings = _listings(results.cards, url)
    if results.shown and not listings:
        # Cards the parser cannot read (no item link, markup it does not know): a changed
        # layout, which must not pass for a search that found nothing.
        raise LayoutChanged(
            LISTING_SOURCE, url, f"{results.shown} result cards, none read as a listing"
        )
    return listings


def _is_item_page(root: _Element) -> bool:
    links = root.xpath('//head/link[@rel="canonical"]/@href')
    return any(_ITEM_ID.search(str(link)) for link in links)


def _tree(markup: str) -> _Element:
    try:
        return lxml_html.document_fromstring(markup)
    except ParserError:  # an empty document
        return lxml_html.document_fromstring("<html><body></body></html>")
    except ValueError:  # a str still carrying an XML encoding declaration
        return lxml_html.document_fromstring(markup.encode("utf-8"))


def _classes(element: _Element) -> list[str]:
    value = element.get("class")
    return value.split() if value else []


def _with_class(root: _Element, name: str, tag: str = "*") -> Iterator[_Element]:
    pattern = f'.//{tag}[contains(concat(" ", normalize-space(@class), " "), " {name} ")]'
    yield from root.xpath(pattern)


def _text(element: _Element | None, hidden: frozenset[str] = frozenset()) -> str:
    """Visible text with whitespace collapsed, leaving out subtrees with a `hidden` class
    ('' when the element is missing)."""
    if element is None:
        return ""
    parts: list[str] = []
    _gather(element, hidden, parts)
    return re.sub(r"\s+", " ", " ".join(parts)).strip()


def _gather(element: _Element, hidden: frozenset[str], parts: list[str]) -> None:
    if element.text and isinstance(element.tag, str):
        parts.append(element.text)
    for child in element:
        if isinstance(child.tag, str) and not hidden.intersection(_classes(child)):
            _gather(child, hidden, parts)
        if child.tail:
            parts.append(child.tail)


def _results_region(markup: str) -> str | None:
    """The page from the results column on, or None when its markers are missing.

    The header, filters and inline data above the results are most of a page; what
    follows the list is mostly scripts, cheap to parse, so the cut needs no end (and
    cannot end too early).
    """
    listing = _RESULTS_LIST.search(markup)
    if listing is None:
        return None
    column = _RESULTS_COLUMN.search(markup, 0, listing.start())
    return None if column is None else markup[column.start() :]


@dataclass(frozen=True)
class _Results:
    # The query's results, in page order.
    cards: list[_Element]
    # Cards in the list, results of a loosened query included.
    shown: int


def _results(root: _Element) -> _Results | None:
    listing = next(iter(_with_class(root, "srp-results", "ul")), None)
    if listing is None:
        return None
    # A rewrite answer ends the query's results only between cards: before the first card
    # (in the list or above it) it is a notice about the whole list, and hides nothing.
    rewritten = False
    cards: list[_Element] = []
    shown = 0
    for item in listing.iterchildren("li"):
        classes = _classes(item)
        if _is_rewrite(item):
            rewritten = shown > 0
        elif "s-card" in classes or "s-item" in classes:
            shown += 1
            if not rewritten:
                cards.append(item)
    return _Results(cards, shown)


def _is_rewrite(answer: _Element) -> bool:
    """An answer after which results are for a loosened query, not for the query."""
    if not isinstance(answer.tag, str) or _REWRITE_START not in _classes(answer):
        return False
    # The UK capture: "685 items found from eBay international sellers" opens a list of
    # exact matches from sellers abroad.
    return "international sellers" not in _text(answer).lower()


def _listings(cards: list[_Element], url: str) -> list[RawListing]:
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

    @property
    def bid_shown(self) -> bool:
        """A bid count or a current-bid label: the price is a live auction's bid."""
        texts = (*self.details, *self.price_texts)
        return any(_BID_COUNT.search(text) or _CURRENT_BID.search(text) for text in texts)


def _fields(card: _Element) -> _CardFields:
    if "s-card" in _classes(card):
        return _s_card_fields(card)
    return _s_item_fields(card)


def _s_card_fields(card: _Element) -> _CardFields:
    # One walk over the card instead of a query per field.
    found, href = _collect(card, _S_CARD_CLASSES)
    rows = [_text(row) for row in found.get("s-card__attribute-row", [])]
    shown, struck = _split_struck(found.get("s-card__price", []))
    titles = found.get("s-card__title")
    captions = found.get("s-card__caption")
    return _CardFields(
        title=_title(titles[0] if titles else None),
        href=href,
        price_texts=shown,
        struck_texts=struck,
        shipping_text=_shipping_row(rows),
        subtitles=[_text(s) for s in found.get("s-card__subtitle", [])],
        sold_text=_text(captions[0] if captions else None),
        details=rows,
    )


def _s_item_fields(card: _Element) -> _CardFields:
    found, _ = _collect(card, _S_ITEM_CLASSES)
    link = next((a for a in found.get("s-item__link", []) if a.tag == "a"), None)
    sold = found.get("s-item__caption") or [
        p for tag in found.get("s-item__title--tagblock", []) for p in _with_class(tag, "POSITIVE")
    ]
    shipping = found.get("s-item__shipping") or found.get("s-item__logisticsCost") or []
    shown, struck = _split_struck(found.get("s-item__price", []))
    titles = found.get("s-item__title")
    return _CardFields(
        title=_title(titles[0] if titles else None),
        href=None if link is None else link.get("href"),
        price_texts=shown,
        struck_texts=struck,
        shipping_text=_text(shipping[0]) if shipping else None,
        subtitles=[_text(s) for s in found.get("SECONDARY_INFO", [])],
        sold_text=_text(sold[0] if sold else None),
        details=[_text(d) for d in found.get("s-item__detail", []) + found.get("s-item__bids", [])],
    )


def _collect(
    card: _Element, wanted: frozenset[str]
) -> tuple[dict[str, list[_Element]], str | None]:
    """Descendants carrying each wanted class, in page order, and the first item link."""
    found: dict[str, list[_Element]] = {}
    href: str | None = None
    for element in card.iterdescendants():
        if not isinstance(element.tag, str):
            continue
        if href is None and element.tag == "a":
            link = element.get("href")
            href = link if link is not None and "/itm/" in link else None
        for name in wanted.intersection(_classes(element)):
            found.setdefault(name, []).append(element)
    return found, href


def _split_struck(prices: list[_Element]) -> tuple[list[str], list[str]]:
    shown: list[str] = []
    struck: list[str] = []
    for price in prices:
        (struck if _is_struck(price) else shown).append(_text(price))
    return shown, struck


def _is_struck(element: _Element) -> bool:
    return any(
        isinstance(inner.tag, str) and _STRUCK_CLASSES.intersection(_classes(inner))
        for inner in element.iter()
    )


def _title(element: _Element | None) -> str:
    return _text(element, _HIDDEN_TITLE_CLASSES)


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
    # A finished auction on a sold page is a sale; a live one's price is its current bid.
    if sold:
        listing_type = ListingType.SOLD
    elif fields.bid_shown:
        listing_type = ListingType.AUCTION
    else:
        listing_type = ListingType.ACTIVE
    # "Free delivery" on a page priced in pounds is free in pounds.
    currency = price.currency if price is not None else "USD"
    shipping_text = fields.shipping_text
    return RawListing(
        source=LISTING_SOURCE,
        listing_id=item_id,
        title=fields.title,
        url=f"{origin}/itm/{item_id}",
        price_text=price_text,
        price=price,
        price_issue=issue,
        shipping_text=shipping_text,
        shipping=parse_shipping(shipping_text, currency) if shipping_text else None,
        condition=_condition(fields.subtitles),
        listing_type=listing_type,
        sold_at=sold_at,
        quantity_available=_quantity(fields.details),
    )


def _price(fields: _CardFields, sold: bool) -> tuple[str | None, Money | None, str | None]:
    """(price text, price, issue): a range or an accepted offer gets no price."""
    amounts = [text for text in fields.price_texts if _DIGIT.search(text)]
    if len(amounts) > 1:
        # s-card shows a range as separate spans, the " to " ("bis") between them one of
        # them: the range is kept as shown.
        shown = [text for text in fields.price_texts if text]
        as_shown = " ".join(shown) if len(shown) > len(amounts) else " to ".join(amounts)
        return as_shown, None, "price_range"
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


# --- The source: what a run fetches, what parse-page reads, the spec -------------------


async def collect(crawl: Crawl, terms: list[str]) -> None:
    """Active and sold search pages per term (sold pages give the used-market price)."""
    base = crawl.settings.ebay_base_url
    for term in terms:
        for sold in (False, True):

            def url(page: int, term: str = term, sold: bool = sold) -> str:
                return search_url(base, term, sold=sold, page=page, us_buyer=True)

            await paged_search(crawl, url, parse, RESULTS_PER_PAGE, REQUEST_HEADERS)


def parse_page(
    body: bytes, url: str | None, settings: ScraperSettings, observed_at: datetime
) -> ParsedPage:
    """A saved search page. Without a URL the page's canonical search link stands for it
    (item links then point to its site), and "Sold <date>" captions make it a sold
    search, whose uncaptioned cards are sales too: eBay leaves the sold flag out of the
    canonical link."""
    # Decoded once: the canonical link, the read and a sold page's second read share it.
    markup = decode_markup(body)
    if url is not None:
        return ParsedPage(listings=parse(markup, url))
    page_url = canonical_search_url(markup) or search_url(settings.ebay_base_url, PAGE_QUERY)
    listings = parse(markup, page_url)
    if is_sold_search(page_url) or not any(item.sold_at for item in listings):
        return ParsedPage(listings=listings)
    return ParsedPage(listings=parse(markup, as_sold_search(page_url)))


SOURCE = SourceSpec(EBAY, collect, parse_page)
