"""Every adapter against its sample pages, compared exactly with the expected JSON."""

from __future__ import annotations

import functools
from datetime import UTC, datetime

import pytest

from services.scraper.sources import (
    aws_pricing,
    azure_prices,
    bhphoto,
    ebay,
    ebay_browse,
    lambda_cloud,
    newegg,
    vast,
)
from tests.services.scraper.fixture_server import SAMPLES_DIR
from tests.services.scraper.golden import check_golden, outcome
from tests.services.scraper.test_golden_real_ebay import REAL_EBAY_PAGES
from tests.services.scraper.test_real_markup_2026 import BLOCK_PAGES

OBSERVED_AT = datetime(2026, 11, 5, 12, 0, tzinfo=UTC)
EBAY_ACTIVE = "https://www.ebay.com/sch/i.html?_nkw=rtx+4090&_sacat=27386&_ipg=240&_pgn=1"
EBAY_SOLD = EBAY_ACTIVE + "&LH_Sold=1&LH_Complete=1&_sop=13"


def _cloud(parse):
    return functools.partial(parse, observed_at=OBSERVED_AT)


BROWSE = "https://api.ebay.com/buy/browse/v1/item_summary/search?q=rtx+4090&category_ids=27386"
NEWEGG = "https://www.newegg.com/p/pl?d=rtx+4090&N=100007709&page=1"
NEWEGG_PRODUCT = (
    "https://www.newegg.com/asus-geforce-rtx-4090-tuf-rtx4090-o24g-gaming/p/N82E16814126593"
)
BH = "https://www.bhphotovideo.com/c/search?q=rtx+4090&sts=ma"
BH_PRODUCT = "https://www.bhphotovideo.com/c/product/1800123-REG/nvidia_900_21010_0020_000_h100_nvl_94gb.html"
AZURE = "https://prices.azure.com/api/retail/prices?api-version=2023-01-01-preview"
AWS = (
    "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/us-east-1/index.csv"
)
VAST = "https://console.vast.ai/api/v0/bundles/"
LAMBDA = "https://cloud.lambda.ai/api/v1/instance-types"

CASES = [
    ("ebay", "search_active.html", ebay.parse, EBAY_ACTIVE),
    ("ebay", "search_sold.html", ebay.parse, EBAY_SOLD),
    ("ebay", "search_legacy_sold.html", ebay.parse, EBAY_SOLD),
    ("ebay", "no_results.html", ebay.parse, EBAY_ACTIVE),
    ("ebay", "layout_changed.html", ebay.parse, EBAY_ACTIVE),
    ("ebay", "malformed.html", ebay.parse, EBAY_ACTIVE),
    ("ebay_browse", "search.json", ebay_browse.parse, BROWSE),
    ("ebay_browse", "no_results.json", ebay_browse.parse, BROWSE),
    ("ebay_browse", "layout_changed.json", ebay_browse.parse, BROWSE),
    ("newegg", "search_grid.html", newegg.parse, NEWEGG),
    ("newegg", "product.html", newegg.parse, NEWEGG_PRODUCT),
    ("newegg", "no_results.html", newegg.parse, NEWEGG),
    ("newegg", "layout_changed.html", newegg.parse, NEWEGG),
    ("bhphoto", "search_jsonld.html", bhphoto.parse, BH),
    ("bhphoto", "search_cards.html", bhphoto.parse, BH),
    ("bhphoto", "search_split_cents.html", bhphoto.parse, BH),
    ("bhphoto", "search_preloaded.html", bhphoto.parse, BH),
    ("bhphoto", "product.html", bhphoto.parse, BH_PRODUCT),
    ("bhphoto", "no_results.html", bhphoto.parse, BH),
    ("bhphoto", "layout_changed.html", bhphoto.parse, BH),
    ("azure_prices", "page1.json", _cloud(azure_prices.parse), AZURE),
    ("azure_prices", "page2.json", _cloud(azure_prices.parse), AZURE),
    ("azure_prices", "real_sku_names.json", _cloud(azure_prices.parse), AZURE),
    ("azure_prices", "layout_changed.json", _cloud(azure_prices.parse), AZURE),
    ("aws_pricing", "us-east-1.csv", _cloud(aws_pricing.parse), AWS),
    ("aws_pricing", "layout_changed.csv", _cloud(aws_pricing.parse), AWS),
    ("aws_pricing", "not_an_offer_file.csv", _cloud(aws_pricing.parse), AWS),
    ("vast", "offers.json", _cloud(vast.parse), VAST),
    ("vast", "verification_states.json", _cloud(vast.parse), VAST),
    ("vast", "layout_changed.json", _cloud(vast.parse), VAST),
    ("lambda_cloud", "instance_types.json", _cloud(lambda_cloud.parse), LAMBDA),
    ("lambda_cloud", "layout_changed.json", _cloud(lambda_cloud.parse), LAMBDA),
]
# Samples used by other tests (token response, fixture-server pages); the real Browse API
# samples are checked in test_golden_real_browse.py.
NOT_PARSED_PAGES = {
    ("ebay_browse", "token.json"),
    ("ebay_browse", "REAL_SOURCES.md"),
    ("ebay_browse", "real_rtx_4090.json"),
    ("ebay_browse", "real_a100_pcie.json"),
    ("ebay_browse", "real_rtx_5090.json"),
    ("ebay_browse", "real_rtx_5070_ti.json"),
    ("ebay_browse", "real_rtx_a5000.json"),
}


@pytest.mark.parametrize(
    ("site", "page", "parse", "url"), CASES, ids=[f"{c[0]}/{c[1]}" for c in CASES]
)
def test_golden(site, page, parse, url) -> None:
    sample = SAMPLES_DIR / site / page
    check_golden(sample, outcome(parse, sample.read_bytes(), url))


def test_every_sample_has_a_case() -> None:
    covered = {(site, page) for site, page, _, _ in CASES} | REAL_EBAY_PAGES | BLOCK_PAGES
    samples = {
        (path.parent.name, path.name)
        for path in SAMPLES_DIR.glob("*/*")
        if path.is_file() and not path.name.endswith(".expected.json")
    }
    assert samples - NOT_PARSED_PAGES <= covered
