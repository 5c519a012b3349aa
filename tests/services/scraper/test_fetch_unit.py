"""Fetch-layer details that are simpler to pin down with httpx.MockTransport."""

from __future__ import annotations

import asyncio
import random

import httpx
import pytest

from services.scraper.errors import (
    HostUnreachable,
    PermanentFetchError,
    RobotsUnavailable,
    TransientFetchError,
)
from services.scraper.fetch import Fetcher
from tests.services.scraper.conftest import FakeClock, make_settings


def run(handler, body, **settings):
    clock = FakeClock()

    async def go():
        async with Fetcher(
            make_settings(**settings),
            transport=httpx.MockTransport(handler),
            clock=clock,
            sleep=clock.sleep,
            now=clock.wall,
            rng=random.Random(1),
        ) as fetcher:
            return await body(fetcher), fetcher.stats, clock

    return asyncio.run(go())


def test_backoff_is_capped_and_jittered() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503)

    async def body(fetcher: Fetcher):
        with pytest.raises(TransientFetchError):
            await fetcher.fetch("https://shop.test/a", check_robots=False)

    _, stats, clock = run(handler, body, max_retries=6, backoff_base_s=1.0, backoff_cap_s=8.0)
    assert stats.retries == 6
    ceilings = [1, 2, 4, 8, 8, 8]
    assert all(c / 2 <= s <= c for s, c in zip(clock.sleeps, ceilings, strict=True))
    assert len(set(clock.sleeps)) > 3  # jittered, not a fixed schedule


def test_retry_after_defers_other_requests_to_the_same_host() -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if request.url.path == "/a" and calls.count("/a") == 1:
            return httpx.Response(429, headers={"Retry-After": "10"})
        return httpx.Response(200, text="ok")

    async def body(fetcher: Fetcher):
        await fetcher.fetch("https://shop.test/a", check_robots=False)
        return await fetcher.fetch("https://shop.test/b", check_robots=False)

    result, _, clock = run(handler, body)
    assert result.text == "ok"
    assert clock.sleeps == [10.0]
    assert calls == ["/a", "/a", "/b"]


def test_304_without_a_cached_body_is_an_error_not_an_empty_page() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(304)

    async def body(fetcher: Fetcher):
        with pytest.raises(PermanentFetchError) as caught:
            await fetcher.fetch("https://shop.test/a", check_robots=False)
        return caught.value

    error, stats, _ = run(handler, body)
    assert error.status == 304
    assert stats.errors == 1


def test_post_is_not_conditional_and_sends_body() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"ok": True}, headers={"ETag": '"x"'})

    async def body(fetcher: Fetcher):
        for _ in range(2):
            await fetcher.fetch(
                "https://api.test/token", method="POST", content=b"a=1", check_robots=False
            )

    run(handler, body)
    assert [r.content for r in seen] == [b"a=1", b"a=1"]
    assert all("if-none-match" not in r.headers for r in seen)


def test_robots_429_is_treated_as_unavailable() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429) if request.url.path == "/robots.txt" else httpx.Response(200)

    async def body(fetcher: Fetcher):
        with pytest.raises(RobotsUnavailable):
            await fetcher.fetch("https://shop.test/a")

    _, stats, _ = run(handler, body)
    assert stats.robots_requests == 1
    assert stats.requests == 1


def test_text_uses_declared_charset() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        body = "Café £899".encode("latin-1")
        return httpx.Response(
            200, content=body, headers={"Content-Type": "text/html; charset=ISO-8859-1"}
        )

    async def body(fetcher: Fetcher):
        return await fetcher.fetch("https://shop.test/a", check_robots=False)

    result, _, _ = run(handler, body)
    assert result.text == "Café £899"


def test_every_request_carries_explicit_timeouts() -> None:
    timeouts: list[dict[str, float]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        timeouts.append(request.extensions["timeout"])
        return httpx.Response(404)

    async def body(fetcher: Fetcher):
        with pytest.raises(PermanentFetchError):
            await fetcher.fetch("https://shop.test/a")

    run(handler, body, connect_timeout_s=2.0, read_timeout_s=3.0)
    assert timeouts and all(t["connect"] == 2.0 and t["read"] == 3.0 for t in timeouts)


def test_a_dns_failure_is_reported_as_a_network_error_not_robots() -> None:
    """Offline, the first request of a run is robots.txt: its failure must name the
    network, not read as 'robots.txt unavailable, assuming disallow'."""

    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno -3] Temporary failure in name resolution")

    async def body(fetcher: Fetcher):
        with pytest.raises(HostUnreachable) as info:
            await fetcher.fetch("https://shop.test/a")
        return info.value

    error, stats, _ = run(handler, body)
    assert error.transient and isinstance(error, RobotsUnavailable)  # still RFC 9309's rule
    assert error.reason.startswith("network error: DNS lookup of shop.test failed")
    assert "robots" not in str(error)
    assert stats.robots_blocked == 1


def test_a_timeout_is_reported_as_a_network_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectTimeout("timed out")

    async def body(fetcher: Fetcher):
        with pytest.raises(HostUnreachable, match="timed out connecting to shop.test"):
            await fetcher.fetch("https://shop.test/a")

    run(handler, body)


def test_a_robots_500_is_still_a_robots_failure() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500)

    async def body(fetcher: Fetcher):
        with pytest.raises(RobotsUnavailable) as info:
            await fetcher.fetch("https://shop.test/a")
        assert not isinstance(info.value, HostUnreachable)

    run(handler, body)
