"""Redirects are followed hop by hop, and every hop must pass robots.txt."""

from __future__ import annotations

import pytest

from services.scraper.errors import PermanentFetchError, RobotsBlocked
from services.scraper.fetch import Fetcher
from tests.services.scraper.conftest import FakeClock, make_settings
from tests.services.scraper.fixture_server import FixtureServer, reply
from tests.services.scraper.test_fetch_http import PAGE, fetch_one, run_with_fetcher


def test_a_redirect_is_followed_to_the_page(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/old", reply(302, "", Location="/new"))
    server.route("/new", reply(200, PAGE))
    result = fetch_one(make_settings(), clock, server.url("/old"))
    assert result.status == 200 and result.body == PAGE.encode()
    assert result.url == server.url("/new")


def test_a_redirect_into_a_disallowed_path_is_blocked(
    server: FixtureServer, clock: FakeClock
) -> None:
    server.route("/robots.txt", reply(200, "User-agent: *\nDisallow: /private\n"))
    server.route("/old", reply(301, "", Location="/private/page"))
    server.route("/private/page", reply(200, PAGE))

    async def body(fetcher: Fetcher) -> None:
        with pytest.raises(RobotsBlocked):
            await fetcher.fetch(server.url("/old"))

    run_with_fetcher(make_settings(), clock, body)
    assert server.requests_to("/private/page") == []


def test_a_redirect_loop_is_a_permanent_failure(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/a", reply(302, "", Location="/b"))
    server.route("/b", reply(302, "", Location="/a"))
    error, _ = run_with_fetcher(make_settings(), clock, lambda f: f.fetch(server.url("/a")))
    assert isinstance(error, PermanentFetchError) and "redirects" in str(error)
