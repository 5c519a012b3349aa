"""eBay Browse API: `item_summary/search` JSON and the OAuth client-credentials token.

The token is an "application access token": POST to /identity/v1/oauth2/token with
basic auth (client id:secret) and a form body; it lives `expires_in` seconds (7200).

Prices, as real search responses show them:

- `buyingOptions` ["AUCTION"] alone: `price` is the current bid, which the auction's end
  will raise; not a price anyone can buy at, so it is refused ("auction_bid"). With
  "FIXED_PRICE" beside "AUCTION" (Buy It Now on an auction) `price` is the Buy It Now
  price and `currentBidPrice` the bid: the listing is priced at Buy It Now.
- A seller abroad lists in their own currency: `price` is eBay's conversion to the
  marketplace currency, with `convertedFromValue` / `convertedFromCurrency` holding the
  seller's price. The listing is kept in the seller's currency, so the pipeline refuses it
  like any non-USD price: no FX conversion is done here, and eBay's rate of the day is not
  the seller's price.
- `conditionId` decides the condition: 1500 is open box (not new), 2000/2010/2020/2030/2500
  refurbished grades, 2750-6000 used grades, 7000 for parts.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from services.scraper.collect import Crawl, next_link
from services.scraper.errors import LayoutChanged, ParseError, SourceNotConfigured
from services.scraper.fetch import Fetcher, utc_now
from services.scraper.listing import Condition, ListingType, RawListing, condition_from_text
from services.scraper.money import Money, decimal_or_none, is_price_range
from services.scraper.settings import ScraperSettings
from services.scraper.sources._common import JsonObject, load_json, saved_search_page
from services.scraper.sources.ebay import GPU_CATEGORY_ID
from services.scraper.spec import SourceSpec
from shared.sources.specs import EBAY_BROWSE

# Same source name and listing ids (legacy item ids) as the HTML adapter, so a batch
# mixing both dedupes across them.
LISTING_SOURCE = "ebay"
SEARCH_PATH = "/buy/browse/v1/item_summary/search"
TOKEN_PATH = "/identity/v1/oauth2/token"
PUBLIC_SCOPE = "https://api.ebay.com/oauth/api_scope"
MAX_LIMIT = 200

# eBay condition ids: https://developer.ebay.com/api-docs/sell/static/metadata/condition-id-values.html
_CONDITION_IDS = {
    "1000": Condition.NEW,
    "1500": Condition.OPEN_BOX,
    # "New with defects": a discount for a flaw, not a new card's price.
    "1750": Condition.USED,
    "2000": Condition.REFURBISHED,  # Certified - Refurbished
    "2010": Condition.REFURBISHED,  # Excellent - Refurbished
    "2020": Condition.REFURBISHED,  # Very Good - Refurbished
    "2030": Condition.REFURBISHED,  # Good - Refurbished
    "2500": Condition.REFURBISHED,  # Seller refurbished
    "2750": Condition.USED,  # Like New
    "2990": Condition.USED,  # Pre-owned - Excellent
    "3000": Condition.USED,
    "3010": Condition.USED,  # Pre-owned - Fair
    "4000": Condition.USED,  # Very Good
    "5000": Condition.USED,  # Good
    "6000": Condition.USED,  # Acceptable
    "7000": Condition.FOR_PARTS,
}
FIXED_PRICE = "FIXED_PRICE"
AUCTION = "AUCTION"
# Price issues this adapter adds; the pipeline counts each as "normalize.<issue>".
AUCTION_BID = "auction_bid"
INVALID_CURRENCY = "invalid_currency"
_CURRENCY_CODE = re.compile(r"^[A-Z]{3}$")


@dataclass(frozen=True)
class TokenRequest:
    url: str
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True)
class AccessToken:
    value: str
    expires_at: datetime

    def is_fresh(self, now: datetime, margin: timedelta = timedelta(minutes=5)) -> bool:
        return now + margin < self.expires_at


def search_url(
    api_base_url: str,
    query: str,
    *,
    offset: int = 0,
    limit: int = MAX_LIMIT,
    category_id: str = GPU_CATEGORY_ID,
) -> str:
    params = {"q": query, "category_ids": category_id, "limit": str(limit), "offset": str(offset)}
    return f"{api_base_url.rstrip('/')}{SEARCH_PATH}?{urlencode(params)}"


def search_headers(token: AccessToken, marketplace_id: str = "EBAY_US") -> dict[str, str]:
    return {
        "Authorization": f"Bearer {token.value}",
        "X-EBAY-C-MARKETPLACE-ID": marketplace_id,
        "Accept": "application/json",
    }


def build_token_request(
    api_base_url: str, client_id: str, client_secret: str, scope: str = PUBLIC_SCOPE
) -> TokenRequest:
    credentials = base64.b64encode(f"{client_id}:{client_secret}".encode()).decode()
    return TokenRequest(
        url=f"{api_base_url.rstrip('/')}{TOKEN_PATH}",
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Authorization": f"Basic {credentials}",
        },
        body=urlencode({"grant_type": "client_credentials", "scope": scope}).encode(),
    )


def parse_token_response(body: str | bytes, now: datetime) -> AccessToken:
    data = load_json(body, LISTING_SOURCE, TOKEN_PATH)
    if not isinstance(data, dict) or not isinstance(data.get("access_token"), str):
        raise ParseError(LISTING_SOURCE, TOKEN_PATH, "token response without access_token")
    lifetime = int(data.get("expires_in") or 0)
    return AccessToken(data["access_token"], now + timedelta(seconds=lifetime))


async def fetch_token(
    fetcher: Fetcher, settings: ScraperSettings, now: Callable[[], datetime] = utc_now
) -> AccessToken:
    secret = settings.ebay_client_secret.get_secret_value()
    if not settings.ebay_client_id or not secret:
        raise ValueError("GPU_ADVISOR_SCRAPER_EBAY_CLIENT_ID / _CLIENT_SECRET are not set")
    request = build_token_request(settings.ebay_api_base_url, settings.ebay_client_id, secret)
    result = await fetcher.fetch(
        request.url,
        method="POST",
        headers=request.headers,
        content=request.body,
        check_robots=False,
        conditional=False,
    )
    return parse_token_response(result.body, now())


def parse(body: str | bytes, url: str) -> list[RawListing]:
    data = load_json(body, LISTING_SOURCE, url)
    if not isinstance(data, dict):
        raise LayoutChanged(LISTING_SOURCE, url, "response is not a JSON object")
    if "errors" in data:
        raise ParseError(LISTING_SOURCE, url, f"API errors: {data['errors']!r}")
    if "total" not in data:
        raise LayoutChanged(LISTING_SOURCE, url, "no 'total' in search response")
    # With zero results eBay omits itemSummaries altogether.
    summaries = data.get("itemSummaries") or []
    if data["total"] and not summaries and int(data.get("offset") or 0) < int(data["total"]):
        raise LayoutChanged(LISTING_SOURCE, url, "total > 0 but no itemSummaries")
    return [_listing(summary) for summary in summaries if isinstance(summary, dict)]


def next_page_url(body: str | bytes, url: str) -> str | None:
    data = load_json(body, LISTING_SOURCE, url)
    following = data.get("next") if isinstance(data, dict) else None
    return following if isinstance(following, str) else None


def _listing(summary: JsonObject) -> RawListing:
    price_text, price, issue = _price(summary)
    shipping = _cheapest_shipping(summary.get("shippingOptions"))
    item_id = _listing_id(summary)
    return RawListing(
        source=LISTING_SOURCE,
        listing_id=item_id,
        title=str(summary.get("title", "")).strip(),
        url=str(summary.get("itemWebUrl") or f"https://www.ebay.com/itm/{item_id}"),
        price_text=price_text,
        price=price,
        price_issue=issue,
        shipping_text=None if shipping is None else str(shipping),
        shipping=shipping,
        condition=_condition(summary),
        listing_type=ListingType.ACTIVE,
    )


def _listing_id(summary: JsonObject) -> str:
    # itemId is "v1|<legacy id>|<variation id>"; variation 0 means no variations.
    parts = str(summary.get("itemId", "")).split("|")
    legacy = str(summary.get("legacyItemId") or (parts[1] if len(parts) > 1 else parts[0]))
    variation = parts[2] if len(parts) > 2 else "0"
    return legacy if variation in {"", "0"} else f"{legacy}/{variation}"


def _price(summary: JsonObject) -> tuple[str | None, Money | None, str | None]:
    price = summary.get("price")
    if not isinstance(price, dict) or price.get("value") in (None, ""):
        return None, None, "missing_price"
    text = f"{price.get('value')} {price.get('currency')}"
    original = _converted_from(price)
    if original is not None:
        text = f"{text} (converted from {original[0]} {original[1]})"
    if _is_auction_only(summary):
        return f"{text} current bid", None, AUCTION_BID
    value, currency = (
        original if original is not None else (price.get("value"), price.get("currency"))
    )
    return _money(value, currency, text)


def _converted_from(amount: JsonObject) -> tuple[Any, Any] | None:
    """The seller's own amount and currency when eBay converted it, else None."""
    value, currency = amount.get("convertedFromValue"), amount.get("convertedFromCurrency")
    if value is None or currency is None or currency == amount.get("currency"):
        return None
    return value, currency


def _is_auction_only(summary: JsonObject) -> bool:
    options = summary.get("buyingOptions")
    if not isinstance(options, list):
        return False
    return AUCTION in options and FIXED_PRICE not in options


def _money(value: Any, currency: Any, text: str) -> tuple[str | None, Money | None, str | None]:
    if value is None or value == "":
        return None, None, "missing_price"
    if isinstance(value, str) and is_price_range(value):
        return text, None, "price_range"
    amount = decimal_or_none(value)
    if amount is None or not amount.is_finite():
        return text, None, "unparseable_price"
    # A missing or odd code is not read as dollars: that would be a guess.
    if not isinstance(currency, str) or not _CURRENCY_CODE.match(currency):
        return text, None, INVALID_CURRENCY
    return text, Money(amount, currency), None


def _cheapest_shipping(options: Any) -> Money | None:
    """Lowest fixed cost among the options, in the seller's currency (like the price);
    None when costs are calculated at checkout or none can be read."""
    costs: list[Money] = []
    for option in options or []:
        cost = option.get("shippingCost") if isinstance(option, dict) else None
        if not isinstance(cost, dict):
            continue
        value, currency = _converted_from(cost) or (cost.get("value"), cost.get("currency"))
        _, money, issue = _money(value, currency, "")
        if money is not None and issue is None:
            costs.append(money)
    return min(costs, key=lambda money: money.amount, default=None)


def _condition(summary: JsonObject) -> Condition:
    by_id = _CONDITION_IDS.get(str(summary.get("conditionId", "")))
    return by_id or condition_from_text(str(summary.get("condition", "")))


# --- The source: what a run fetches, what parse-page reads, the spec -------------------


async def collect(crawl: Crawl, terms: list[str]) -> None:
    """Each term's result pages, following the API's `next` links up to `max_pages`."""
    settings = crawl.settings
    if not settings.ebay_client_id or not settings.ebay_client_secret.get_secret_value():
        raise SourceNotConfigured(crawl.source, "GPU_ADVISOR_SCRAPER_EBAY_CLIENT_ID/_SECRET")
    token = await fetch_token(crawl.fetcher, settings)
    headers = search_headers(token, settings.ebay_marketplace_id)
    for term in terms:
        url: str | None = search_url(settings.ebay_api_base_url, term)
        for _ in range(settings.max_pages):
            if url is None:
                break
            # An authenticated API, not a crawl of the site: robots.txt does not apply.
            result = await crawl.get(url, headers=headers, check_robots=False)
            crawl.harvest.listings.extend(parse(result.body, url))
            url = next_link(crawl, next_page_url(result.body, url), settings.ebay_api_base_url)
        if url is not None:
            crawl.harvest.capped = True


# A saved search response; its URL defaults to a search of the configured API.
parse_page = saved_search_page(lambda s: s.ebay_api_base_url, search_url, parse)


SOURCE = SourceSpec(EBAY_BROWSE, collect, parse_page)
