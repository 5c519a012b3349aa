"""Security headers on every response: no MIME sniffing, no framing, and a Content
Security Policy.

The product's pages are self-contained (their script and stylesheet come from /static, the
charts are inline SVG styled by that stylesheet, no inline script or style), so they get a
strict policy: nothing but this origin, no inline code, no plugins, forms posting here
only. Swagger UI and ReDoc (/docs, /redoc, from fastapi-offline's packaged assets) start
with an inline script or style and ReDoc runs a worker from a blob, so they get the same
policy with those allowances. Every other response (JSON, CSV, SVG, PNG) may load nothing.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
DOCS_POLICY = (
    "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' "
    "'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; "
    "worker-src 'self' blob:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
RESOURCE_POLICY = "default-src 'none'; frame-ancestors 'none'"
DOCS_PATHS = ("/docs", "/redoc")

COMMON = {
    "X-Content-Type-Options": "nosniff",
    # Older browsers that predate frame-ancestors.
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


def policy_for(path: str, content_type: str) -> str:
    """The Content-Security-Policy of a response to `path` with `content_type`."""
    if path in DOCS_PATHS or path.startswith("/docs/"):
        return DOCS_POLICY
    if content_type.startswith("text/html"):
        return PAGE_POLICY
    return RESOURCE_POLICY


class SecurityHeaders:
    """ASGI middleware that adds the headers above (a response's own values win)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in COMMON.items():
                    headers.setdefault(name, value)
                content_type = headers.get("content-type", "")
                headers.setdefault("Content-Security-Policy", policy_for(path, content_type))
            await send(message)

        await self.app(scope, receive, send_with_headers)
