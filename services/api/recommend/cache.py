"""Serialized /recommend answers per score revision and query."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict


class ResponseCache:
    """Serialized answers by (score revision, query), kept for `ttl_s` seconds.

    Procurement tools repeat the same queries; a new score revision changes the key, and
    the short lifetime keeps the price-age caveats current.
    """

    def __init__(self, ttl_s: float = 60.0, max_entries: int = 512) -> None:
        self._ttl_s = ttl_s
        self._max = max_entries
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[int | None, str], tuple[float, bytes]] = OrderedDict()

    def get(self, key: tuple[int | None, str]) -> bytes | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or time.monotonic() - entry[0] > self._ttl_s:
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def put(self, key: tuple[int | None, str], body: bytes) -> None:
        with self._lock:
            self._entries[key] = (time.monotonic(), body)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)
