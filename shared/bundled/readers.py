"""The bundled price readers in one place: list prices, Amazon, eBay, GPU Poet and cloud data
(provider lists, medians, the providers' cheapest offers and vast.ai's daily medians).

Every reader is lazy: nothing is read until it is iterated. The matching `*_skips()` functions
count, per reason, the source rows that gave no record.
"""

from shared.bundled.amazon import amazon_skips, iter_amazon_prices
from shared.bundled.cloud import cloud_skips, iter_cloud_offers
from shared.bundled.cloud_index import cloud_median_skips, iter_cloud_medians
from shared.bundled.ebay import ebay_skips, iter_ebay_monthly_prices
from shared.bundled.ebay_snapshots import iter_ebay_snapshot_prices
from shared.bundled.gpupoet import gpupoet_skips, iter_gpupoet_list_prices, iter_gpupoet_prices
from shared.bundled.msrp import iter_msrp_prices
from shared.bundled.price_feed import feed_skips, iter_feed_offers
from shared.bundled.vast_daily import iter_vast_daily, vast_daily_skips

__all__ = [
    "amazon_skips",
    "cloud_median_skips",
    "cloud_skips",
    "ebay_skips",
    "feed_skips",
    "gpupoet_skips",
    "iter_amazon_prices",
    "iter_cloud_medians",
    "iter_cloud_offers",
    "iter_ebay_monthly_prices",
    "iter_ebay_snapshot_prices",
    "iter_feed_offers",
    "iter_gpupoet_list_prices",
    "iter_gpupoet_prices",
    "iter_msrp_prices",
    "iter_vast_daily",
    "vast_daily_skips",
]
