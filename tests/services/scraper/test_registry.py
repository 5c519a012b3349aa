"""The registry discovers one source per module of services/scraper/sources/."""

from __future__ import annotations

import pkgutil
import types
from datetime import UTC, datetime

import pytest

from services.scraper import sources
from services.scraper.collect import Crawl
from services.scraper.registry import SOURCES, discover, source_modules
from services.scraper.settings import ScraperSettings
from services.scraper.spec import ParsedPage, SourceKind, SourceSpec
from shared.sources.names import SCRAPED_SOURCES
from shared.sources.specs import SourceInfo
from tests.services.scraper.fixture_server import SAMPLES_DIR

# The names `gpu-advisor scrape --source`, GET /gpus/{id}/prices?source= and
# GPU_ADVISOR_SCRAPE_SOURCES have always taken: a public contract.
PUBLIC_NAMES = ("ebay", "ebay_browse", "newegg", "bhphoto", "azure", "aws", "vast", "lambda")


def test_every_source_module_is_discovered_with_its_spec() -> None:
    modules = [
        info.name
        for info in pkgutil.iter_modules(sources.__path__)
        if not info.name.startswith("_")
    ]
    assert sorted(m.__name__.rpartition(".")[2] for m in source_modules()) == sorted(modules)
    assert len(modules) == len(SOURCES)
    for module in source_modules():
        spec = module.SOURCE
        assert isinstance(spec, SourceSpec)
        assert SOURCES[spec.name] is spec, module.__name__


def test_the_public_names_and_their_order_are_kept() -> None:
    assert tuple(SOURCES) == PUBLIC_NAMES == SCRAPED_SOURCES


def test_each_source_has_a_parse_page_entry_a_collector_and_a_complete_spec() -> None:
    settings = ScraperSettings()
    for name, spec in SOURCES.items():
        assert spec.name == name
        assert isinstance(spec.kind, SourceKind)
        assert callable(spec.collector) and callable(spec.parse_page)
        assert spec.default_interval_s > 0 and spec.description
        # Searching per GPU family is for market pages; cloud APIs are fetched whole.
        assert spec.searched is (spec.kind is SourceKind.MARKET)
        # Every setting a source declares is a ScraperSettings field, under the
        # environment name operators have always set.
        assert spec.settings, name
        for field, env in zip(spec.settings, spec.env_vars, strict=True):
            assert field in ScraperSettings.model_fields, (name, field)
            assert env == f"GPU_ADVISOR_SCRAPER_{field.upper()}"
            getattr(settings, field)


def test_source_specific_settings_each_belong_to_a_source() -> None:
    claimed = {field for spec in SOURCES.values() for field in spec.settings}
    per_site = {
        field
        for field in ScraperSettings.model_fields
        if field.endswith(("_base_url", "_api_key", "_client_id", "_client_secret"))
    }
    assert per_site <= claimed


@pytest.mark.parametrize(
    ("name", "sample"),
    [
        ("ebay", "ebay/search_active.html"),
        ("ebay_browse", "ebay_browse/search.json"),
        ("newegg", "newegg/search_grid.html"),
        ("bhphoto", "bhphoto/search_cards.html"),
        ("azure", "azure_prices/page1.json"),
        ("aws", "aws_pricing/us-east-1.csv"),
        ("vast", "vast/offers.json"),
        ("lambda", "lambda_cloud/instance_types.json"),
    ],
)
def test_each_parse_page_entry_reads_its_kind(name: str, sample: str) -> None:
    spec = SOURCES[name]
    when = datetime(2026, 11, 5, tzinfo=UTC)
    page = spec.parse_page((SAMPLES_DIR / sample).read_bytes(), None, ScraperSettings(), when)
    assert isinstance(page, ParsedPage)
    if spec.kind is SourceKind.MARKET:
        assert page.listings and not page.offers
    else:
        assert page.offers and not page.listings
        assert {offer.observed_at for offer in page.offers} == {when}


async def _nothing(crawl: Crawl, terms: list[str]) -> None:
    pass


def _nothing_parsed(body: bytes, url: str | None, s: ScraperSettings, at: datetime) -> ParsedPage:
    return ParsedPage()


def _spec(name: str) -> SourceSpec:
    return SourceSpec(
        SourceInfo(name, SourceKind.CLOUD, 60, "test", name), _nothing, _nothing_parsed
    )


def test_a_module_without_a_spec_or_a_repeated_name_fails_discovery(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fake_modules(*specs: object) -> list[types.ModuleType]:
        found = []
        for i, spec in enumerate(specs):
            module = types.ModuleType(f"fake.source{i}")
            if spec is not None:
                module.SOURCE = spec  # type: ignore[attr-defined]
            found.append(module)
        return found

    import services.scraper.registry as registry

    monkeypatch.setattr(registry, "source_modules", lambda _package: fake_modules(None))
    with pytest.raises(TypeError, match="declares no SOURCE"):
        discover()
    monkeypatch.setattr(
        registry, "source_modules", lambda _package: fake_modules(_spec("x"), _spec("x"))
    )
    with pytest.raises(ValueError, match="two sources named 'x'"):
        discover()
    # A source not yet in shared/sources/specs.py comes after the listed ones.
    monkeypatch.setattr(
        registry,
        "source_modules",
        lambda _package: fake_modules(_spec("zzz"), _spec("aaa"), _spec("lambda"), _spec("ebay")),
    )
    assert list(discover()) == ["ebay", "lambda", "aaa", "zzz"]
