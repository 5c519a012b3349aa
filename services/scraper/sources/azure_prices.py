"""Azure Retail Prices API (https://prices.azure.com/api/retail/prices), GPU VMs.

Each `Items[]` row is one meter: an `armSkuName` in an `armRegionName`, priced in
`retailPrice` per `unitOfMeasure` ("1 Hour"). On-demand and spot are separate rows
(the spot row's `skuName` ends in " Spot"; older "Low Priority" rows are the Batch
equivalent, used only when no Spot row exists). Windows rows have "Windows" in
`productName` and are skipped: the GPU advisor prices Linux. Pages chain through
`NextPageLink` (100 items per page); the last page has it null.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from services.scraper.errors import LayoutChanged
from services.scraper.listing import CloudListing
from services.scraper.money import decimal_or_none
from services.scraper.sources._cloud import observed
from services.scraper.sources._common import JsonObject, load_json

PROVIDER = "azure"
API_VERSION = "2023-01-01-preview"
GPU_FILTER = (
    "serviceName eq 'Virtual Machines' and priceType eq 'Consumption' "
    "and startswith(armSkuName, 'Standard_N')"
)

# armSkuName -> (GPU, whole GPUs per VM). Fractional-GPU sizes (NVadsA10 v5 below
# NV36, NGads V620 partitions) are left out on purpose: a sixth of an A10 is not
# comparable per GPU-hour. Source: learn.microsoft.com/azure/virtual-machines/sizes.
GPU_SKUS: dict[str, tuple[str, int]] = {
    "Standard_NC6s_v3": ("Tesla V100 16GB", 1),
    "Standard_NC12s_v3": ("Tesla V100 16GB", 2),
    "Standard_NC24s_v3": ("Tesla V100 16GB", 4),
    "Standard_NC24rs_v3": ("Tesla V100 16GB", 4),
    "Standard_ND40rs_v2": ("Tesla V100 32GB SXM2", 8),
    "Standard_NC4as_T4_v3": ("Tesla T4", 1),
    "Standard_NC8as_T4_v3": ("Tesla T4", 1),
    "Standard_NC16as_T4_v3": ("Tesla T4", 1),
    "Standard_NC64as_T4_v3": ("Tesla T4", 4),
    "Standard_NC24ads_A100_v4": ("A100 80GB PCIe", 1),
    "Standard_NC48ads_A100_v4": ("A100 80GB PCIe", 2),
    "Standard_NC96ads_A100_v4": ("A100 80GB PCIe", 4),
    "Standard_ND96asr_v4": ("A100 40GB SXM4", 8),
    "Standard_ND96amsr_A100_v4": ("A100 80GB SXM4", 8),
    "Standard_NC40ads_H100_v5": ("H100 NVL", 1),
    "Standard_NC80adis_H100_v5": ("H100 NVL", 2),
    "Standard_ND96isr_H100_v5": ("H100 80GB SXM5", 8),
    "Standard_ND96isr_H200_v5": ("H200 141GB SXM5", 8),
    "Standard_ND96isr_MI300X_v5": ("Instinct MI300X", 8),
    "Standard_NV36ads_A10_v5": ("A10", 1),
    "Standard_NV72ads_A10_v5": ("A10", 2),
}


@dataclass
class _Prices:
    on_demand: Decimal | None = None
    spot: Decimal | None = None
    low_priority: Decimal | None = None


def prices_url(base_url: str, *, currency: str = "USD", odata_filter: str = GPU_FILTER) -> str:
    params = {"api-version": API_VERSION, "currencyCode": currency, "$filter": odata_filter}
    return f"{base_url.rstrip('/')}/api/retail/prices?{urlencode(params)}"


def next_page_url(body: str | bytes, url: str) -> str | None:
    data = load_json(body, PROVIDER, url)
    link = data.get("NextPageLink") if isinstance(data, dict) else None
    return link if isinstance(link, str) and link else None


def parse(
    body: str | bytes, url: str, *, observed_at: datetime | None = None
) -> list[CloudListing]:
    items = _items(load_json(body, PROVIDER, url), url)
    prices: dict[tuple[str, str], _Prices] = {}
    for item in items:
        _collect(item, prices)
    when = observed(observed_at)
    return [
        _listing(sku, region, found, when)
        for (sku, region), found in sorted(prices.items())
        if any(p is not None for p in (found.on_demand, found.spot, found.low_priority))
    ]


def _items(data: Any, url: str) -> list[JsonObject]:
    if not isinstance(data, dict) or not isinstance(data.get("Items"), list):
        raise LayoutChanged(PROVIDER, url, "no Items[] array")
    return [item for item in data["Items"] if isinstance(item, dict)]


def _collect(item: JsonObject, prices: dict[tuple[str, str], _Prices]) -> None:
    sku = str(item.get("armSkuName", ""))
    price = decimal_or_none(item.get("retailPrice"))
    if sku not in GPU_SKUS or price is None or not _is_linux_hourly_usd(item):
        return
    slot = prices.setdefault((sku, str(item.get("armRegionName", ""))), _Prices())
    sku_name = str(item.get("skuName", ""))
    if sku_name.endswith(" Spot"):
        slot.spot = price
    elif sku_name.endswith(" Low Priority"):
        slot.low_priority = price
    else:
        slot.on_demand = price


def _is_linux_hourly_usd(item: JsonObject) -> bool:
    return (
        item.get("type") == "Consumption"
        and item.get("unitOfMeasure") == "1 Hour"
        and item.get("currencyCode", "USD") == "USD"
        and "Windows" not in str(item.get("productName", ""))
        # Some meters repeat in a secondary region with isPrimaryMeterRegion false.
        and item.get("isPrimaryMeterRegion", True) is not False
    )


def _listing(sku: str, region: str, prices: _Prices, when: datetime) -> CloudListing:
    gpu_name, gpu_count = GPU_SKUS[sku]
    return CloudListing(
        provider=PROVIDER,
        instance_type=sku,
        gpu_name=gpu_name,
        gpu_count=gpu_count,
        region=region,
        on_demand_usd_per_hour=prices.on_demand,
        spot_usd_per_hour=prices.spot if prices.spot is not None else prices.low_priority,
        observed_at=when,
    )
