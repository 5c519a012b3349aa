"""Per-key request limits: a fixed one-minute window, in Redis when there is a broker
(shared by every API process), in memory otherwise."""

from __future__ import annotations

import threading
import time
from functools import lru_cache

import redis

WINDOW_S = 60


class RateLimiter:
    def __init__(self, per_minute: int, redis_url: str = "") -> None:
        self.per_minute = per_minute
        self._redis = _client(redis_url) if redis_url else None
        self._lock = threading.Lock()
        self._counts: dict[tuple[int, int], int] = {}

    def hit(self, key_id: int) -> float | None:
        """Count one request; seconds to wait when over the limit, else None."""
        now = time.time()
        window = int(now // WINDOW_S)
        count = self._count(key_id, window)
        if count <= self.per_minute:
            return None
        return max(1.0, (window + 1) * WINDOW_S - now)

    def _count(self, key_id: int, window: int) -> int:
        if self._redis is not None:
            try:
                name = f"gpu-advisor:ratelimit:{key_id}:{window}"
                pipe = self._redis.pipeline()
                pipe.incr(name)
                pipe.expire(name, WINDOW_S * 2)
                return int(pipe.execute()[0])
            except redis.RedisError:
                pass  # a broker outage must not lock every client out: count locally
        with self._lock:
            self._counts = {k: v for k, v in self._counts.items() if k[1] >= window}
            self._counts[(key_id, window)] = self._counts.get((key_id, window), 0) + 1
            return self._counts[(key_id, window)]


@lru_cache(maxsize=4)
def _client(url: str) -> redis.Redis[bytes]:
    return redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
