"""Azure GPU SKUs no table lists: the GPU read from the name, the count from the family,
and every GPU SKU that still cannot be priced named in the run summary GET /sources shows.

samples/azure_prices/real_sku_names.json is a synthetic page (made-up prices) whose
armSkuName values are real Azure size names, including ones no fixed table listed.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from services.api.app import create_app
from services.scraper.cloud_match import (
    GPU_COUNT_UNKNOWN,
    UNMAPPED_GPU,
    SkippedCloudListing,
    cloud_gpu_id,
)
from services.scraper.runner import MAX_SUMMARY_CHARS, MAX_UNMAPPED_NAMES, RunReport
from services.scraper.sources import azure_prices
from shared.matching import resolve_gpu_name
from tests.services.scraper.fixture_server import SAMPLES_DIR, reply, sample_file
from tests.services.scraper.scrape_env import PATHS, ScrapeEnv

OBSERVED_AT = datetime(2026, 11, 5, 12, 0, tzinfo=UTC)
REAL_NAMES = SAMPLES_DIR / "azure_prices" / "real_sku_names.json"


@pytest.mark.parametrize(
    ("sku", "gpu_id", "count"),
    [
        # Not in any table: "m" among an ND A100 size's feature letters is the 80 GB NDm.
        ("Standard_ND96ams_A100_v4", "a100-80gb-sxm4", 8),
        ("Standard_ND96amsr_A100_v4", "a100-80gb-sxm4", 8),
        ("Standard_ND96asr_v4", "a100-40gb-sxm4", 8),
        ("Standard_NC24ads_A100_v4", "a100-80gb-pcie", 1),
        ("Standard_NC96ads_A100_v4", "a100-80gb-pcie", 4),
        ("Standard_NCC40ads_H100_v5", "h100-nvl", 1),
        ("Standard_ND96isr_H200_v5", "h200-sxm", 8),
        ("Standard_NC64as_T4_v3", "t4", 4),
    ],
)
def test_gpu_and_count_per_vm(sku: str, gpu_id: str, count: int) -> None:
    found = azure_prices.sku_gpu(sku)
    assert found.gpu_count == count
    assert found.gpu_name is not None and resolve_gpu_name(found.gpu_name) == gpu_id


def test_the_glued_rtx_pro_token_is_read_but_its_count_is_not_guessed() -> None:
    found = azure_prices.sku_gpu("Standard_NC320lds_xl_RTXPRO6000BSE_v6")
    assert found.gpu_name == "RTX PRO 6000 Blackwell Server Edition"
    # The Server Edition (1,597 GB/s, passive), not the 600 W Workstation Edition.
    assert resolve_gpu_name(found.gpu_name) == "rtx-pro-6000-blackwell-server"
    assert found.gpu_count is None  # no reviewed size table for NCv6 yet


@pytest.mark.parametrize("sku", sorted(azure_prices.GPU_SKUS))
def test_the_name_agrees_with_the_reviewed_table_wherever_it_says_something(sku: str) -> None:
    name, count = azure_prices.GPU_SKUS[sku]
    derived = azure_prices.gpu_from_name(sku)
    if derived.gpu_name is not None:
        assert resolve_gpu_name(derived.gpu_name) == resolve_gpu_name(name)
    if derived.gpu_count is not None:
        assert derived.gpu_count == count


def test_the_real_sku_page_prices_what_it_can_and_keeps_the_rest_with_a_reason() -> None:
    listings = azure_prices.parse(REAL_NAMES.read_bytes(), "u", observed_at=OBSERVED_AT)
    mapped = {
        item.instance_type: cloud_gpu_id(item)[0]
        for item in listings
        if not isinstance(item, SkippedCloudListing)
    }
    assert mapped == {
        "Standard_ND96ams_A100_v4": "a100-80gb-sxm4",
        "Standard_ND96amsr_A100_v4": "a100-80gb-sxm4",
        "Standard_NCC40ads_H100_v5": "h100-nvl",
        "Standard_ND96isr_H200_v5": "h200-sxm",
    }
    skipped = {
        item.instance_type: item.skip_reason
        for item in listings
        if isinstance(item, SkippedCloudListing)
    }
    assert skipped == {
        "Standard_NC320lds_xl_RTXPRO6000BSE_v6": GPU_COUNT_UNKNOWN,
        "Standard_NC8ads_A10_v4": GPU_COUNT_UNKNOWN,
        "Standard_NV12s_v3": UNMAPPED_GPU,  # NVv3 (M60): no GPU in the name, no table row
    }
    # Left out on purpose: a GPU partition (reviewed list) and an FPGA size.
    seen = {item.instance_type for item in listings}
    assert not seen & {"Standard_NV12ads_A10_v5", "Standard_NP10s"}
    [nd] = [item for item in listings if item.instance_type == "Standard_ND96ams_A100_v4"]
    assert (str(nd.on_demand_usd_per_hour), str(nd.spot_usd_per_hour)) == ("32.77", "8.19")


def test_unmapped_skus_reach_the_last_summary_of_get_sources(scrape_env: ScrapeEnv) -> None:
    scrape_env.server.route(PATHS["azure"], sample_file("azure_prices", "real_sku_names.json"))
    [report] = scrape_env.run(["azure"])
    assert report.status == "ok" and report.cloud_offers == 4
    assert report.rejected["source.gpu_count_unknown"] == 2
    assert report.rejected["source.unmapped_gpu"] == 1
    with TestClient(create_app(scrape_env.settings)) as client:
        sources = {s["name"]: s for s in client.get("/sources").json()["sources"]}
    summary = sources["azure"]["last_summary"]
    assert summary["unmapped"] == {
        "total": 3,
        "names": [
            "Standard_NC320lds_xl_RTXPRO6000BSE_v6",
            "Standard_NC8ads_A10_v4",
            "Standard_NV12s_v3",
        ],
    }
    assert summary["rejected"]["source.gpu_count_unknown"] == 2


def _many_unmapped_skus(count: int) -> bytes:
    page = json.loads(REAL_NAMES.read_text())
    template = page["Items"][0]  # an NC320lds_xl_RTXPRO6000BSE_v6 on-demand row
    page["Items"] = [
        dict(template, armSkuName=f"Standard_NC{n}lds_xl_RTXPRO6000BSE_v6")
        for n in range(1, count + 1)
    ]
    return json.dumps(page).encode()


def test_a_long_unmapped_list_is_capped_and_the_summary_stays_valid_json(
    scrape_env: ScrapeEnv,
) -> None:
    body = _many_unmapped_skus(300)
    scrape_env.server.route(PATHS["azure"], reply(200, body, Content_Type="application/json"))
    [report] = scrape_env.run(["azure"])
    # Nothing priced, but the run read every row: a success with 300 SKUs to review.
    assert report.status == "ok" and report.cloud_offers == 0
    with TestClient(create_app(scrape_env.settings)) as client:
        sources = {s["name"]: s for s in client.get("/sources").json()["sources"]}
    unmapped = sources["azure"]["last_summary"]["unmapped"]
    assert unmapped["total"] == 300
    assert len(unmapped["names"]) == MAX_UNMAPPED_NAMES
    assert set(unmapped["names"]) <= {f"Standard_NC{n}lds_xl_RTXPRO6000BSE_v6" for n in range(301)}


def test_the_summary_drops_names_rather_than_overflow_the_column() -> None:
    report = RunReport("azure", unmapped=[f"Standard_N{'X' * 120}_{n:03d}" for n in range(200)])
    text = report.summary_json()
    assert len(text) <= MAX_SUMMARY_CHARS
    unmapped = json.loads(text)["unmapped"]
    assert unmapped["total"] == 200
    assert 0 < len(unmapped["names"]) < MAX_UNMAPPED_NAMES
    assert unmapped["names"] == report.unmapped[: len(unmapped["names"])]
