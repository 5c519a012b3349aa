"""Helpers shared by the adapters: HTML soup, JSON decoding, JSON-LD products and offers,
the parse-page entry of a search source."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from bs4 import BeautifulSoup, Tag
from bs4.dammit import UnicodeDammit

from services.scraper.errors import ParseError
from services.scraper.listing import Condition, RawListing
from services.scraper.money import Money, is_price_range
from services.scraper.settings import ScraperSettings
from services.scraper.spec import PAGE_QUERY, PageParser, ParsedPage

JsonObject = dict[str, Any]

_SCHEMA_CONDITIONS = {
    "newcondition": Condition.NEW,
    "usedcondition": Condition.USED,
    "refurbishedcondition": Condition.REFURBISHED,
    "damagedcondition": Condition.FOR_PARTS,
}


def soup_of(body: str | bytes) -> BeautifulSoup:
    # html.parser: no lxml dependency, and lenient with the truncated pages sites serve.
    return BeautifulSoup(body, "html.parser")


def decode_markup(body: str | bytes) -> str:
    """The page as text, decoded as BeautifulSoup would (declared charset, else sniffed)."""
    if isinstance(body, str):
        return body
    return UnicodeDammit(body, is_html=True).unicode_markup or body.decode("utf-8", "replace")


def text_of(element: Tag | None) -> str:
    """Visible text with whitespace collapsed ('' when the element is missing)."""
    if element is None:
        return ""
    return re.sub(r"\s+", " ", element.get_text(" ")).strip()


def class_list(element: Tag) -> list[str]:
    classes = element.get("class")
    if isinstance(classes, str):
        return classes.split()
    return list(classes or [])


def href_of(element: Tag | None) -> str | None:
    if element is None:
        return None
    href = element.get("href")
    return href if isinstance(href, str) else None


def load_json(body: str | bytes, source: str, url: str) -> Any:
    """JSON with numbers as Decimal: prices never pass through float."""
    try:
        return json.loads(body, parse_float=Decimal)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ParseError(source, url, f"invalid JSON: {exc}") from exc


def json_ld_nodes(soup: BeautifulSoup) -> list[JsonObject]:
    nodes: list[JsonObject] = []
    for script in soup.find_all("script", attrs={"type": "application/ld+json"}):
        try:
            data = json.loads(script.get_text(), parse_float=Decimal)
        except json.JSONDecodeError:
            continue  # sites ship a broken block beside good ones; the CSS fallback covers it
        nodes.extend(_flatten(data))
    return nodes


def _flatten(data: Any) -> Iterator[JsonObject]:
    if isinstance(data, list):
        for item in data:
            yield from _flatten(item)
    elif isinstance(data, dict):
        if "@graph" in data:
            yield from _flatten(data["@graph"])
        else:
            yield data


def has_type(node: JsonObject, name: str) -> bool:
    kind = node.get("@type")
    return kind == name or (isinstance(kind, list) and name in kind)


def json_ld_products(nodes: list[JsonObject]) -> list[JsonObject]:
    """Product nodes, top level or inside an ItemList's ListItems, in page order."""
    products: list[JsonObject] = []
    for node in nodes:
        if has_type(node, "Product"):
            products.append(node)
        elif has_type(node, "ItemList"):
            products.extend(_list_products(node))
    return products


def _list_products(item_list: JsonObject) -> Iterator[JsonObject]:
    for element in item_list.get("itemListElement") or []:
        if not isinstance(element, dict):
            continue
        item = element.get("item", element)
        if isinstance(item, dict) and has_type(item, "Product"):
            yield item


@dataclass(frozen=True)
class OfferFields:
    price_text: str | None
    price: Money | None
    price_issue: str | None
    condition: Condition | None
    in_stock: bool | None


def offer_fields(product: JsonObject) -> OfferFields:
    """Price, condition and stock from a Product's Offer or AggregateOffer."""
    offers = product.get("offers")
    offer = offers[0] if isinstance(offers, list) and offers else offers
    if not isinstance(offer, dict):
        return OfferFields(None, None, "missing_price", None, None)
    condition = schema_condition(offer.get("itemCondition") or product.get("itemCondition"))
    in_stock = _in_stock(offer.get("availability"))
    text, price, issue = _offer_price(offer)
    return OfferFields(text, price, issue, condition, in_stock)


def _offer_price(offer: JsonObject) -> tuple[str | None, Money | None, str | None]:
    currency = str(offer.get("priceCurrency") or "USD")
    if has_type(offer, "AggregateOffer"):
        low, high = offer.get("lowPrice"), offer.get("highPrice")
        if high is not None and low is not None and str(low) != str(high):
            return f"{low} to {high} {currency}", None, "price_range"
        value = low if low is not None else offer.get("price")
    else:
        value = offer.get("price")
    return _money_from_value(value, currency)


def _money_from_value(value: Any, currency: str) -> tuple[str | None, Money | None, str | None]:
    if value is None or value == "":
        return None, None, "missing_price"
    text = f"{value} {currency}"
    if is_price_range(str(value)):
        return text, None, "price_range"
    try:
        amount = Decimal(str(value).replace(",", ""))
        return text, Money(amount, currency.upper()), None
    except (ArithmeticError, ValueError):
        return text, None, "unparseable_price"


def schema_condition(value: Any) -> Condition | None:
    """'https://schema.org/UsedCondition' (any scheme or bare name) -> Condition."""
    if not isinstance(value, str):
        return None
    return _SCHEMA_CONDITIONS.get(value.rsplit("/", 1)[-1].lower())


def _in_stock(value: Any) -> bool | None:
    if not isinstance(value, str):
        return None
    name = value.rsplit("/", 1)[-1].lower()
    if name in {"instock", "limitedavailability", "onlineonly", "instoreonly"}:
        return True
    if name in {"outofstock", "soldout", "discontinued"}:
        return False
    return None  # PreOrder, BackOrder: buyable later, not a stock statement


def saved_search_page(
    base_url: Callable[[ScraperSettings], str],
    search_url: Callable[[str, str], str],
    parse: Callable[[bytes, str], list[RawListing]],
) -> PageParser:
    """The `parse-page` entry of a search source: a saved results page read by the
    adapter's parser, its URL defaulting to a search for PAGE_QUERY on the configured
    site (`search_url(base_url(settings), PAGE_QUERY)`)."""

    def parse_page(
        body: bytes, url: str | None, settings: ScraperSettings, observed_at: datetime
    ) -> ParsedPage:
        return ParsedPage(listings=parse(body, url or search_url(base_url(settings), PAGE_QUERY)))

    return parse_page
