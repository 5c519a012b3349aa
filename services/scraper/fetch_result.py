"""What the fetch layer hands back: a fetched page, decoded by its charset, and the
fetcher's counters of every outcome."""

from __future__ import annotations

import codecs
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class FetchResult:
    url: str
    status: int
    body: bytes
    headers: Mapping[str, str]
    not_modified: bool = False
    from_cache: bool = False

    @property
    def text(self) -> str:
        return self.body.decode(_charset(self.headers), errors="replace")


@dataclass
class FetchStats:
    """Counters since the fetcher was built; `requests` includes robots.txt fetches."""

    requests: int = 0
    by_status: Counter[int] = field(default_factory=Counter)
    retries: int = 0
    robots_requests: int = 0
    robots_blocked: int = 0
    # robots.txt chains past RFC 9309's five redirects, read as "no robots.txt".
    robots_redirect_limit: int = 0
    not_modified: int = 0
    # Responses that were a site's bot-check page (raised as Blocked).
    blocked: int = 0
    # Fetches that ended in a FetchError, and transport failures by kind (per attempt).
    errors: int = 0
    transport_errors: Counter[str] = field(default_factory=Counter)


def _charset(headers: Mapping[str, str]) -> str:
    content_type = headers.get("content-type", "")
    for param in content_type.split(";")[1:]:
        name, _, value = param.strip().partition("=")
        if name.lower() == "charset" and value:
            return _known_codec(value.strip('"'))
    return "utf-8"


def _known_codec(name: str) -> str:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return "utf-8"
