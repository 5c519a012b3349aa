"""Azure Retail Prices API (https://prices.azure.com/api/retail/prices), GPU VMs.

Each `Items[]` row is one meter: an `armSkuName` in an `armRegionName`, priced in
`retailPrice` per `unitOfMeasure` ("1 Hour"). On-demand and spot are separate rows
(the spot row's `skuName` ends in " Spot"; older "Low Priority" rows are the Batch
equivalent, used only when no Spot row exists). Windows rows have "Windows" in
`productName` and are skipped: the GPU advisor prices Linux. Pages chain through
`NextPageLink` (100 items per page); the last page has it null.

Which GPU, and how many per VM
------------------------------
`GPU_SKUS` lists reviewed sizes. Any other N-series SKU is read from its name:
"Standard_ND96ams_A100_v4" is series "ND", 96 vCPUs, feature letters "ams", GPU token
"A100", version "v4". The GPU token becomes words the title matcher knows (see
`_TOKEN_WORDS`, `_BOARD_WORDS`); the count comes from a family rule (`_family_count`).
A GPU SKU that still lacks a GPU or a count is returned as a `SkippedCloudListing`, so
the run counts it and names it in its summary; nothing GPU-looking is dropped unseen.
Only `_FRACTIONAL_SKUS` (a reviewed list of GPU partitions) and non-GPU N-series
families (NP: FPGAs) are left out here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from services.scraper.cloud_match import GPU_COUNT_UNKNOWN, UNMAPPED_GPU, SkippedCloudListing
from services.scraper.collect import Crawl, next_link
from services.scraper.errors import LayoutChanged
from services.scraper.listing import CloudListing
from services.scraper.money import decimal_or_none
from services.scraper.sources._cloud import observed, saved_page
from services.scraper.sources._common import JsonObject, load_json
from services.scraper.spec import SourceSpec
from shared.matching import resolve_gpu_name
from shared.sources.specs import AZURE

PROVIDER = "azure"
API_VERSION = "2023-01-01-preview"
GPU_FILTER = (
    "serviceName eq 'Virtual Machines' and priceType eq 'Consumption' "
    "and startswith(armSkuName, 'Standard_N')"
)

# armSkuName -> (GPU, whole GPUs per VM), reviewed against
# learn.microsoft.com/azure/virtual-machines/sizes. Sizes whose name carries no GPU
# token (NCv3, NDv2, ND A100 v4) or whose count no family rule gives (NCasT4_v3 is 1, 1,
# 1, 4) have to be here.
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
    # The confidential-computing NCC H100 v5 has one H100 NVL, like NC40ads.
    "Standard_NCC40ads_H100_v5": ("H100 NVL", 1),
    "Standard_ND96isr_H100_v5": ("H100 80GB SXM5", 8),
    "Standard_ND96isr_H200_v5": ("H200 141GB SXM5", 8),
    "Standard_ND96isr_MI300X_v5": ("Instinct MI300X", 8),
    "Standard_NV36ads_A10_v5": ("A10", 1),
    "Standard_NV72ads_A10_v5": ("A10", 2),
}

# GPU partitions: a sixth, a third or half of an A10 is not comparable per GPU-hour, and
# a VM carries no whole GPU to count. Reviewed, so left out rather than reported.
_FRACTIONAL_SKUS = frozenset(
    {"Standard_NV6ads_A10_v5", "Standard_NV12ads_A10_v5", "Standard_NV18ads_A10_v5"}
)

# N-series families that carry GPUs (NP is FPGA, not a GPU).
_GPU_SERIES = re.compile(r"^Standard_N(?:C|CC|D|G|V)\d")
# "NC320lds", "ND96amsr", "NCC40ads", "NV12s": series letters, vCPUs, feature letters.
_SIZE = re.compile(r"^(?P<series>N[A-Z]{1,2})(?P<vcpus>\d+)(?P<features>[a-z]*)$")
_VERSION = re.compile(r"^v\d+$")
# A GPU token is letters then digits, optionally more letters/digits: "A100", "T4",
# "MI300X", "RTXPRO6000BSE". "NDR" (the InfiniBand generation) and "xl" are not.
_GPU_TOKEN = re.compile(r"^[A-Z]+\d+[A-Z0-9]*$")

# Token normalisation: Azure glues a product name into one token that the title matcher
# cannot split. Each entry spells the same product as its maker does.
_TOKEN_WORDS = {
    # RTX PRO 6000 Blackwell Server Edition (the NCv6 family).
    "RTXPRO6000BSE": "RTX PRO 6000 Blackwell Server Edition",
}
# What the series says that a bare A100/H100/H200 token does not (the matcher rightly
# calls those ambiguous): NC sizes carry PCIe cards (NC A100 v4: 80 GB; NC/NCC H100 v5:
# the 94 GB H100 NVL), ND sizes the SXM boards. An "m" among an ND A100 size's feature
# letters is the 80 GB NDm A100 v4 ("ND96amsr", "ND96ams").
_BOARD_WORDS = {
    ("NC", "A100"): "80GB PCIe",
    ("ND", "A100"): "40GB SXM4",
    ("NDm", "A100"): "80GB SXM4",
    ("NC", "H100"): "NVL",
    ("NCC", "H100"): "NVL",
    ("ND", "H100"): "80GB SXM5",
    ("ND", "H200"): "141GB SXM5",
}
# Every ND size with 96 vCPUs and a GPU token is a full 8-GPU HGX/OAM node (ND A100 v4,
# NDm A100 v4, ND H100 v5, ND H200 v5, ND MI300X v5).
_EIGHT_GPU_NODE_VCPUS = 96


@dataclass(frozen=True)
class SkuGpu:
    """What a SKU name says: GPU words for the matcher (or None) and GPUs per VM (or None)."""

    gpu_name: str | None
    gpu_count: int | None


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


def is_gpu_sku(sku: str) -> bool:
    return bool(_GPU_SERIES.match(sku)) and sku not in _FRACTIONAL_SKUS


def sku_gpu(sku: str) -> SkuGpu:
    """The GPU and count of an armSkuName: the reviewed table, else read from the name."""
    if sku in GPU_SKUS:
        name, count = GPU_SKUS[sku]
        return SkuGpu(name, count)
    return gpu_from_name(sku)


def gpu_from_name(sku: str) -> SkuGpu:
    """What the SKU name alone says (`GPU_SKUS` not consulted)."""
    parts = sku.removeprefix("Standard_").split("_")
    size = _SIZE.match(parts[0])
    tokens = [p for p in parts[1:] if _GPU_TOKEN.match(p) and not _VERSION.match(p)]
    if size is None or len(tokens) != 1:
        return SkuGpu(None, None)
    series, features, token = size["series"], size["features"], tokens[0]
    return SkuGpu(_gpu_words(series, features, token), _family_count(series, int(size["vcpus"])))


def _gpu_words(series: str, features: str, token: str) -> str:
    board = None
    if series == "ND" and "m" in features:
        board = _BOARD_WORDS.get(("NDm", token))
    board = board or _BOARD_WORDS.get((series, token))
    words = _TOKEN_WORDS.get(token, token)
    return f"{words} {board}" if board else words


def _family_count(series: str, vcpus: int) -> int | None:
    if series == "ND" and vcpus == _EIGHT_GPU_NODE_VCPUS:
        return 8
    return None  # not guessed: a wrong count would misprice every GPU-hour


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
    if not is_gpu_sku(sku) or price is None or not _is_linux_hourly_usd(item):
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
    spot = prices.spot if prices.spot is not None else prices.low_priority
    gpu = sku_gpu(sku)
    if gpu.gpu_name is None or gpu.gpu_count is None:
        # Named by the run summary (cloud_match.UNMAPPED_REASONS), never priced.
        known_gpu = gpu.gpu_name is not None and resolve_gpu_name(gpu.gpu_name) is not None
        return SkippedCloudListing(
            provider=PROVIDER,
            instance_type=sku,
            gpu_name=gpu.gpu_name or "",
            gpu_count=gpu.gpu_count or 0,
            region=region,
            on_demand_usd_per_hour=prices.on_demand,
            spot_usd_per_hour=spot,
            observed_at=when,
            skip_reason=GPU_COUNT_UNKNOWN if known_gpu else UNMAPPED_GPU,
        )
    return CloudListing(
        provider=PROVIDER,
        instance_type=sku,
        gpu_name=gpu.gpu_name,
        gpu_count=gpu.gpu_count,
        region=region,
        on_demand_usd_per_hour=prices.on_demand,
        spot_usd_per_hour=spot,
        observed_at=when,
    )


# --- The source: what a run fetches, what parse-page reads, the spec -------------------


async def collect(crawl: Crawl, terms: list[str]) -> None:
    """The GPU price pages, following `NextPageLink` up to `max_api_pages`."""
    base = crawl.settings.azure_prices_base_url
    url: str | None = prices_url(base)
    when = crawl.harvest.observed_at
    for _ in range(crawl.settings.max_api_pages):
        if url is None:
            return
        result = await crawl.get(url)
        crawl.harvest.cloud.extend(parse(result.body, url, observed_at=when))
        url = next_link(crawl, next_page_url(result.body, url), base)


# A saved API page; its URL defaults to the configured API's first page.
parse_page = saved_page(parse, lambda settings: prices_url(settings.azure_prices_base_url))


SOURCE = SourceSpec(AZURE, collect, parse_page)
