"""Request URL builders: search queries and pagination from the configured base URLs."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

from services.scraper.sources import (
    aws_pricing,
    azure_prices,
    bhphoto,
    ebay,
    lambda_cloud,
    newegg,
    vast,
)


def query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def test_ebay_active_and_sold_search() -> None:
    active = ebay.search_url("https://www.ebay.com/", "rtx 4090", page=2)
    assert active.startswith("https://www.ebay.com/sch/i.html?")
    assert query(active) == {
        "_nkw": ["rtx 4090"],
        "_sacat": ["27386"],
        "_ipg": ["240"],
        "_pgn": ["2"],
    }
    sold = query(ebay.search_url("https://www.ebay.com", "rtx 4090", sold=True))
    assert sold["LH_Sold"] == ["1"] and sold["LH_Complete"] == ["1"]


def test_retailer_search_urls() -> None:
    assert newegg.search_url("https://www.newegg.com", "rtx 4090", page=3) == (
        "https://www.newegg.com/p/pl?d=rtx+4090&N=100007709&page=3"
    )
    assert bhphoto.search_url("https://www.bhphotovideo.com", "rtx 4090") == (
        "https://www.bhphotovideo.com/c/search?q=rtx+4090&sts=ma"
    )
    assert query(bhphoto.search_url("https://b.test", "x", page=2))["pn"] == ["2"]


def test_item_ids_from_urls() -> None:
    assert newegg.item_number("https://www.newegg.com/msi-rtx-4090/p/N82E16814137761") == (
        "N82E16814137761"
    )
    assert newegg.item_number("https://www.newegg.com/p/pl?d=x&Item=9SIA7254JJ9856") == (
        "9SIA7254JJ9856"
    )
    assert bhphoto.item_id("https://www.bhphotovideo.com/c/product/1730004-REG/asus.html") == (
        "1730004-REG"
    )


def test_cloud_urls() -> None:
    azure = azure_prices.prices_url("https://prices.azure.com")
    assert urlsplit(azure).path == "/api/retail/prices"
    assert "startswith(armSkuName, 'Standard_N')" in query(azure)["$filter"][0]
    assert aws_pricing.offer_file_url("https://pricing.us-east-1.amazonaws.com", "us-west-2") == (
        "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/us-west-2/index.csv"
    )
    vast_query = json.loads(query(vast.offers_url("https://console.vast.ai", "RTX 4090"))["q"][0])
    assert vast_query["gpu_name"] == {"eq": "RTX 4090"}
    assert vast_query["rentable"] == {"eq": True}
    assert lambda_cloud.instance_types_url("https://cloud.lambda.ai/") == (
        "https://cloud.lambda.ai/api/v1/instance-types"
    )
    assert lambda_cloud.request_headers("k")["Authorization"] == "Bearer k"
