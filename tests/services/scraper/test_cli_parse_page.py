"""`gpu-advisor parse-page`: saved pages of every source to JSON lines, offline."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from services.cli.main import app
from services.scraper.registry import SOURCES
from services.scraper.settings import get_scraper_settings
from tests.services.scraper.fixture_server import SAMPLES_DIR

REQUIRED_KEYS = {
    "source",
    "listing_id",
    "title",
    "price",
    "currency",
    "condition",
    "listing_type",
    "quantity",
    "gpu_id",
    "reason",
}
EBAY = SAMPLES_DIR / "ebay"
US_SOLD = EBAY / "real_us_sold.html"
UK_ACTIVE = EBAY / "real_uk_active.html"

runner = CliRunner()


def run(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    result = runner.invoke(app, ["parse-page", *args])
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    return result.exit_code, lines, result.stderr


def parsed(*args: str) -> list[dict[str, Any]]:
    code, lines, stderr = run(*args)
    assert code == 0, stderr
    assert all(REQUIRED_KEYS <= line.keys() for line in lines)
    return lines


def test_real_us_sold_page_without_url() -> None:
    lines = {line["listing_id"]: line for line in parsed("--source", "ebay", str(US_SOLD))}
    assert len(lines) == 8
    assert {line["listing_type"] for line in lines.values()} == {"sold"}
    assert {line["source"] for line in lines.values()} == {"ebay"}
    for struck in ("197730663698", "404405432962"):
        assert (lines[struck]["price"], lines[struck]["reason"]) == (None, "best_offer_accepted")
        assert lines[struck]["price_text"] is not None
    price_range = lines["297628051769"]
    assert (price_range["price"], price_range["reason"]) == (None, "price_range")
    assert lines["257117837237"]["condition"] == "open-box"  # "New (Other)"
    ordinary = lines["317346510524"]
    assert (ordinary["price"], ordinary["currency"]) == ("99.95", "USD")
    assert (ordinary["shipping"], ordinary["sold_at"]) == ("7.90", "2025-09-28")
    # Pokemon cards are no GPU: the matcher's rejection is the reason, quantity unknown.
    assert (ordinary["gpu_id"], ordinary["quantity"], ordinary["reason"]) == (None, None, "no_gpu")


def test_real_uk_page_in_pounds_on_its_own_site() -> None:
    lines = parsed("--source", "ebay", str(UK_ACTIVE))
    assert len(lines) == 6
    assert {line["currency"] for line in lines} == {"GBP"}
    assert {line["listing_type"] for line in lines} == {"active"}
    # The page's canonical link gives the site the item URLs point to.
    assert all(line["url"].startswith("https://www.ebay.co.uk/itm/") for line in lines)


def test_ebay_url_decides_sold_for_cards_without_a_caption() -> None:
    uk = "https://www.ebay.co.uk/sch/i.html?_nkw=blu+ray"
    active = parsed("--source", "ebay", str(UK_ACTIVE), "--url", uk)
    sold = parsed("--source", "ebay", str(UK_ACTIVE), "--url", uk + "&LH_Sold=1")
    assert {line["listing_type"] for line in active} == {"active"}
    assert {line["listing_type"] for line in sold} == {"sold"}
    assert [line["listing_id"] for line in active] == [line["listing_id"] for line in sold]


def test_ebay_gpu_listings_get_the_pipeline_verdict() -> None:
    url = "https://www.ebay.com/sch/i.html?_nkw=rtx+4090"
    lines = {
        line["listing_id"]: line
        for line in parsed("--source", "ebay", str(EBAY / "search_active.html"), "--url", url)
    }
    founders = lines["256734128811"]
    assert (founders["gpu_id"], founders["quantity"], founders["reason"]) == ("rtx-4090", 1, None)
    reasons = Counter(line["reason"] for line in lines.values())
    assert reasons["for_parts"] == 1
    assert reasons["price_range"] == 1


CAD_ID = "364455667788"  # an H100 at C $38,500.00 + C $120.00 delivery


@pytest.mark.parametrize("rate_days_ago", [0, 30])
def test_parse_page_converts_at_the_rates_a_run_would_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rate_days_ago: int
) -> None:
    # An operator's ECB-format table whose one day is today, or a month ago (too old).
    day = datetime.now(UTC).date() - timedelta(days=rate_days_ago)
    table = tmp_path / "eurofxref-hist.csv"
    table.write_text(f"Date,USD,CAD,\n{day.isoformat()},1.1,1.5,\n", encoding="utf-8")
    monkeypatch.setenv("GPU_ADVISOR_SCRAPER_EXCHANGE_RATES_PATH", str(table))
    get_scraper_settings.cache_clear()
    try:
        url = "https://www.ebay.com/sch/i.html?_nkw=rtx+4090"
        lines = parsed("--source", "ebay", str(EBAY / "search_active.html"), "--url", url)
    finally:
        get_scraper_settings.cache_clear()
    [cad] = [line for line in lines if line["listing_id"] == CAD_ID]
    assert (cad["price"], cad["currency"], cad["gpu_id"]) == ("38500.00", "CAD", "h100-pcie")
    assert cad["reason"] == (None if rate_days_ago == 0 else "no_exchange_rate")


MARKET_SAMPLES = [
    ("ebay_browse", "ebay_browse/search.json"),
    ("newegg", "newegg/search_grid.html"),
    ("bhphoto", "bhphoto/search_cards.html"),
]
CLOUD_SAMPLES = [
    ("azure", "azure_prices/page1.json"),
    ("azure", "azure_prices/real_sku_names.json"),
    ("vast", "vast/verification_states.json"),
    ("aws", "aws_pricing/us-east-1.csv"),
    ("vast", "vast/offers.json"),
    ("lambda", "lambda_cloud/instance_types.json"),
]


@pytest.mark.parametrize(("source", "sample"), MARKET_SAMPLES)
def test_market_samples(source: str, sample: str) -> None:
    lines = parsed("--source", source, str(SAMPLES_DIR / sample))
    assert lines and {line["source"] for line in lines} == {source}
    for line in lines:
        assert (line["gpu_id"] is None) == (line["quantity"] is None)
        if line["reason"] is None:
            assert line["gpu_id"] and line["price"] and line["currency"] == "USD"


def test_newegg_sold_out_listing_says_so() -> None:
    lines = parsed("--source", "newegg", str(SAMPLES_DIR / "newegg/search_grid.html"))
    assert "out_of_stock" in {line["reason"] for line in lines}


@pytest.mark.parametrize(("source", "sample"), CLOUD_SAMPLES)
def test_cloud_samples_one_line_per_offer(source: str, sample: str) -> None:
    lines = parsed("--source", source, str(SAMPLES_DIR / sample))
    assert lines and {line["source"] for line in lines} == {source}
    keys = [(line["instance_type"], line["region"], line["offer_id"]) for line in lines]
    assert len(keys) == len(set(keys))
    for line in lines:
        assert (line["condition"], line["listing_type"]) == (None, None)
        if line["price"] is not None:
            assert line["currency"] == "USD"
            assert line["pricing"] in {"on_demand", "spot"}
        if line["reason"] is None:
            assert line["gpu_id"] and line["price"]
        else:
            assert line["gpu_id"] is None  # skipped, unpriced or unmapped: never stored


def test_azure_on_demand_and_spot_rows_are_one_line() -> None:
    lines = parsed("--source", "azure", str(SAMPLES_DIR / "azure_prices/page1.json"))
    both = [line for line in lines if line["on_demand_price"] and line["spot_price"]]
    assert both and all(line["price"] == line["on_demand_price"] for line in both)


def test_every_scrape_source_has_a_saved_page_parsed_here() -> None:
    # Each discovered source is read by parse-page (SourceSpec.parse_page), and each has a
    # saved page above that goes through the command.
    tested = {"ebay"} | {source for source, _ in MARKET_SAMPLES + CLOUD_SAMPLES}
    assert tested == SOURCES.keys()


@pytest.mark.parametrize(
    ("source", "sample", "reason"),
    [
        ("ebay", "ebay/layout_changed.html", "no ul.srp-results container"),
        ("ebay", "ebay/malformed.html", "no ul.srp-results container"),
        ("newegg", "newegg/layout_changed.html", ""),
        ("aws", "aws_pricing/not_an_offer_file.csv", "not an AWS offer file"),
        ("vast", "vast/layout_changed.json", "no offers[] array"),
        ("azure", "ebay/search_active.html", "invalid JSON"),
    ],
)
def test_unreadable_page_exits_1_with_one_line(source: str, sample: str, reason: str) -> None:
    code, lines, stderr = run("--source", source, str(SAMPLES_DIR / sample))
    assert code == 1 and lines == []
    assert len(stderr.splitlines()) == 1 and reason in stderr


def test_undecodable_bytes_still_one_line(tmp_path: Path) -> None:
    page = tmp_path / "binary.html"
    page.write_bytes(b"\xff\xfe\x00garbage \x81\x82")
    code, lines, stderr = run("--source", "ebay", str(page))
    assert (code, lines) == (1, [])
    assert stderr.splitlines() == [
        f"parse-page: ebay: cannot parse {page}: LayoutChanged: no ul.srp-results container"
    ]


def test_no_results_is_an_empty_success(tmp_path: Path) -> None:
    # The real UK page ("No exact matches found") with its result cards removed.
    page = (EBAY / "real_uk_active.html").read_text(encoding="utf-8")
    start = page.index("<li", page.index('class="srp-results'))
    empty = tmp_path / "no_results.html"
    empty.write_text(page[:start] + page[page.rindex("</ul>") :], encoding="utf-8")
    assert parsed("--source", "ebay", str(empty)) == []


def test_a_notice_before_the_only_card_hides_nothing() -> None:
    # Synthetic: "No exact matches found", "Results matching fewer words", one card.
    [line] = parsed("--source", "ebay", str(EBAY / "no_results.html"))
    assert (line["gpu_id"], line["reason"]) == ("rtx-4070-ti-super", None)


@pytest.mark.parametrize("path", ["no/such/page.html", str(EBAY)])
def test_unreadable_file_exits_2(path: str) -> None:
    code, lines, stderr = run("--source", "ebay", path)
    assert code == 2 and lines == []
    assert stderr.startswith("parse-page: cannot read") and len(stderr.splitlines()) == 1


def test_unknown_source_is_a_usage_error() -> None:
    code, lines, stderr = run("--source", "craigslist", str(US_SOLD))
    assert code == 2 and lines == [] and "craigslist" in stderr


def test_installed_command_in_a_subprocess() -> None:
    command = Path(sys.executable).parent / "gpu-advisor"
    full_page = EBAY / "real_full/ebay_us_pokemon_card_sold_2025-09.html"
    done = subprocess.run(
        [str(command), "parse-page", "--source", "ebay", str(full_page)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == 60 and {line["listing_type"] for line in lines} == {"sold"}
    assert Counter(line["reason"] for line in lines)["best_offer_accepted"] == 2
    failed = subprocess.run(
        [str(command), "parse-page", "--source", "ebay", str(EBAY / "layout_changed.html")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (failed.returncode, failed.stdout) == (1, "")
    assert failed.stderr.count("\n") == 1 and "LayoutChanged" in failed.stderr
