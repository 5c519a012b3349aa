"""AWS EC2 bulk price list, CSV offer file (one file per region).

URL: {base}/offers/v1.0/aws/AmazonEC2/current/{region}/index.csv. The file starts
with 5 preamble lines ("FormatVersion", "Disclaimer", "Publication Date", "Version",
"OfferCode") and then the header row; columns are located by name because AWS adds
columns over time. A usable on-demand Linux price is the row with TermType
"OnDemand", Unit "Hrs", Operating System "Linux", Tenancy "Shared", CapacityStatus
"Used" (not reservations' "UnusedCapacityReservation"), Pre Installed S/W "NA" and
License Model "No License required". The bulk file has no spot prices.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime

from services.scraper.collect import Crawl
from services.scraper.errors import LayoutChanged, ParseError
from services.scraper.listing import CloudListing
from services.scraper.money import decimal_or_none
from services.scraper.sources._cloud import observed, saved_page
from services.scraper.spec import SourceSpec
from shared.sources.specs import AWS

PROVIDER = "aws"
PREAMBLE_LINES = 5
REQUIRED_COLUMNS = (
    "Instance Type",
    "PricePerUnit",
    "Unit",
    "Currency",
    "TermType",
    "Operating System",
    "Tenancy",
    "CapacityStatus",
    "Pre Installed S/W",
    "Region Code",
)
_WANTED = {
    "TermType": "OnDemand",
    "Unit": "Hrs",
    "Currency": "USD",
    "Operating System": "Linux",
    "Tenancy": "Shared",
    "CapacityStatus": "Used",
    "Pre Installed S/W": "NA",
}

# Instance type -> (GPU, count). Source: aws.amazon.com/ec2/instance-types/ (accelerated).
GPU_INSTANCES: dict[str, tuple[str, int]] = {
    "p3.2xlarge": ("Tesla V100 16GB", 1),
    "p3.8xlarge": ("Tesla V100 16GB", 4),
    "p3.16xlarge": ("Tesla V100 16GB", 8),
    "p3dn.24xlarge": ("Tesla V100 32GB", 8),
    "p4d.24xlarge": ("A100 40GB SXM4", 8),
    "p4de.24xlarge": ("A100 80GB SXM4", 8),
    "p5.48xlarge": ("H100 80GB SXM5", 8),
    "p5e.48xlarge": ("H200 141GB SXM5", 8),
    "p5en.48xlarge": ("H200 141GB SXM5", 8),
    **{f"g5.{size}": ("A10G", 1) for size in ("xlarge", "2xlarge", "4xlarge", "8xlarge")},
    "g5.16xlarge": ("A10G", 1),
    "g5.12xlarge": ("A10G", 4),
    "g5.24xlarge": ("A10G", 4),
    "g5.48xlarge": ("A10G", 8),
    **{f"g6.{size}": ("L4", 1) for size in ("xlarge", "2xlarge", "4xlarge", "8xlarge")},
    "g6.16xlarge": ("L4", 1),
    "g6.12xlarge": ("L4", 4),
    "g6.24xlarge": ("L4", 4),
    "g6.48xlarge": ("L4", 8),
    **{f"g6e.{size}": ("L40S", 1) for size in ("xlarge", "2xlarge", "4xlarge", "8xlarge")},
    "g6e.16xlarge": ("L40S", 1),
    "g6e.12xlarge": ("L40S", 4),
    "g6e.24xlarge": ("L40S", 4),
    "g6e.48xlarge": ("L40S", 8),
}


def offer_file_url(base_url: str, region: str) -> str:
    return f"{base_url.rstrip('/')}/offers/v1.0/aws/AmazonEC2/current/{region}/index.csv"


def parse(
    body: str | bytes, url: str, *, observed_at: datetime | None = None
) -> list[CloudListing]:
    rows = _rows(body, url)
    when = observed(observed_at)
    found: dict[tuple[str, str], CloudListing] = {}
    for row in rows:
        listing = _listing(row, when)
        if listing is not None:
            found.setdefault((listing.instance_type, listing.region), listing)
    return sorted(found.values(), key=lambda item: (item.instance_type, item.region))


def _rows(body: str | bytes, url: str) -> csv.DictReader[str]:
    text = body.decode("utf-8-sig") if isinstance(body, bytes) else body
    stream = io.StringIO(text)
    preamble = [stream.readline() for _ in range(PREAMBLE_LINES)]
    if not preamble[0].startswith('"FormatVersion"'):
        raise ParseError(PROVIDER, url, "not an AWS offer file (no FormatVersion preamble)")
    reader = csv.DictReader(stream)
    missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise LayoutChanged(PROVIDER, url, f"header lacks {', '.join(missing)}")
    return reader


def _listing(row: dict[str, str], when: datetime) -> CloudListing | None:
    gpu = GPU_INSTANCES.get(row["Instance Type"])
    price = decimal_or_none(row["PricePerUnit"])
    if gpu is None or price is None or not _is_on_demand_linux(row):
        return None
    return CloudListing(
        provider=PROVIDER,
        instance_type=row["Instance Type"],
        gpu_name=gpu[0],
        gpu_count=gpu[1],
        region=row["Region Code"],
        on_demand_usd_per_hour=price,
        spot_usd_per_hour=None,
        observed_at=when,
    )


def _is_on_demand_linux(row: dict[str, str]) -> bool:
    license_model = row.get("License Model", "No License required")
    return license_model == "No License required" and all(
        row.get(column) == value for column, value in _WANTED.items()
    )


# --- The source: what a run fetches, what parse-page reads, the spec -------------------

# The region of the offer file parse-page assumes for a saved page without a URL.
PAGE_REGION = "us-east-1"


async def collect(crawl: Crawl, terms: list[str]) -> None:
    """One offer file per configured region."""
    for region in crawl.settings.aws_regions:
        url = offer_file_url(crawl.settings.aws_pricing_base_url, region)
        result = await crawl.get(url)
        crawl.harvest.cloud.extend(parse(result.body, url, observed_at=crawl.harvest.observed_at))


# A saved offer file; its URL defaults to the configured us-east-1 file.
parse_page = saved_page(
    parse, lambda settings: offer_file_url(settings.aws_pricing_base_url, PAGE_REGION)
)


SOURCE = SourceSpec(AWS, collect, parse_page)
