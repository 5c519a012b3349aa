"""The scraped sources: name -> what it is, how it is collected, how often.

Marketplaces and retailers are searched once per GPU family (the title matcher's
families, so every catalog card is searched for); cloud APIs are fetched whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from services.scraper import collect
from services.scraper.collect import Collector
from services.scraper.settings import ScraperSettings
from shared.matching.families import FAMILIES

HOUR = 3600


class SourceKind(StrEnum):
    # Listings of cards for sale: stored as price observations.
    MARKET = "market"
    # Hourly instance prices: stored as cloud offers.
    CLOUD = "cloud"


@dataclass(frozen=True)
class SourceSpec:
    name: str
    kind: SourceKind
    collector: Collector
    default_interval_s: int
    description: str
    # Searched per GPU family (retail, marketplaces) or fetched whole (APIs).
    searched: bool = False


SOURCES: dict[str, SourceSpec] = {
    spec.name: spec
    for spec in (
        SourceSpec(
            "ebay",
            SourceKind.MARKET,
            collect.collect_ebay,
            6 * HOUR,
            "eBay search pages: active and sold listings",
            searched=True,
        ),
        SourceSpec(
            "ebay_browse",
            SourceKind.MARKET,
            collect.collect_ebay_browse,
            6 * HOUR,
            "eBay Browse API item_summary/search (active listings; needs API keys)",
            searched=True,
        ),
        SourceSpec(
            "newegg",
            SourceKind.MARKET,
            collect.collect_newegg,
            12 * HOUR,
            "Newegg desktop graphics card search pages",
            searched=True,
        ),
        SourceSpec(
            "bhphoto",
            SourceKind.MARKET,
            collect.collect_bhphoto,
            12 * HOUR,
            "B&H Photo search pages",
            searched=True,
        ),
        SourceSpec(
            "azure",
            SourceKind.CLOUD,
            collect.collect_azure,
            24 * HOUR,
            "Azure Retail Prices API, GPU VMs",
        ),
        SourceSpec(
            "aws",
            SourceKind.CLOUD,
            collect.collect_aws,
            24 * HOUR,
            "AWS EC2 bulk price list CSV per region",
        ),
        # Marketplace offers come and go within the hour.
        SourceSpec("vast", SourceKind.CLOUD, collect.collect_vast, HOUR, "vast.ai offers"),
        SourceSpec(
            "lambda",
            SourceKind.CLOUD,
            collect.collect_lambda,
            6 * HOUR,
            "Lambda Cloud instance types (needs an API key)",
        ),
    )
}


class UnknownSource(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(f"unknown source {name!r}; valid: {', '.join(sorted(SOURCES))}")
        self.name = name


def get_source(name: str) -> SourceSpec:
    try:
        return SOURCES[name]
    except KeyError:
        raise UnknownSource(name) from None


def search_terms(settings: ScraperSettings) -> list[str]:
    """The configured terms, or one per matcher family with covered ones left out."""
    if settings.search_terms:
        return list(settings.search_terms)
    return family_terms(FAMILIES)


def family_terms(families: Iterable[str]) -> list[str]:
    """'geforce 3090' -> 'rtx 3090'; a term is left out when a shorter one already
    finds its listings ('rtx 3090' finds 'rtx 3090 ti')."""
    terms = sorted({_term(str(name)) for name in families})
    return [t for t in terms if not any(_covers(other, t) for other in terms if other != t)]


def _term(family: str) -> str:
    match = re.fullmatch(r"geforce (\d{4})(.*)", family)
    if match:
        number, rest = match.groups()
        prefix = "gtx" if number.startswith(("10", "16")) else "rtx"
        return f"{prefix} {number}{rest}"
    # Short datacenter names ("a10", "p4", "t4") need the brand to find cards.
    return f"nvidia {family}" if re.fullmatch(r"[a-z]\d{1,3}[a-z]?", family) else family


def _covers(shorter: str, longer: str) -> bool:
    words, other = shorter.split(), longer.split()
    return len(words) < len(other) and other[: len(words)] == words
