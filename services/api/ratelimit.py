"""Per-key request limits: a fixed one-minute window, in Redis when there is a broker
(shared by every API process), in memory otherwise.

`scoped` derives another limit (e.g. anonymous quote creation per client IP) that counts
in the same storage under its own names, so it is exactly as shared as the per-key one.
"""

from __future__ import annotations

import copy
import threading
import time
from functools import lru_cache

import redis

WINDOW_S = 60


class RateLimiter:
    def __init__(self, per_minute: int, redis_url: str = "", namespace: str = "") -> None:
        self.per_minute = per_minute
        self.namespace = namespace
        self._redis = _client(redis_url) if redis_url else None
        self._lock = threading.Lock()
        self._counts: dict[tuple[str, int | str, int], int] = {}

    def scoped(self, namespace: str, per_minute: int) -> RateLimiter:
        """Another limit with its own keys, counted in this limiter's storage (the same
        Redis, or the same in-memory table and lock)."""
        if not namespace:
            raise ValueError("a scoped limit needs a namespace of its own")
        other = copy.copy(self)  # shallow: shares the client, the lock and the counts
        other.per_minute = per_minute
        other.namespace = namespace
        return other

    def hit(self, key: int | str) -> float | None:
        """Count one request; seconds to wait when over the limit, else None."""
        now = time.time()
        window = int(now // WINDOW_S)
        count = self._count(key, window)
        if count <= self.per_minute:
            return None
        return max(1.0, (window + 1) * WINDOW_S - now)

    def _count(self, key: int | str, window: int) -> int:
        if self._redis is not None:
            try:
                # The per-key limit keeps its unprefixed names, so counts survive a deploy.
                scope = f"{self.namespace}:" if self.namespace else ""
                name = f"gpu-advisor:ratelimit:{scope}{key}:{window}"
                pipe = self._redis.pipeline()
                pipe.incr(name)
                pipe.expire(name, WINDOW_S * 2)
                return int(pipe.execute()[0])
            except redis.RedisError:
                pass  # a broker outage must not lock every client out: count locally
        with self._lock:
            # Pruned in place: scoped limiters hold the same dict.
            for stale in [k for k in self._counts if k[2] < window]:
                del self._counts[stale]
            slot = (self.namespace, key, window)
            self._counts[slot] = self._counts.get(slot, 0) + 1
            return self._counts[slot]


@lru_cache(maxsize=4)
def _client(url: str) -> redis.Redis[bytes]:
    return redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
