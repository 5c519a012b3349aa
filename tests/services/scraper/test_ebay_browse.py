from __future__ import annotations

import asyncio
import base64
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs

import httpx
import pytest

from services.scraper.fetch import Fetcher
from services.scraper.sources import ebay_browse
from tests.services.scraper.conftest import make_settings
from tests.services.scraper.fixture_server import SAMPLES_DIR

NOW = datetime(2026, 11, 5, 12, 0, tzinfo=UTC)


def test_token_request_is_form_encoded_with_basic_auth() -> None:
    request = ebay_browse.build_token_request("https://api.ebay.com/", "my-app-id", "s3cret")
    assert request.url == "https://api.ebay.com/identity/v1/oauth2/token"
    assert request.headers["Content-Type"] == "application/x-www-form-urlencoded"
    scheme, encoded = request.headers["Authorization"].split()
    assert (scheme, base64.b64decode(encoded)) == ("Basic", b"my-app-id:s3cret")
    assert parse_qs(request.body.decode()) == {
        "grant_type": ["client_credentials"],
        "scope": ["https://api.ebay.com/oauth/api_scope"],
    }


def test_parse_token_response() -> None:
    token = ebay_browse.parse_token_response(
        (SAMPLES_DIR / "ebay_browse/token.json").read_bytes(), NOW
    )
    assert token.value.startswith("v^1.1#")
    assert token.expires_at == NOW + timedelta(hours=2)
    assert token.is_fresh(NOW + timedelta(minutes=100))
    assert not token.is_fresh(NOW + timedelta(minutes=116))


def test_fetch_token_posts_through_the_fetch_layer() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=(SAMPLES_DIR / "ebay_browse/token.json").read_bytes())

    settings = make_settings(
        ebay_api_base_url="https://api.ebay.test", ebay_client_id="id", ebay_client_secret="pw"
    )

    async def go():
        async with Fetcher(settings, transport=httpx.MockTransport(handler)) as fetcher:
            return await ebay_browse.fetch_token(fetcher, settings, now=lambda: NOW)

    token = asyncio.run(go())
    assert token.expires_at == NOW + timedelta(seconds=7200)
    [request] = seen  # no robots.txt for an authenticated API
    assert request.method == "POST"
    assert request.url.path == "/identity/v1/oauth2/token"
    assert request.headers["authorization"] == "Basic " + base64.b64encode(b"id:pw").decode()


def test_fetch_token_refuses_missing_credentials() -> None:
    async def go():
        async with Fetcher(make_settings()) as fetcher:
            await ebay_browse.fetch_token(fetcher, make_settings())

    with pytest.raises(ValueError, match="CLIENT_ID"):
        asyncio.run(go())


def test_search_url_headers_and_paging() -> None:
    url = ebay_browse.search_url("https://api.ebay.com", "rtx 4090", offset=200)
    assert url == (
        "https://api.ebay.com/buy/browse/v1/item_summary/search"
        "?q=rtx+4090&category_ids=27386&limit=200&offset=200"
    )
    token = ebay_browse.AccessToken("abc", NOW)
    assert ebay_browse.search_headers(token)["X-EBAY-C-MARKETPLACE-ID"] == "EBAY_US"
    body = (SAMPLES_DIR / "ebay_browse/search.json").read_bytes()
    assert str(ebay_browse.next_page_url(body, url)).endswith("offset=3")
    empty = (SAMPLES_DIR / "ebay_browse/no_results.json").read_bytes()
    assert ebay_browse.next_page_url(empty, url) is None
