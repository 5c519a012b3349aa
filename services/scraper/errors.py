"""Typed failures of the scraper: a failed fetch or parse never looks like an empty page."""

from __future__ import annotations


class FetchError(Exception):
    """A fetch that produced no usable body. `transient` says whether retrying later may help."""

    transient: bool = False

    def __init__(
        self,
        url: str,
        reason: str,
        *,
        status: int | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(f"{reason}: {url}")
        self.url = url
        self.reason = reason
        self.status = status
        self.retry_after_s = retry_after_s


class TransientFetchError(FetchError):
    """Timeouts, connection errors, 408/429/5xx after the retries ran out."""

    transient = True


class PermanentFetchError(FetchError):
    """4xx other than 408/429, or a response we cannot use; retrying will not help."""


class Blocked(PermanentFetchError):
    """The site answered with a bot-check page instead of the page asked for: it is
    refusing us. Not a page without listings and not a parse failure; asking again at once
    will not help."""


class RobotsBlocked(PermanentFetchError):
    """robots.txt disallows this URL for our user agent."""


class RobotsUnavailable(TransientFetchError):
    """robots.txt answered 5xx or was unreachable: RFC 9309 says assume complete disallow."""


class HostUnreachable(RobotsUnavailable):
    """The host could not be reached at all (DNS, refused connection, timeout): a network
    failure, named as one; robots.txt is only where it showed first."""


class ParseError(Exception):
    """The body could not be parsed at all (malformed JSON/CSV, wrong content)."""

    def __init__(self, source: str, url: str, reason: str) -> None:
        super().__init__(f"{source}: {reason} ({url})")
        self.source = source
        self.url = url
        self.reason = reason


class LayoutChanged(ParseError):
    """A page that should hold listings lacks the results container: the site changed."""


class SourceNotConfigured(Exception):
    """A source that needs credentials or settings it does not have; skipped, not retried."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason
