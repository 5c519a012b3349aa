"""Webhook tests in flight per API key, bounded (one process's count).

A test waits on the customer's receiver. Since issue 26 it waits on the event loop, not
on a worker thread or a database connection; the bound keeps one key from opening
hundreds of outbound connections at once (within its rate limit, 45 parallel tests to a
slow receiver once filled the 40-thread pool and stalled every database endpoint).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import HTTPException


class TestsInFlight:
    """Counts of tests in flight per key; all on the app's one event loop, so no lock."""

    __test__ = False  # not a pytest class, despite its name

    def __init__(self, per_key: int) -> None:
        self.per_key = per_key
        self._running: Counter[int] = Counter()

    @asynccontextmanager
    async def slot(self, key_id: int) -> AsyncIterator[None]:
        """Hold one of the key's slots while the test runs; 429 when all are taken."""
        if self._running[key_id] >= self.per_key:
            raise HTTPException(
                429,
                detail={
                    "message": f"at most {self.per_key} webhook tests at a time per API key; "
                    "try again when one has answered"
                },
                headers={"Retry-After": "1"},
            )
        self._running[key_id] += 1
        try:
            yield
        finally:
            self._running[key_id] -= 1
            if not self._running[key_id]:
                del self._running[key_id]
