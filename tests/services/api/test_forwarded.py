"""Whom X-Forwarded-For may name the client for (services/api/forwarded.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import ValidationError

from services.api.forwarded import UNVERIFIED, ForwardedClient, forwarded_client
from shared.kit.settings import Settings, ip_networks


def _client_seen(trusted: str, client: tuple[str, int], forwarded: str | None) -> Any:
    seen: dict[str, Any] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen["client"] = scope["client"]

    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    scope = {"type": "http", "client": client, "headers": headers}
    asyncio.run(ForwardedClient(app, trusted)(scope, None, None))  # type: ignore[arg-type]
    return seen["client"]


def test_a_configured_proxy_names_the_client():
    seen = _client_seen("10.0.0.0/8", ("10.0.0.5", 41000), "198.51.100.7")
    assert seen == ("198.51.100.7", 0)


def test_the_client_is_the_rightmost_address_no_trusted_proxy_added():
    # A client-supplied first entry is not believed: the trusted proxy appended the real one.
    chain = "1.2.3.4, 198.51.100.7, 10.0.0.9"
    assert forwarded_client(chain, ip_networks("10.0.0.0/8")) == "198.51.100.7"
    assert _client_seen("10.0.0.0/8", ("10.0.0.5", 41000), chain) == ("198.51.100.7", 0)


def test_anyone_else_is_the_connecting_address():
    assert _client_seen("", ("127.0.0.1", 41000), "198.51.100.7") == ("127.0.0.1", 41000)
    assert _client_seen("10.0.0.0/8", ("192.0.2.1", 41000), "198.51.100.7") == (
        "192.0.2.1",
        41000,
    )


def test_garbage_from_a_proxy_keeps_the_proxy_as_the_client():
    assert _client_seen("10.0.0.0/8", ("10.0.0.5", 41000), "not-an-ip") == ("10.0.0.5", 41000)


def test_a_client_a_server_already_took_from_the_header_is_unverified():
    # Port 0: uvicorn's own proxy handling rewrote the client from the header.
    assert _client_seen("", ("198.51.100.7", 0), "198.51.100.7") == (UNVERIFIED, 0)


def test_trusted_proxies_must_be_addresses():
    with pytest.raises(ValidationError, match="proxy.example"):
        Settings(trusted_proxies="10.0.0.1, proxy.example")
    assert Settings(trusted_proxies="10.0.0.1, 2001:db8::/32").trusted_proxies
