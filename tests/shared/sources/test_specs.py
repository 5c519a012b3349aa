"""The sources' specs (shared/sources/specs.py) are the ones the scraper's adapters run."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from services.scraper.registry import SOURCES, source_modules
from services.scraper.settings import ScraperSettings
from shared.sources.names import SCRAPED_SOURCES
from shared.sources.specs import SOURCE_INFO, scrape_intervals


def test_each_adapter_declares_the_shared_spec_listed_for_it() -> None:
    """Same objects, so no field can differ: an adapter without a listed spec, a listed
    spec without its adapter, or one listed under another module, fails here."""
    declared = {
        module.__name__.rpartition(".")[2]: module.SOURCE.info for module in source_modules()
    }
    assert declared == {info.module: info for info in SOURCE_INFO.values()}
    for info in SOURCE_INFO.values():
        assert declared[info.module] is info


def test_the_names_are_the_registrys_in_its_order() -> None:
    assert tuple(SOURCES) == tuple(SOURCE_INFO) == SCRAPED_SOURCES
    assert all(SOURCES[name].info is info for name, info in SOURCE_INFO.items())


def test_a_source_needs_an_api_key_when_it_reads_a_secret_setting() -> None:
    fields = ScraperSettings.model_fields
    for info in SOURCE_INFO.values():
        secret = any(fields[name].annotation is SecretStr for name in info.settings)
        assert info.needs_api_key is secret, info.name


def test_a_scheduled_name_alone_takes_its_sources_own_interval() -> None:
    intervals = scrape_intervals({"ebay": 600, "vast": None, "aws": None})
    assert intervals == {
        "ebay": 600,
        "vast": SOURCE_INFO["vast"].default_interval_s,
        "aws": SOURCE_INFO["aws"].default_interval_s,
    }
    # The defaults differ by source (hourly offers, daily price lists): none is 6 h here.
    assert intervals["vast"] == 3600 and intervals["aws"] == 86400


def test_an_unknown_scheduled_source_is_refused_with_the_valid_names() -> None:
    with pytest.raises(ValueError, match=r"unknown sources ebayy; valid: ebay, ebay_browse"):
        scrape_intervals({"ebayy": None})
