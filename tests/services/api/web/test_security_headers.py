"""Every response carries nosniff and no-framing; pages a strict Content-Security-Policy
that their own markup satisfies (no inline script or style, nothing from elsewhere)."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from services.api.security_headers import DOCS_POLICY, PAGE_POLICY, RESOURCE_POLICY
from tests.services.api.web.conftest import BROWSER

PAGES = ["/", "/?task=cv&memory_gb=24", "/tco", "/quotes", "/gpus/rtx-3090"]


@pytest.mark.parametrize("path", PAGES)
def test_pages_have_a_strict_policy_that_their_markup_keeps(
    web_bundled: TestClient, path: str
) -> None:
    response = web_bundled.get(path, headers=BROWSER)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    policy = response.headers["content-security-policy"]
    assert policy == PAGE_POLICY and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    html = response.text
    # What the policy would block: inline script bodies, style elements or attributes,
    # inline event handlers, and anything loaded from another origin.
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)
    assert not re.search(r"<style\b|\sstyle=|\son[a-z]+=", html)
    for url in re.findall(r'(?:src|href|action)="([^"]+)"', html):
        assert not re.match(r"(?:https?:)?//", url), url


def test_json_svg_and_errors_may_load_nothing(web_client: TestClient) -> None:
    for path in ("/recommend?task=cv", "/recommend?task=nope", "/no-such-route"):
        response = web_client.get(path)
        assert response.headers["content-security-policy"] == RESOURCE_POLICY, path
        assert response.headers["x-content-type-options"] == "nosniff"
    # Refused at the door (InputGuard), before any route: the headers still come.
    refused = web_client.post(
        "/quotes/cluster", content=b"x", headers={"content-type": "text/plain"}
    )
    assert refused.status_code == 415
    assert refused.headers["content-security-policy"] == RESOURCE_POLICY


def test_api_docs_get_their_own_policy(web_client: TestClient) -> None:
    for path in ("/docs", "/redoc"):
        response = web_client.get(path)
        assert response.status_code == 200
        assert response.headers["content-security-policy"] == DOCS_POLICY
        assert "frame-ancestors 'none'" in DOCS_POLICY
