"""Content negotiation: whether a request goes to a page or to the JSON API."""

from __future__ import annotations


def prefers_html(accept: str) -> bool:
    """True when the client ranks text/html above JSON (browsers navigating do; curl,
    fetch() and API clients send */* or application/json and keep getting JSON)."""
    html_q = json_q = 0.0
    for item in accept.split(","):
        media, _, params = item.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        media = media.strip().lower()
        if media in ("text/html", "application/xhtml+xml"):
            html_q = max(html_q, q)
        elif media == "application/json":
            json_q = max(json_q, q)
    return html_q > 0 and html_q >= json_q
