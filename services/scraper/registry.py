"""The scraped sources: name -> what it is, how it is collected, how often.

Each source is one module of `services/scraper/sources/` that declares a module-level
`SOURCE` (a `SourceSpec`, services/scraper/spec.py); `discover` finds them with pkgutil,
so adding a source is adding its module and its `SourceInfo` (shared/sources/specs.py,
which the API reads without importing the scraper). Modules whose names start with "_"
are the sources' shared helpers.

Marketplaces and retailers are searched once per GPU family (the title matcher's
families, so every catalog card is searched for); cloud APIs are fetched whole.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterable
from types import ModuleType

from services.scraper import sources
from services.scraper.settings import ScraperSettings
from services.scraper.spec import SourceKind, SourceSpec
from shared.matching.families import FAMILIES
from shared.sources.names import SCRAPED_SOURCES

__all__ = ["SOURCES", "SourceKind", "SourceSpec", "UnknownSource", "discover", "get_source"]


def source_modules(package: ModuleType = sources) -> list[ModuleType]:
    """The package's source modules (not its "_" helpers), by module name."""
    found = pkgutil.iter_modules(package.__path__, prefix=f"{package.__name__}.")
    return [
        importlib.import_module(info.name)
        for info in sorted(found, key=lambda info: info.name)
        if not info.name.rpartition(".")[2].startswith("_")
    ]


def discover(package: ModuleType = sources) -> dict[str, SourceSpec]:
    """Each source module's `SOURCE`, by name: in the order of shared/sources/specs.py
    (markets first, the order `gpu-advisor scrape` runs and lists them), then any source
    it does not list yet by name. A module without a spec, or two with one name, is a
    programming error and fails here, at import, rather than in a run."""
    specs: dict[str, SourceSpec] = {}
    declared_in: dict[str, str] = {}
    for module in source_modules(package):
        spec = getattr(module, "SOURCE", None)
        if not isinstance(spec, SourceSpec):
            raise TypeError(f"{module.__name__} declares no SOURCE = SourceSpec(...)")
        if spec.name in specs:
            first = declared_in[spec.name]
            raise ValueError(f"two sources named {spec.name!r}: {first}, {module.__name__}")
        specs[spec.name] = spec
        declared_in[spec.name] = module.__name__
    listed = {name: i for i, name in enumerate(SCRAPED_SOURCES)}
    order = sorted(specs, key=lambda name: (listed.get(name, len(listed)), name))
    return {name: specs[name] for name in order}


SOURCES: dict[str, SourceSpec] = discover()


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
