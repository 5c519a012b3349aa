"""A redirecting robots.txt, over real local HTTP (RFC 9309 section 2.3.1.2).

Crawlers follow at least five consecutive redirects, even to another host, and apply the
rules they reach to the host they started from; past five they MAY treat robots.txt as
unavailable, which (section 2.3.1.3, like a 4xx) allows everything.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.scraper.errors import RobotsBlocked, RobotsUnavailable
from services.scraper.fetch import Fetcher
from services.scraper.fetch_result import FetchStats
from services.scraper.robots import MAX_ROBOTS_REDIRECTS
from tests.services.scraper.conftest import FakeClock, make_settings
from tests.services.scraper.fixture_server import FixtureServer, reply
from tests.services.scraper.test_fetch_http import PAGE, run_with_fetcher

RULES = "User-agent: *\nDisallow: /private\n"


@pytest.fixture
def other_host() -> Iterator[FixtureServer]:
    """A second server: another port on 127.0.0.1 is another authority."""
    with FixtureServer() as srv:
        yield srv


def chain(server: FixtureServer, hops: int, final: str = "/final/robots.txt") -> list[str]:
    """/robots.txt redirects `hops` times in a row (301, 302, 307, 308 in turn), ending at
    `final`; returns the paths of the intermediate hops."""
    statuses = [301, 302, 307, 308]
    paths = ["/robots.txt"] + [f"/hop{n}" for n in range(1, hops)]
    targets = paths[1:] + [final]
    for n, (path, target) in enumerate(zip(paths, targets, strict=True)):
        server.route(path, reply(statuses[n % len(statuses)], "", Location=target))
    return paths[1:]


def public_and_private(server: FixtureServer, clock: FakeClock) -> tuple[object, FetchStats]:
    """Fetch /public, then try /private/page; returns what /private/page gave."""
    server.route("/public", reply(200, PAGE))
    server.route("/private/page", reply(200, PAGE))

    async def body(fetcher: Fetcher) -> object:
        assert (await fetcher.fetch(server.url("/public"))).body == PAGE.encode()
        return await fetcher.fetch(server.url("/private/page"))

    return run_with_fetcher(make_settings(), clock, body)  # type: ignore[no-any-return]


def test_301_then_302_reaches_the_file_and_its_disallow_is_honoured(
    server: FixtureServer, clock: FakeClock
) -> None:
    server.route("/robots.txt", reply(301, "", Location="/moved/robots.txt"))
    server.route("/moved/robots.txt", reply(302, "", Location="/final/robots.txt"))
    server.route("/final/robots.txt", reply(200, RULES, Content_Type="text/plain"))
    outcome, stats = public_and_private(server, clock)
    assert isinstance(outcome, RobotsBlocked)
    assert server.requests_to("/private/page") == []
    assert len(server.requests_to("/public")) == 1
    # Each hop fetched once; the policy is cached for the host, not per hop.
    assert [len(server.requests_to(p)) for p in ("/robots.txt", "/moved/robots.txt")] == [1, 1]
    assert len(server.requests_to("/final/robots.txt")) == 1
    assert (stats.robots_requests, stats.robots_blocked, stats.robots_redirect_limit) == (1, 1, 0)


def test_five_redirects_are_followed(server: FixtureServer, clock: FakeClock) -> None:
    chain(server, MAX_ROBOTS_REDIRECTS)
    server.route("/final/robots.txt", reply(200, RULES))
    outcome, stats = public_and_private(server, clock)
    assert isinstance(outcome, RobotsBlocked)
    assert len(server.requests_to("/final/robots.txt")) == 1
    assert stats.robots_redirect_limit == 0


def test_six_redirects_mean_unavailable_so_everything_is_allowed(
    server: FixtureServer, clock: FakeClock
) -> None:
    hops = chain(server, MAX_ROBOTS_REDIRECTS + 1)
    server.route("/final/robots.txt", reply(200, RULES))
    outcome, stats = public_and_private(server, clock)
    assert getattr(outcome, "status", None) == 200  # /private/page was fetched
    # Five redirects followed, the sixth not: the file at the end is never asked for.
    assert [len(server.requests_to(p)) for p in hops] == [1] * MAX_ROBOTS_REDIRECTS
    assert server.requests_to("/final/robots.txt") == []
    assert stats.robots_redirect_limit == 1 and stats.robots_blocked == 0


def test_a_redirect_loop_is_unavailable_and_stops_after_five_hops(
    server: FixtureServer, clock: FakeClock
) -> None:
    server.route("/robots.txt", reply(302, "", Location="/robots-a.txt"))
    server.route("/robots-a.txt", reply(302, "", Location="/robots-b.txt"))
    server.route("/robots-b.txt", reply(302, "", Location="/robots.txt"))
    outcome, stats = public_and_private(server, clock)
    assert getattr(outcome, "status", None) == 200
    robots_hits = sum(
        len(server.requests_to(p)) for p in ("/robots.txt", "/robots-a.txt", "/robots-b.txt")
    )
    assert robots_hits == MAX_ROBOTS_REDIRECTS + 1  # the first answer and five redirects
    assert stats.robots_redirect_limit == 1


def test_rules_reached_on_another_host_apply_to_the_original_host(
    server: FixtureServer, other_host: FixtureServer, clock: FakeClock
) -> None:
    server.route("/robots.txt", reply(301, "", Location=other_host.url("/shared-robots.txt")))
    other_host.route("/shared-robots.txt", reply(200, RULES))
    outcome, _ = public_and_private(server, clock)
    assert isinstance(outcome, RobotsBlocked)
    assert len(other_host.requests_to("/shared-robots.txt")) == 1
    assert server.requests_to("/private/page") == []


def test_a_redirect_to_a_missing_file_allows_all(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/robots.txt", reply(301, "", Location="/gone/robots.txt"))  # 404 there
    outcome, _ = public_and_private(server, clock)
    assert getattr(outcome, "status", None) == 200


def test_a_redirect_to_a_failing_server_disallows_all(
    server: FixtureServer, clock: FakeClock
) -> None:
    server.route("/robots.txt", reply(302, "", Location="/broken/robots.txt"))
    server.route("/broken/robots.txt", reply(503, "down"))
    server.route("/a", reply(200, PAGE))
    error, _ = run_with_fetcher(make_settings(), clock, lambda f: f.fetch(server.url("/a")))
    assert isinstance(error, RobotsUnavailable)
    assert server.requests_to("/a") == []
