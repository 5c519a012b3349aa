"""Money as Decimal plus an ISO currency code, parsed from text as shown on a page."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from price_parser import Price

# price-parser reports "$" for "US $", "C $", "AU $" and "MXN $" alike, and nothing for
# "S/ 16.88": the prefixes eBay shows, read before its symbol. None: the ISO code shown.
_PREFIXED_DOLLARS: tuple[tuple[re.Pattern[str], str | None], ...] = (
    (re.compile(r"\b(USD|CAD|AUD|NZD|HKD|SGD|MXN|TWD|ARS|CLP|COP|BRL)\s*\$\s*\d"), None),
    (re.compile(r"\bC\s*\$"), "CAD"),
    (re.compile(r"\bAU\s*\$"), "AUD"),
    (re.compile(r"\bNZ\s*\$"), "NZD"),
    (re.compile(r"\bHK\s*\$"), "HKD"),
    (re.compile(r"\bMX\s*\$"), "MXN"),
    (re.compile(r"\bR\s*\$\s*\d"), "BRL"),
    # eBay Singapore and a page converted for a visitor there: "S$ 1,299.00".
    (re.compile(r"(?<![A-Za-z])S\s*\$\s*\d"), "SGD"),
    # A page converted for a visitor from Peru: "S/. 16.88", "S/ 16.88" (sol).
    (re.compile(r"(?<![A-Za-z])S\s*/\s*\.?\s*\d"), "PEN"),
)
# Symbols as price-parser reports them (letters upper-cased); ambiguous ones ("kr", "Fr.")
# stay unknown.
_SYMBOLS = {
    "$": "USD",
    "US$": "USD",
    "£": "GBP",
    "€": "EUR",
    "¥": "JPY",
    "C$": "CAD",
    "A$": "AUD",
    "S$": "SGD",
    "S/.": "PEN",
    "R$": "BRL",
    "MX$": "MXN",
    "₹": "INR",
    "ZŁ": "PLN",
    "RM": "MYR",
    "₱": "PHP",
}
# "$6.79 to $9.48" (www.ebay.com), "EUR 2,99 bis EUR 7,99" (www.ebay.de), "US $2.00 a US $5.00"
# and "S/. 2.00 a S/. 5.00" (Spanish UI), dashes.
_RANGE = re.compile(
    r"\d(?:\s*[-–—]\s*|\s+(?:to|bis|a|à)\s+)(?:[A-Z]{0,3}\s*)?(?:[$£€¥]|/\s*\.?)?\s*\d"
)
_CURRENCY_CODE = re.compile(r"^[A-Z]{3}$")
# A symbol price-parser does not report ("S/ 16.88"): punctuation glued to a letter or
# currency sign right before the amount. Signs and "+" alone are not currencies.
_STRAY_SYMBOL = re.compile(r"(?:\w[^\w\s.,+\-]|[^\w\s.,+\-~(])\.?\s*\d")
UNKNOWN_CURRENCY = "unknown_currency"


@dataclass(frozen=True)
class Money:
    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        if not _CURRENCY_CODE.match(self.currency):
            raise ValueError(f"not an ISO 4217 currency code: {self.currency!r}")

    def __str__(self) -> str:
        return f"{self.amount} {self.currency}"


class PriceTextError(ValueError):
    """Text that shows a price we refuse to guess (a range, a currency we do not know) or
    none at all; `reason` is the code the pipeline counts."""

    def __init__(self, reason: str, text: str) -> None:
        super().__init__(f"{reason}: {text!r}")
        self.reason = reason


def is_price_range(text: str) -> bool:
    return bool(_RANGE.search(text))


def parse_money(text: str, default_currency: str = "USD") -> Money:
    """Parse '$1,299.99', 'US $749.99', 'C $1,000.00', '£899.00', 'S/. 16.88', 'S$ 12.50';
    refuse ranges and currency symbols we do not know ('kr 100'). `default_currency`
    applies only to a bare number."""
    if is_price_range(text):
        raise PriceTextError("price_range", text)
    price = Price.fromstring(text)
    if price.amount is None:
        raise PriceTextError("unparseable_price", text)
    code = _currency_code(text, price.currency, default_currency)
    if code is None:
        raise PriceTextError(UNKNOWN_CURRENCY, text)
    return Money(price.amount, code)


def parse_shipping(text: str, default_currency: str = "USD") -> Money | None:
    """'Free shipping' / 'Free delivery' / 'Gratis Lieferung' -> 0; '+$25.00 delivery' -> 25;
    else None (unknown)."""
    # "Gratis Lieferung", "Kostenloser Versand": eBay.de's free delivery.
    if re.search(r"\bfree\b|\bgratis\b|\bkostenlos", text, re.IGNORECASE):
        return Money(Decimal("0"), default_currency)
    try:
        return parse_money(text, default_currency)
    except PriceTextError:
        return None


def decimal_or_none(value: object) -> Decimal | None:
    """A JSON number or numeric string as Decimal; None for missing or non-numeric."""
    if value is None or isinstance(value, bool):
        return None
    try:
        return Decimal(str(value).strip())
    except InvalidOperation:
        return None


def _currency_code(text: str, symbol: str | None, default: str) -> str | None:
    """ISO code of the shown currency; None when it shows one we do not know.

    A localized page read as dollars would store a price off by the exchange rate, so an
    unknown symbol is never given the default currency.
    """
    for pattern, code in _PREFIXED_DOLLARS:
        found = pattern.search(text)
        if found:
            return code or found.group(1)
    if symbol is None:
        return None if _STRAY_SYMBOL.search(text) else default
    symbol = symbol.strip().upper() if symbol.isalpha() else symbol.strip()
    if _CURRENCY_CODE.match(symbol):
        return symbol
    return _SYMBOLS.get(symbol.replace(" ", ""))
