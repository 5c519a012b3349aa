"""Reachability and queue depth of the Redis broker, with short timeouts."""

from __future__ import annotations

import threading
import time
from functools import lru_cache

import redis

from shared.kit.events import QUEUES

# /health is polled often; one ping per second per process is plenty.
CACHE_S = 1.0
_lock = threading.Lock()
_last: dict[str, tuple[float, bool]] = {}


@lru_cache(maxsize=4)
def _client(url: str) -> redis.Redis[bytes]:
    return redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)


def broker_reachable(url: str) -> bool:
    with _lock:
        cached = _last.get(url)
        if cached and time.monotonic() - cached[0] < CACHE_S:
            return cached[1]
    try:
        ok = bool(_client(url).ping())
    except redis.RedisError:
        ok = False
    with _lock:
        _last[url] = (time.monotonic(), ok)
    return ok


def queue_depths(url: str) -> dict[str, int]:
    """Messages waiting per queue (Celery's Redis transport keeps each queue in a list)."""
    client = _client(url)
    return {name: int(client.llen(name)) for name in QUEUES.values()}
