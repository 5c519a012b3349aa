"""The shared list of source names is the scraper registry's."""

from __future__ import annotations

from services.scraper.registry import SOURCES
from shared.sources.names import SCRAPED_SOURCES


def test_the_names_are_the_registry_s() -> None:
    assert tuple(SOURCES) == SCRAPED_SOURCES
