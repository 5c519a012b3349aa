import csv
import json
from collections import Counter
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from shared.bundled.mapping import all_mapped_ids
from shared.bundled.readers import (
    amazon_skips,
    cloud_skips,
    ebay_skips,
    iter_amazon_prices,
    iter_cloud_offers,
    iter_ebay_monthly_prices,
    iter_msrp_prices,
)
from shared.bundled.records import CloudRecord, PriceRecord
from shared.catalog.specs import load_catalog

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


@pytest.fixture(scope="module")
def msrp() -> list[PriceRecord]:
    return list(iter_msrp_prices())


@pytest.fixture(scope="module")
def amazon() -> list[PriceRecord]:
    return list(iter_amazon_prices())


@pytest.fixture(scope="module")
def ebay() -> list[PriceRecord]:
    return list(iter_ebay_monthly_prices())


@pytest.fixture(scope="module")
def cloud() -> list[CloudRecord]:
    return list(iter_cloud_offers())


def _cloud_record(cloud, provider, instance_type, region):
    [record] = [
        r
        for r in cloud
        if (r.provider, r.instance_type, r.region) == (provider, instance_type, region)
    ]
    return record


def _csv_rows(*parts):
    with (DATA.joinpath(*parts)).open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_every_mapped_id_is_in_the_catalog():
    assert all_mapped_ids() - set(load_catalog().ids) == set()


def test_every_record_gpu_id_is_in_the_catalog(msrp, amazon, ebay, cloud):
    ids = set(load_catalog().ids)
    assert {r.gpu_id for r in [*msrp, *amazon, *ebay, *cloud]} <= ids


def test_no_row_is_dropped_as_unmapped():
    skips = [amazon_skips(), ebay_skips(), *cloud_skips().values()]
    assert all(counter["unmapped name"] == 0 for counter in skips)


def test_prices_are_positive_decimals(msrp, amazon, ebay, cloud):
    for record in [*msrp, *amazon, *ebay]:
        assert isinstance(record.price_usd, Decimal)
        assert record.price_usd > 0
    for offer in cloud:
        prices = [offer.on_demand_usd_per_hour, offer.spot_usd_per_hour]
        assert any(p is not None for p in prices)
        assert all(isinstance(p, Decimal) and p > 0 for p in prices if p is not None)


def test_observed_at_is_timezone_aware_utc(msrp, amazon, ebay, cloud):
    for record in [*msrp, *amazon, *ebay, *cloud]:
        assert record.observed_at.utcoffset() is not None
        assert record.observed_at.utcoffset().total_seconds() == 0


def test_msrp_records_are_dated_at_release_with_the_price_tag(msrp):
    catalog = load_catalog()
    assert len(msrp) == sum(1 for g in catalog.gpus if g.launch_price_usd is not None)
    rtx_4090 = next(r for r in msrp if r.gpu_id == "rtx-4090")
    assert rtx_4090.price_usd == Decimal(1599)
    assert rtx_4090.observed_at.date() == catalog.by_id["rtx-4090"].release_date
    assert "epoch" in rtx_4090.source
    assert "msrp:launch-announcement" in next(r for r in msrp if r.gpu_id == "rtx-5090").source


def test_amazon_rtx_4090_newest_record_is_the_newest_json_value(amazon):
    path = DATA / "retail_prices" / "amazon-buybox-new-2025-08" / "NVIDIA_GeForce_RTX_4090.json"
    prices = json.loads(path.read_text("utf-8"), parse_float=Decimal)["prices"]
    newest_key = max(prices)
    newest = max((r for r in amazon if r.gpu_id == "rtx-4090"), key=lambda r: r.observed_at)
    assert newest.price_usd == prices[newest_key]
    assert newest.observed_at.replace(tzinfo=None) == datetime.fromisoformat(newest_key)
    assert newest.condition == "new" and newest.kind == "snapshot"
    assert "70a1a5f2" in newest.source


def test_amazon_h100_96gb_listing_is_the_h100_nvl(amazon):
    ids = {r.gpu_id for r in amazon if r.listing_id == "amazon:NVIDIA_H100_PCIe_96_GB"}
    assert ids == {"h100-nvl"}


def test_amazon_keeps_every_change_event(amazon):
    folder = DATA / "retail_prices" / "amazon-buybox-new-2025-08"
    total = sum(len(json.loads(p.read_text("utf-8"))["prices"]) for p in folder.glob("*.json"))
    assert len(amazon) + sum(amazon_skips().values()) == total


def test_ebay_november_2023_rows_land_in_october_2023(ebay):
    labelled = [
        r
        for r in _csv_rows("retail_prices", "ebay-sold-monthly-2021-2023", "gpu_time_series.csv")
        if r["Month"] == "November 2023"
    ]
    rtx_4090_row = next(r for r in labelled if r["GPU"] == "GeForce RTX 4090")
    record = next(r for r in ebay if r.listing_id == "ebay-monthly:rtx-4090:2023-10")
    assert record.observed_at == datetime.fromisoformat("2023-10-31T00:00:00+00:00")
    assert record.price_usd == Decimal(rtx_4090_row["eBay Price"].strip("$").replace(",", ""))
    assert not any(r.observed_at.year == 2023 and r.observed_at.month == 11 for r in ebay)


def test_ebay_prices_with_thousands_separators(ebay):
    record = next(r for r in ebay if r.listing_id == "ebay-monthly:rtx-3090:2022-04")
    assert record.price_usd == Decimal(1770)
    assert record.condition == "used"
    assert record.source.startswith("Tom's Hardware")


def test_ebay_listing_ids_are_unique(ebay):
    counts = Counter(r.listing_id for r in ebay)
    assert counts.most_common(1)[0][1] == 1


def test_aws_p4d_us_east_1_on_demand_equals_the_csv(cloud):
    rows = _csv_rows("cloud_prices", "aws", "vms.csv")
    csv_price = next(
        r["Price"]
        for r in rows
        if (r["InstanceType"], r["Region"]) == ("p4d.24xlarge", "us-east-1")
    )
    record = _cloud_record(cloud, "aws", "p4d.24xlarge", "us-east-1")
    assert record.on_demand_usd_per_hour == Decimal(csv_price)
    assert record.gpu_id == "a100-40gb-sxm4" and record.gpu_count == 8


def test_aws_spot_is_the_cheapest_zone_of_the_region(cloud):
    rows = _csv_rows("cloud_prices", "aws", "vms.csv")
    spots = [
        Decimal(r["SpotPrice"])
        for r in rows
        if (r["InstanceType"], r["Region"]) == ("p3.2xlarge", "us-west-2") and r["SpotPrice"]
    ]
    assert _cloud_record(cloud, "aws", "p3.2xlarge", "us-west-2").spot_usd_per_hour == min(spots)


def test_gcp_a2_highgpu_1g_is_host_plus_accelerator(cloud):
    rows = [
        r
        for r in _csv_rows("cloud_prices", "gcp", "vms.csv")
        if r["AvailabilityZone"] == "us-central1-a"
    ]
    host = next(r for r in rows if r["InstanceType"] == "a2-highgpu-1g")
    gpu = next(
        r
        for r in rows
        if not r["InstanceType"] and r["AcceleratorName"] == "A100" and r["AcceleratorCount"] == "1"
    )
    record = _cloud_record(cloud, "gcp", "a2-highgpu-1g", "us-central1")
    assert record.on_demand_usd_per_hour == Decimal(host["Price"]) + Decimal(gpu["Price"])
    assert record.gpu_id == "a100-40gb-sxm4"


def test_aws_skips_no_row_since_b300_is_in_the_catalog(cloud):
    assert cloud_skips()["aws"] == {}
    record = _cloud_record(cloud, "aws", "p6-b300.48xlarge", "us-west-2")
    assert record.gpu_count == 8 and record.on_demand_usd_per_hour == Decimal("142.416")


def test_gcp_has_no_tpu_or_unpaired_records(cloud):
    assert all(r.instance_type for r in cloud if r.provider == "gcp")
    assert cloud_skips()["gcp"]["TPU"] > 0


@pytest.mark.parametrize(
    ("provider", "instance_type", "region", "gpu_id"),
    [
        ("aws", "p6-b300.48xlarge", "us-west-2", "b300"),
        ("azure", "Standard_NC24ads_A100_v4", "eastus", "a100-80gb-pcie"),
        ("azure", "Standard_ND96asr_v4", "eastus", "a100-40gb-sxm4"),
        ("azure", "Standard_NC40ads_H100_v5", "eastus", "h100-nvl"),
        ("azure", "Standard_NC6s_v3", "eastus", "v100-16gb-pcie"),
        ("lambda", "gpu_1x_a100", "us-east-1", "a100-40gb-pcie"),
        ("lambda", "gpu_1x_rtx6000", "us-east-1", "quadro-rtx-6000"),
        ("lambda", "gpu_8x_a100_80gb_sxm4", "us-east-1", "a100-80gb-sxm4"),
        ("runpod", "1x_H100_SECURE", "US", "h100-pcie"),
        ("runpod", "1x_H100-SXM_SECURE", "US", "h100-sxm5"),
        ("vast", "1x-RTX_3060_Ti-32-65536", "Ontario, CA, NA", "rtx-3060-ti"),
        ("vast", "4x-RTX_4060_Ti-32-65536", ", CN, AS", "rtx-4060-ti-16gb"),
    ],
)
def test_cloud_mapping_spot_checks(cloud, provider, instance_type, region, gpu_id):
    assert _cloud_record(cloud, provider, instance_type, region).gpu_id == gpu_id


def test_azure_fractional_a10_keeps_the_fraction(cloud):
    record = _cloud_record(cloud, "azure", "Standard_NV6ads_A10_v5", "eastus")
    assert record.gpu_id == "a10"
    assert 0 < record.gpu_count < 1


def test_vast_zero_spot_means_missing_and_ambiguous_rows_are_skipped(cloud):
    assert all(r.spot_usd_per_hour is None for r in cloud if r.provider == "vast")
    skips = cloud_skips()["vast"]
    assert skips["V100 form factor unknown (PCIe or SXM2)"] == 3
    assert skips["median mixes memory sizes"] == 4


def test_record_counts_per_source(msrp, amazon, ebay, cloud, capsys):
    counts = {"msrp": len(msrp), "amazon": len(amazon), "ebay-monthly": len(ebay)}
    counts |= {f"cloud:{p}": n for p, n in sorted(Counter(r.provider for r in cloud).items())}
    with capsys.disabled():
        print("\nbundled record counts:", counts)
        print("skipped rows:", {"amazon": dict(amazon_skips()), "ebay": dict(ebay_skips())})
        print("skipped cloud rows:", {p: dict(c) for p, c in cloud_skips().items()})
    assert all(n > 0 for n in counts.values())
    assert set(Counter(r.provider for r in cloud)) == {
        "aws",
        "azure",
        "gcp",
        "lambda",
        "runpod",
        "vast",
    }
