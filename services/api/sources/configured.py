"""The sources the scraper is built with, as GET /sources lists them before any run.

The scraper declares each source in its own module (`SOURCE = SourceSpec(...)`,
services/scraper/sources/); the API does not import the scraper (one service never
imports another, pyproject's import contracts), so what GET /sources says about a source
that has not run yet is written here: its default interval, its description and whether
it needs an API key. tests/services/api/test_sources.py checks this table against the
scraper's specs, so adding, renaming or retiming a source without updating it fails there.
"""

from __future__ import annotations

from dataclasses import dataclass

HOUR = 3600


@dataclass(frozen=True)
class ConfiguredSource:
    name: str
    # SourceSpec.default_interval_s: the interval when GPU_ADVISOR_SCRAPE_SOURCES does
    # not give one.
    default_interval_s: int
    # SourceSpec.description.
    description: str
    # Whether one of the settings it reads (SourceSpec.settings) is a secret: an API key
    # or an OAuth client secret it cannot run without.
    needs_api_key: bool = False


# In the order of shared/sources/names.py (the order `gpu-advisor scrape` runs them).
CONFIGURED_SOURCES: tuple[ConfiguredSource, ...] = (
    ConfiguredSource("ebay", 6 * HOUR, "eBay search pages: active and sold listings"),
    ConfiguredSource(
        "ebay_browse",
        6 * HOUR,
        "eBay Browse API item_summary/search (active listings; needs API keys)",
        needs_api_key=True,
    ),
    ConfiguredSource("newegg", 12 * HOUR, "Newegg desktop graphics card search pages"),
    ConfiguredSource("bhphoto", 12 * HOUR, "B&H Photo search pages"),
    ConfiguredSource("azure", 24 * HOUR, "Azure Retail Prices API, GPU VMs"),
    ConfiguredSource("aws", 24 * HOUR, "AWS EC2 bulk price list CSV per region"),
    ConfiguredSource("vast", HOUR, "vast.ai offers"),
    ConfiguredSource(
        "lambda", 6 * HOUR, "Lambda Cloud instance types (needs an API key)", needs_api_key=True
    ),
)

BY_NAME: dict[str, ConfiguredSource] = {source.name: source for source in CONFIGURED_SOURCES}
