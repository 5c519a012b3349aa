"""The fetch layer over real local HTTP, one scripted server behaviour per test."""

from __future__ import annotations

import asyncio
import random
import socket

import pytest

from services.scraper.errors import (
    HostUnreachable,
    PermanentFetchError,
    RobotsBlocked,
    RobotsUnavailable,
    TransientFetchError,
)
from services.scraper.fetch import Fetcher
from services.scraper.fetch_result import FetchResult
from services.scraper.settings import ScraperSettings
from tests.services.scraper.conftest import FakeClock, make_settings
from tests.services.scraper.fixture_server import (
    FixtureServer,
    conditional,
    fail_first,
    hang,
    reply,
    sequence,
    slow,
)

PAGE = "<html><body>ok</body></html>"


def fetch_all(
    settings: ScraperSettings, clock: FakeClock, *urls: str, **kwargs: object
) -> list[FetchResult]:
    async def run() -> list[FetchResult]:
        async with Fetcher(
            settings, clock=clock, sleep=clock.sleep, now=clock.wall, rng=random.Random(7)
        ) as fetcher:
            return [await fetcher.fetch(url, **kwargs) for url in urls]  # type: ignore[arg-type]

    return asyncio.run(run())


def fetch_one(settings: ScraperSettings, clock: FakeClock, url: str, **kwargs: object):
    return fetch_all(settings, clock, url, **kwargs)[0]


def run_with_fetcher(settings, clock, body):
    """Run `body(fetcher)` and return (its result or raised FetchError, fetcher.stats)."""

    async def run():
        async with Fetcher(
            settings, clock=clock, sleep=clock.sleep, now=clock.wall, rng=random.Random(7)
        ) as fetcher:
            try:
                return await body(fetcher), fetcher.stats
            except Exception as exc:  # noqa: BLE001 - handed back for assertions
                return exc, fetcher.stats

    return asyncio.run(run())


def test_plain_get_sends_identifying_user_agent(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/page", reply(200, PAGE, Content_Type="text/html; charset=utf-8"))
    result = fetch_one(
        make_settings(user_agent="GPUAdvisorBot/9.9 (+test)"), clock, server.url("/page")
    )
    assert result.status == 200
    assert result.text == PAGE
    assert (result.not_modified, result.from_cache) == (False, False)
    [request] = server.requests_to("/page")
    assert request.header("User-Agent") == "GPUAdvisorBot/9.9 (+test)"


def test_429_with_retry_after_seconds_is_obeyed(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/page", sequence(reply(429, "slow down", Retry_After="3"), reply(200, PAGE)))
    result, stats = run_with_fetcher(make_settings(), clock, lambda f: f.fetch(server.url("/page")))
    assert result.body == PAGE.encode()
    assert clock.sleeps == [3.0]
    assert len(server.requests_to("/page")) == 2
    assert stats.retries == 1
    assert stats.by_status == {429: 1, 200: 1, 404: 1}  # 404 = robots.txt


def test_429_with_retry_after_http_date_is_obeyed(server: FixtureServer, clock: FakeClock) -> None:
    # The fake wall clock reads 07:27:53 GMT, so this date is 7 seconds away.
    retry_at = "Wed, 21 Oct 2026 07:28:00 GMT"
    server.route("/page", sequence(reply(429, "", Retry_After=retry_at), reply(200, PAGE)))
    fetch_one(make_settings(), clock, server.url("/page"))
    assert clock.sleeps == [7.0]


def test_retry_after_beyond_cap_fails_fast_as_transient(
    server: FixtureServer, clock: FakeClock
) -> None:
    server.route("/page", reply(503, "maintenance", Retry_After="3600"))
    error, stats = run_with_fetcher(
        make_settings(max_retry_after_s=60), clock, lambda f: f.fetch(server.url("/page"))
    )
    assert isinstance(error, TransientFetchError)
    assert (error.status, error.retry_after_s) == (503, 3600.0)
    assert len(server.requests_to("/page")) == 1
    assert clock.sleeps == []
    assert stats.errors == 1


def test_503_then_200_retries_with_jittered_exponential_backoff(
    server: FixtureServer, clock: FakeClock
) -> None:
    server.route("/page", fail_first(2, 503, then=reply(200, PAGE)))
    result, stats = run_with_fetcher(
        make_settings(max_retries=3), clock, lambda f: f.fetch(server.url("/page"))
    )
    assert result.status == 200
    assert len(server.requests_to("/page")) == 3
    first, second = clock.sleeps
    assert 0.5 <= first <= 1.0  # base 1 s, equal jitter
    assert 1.0 <= second <= 2.0
    assert stats.retries == 2


def test_persistent_503_raises_transient_after_max_retries(
    server: FixtureServer, clock: FakeClock
) -> None:
    server.route("/page", reply(503, "down"))
    error, stats = run_with_fetcher(
        make_settings(max_retries=2), clock, lambda f: f.fetch(server.url("/page"))
    )
    assert isinstance(error, TransientFetchError)
    assert error.status == 503
    assert len(server.requests_to("/page")) == 3
    assert stats.errors == 1


def test_404_is_permanent_and_not_retried(server: FixtureServer, clock: FakeClock) -> None:
    error, _ = run_with_fetcher(make_settings(), clock, lambda f: f.fetch(server.url("/gone")))
    assert isinstance(error, PermanentFetchError)
    assert not error.transient
    assert error.status == 404
    assert len(server.requests_to("/gone")) == 1


def test_hung_connection_times_out_and_is_retried(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/slow", hang(5.0))
    settings = make_settings(read_timeout_s=0.2, max_retries=1)
    error, stats = run_with_fetcher(settings, clock, lambda f: f.fetch(server.url("/slow")))
    assert isinstance(error, TransientFetchError)
    assert error.reason == "timeout"
    assert stats.transport_errors == {"timeout": 2}
    assert len(server.requests_to("/slow")) == 2


def test_connection_refused_is_transient(clock: FakeClock) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/page"
    error, stats = run_with_fetcher(
        make_settings(max_retries=1), clock, lambda f: f.fetch(url, check_robots=False)
    )
    assert isinstance(error, TransientFetchError)
    assert error.reason.startswith("connection error")
    assert stats.retries == 1


def test_robots_disallow_and_crawl_delay(server: FixtureServer, clock: FakeClock) -> None:
    robots = "User-agent: *\nDisallow: /private\nCrawl-delay: 5\n"
    server.route("/robots.txt", reply(200, robots, Content_Type="text/plain"))
    server.route("/a", reply(200, PAGE))
    server.route("/b", reply(200, PAGE))
    server.route("/private/x", reply(200, PAGE))

    async def body(fetcher: Fetcher):
        await fetcher.fetch(server.url("/a"))
        await fetcher.fetch(server.url("/b"))
        with pytest.raises(RobotsBlocked):
            await fetcher.fetch(server.url("/private/x"))

    _, stats = run_with_fetcher(make_settings(per_host_delay_s=1.0), clock, body)
    assert server.requests_to("/private/x") == []
    assert len(server.requests_to("/robots.txt")) == 1
    # robots.txt then /a then /b: the later starts are 5 s (Crawl-delay > 1 s) apart.
    assert clock.sleeps == [5.0, 5.0]
    assert stats.robots_blocked == 1


def test_robots_for_our_agent_only(server: FixtureServer, clock: FakeClock) -> None:
    robots = "User-agent: GPUAdvisorBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n"
    server.route("/robots.txt", reply(200, robots))
    server.route("/a", reply(200, PAGE))
    error, _ = run_with_fetcher(make_settings(), clock, lambda f: f.fetch(server.url("/a")))
    assert isinstance(error, RobotsBlocked)


def test_robots_404_allows_all(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/private", reply(200, PAGE))
    assert fetch_one(make_settings(), clock, server.url("/private")).status == 200


def test_robots_500_disallows_all_as_transient(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/robots.txt", reply(500, "oops"))
    server.route("/a", reply(200, PAGE))
    error, stats = run_with_fetcher(make_settings(), clock, lambda f: f.fetch(server.url("/a")))
    assert isinstance(error, RobotsUnavailable)
    assert error.transient
    assert server.requests_to("/a") == []
    assert stats.robots_blocked == 1


def test_robots_unreachable_disallows_all(clock: FakeClock) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    error, _ = run_with_fetcher(
        make_settings(), clock, lambda f: f.fetch(f"http://127.0.0.1:{port}/a")
    )
    assert isinstance(error, HostUnreachable) and isinstance(error, RobotsUnavailable)
    assert error.reason.startswith("network error: cannot connect to 127.0.0.1")


def test_robots_cached_for_at_most_a_day(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/robots.txt", reply(200, "User-agent: *\nAllow: /\n"))
    server.route("/a", reply(200, PAGE))

    async def body(fetcher: Fetcher):
        await fetcher.fetch(server.url("/a"))
        clock.now += 3600
        await fetcher.fetch(server.url("/a"))
        clock.now += 24 * 3600
        await fetcher.fetch(server.url("/a"))

    run_with_fetcher(make_settings(), clock, body)
    assert len(server.requests_to("/robots.txt")) == 2


def test_robots_skipped_for_apis_when_asked(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/robots.txt", reply(500, "oops"))
    server.route("/api", reply(200, "{}"))
    assert fetch_one(make_settings(), clock, server.url("/api"), check_robots=False).body == b"{}"
    assert server.requests_to("/robots.txt") == []


def test_etag_revalidation_returns_cached_body(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/page", conditional(PAGE, etag='"v1"'))
    first, second = fetch_all(make_settings(), clock, server.url("/page"), server.url("/page"))
    assert first.status == 200 and not first.not_modified
    assert second.status == 304
    assert (second.not_modified, second.from_cache) == (True, True)
    assert second.body == first.body
    initial, repeat = server.requests_to("/page")
    assert initial.header("If-None-Match") is None
    assert repeat.header("If-None-Match") == '"v1"'


def test_last_modified_revalidation(server: FixtureServer, clock: FakeClock) -> None:
    stamp = "Tue, 20 Oct 2026 10:00:00 GMT"
    server.route("/page", conditional(PAGE, last_modified=stamp))

    async def body(fetcher: Fetcher):
        await fetcher.fetch(server.url("/page"))
        return await fetcher.fetch(server.url("/page"))

    second, stats = run_with_fetcher(make_settings(), clock, body)
    assert second.not_modified and second.text == PAGE
    assert server.requests_to("/page")[1].header("If-Modified-Since") == stamp
    assert stats.not_modified == 1


def test_per_host_delay_spaces_requests(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/a", reply(200, PAGE))
    fetch_all(make_settings(per_host_delay_s=2.0), clock, *[server.url("/a")] * 3)
    # robots.txt, then three pages: each start waits 2 s after the previous one.
    assert clock.sleeps == [2.0, 2.0, 2.0]


def test_per_host_concurrency_one_serialises(server: FixtureServer) -> None:
    server.route("/a", slow(0.05))

    async def run() -> None:
        async with Fetcher(make_settings(per_host_concurrency=1)) as fetcher:
            urls = [server.url("/a")] * 4
            await asyncio.gather(*(fetcher.fetch(u, check_robots=False) for u in urls))

    asyncio.run(run())
    assert server.max_in_flight == 1


def test_per_host_concurrency_above_one_overlaps(server: FixtureServer) -> None:
    server.route("/a", slow(0.2))

    async def run() -> None:
        async with Fetcher(make_settings(per_host_concurrency=3)) as fetcher:
            urls = [server.url("/a")] * 3
            await asyncio.gather(*(fetcher.fetch(u, check_robots=False) for u in urls))

    asyncio.run(run())
    assert server.max_in_flight >= 2
