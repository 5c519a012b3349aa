"""Per-key request limits: at most `per_minute` requests in any 60 seconds (a sliding
window log), in Redis when there is a broker (shared by every API process), in memory
otherwise.

A fixed one-minute window let twice the limit through across a minute boundary (240
requests in 3.4 s at 120 a minute); the log counts the requests of the last 60 s at every
moment, so no 60 s span ever holds more than the limit. Refused requests are not logged:
a client that waits the Retry-After it was given gets in.

`scoped` derives another limit (e.g. anonymous quote creation per client IP) that counts
in the same storage under its own names, so it is exactly as shared as the per-key one.
"""

from __future__ import annotations

import copy
import math
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import redis

WINDOW_S = 60
# The in-memory table is swept of idle keys when it holds more than this many.
SWEEP_AT = 10_000

# KEYS[1]: the key's log; ARGV: now, window, limit, a unique member, "1" to count the
# request ("0" only asks whether one would be admitted). Atomic in Redis, so every API
# process sees the same count. Returns "ok", or the seconds to wait as text (a Lua number
# would come back truncated to an integer).
_SLIDING_LOG = """
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  if ARGV[5] == '1' then
    redis.call('ZADD', KEYS[1], now, ARGV[4])
    redis.call('PEXPIRE', KEYS[1], math.ceil(window * 1000))
  end
  return 'ok'
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return tostring(tonumber(oldest[2]) + window - now)
"""


class RateLimiter:
    def __init__(
        self,
        per_minute: int,
        redis_url: str = "",
        namespace: str = "",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.per_minute = per_minute
        self.namespace = namespace
        self._clock = clock
        self._redis = _client(redis_url) if redis_url else None
        self._script: Any = self._redis.register_script(_SLIDING_LOG) if self._redis else None
        self._lock = threading.Lock()
        self._logs: dict[tuple[str, int | str], deque[float]] = {}

    def scoped(self, namespace: str, per_minute: int) -> RateLimiter:
        """Another limit with its own keys, counted in this limiter's storage (the same
        Redis, or the same in-memory table and lock)."""
        if not namespace:
            raise ValueError("a scoped limit needs a namespace of its own")
        other = copy.copy(self)  # shallow: shares the client, the lock and the logs
        other.per_minute = per_minute
        other.namespace = namespace
        return other

    def hit(self, key: int | str) -> float | None:
        """Count one request; seconds to wait when over the limit, else None."""
        return self._check(key, count=True)

    def waiting(self, key: int | str) -> float | None:
        """Seconds to wait if `key` sent a request now (None: it would be admitted),
        without counting one."""
        return self._check(key, count=False)

    def _check(self, key: int | str, count: bool) -> float | None:
        now = self._clock()
        wait = self._hit_redis(key, now, count) if self._script is not None else None
        if wait is None:
            wait = self._hit_memory(key, now, count)
        if wait is None or wait <= 0:
            return None
        return max(1.0, float(math.ceil(wait)))  # whole seconds: Retry-After is exact

    def _hit_redis(self, key: int | str, now: float, count: bool = True) -> float | None:
        """Seconds to wait (0 when admitted), or None when Redis is unreachable."""
        # The per-key limit keeps unprefixed names; scoped limits add their namespace.
        scope = f"{self.namespace}:" if self.namespace else ""
        name = f"gpu-advisor:ratelimit:log:{scope}{key}"
        try:
            answer = self._script(
                keys=[name],
                args=[repr(now), WINDOW_S, self.per_minute, uuid.uuid4().hex, int(count)],
            )
        except redis.RedisError:
            return None  # a broker outage must not lock every client out: count locally
        text = answer.decode() if isinstance(answer, bytes) else str(answer)
        return 0.0 if text == "ok" else float(text)

    def _hit_memory(self, key: int | str, now: float, count: bool = True) -> float | None:
        start = now - WINDOW_S
        with self._lock:
            if len(self._logs) > SWEEP_AT:
                for idle in [k for k, log in self._logs.items() if not log or log[-1] <= start]:
                    del self._logs[idle]
            log = self._logs.setdefault((self.namespace, key), deque())
            while log and log[0] <= start:
                log.popleft()
            if len(log) < self.per_minute:
                if count:
                    log.append(now)
                return None
            return log[0] + WINDOW_S - now


@lru_cache(maxsize=4)
def _client(url: str) -> redis.Redis[bytes]:
    return redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
