"""The in-memory conditional-GET cache: the last good body per URL with its validators
(ETag, Last-Modified), so a 304 can stand for the page. `page_cache.py` keeps it on disk."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import httpx


@dataclass(frozen=True)
class CachedPage:
    body: bytes
    headers: httpx.Headers
    etag: str | None
    last_modified: str | None

    def validators(self) -> dict[str, str]:
        found = {"If-None-Match": self.etag, "If-Modified-Since": self.last_modified}
        return {name: value for name, value in found.items() if value}


class PageCache:
    """Last good body per URL with its validators, least recently used evicted first.

    Pass one to several fetchers in turn (one per run) to revalidate across runs.
    """

    def __init__(self, max_entries: int) -> None:
        self._max = max_entries
        self._pages: OrderedDict[str, CachedPage] = OrderedDict()

    def get(self, url: str) -> CachedPage | None:
        page = self._pages.get(url)
        if page is not None:
            self._pages.move_to_end(url)
        return page

    def store(self, url: str, response: httpx.Response) -> None:
        etag = response.headers.get("ETag")
        last_modified = response.headers.get("Last-Modified")
        if self._max == 0 or not (etag or last_modified):
            return
        self._pages[url] = CachedPage(response.content, response.headers, etag, last_modified)
        self._pages.move_to_end(url)
        while len(self._pages) > self._max:
            self._pages.popitem(last=False)
