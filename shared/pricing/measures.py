"""What a stored price measures, and which prices may stand for the market.

Prices of the same card differ by up to 2x depending on what they measure: a completed
sale, the mean of the three cheapest asking prices, a median listing, a launch list
price, a marketplace median per GPU-hour. Every stored price says which it is, and the
ranking picks between them in a documented order (shared/pricing/market.py).
"""

from __future__ import annotations

# Purchase prices (price_observation.measure).
SALE = "sale"  # one completed sale (eBay sold listing)
SOLD_AVERAGE = "sold_average"  # mean of the completed sales of a period
ASK = "ask"  # one asking price: an active listing, a retailer's offer, a Buy Box price
CHEAPEST_ASKS_MEAN = "cheapest_asks_mean"  # mean of the few cheapest asking prices
MEDIAN_ASK = "median_ask"  # median asking price of a period
LIST_PRICE = "list_price"  # launch MSRP or a vendor's list price
QUOTE = "quote"  # a price posted to us (vendor quote, manual entry): never the market
# A live auction's current bid: what the auction stands at, not what the card sells for.
# Stored apart; never a market price, never fires price_below (a finished auction seen on
# a sold page is a SALE).
BID = "bid"

SALE_MEASURES = frozenset({SALE, SOLD_AVERAGE})

# Cloud prices (cloud_offer.measure), per instance-hour as listed.
CLOUD_LIST = "list"  # a provider's price list (on-demand and spot list prices)
MARKETPLACE_MEDIAN = "marketplace_median"  # median over a marketplace's offers
SEGMENT_MEDIAN = "segment_median"  # median of provider medians in a market segment
MARKETPLACE_OFFER = "offer"  # one marketplace host's offer
PROVIDER_CHEAPEST = "provider_cheapest"  # the cheapest offer a provider lists for a GPU


# Kinds (price_observation.kind) of prices posted to us rather than observed on a market.
QUOTE_KINDS = frozenset({"manual"})

DESCRIPTIONS = {
    SALE: "completed sale",
    SOLD_AVERAGE: "average sold price",
    ASK: "asking price",
    CHEAPEST_ASKS_MEAN: "mean of the cheapest asking prices",
    MEDIAN_ASK: "median asking price",
    LIST_PRICE: "list price (MSRP)",
    QUOTE: "posted quote",
    BID: "current auction bid",
    CLOUD_LIST: "list price",
    MARKETPLACE_MEDIAN: "marketplace median",
    SEGMENT_MEDIAN: "median of provider prices in a segment",
    MARKETPLACE_OFFER: "marketplace offer",
    PROVIDER_CHEAPEST: "cheapest listed offer of a provider",
}


def describe(measure: str) -> str:
    return DESCRIPTIONS.get(measure, measure)


# Measures that never stand for a market price.
NOT_MARKET_MEASURES = frozenset({BID, QUOTE})


def is_quote(kind: str) -> bool:
    return kind in QUOTE_KINDS
