"""robots.txt policy per RFC 9309, parsed with protego."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from protego import Protego

# RFC 9309 section 2.5: crawlers must parse at least the first 500 KiB.
MAX_ROBOTS_BYTES = 500 * 1024


class RobotsState(StrEnum):
    RULES = "rules"
    ALLOW_ALL = "allow_all"
    # 5xx or unreachable: RFC 9309 section 2.3.1.4 says assume complete disallow.
    UNAVAILABLE = "unavailable"


@dataclass(frozen=True)
class RobotsPolicy:
    state: RobotsState
    expires_at: float
    rules: Protego | None = None

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
    """Map a robots.txt response to a policy (redirects were already followed)."""
    # 429 is a 4xx, but like Google we read it as "server overloaded", not "no robots.txt".
    if status == 429 or status >= 500:
        return unavailable_policy(now, failure_ttl_s)
    if 400 <= status < 500:
        return RobotsPolicy(RobotsState.ALLOW_ALL, now + ttl_s)
    if 200 <= status < 300:
        text = body[:MAX_ROBOTS_BYTES].decode("utf-8", errors="replace")
        return RobotsPolicy(RobotsState.RULES, now + ttl_s, Protego.parse(text))
    return unavailable_policy(now, failure_ttl_s)


def unavailable_policy(now: float, failure_ttl_s: float) -> RobotsPolicy:
    return RobotsPolicy(RobotsState.UNAVAILABLE, now + failure_ttl_s)
