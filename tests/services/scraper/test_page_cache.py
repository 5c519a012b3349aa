"""The conditional-GET cache survives the process: a later run revalidates with 304."""

from __future__ import annotations

from pathlib import Path

import httpx

from services.scraper.fetch import Fetcher
from services.scraper.page_cache import DiskPageCache
from services.scraper.settings import ScraperSettings
from tests.services.scraper.fixture_server import SAMPLES_DIR, conditional
from tests.services.scraper.scrape_env import PATHS, ScrapeEnv, source_counts


def fresh_process_fetchers(env: ScrapeEnv, directory: Path):
    """A new cache object per run, as after a worker restart: only the disk remembers."""

    def make(settings: ScraperSettings) -> Fetcher:
        clock = env.clock
        cache = DiskPageCache(directory, settings.conditional_cache_entries)
        return Fetcher(settings, clock=clock, sleep=clock.sleep, page_cache=cache)

    return make


def test_a_later_run_in_a_new_process_gets_304_and_reuses_the_page(scrape_env, tmp_path):
    body = (SAMPLES_DIR / "newegg/search_grid.html").read_bytes()
    scrape_env.server.route(PATHS["newegg"], conditional(body, etag='"v1"'))
    factory = fresh_process_fetchers(scrape_env, tmp_path / "pages")
    [first] = scrape_env.run(["newegg"], fetcher_factory=factory)
    scrape_env.later(hours=12)
    [second] = scrape_env.run(["newegg"], fetcher_factory=factory)
    assert (first.not_modified, second.not_modified) == (0, 1)
    assert second.stored == first.stored == 4
    _, revalidation = scrape_env.server.requests_to(PATHS["newegg"])
    assert revalidation.header("If-None-Match") == '"v1"'
    assert source_counts(scrape_env)["newegg"] == 8


def test_a_torn_cache_file_means_a_full_fetch_not_an_error(tmp_path):
    cache = DiskPageCache(tmp_path, 10)
    response = httpx.Response(200, content=b"<html>ok</html>", headers={"ETag": '"a"'})
    cache.store("http://127.0.0.1/page", response)
    reloaded = DiskPageCache(tmp_path, 10).get("http://127.0.0.1/page")
    assert reloaded is not None and reloaded.body == b"<html>ok</html>"
    for meta in tmp_path.glob("*.json"):
        meta.write_text("{not json")
    assert DiskPageCache(tmp_path, 10).get("http://127.0.0.1/page") is None


def test_the_disk_cache_keeps_at_most_max_entries(tmp_path):
    cache = DiskPageCache(tmp_path, 3)
    for n in range(6):
        cache.store(
            f"http://127.0.0.1/{n}", httpx.Response(200, content=b"x", headers={"ETag": f'"{n}"'})
        )
    assert len(list(tmp_path.glob("*.json"))) == 3 and len(list(tmp_path.glob("*.body"))) == 3
    assert DiskPageCache(tmp_path, 3).get("http://127.0.0.1/5") is not None


def test_pages_without_validators_are_not_kept(tmp_path):
    cache = DiskPageCache(tmp_path, 3)
    cache.store("http://127.0.0.1/plain", httpx.Response(200, content=b"x"))
    assert list(tmp_path.iterdir()) == []
