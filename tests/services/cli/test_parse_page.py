"""`gpu-advisor parse-page` imports the one adapter it reads with, and decodes a page
once (its output is tested in tests/services/scraper/test_cli_parse_page.py)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from services.cli.main import app
from services.cli.parse_page import source_spec
from services.scraper.registry import SOURCES
from services.scraper.sources import _common, ebay
from shared.sources.specs import SOURCE_INFO
from tests.services.cli.test_main import heavy, loaded_modules
from tests.services.scraper.fixture_server import SAMPLES_DIR

US_SOLD = SAMPLES_DIR / "ebay" / "real_us_sold.html"


def test_each_source_is_read_with_the_adapter_the_registry_runs() -> None:
    assert list(SOURCE_INFO) == list(SOURCES)
    for name in SOURCE_INFO:
        assert source_spec(name) is SOURCES[name]


def test_a_run_imports_its_adapter_alone_and_no_database_layer() -> None:
    code = (
        "from typer.testing import CliRunner\n"
        "from services.cli.main import app\n"
        f"args = ['parse-page', '--source', 'ebay', {str(US_SOLD)!r}]\n"
        "assert CliRunner().invoke(app, args).exit_code == 0\n"
    )
    modules = loaded_modules(code)
    adapters = {m for m in modules if m.startswith("services.scraper.sources.")}
    assert adapters == {"services.scraper.sources.ebay", "services.scraper.sources._common"}
    assert "services.scraper.registry" not in modules
    assert {m.split(".")[0] for m in heavy(modules)} == {"services"}  # the scraper only


def test_a_sold_page_is_decoded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    decoded: list[int] = []

    def counted(body: str | bytes) -> str:
        if isinstance(body, bytes):  # text is returned as it is
            decoded.append(len(body))
        return _common.decode_markup(body)

    monkeypatch.setattr(ebay, "decode_markup", counted)
    result = CliRunner().invoke(app, ["parse-page", "--source", "ebay", str(US_SOLD)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    # Read as a sold search from its "Sold" captions: the page was read twice, decoded once.
    assert lines and {line["listing_type"] for line in lines} == {"sold"}
    assert decoded == [US_SOLD.stat().st_size]
