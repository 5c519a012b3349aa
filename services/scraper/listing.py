"""What source adapters produce: raw marketplace listings and cloud instance prices."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from services.scraper.money import Money, PriceTextError, parse_money


class Condition(StrEnum):
    NEW = "new"
    USED = "used"
    REFURBISHED = "refurbished"
    OPEN_BOX = "open-box"
    # eBay's "For parts or not working": a GPU price it is not.
    FOR_PARTS = "for-parts"
    UNKNOWN = "unknown"


class ListingType(StrEnum):
    ACTIVE = "active"
    SOLD = "sold"
    # A live auction: its price is the current bid, which the end of the auction will
    # raise; stored apart (measure "bid"), never an asking price nor a sale.
    AUCTION = "auction"


@dataclass(frozen=True)
class RawListing:
    """One listing as shown by a source, before matching and validation.

    `price_text` is the raw string as shown; `price` is its parse, or None with
    `price_issue` naming why (e.g. "price_range": a range is rejected, never guessed).
    `shipping` is None when the page shows no shipping cost, Money(0) when it says free.
    """

    source: str
    listing_id: str
    title: str
    url: str
    price_text: str | None
    price: Money | None
    price_issue: str | None = None
    shipping_text: str | None = None
    shipping: Money | None = None
    condition: Condition = Condition.UNKNOWN
    listing_type: ListingType = ListingType.ACTIVE
    sold_at: date | None = None
    quantity_available: int | None = None
    # None when the page does not say; retailers mark sold-out items.
    in_stock: bool | None = None


@dataclass(frozen=True)
class CloudListing:
    """An instance type's hourly price at one provider and region; spot kept apart."""

    provider: str
    instance_type: str
    gpu_name: str
    gpu_count: int
    region: str
    on_demand_usd_per_hour: Decimal | None
    spot_usd_per_hour: Decimal | None
    observed_at: datetime
    # Marketplace offer id (vast.ai); None for catalogue providers.
    offer_id: str | None = None
    # None when the provider does not say whether capacity is available.
    capacity_available: bool | None = None

    def __post_init__(self) -> None:
        if self.gpu_count < 1:
            raise ValueError(f"gpu_count must be >= 1, got {self.gpu_count}")

    @property
    def on_demand_usd_per_gpu_hour(self) -> Decimal | None:
        return _per_gpu(self.on_demand_usd_per_hour, self.gpu_count)

    @property
    def spot_usd_per_gpu_hour(self) -> Decimal | None:
        return _per_gpu(self.spot_usd_per_hour, self.gpu_count)


def _per_gpu(price: Decimal | None, count: int) -> Decimal | None:
    return None if price is None else price / count


def price_fields(price_text: str | None, currency: str = "USD") -> tuple[Money | None, str | None]:
    """(price, price_issue) from the raw text; an issue instead of a guess."""
    if price_text is None or not price_text.strip():
        return None, "missing_price"
    try:
        return parse_money(price_text, currency), None
    except PriceTextError as exc:
        return None, exc.reason


# eBay.de's labels beside the English ones: "Neu", "Gebraucht", "Generalüberholt",
# "Als Ersatzteil / defekt", "Neu – Sonstige (siehe Artikelbeschreibung)"; the Spanish
# UI's: "Totalmente nuevo", "Nuevo (otro)", "De segunda mano", "Usado", "Reacondicionado",
# "Para piezas o no funciona".
_CONDITION_WORDS = (
    (
        re.compile(
            r"for parts|not working|broken|faulty|as[- ]is|defekt|ersatzteil|para piezas"
            r"|no funciona",
            re.I,
        ),
        Condition.FOR_PARTS,
    ),
    # eBay condition 1500 "New (Other)" / "New other (see details)": unused but opened or
    # without its packaging, sold as open box; it must not read as new.
    (
        re.compile(
            r"open[- ]box|\bnew\s*\(?\s*other\b|\bneu\s*[-–—:]\s*sonstige"
            r"|\bnuevo\s*[(:]\s*otro|caja abierta",
            re.I,
        ),
        Condition.OPEN_BOX,
    ),
    (re.compile(r"refurb|renewed|überholt|reacondicionad|restaurad", re.I), Condition.REFURBISHED),
    (
        re.compile(r"pre-?owned|\bused\b|\bgebraucht|\busad[oa]\b|segunda mano", re.I),
        Condition.USED,
    ),
    (re.compile(r"brand new|\bnew\b|\bneu\b|\bnuev[oa]\b", re.I), Condition.NEW),
)


def condition_from_text(text: str | None) -> Condition:
    """eBay subtitles ('Pre-Owned', 'Brand New', 'Parts Only'), retailer title words."""
    if not text:
        return Condition.UNKNOWN
    if re.search(r"parts only", text, re.I):
        return Condition.FOR_PARTS
    for pattern, condition in _CONDITION_WORDS:
        if pattern.search(text):
            return condition
    return Condition.UNKNOWN
