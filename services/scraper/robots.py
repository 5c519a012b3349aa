"""robots.txt policy per RFC 9309, parsed with protego."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from protego import Protego

# RFC 9309 section 2.5: crawlers must parse at least the first 500 KiB.
MAX_ROBOTS_BYTES = 500 * 1024
# RFC 9309 section 2.3.1.2: follow at least five consecutive redirects (even to another
# host; the rules found apply to the original one). Past five the crawler MAY treat the
# file as unavailable, which section 2.3.1.3 says allows everything, like a 4xx.
MAX_ROBOTS_REDIRECTS = 5


class RobotsState(StrEnum):
    RULES = "rules"
    # The RFC's "unavailable" (4xx, or more than five redirects): crawl freely.
    ALLOW_ALL = "allow_all"
    # The RFC's "unreachable" (5xx, network error): section 2.3.1.4 says assume complete
    # disallow. The name predates the RFC wording and is kept for existing callers.
    UNAVAILABLE = "unavailable"


@dataclass(frozen=True)
class RobotsPolicy:
    state: RobotsState
    expires_at: float
    rules: Protego | None = None
    # Why robots.txt was unreachable, when the network itself failed (DNS, connection).
    network_error: str | None = None

    def allows(self, url: str, user_agent: str) -> bool:
        if self.state is RobotsState.UNAVAILABLE:
            return False
        if self.rules is None:
            return True
        return bool(self.rules.can_fetch(url, user_agent))

    def crawl_delay(self, user_agent: str) -> float | None:
        if self.rules is None:
            return None
        delay = self.rules.crawl_delay(user_agent)
        return None if delay is None else float(delay)


def policy_for_status(
    status: int, body: bytes, now: float, ttl_s: float, failure_ttl_s: float
) -> RobotsPolicy:
    """Map the final robots.txt response to a policy (redirects were already followed;
    a redirect still showing here had no usable Location and is treated as unreachable)."""
    # 429 is a 4xx, but like Google we read it as "server overloaded", not "no robots.txt".
    if status == 429 or status >= 500:
        return unavailable_policy(now, failure_ttl_s)
    if 400 <= status < 500:
        return RobotsPolicy(RobotsState.ALLOW_ALL, now + ttl_s)
    if 200 <= status < 300:
        text = body[:MAX_ROBOTS_BYTES].decode("utf-8", errors="replace")
        return RobotsPolicy(RobotsState.RULES, now + ttl_s, Protego.parse(text))
    return unavailable_policy(now, failure_ttl_s)


def unavailable_policy(
    now: float, failure_ttl_s: float, network_error: str | None = None
) -> RobotsPolicy:
    return RobotsPolicy(RobotsState.UNAVAILABLE, now + failure_ttl_s, network_error=network_error)


def too_many_redirects_policy(now: float, ttl_s: float) -> RobotsPolicy:
    """More than MAX_ROBOTS_REDIRECTS hops: the file is unavailable, so nothing is disallowed."""
    return RobotsPolicy(RobotsState.ALLOW_ALL, now + ttl_s)
