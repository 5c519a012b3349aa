"""The conditional-GET cache on disk, so a 304 reuses the last good page across runs
and worker restarts, not only within one run."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

import httpx

from services.scraper.conditional_cache import CachedPage, PageCache
from services.scraper.fetch import Fetcher
from services.scraper.runner import FetcherFactory
from services.scraper.settings import ScraperSettings
from shared.kit.settings import Settings

log = logging.getLogger(__name__)


class DiskPageCache(PageCache):
    """PageCache that also keeps each page in `directory` (one body and one JSON file)."""

    def __init__(self, directory: Path, max_entries: int) -> None:
        super().__init__(max_entries)
        self._dir = directory

    def _paths(self, url: str) -> tuple[Path, Path]:
        key = hashlib.sha256(url.encode()).hexdigest()
        return self._dir / f"{key}.json", self._dir / f"{key}.body"

    def get(self, url: str) -> CachedPage | None:
        page = super().get(url)
        if page is not None:
            return page
        meta_path, body_path = self._paths(url)
        try:
            meta = json.loads(meta_path.read_text())
            body = body_path.read_bytes()
        except (OSError, ValueError):
            return None  # never cached, or a torn write: fetch in full
        if meta.get("url") != url:
            return None
        return CachedPage(
            body, httpx.Headers(meta["headers"]), meta.get("etag"), meta.get("last_modified")
        )

    def store(self, url: str, response: httpx.Response) -> None:
        super().store(url, response)
        etag = response.headers.get("ETag")
        last_modified = response.headers.get("Last-Modified")
        if not (etag or last_modified):
            return
        meta = {
            "url": url,
            "etag": etag,
            "last_modified": last_modified,
            "headers": list(response.headers.multi_items()),
        }
        meta_path, body_path = self._paths(url)
        try:
            self._dir.mkdir(parents=True, exist_ok=True)
            _atomic_write(body_path, response.content)
            _atomic_write(meta_path, json.dumps(meta).encode())
            self._prune()
        except OSError:
            log.warning("could not keep %s in the page cache", url, exc_info=True)

    def _prune(self) -> None:
        metas = sorted(self._dir.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for meta_path in metas[: max(0, len(metas) - self._max)]:
            meta_path.unlink(missing_ok=True)
            meta_path.with_suffix(".body").unlink(missing_ok=True)


def _atomic_write(path: Path, data: bytes) -> None:
    # Concurrent workers may write the same page: rename makes each file whole or absent.
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def persistent_fetchers(settings: Settings, scraper: ScraperSettings) -> FetcherFactory:
    """Fetchers sharing one on-disk page cache under the data directory."""
    cache = DiskPageCache(settings.data_dir / "page-cache", scraper.conditional_cache_entries)

    def make(scraper_settings: ScraperSettings) -> Fetcher:
        return Fetcher(scraper_settings, page_cache=cache)

    return make
