"""The one HTTP layer every source goes through.

Per-host concurrency and spacing, robots.txt (RFC 9309), retries with jittered
exponential backoff honouring Retry-After, explicit timeouts, conditional GET,
an identifying User-Agent and counters of every outcome. Failures raise a typed
`FetchError`; they never come back as an empty body.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from urllib.parse import urlsplit

import httpx

from services.scraper.blocks import block_page
from services.scraper.conditional_cache import CachedPage, PageCache
from services.scraper.errors import (
    Blocked,
    FetchError,
    HostUnreachable,
    PermanentFetchError,
    RobotsBlocked,
    RobotsUnavailable,
    TransientFetchError,
)
from services.scraper.fetch_result import FetchResult, FetchStats
from services.scraper.retry import is_retryable_status, parse_retry_after
from services.scraper.robots import (
    MAX_ROBOTS_REDIRECTS,
    RobotsPolicy,
    RobotsState,
    policy_for_status,
    too_many_redirects_policy,
    unavailable_policy,
)
from services.scraper.settings import ScraperSettings

log = logging.getLogger(__name__)

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]
WallClock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


MAX_REDIRECTS = 5


@dataclass
class _Host:
    semaphore: asyncio.Semaphore
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    last_start: float = float("-inf")
    # Set by Retry-After / backoff: nobody starts a request on this host before then.
    not_before: float = float("-inf")
    crawl_delay: float = 0.0


class Fetcher:
    """Use as `async with Fetcher(settings) as fetcher: await fetcher.fetch(url)`.

    `clock`/`sleep` drive spacing and backoff (inject fakes in tests); `now` is the
    wall clock used for HTTP-date Retry-After values.
    """

    def __init__(
        self,
        settings: ScraperSettings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        now: WallClock = utc_now,
        rng: random.Random | None = None,
        page_cache: PageCache | None = None,
    ) -> None:
        self._settings = settings
        self._clock = clock
        self._sleep = sleep
        self._now = now
        self._rng = rng or random.Random()
        self._timeout = httpx.Timeout(
            connect=settings.connect_timeout_s,
            read=settings.read_timeout_s,
            write=settings.write_timeout_s,
            pool=settings.pool_timeout_s,
        )
        self._client = httpx.AsyncClient(
            transport=transport,
            headers={"User-Agent": settings.user_agent},
            timeout=self._timeout,
            # Redirects are followed here, hop by hop, so each new URL passes robots.txt.
            follow_redirects=False,
        )
        self._hosts: dict[str, _Host] = {}
        self._robots: dict[str, RobotsPolicy] = {}
        self._robots_locks: dict[str, asyncio.Lock] = {}
        self._pages = (
            page_cache if page_cache is not None else PageCache(settings.conditional_cache_entries)
        )
        self.stats = FetchStats()

    async def __aenter__(self) -> Fetcher:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    async def fetch(
        self,
        url: str,
        *,
        method: str = "GET",
        headers: Mapping[str, str] | None = None,
        content: bytes | None = None,
        check_robots: bool = True,
        conditional: bool | None = None,
    ) -> FetchResult:
        """Fetch one URL. `check_robots=False` is for authenticated JSON APIs only;
        `conditional` defaults to True for GET."""
        try:
            return await self._fetch(url, method, headers, content, check_robots, conditional)
        except FetchError:
            self.stats.errors += 1
            raise

    async def _fetch(
        self,
        url: str,
        method: str,
        headers: Mapping[str, str] | None,
        content: bytes | None,
        check_robots: bool,
        conditional: bool | None,
    ) -> FetchResult:
        if check_robots:
            await self._ensure_allowed(url)
        use_cache = method == "GET" if conditional is None else conditional
        request_headers = dict(headers or {})
        cached = self._pages.get(url) if use_cache else None
        if cached is not None:
            request_headers.update(cached.validators())
        response = await self._send_with_retries(method, url, request_headers, content)
        hops = 0
        while response.has_redirect_location:
            hops += 1
            if hops > MAX_REDIRECTS:
                raise PermanentFetchError(url, f"more than {MAX_REDIRECTS} redirects")
            target = str(response.url.join(response.headers["Location"]))
            if check_robots:
                await self._ensure_allowed(target)
            if response.status_code in (301, 302, 303) and method != "GET":
                method, content = "GET", None  # what browsers and httpx do
            # Validators belong to the first URL; the next hop is a plain request.
            response = await self._send_with_retries(method, target, dict(headers or {}), content)
        return self._result(url, response, use_cache, cached)

    def _result(
        self, url: str, response: httpx.Response, use_cache: bool, cached: CachedPage | None
    ) -> FetchResult:
        status = response.status_code
        if status == 304:
            if cached is None:
                raise PermanentFetchError(url, "304 without a cached body", status=status)
            self.stats.not_modified += 1
            return FetchResult(url, status, cached.body, cached.headers, True, True)
        # Served with 200 as often as with 403: the body says the site is refusing us.
        blocked_by = block_page(response.content)
        if blocked_by is not None:
            self.stats.blocked += 1
            raise Blocked(url, f"the site answered with {blocked_by}", status=status)
        if not 200 <= status < 300:
            raise PermanentFetchError(url, f"HTTP {status}", status=status)
        if use_cache:
            self._pages.store(url, response)
        return FetchResult(str(response.url), status, response.content, response.headers)

    async def _send_with_retries(
        self, method: str, url: str, headers: Mapping[str, str], content: bytes | None
    ) -> httpx.Response:
        attempt = 0
        while True:
            outcome = await self._try_once(method, url, headers, content)
            if isinstance(outcome, httpx.Response):
                return outcome
            wait = self._wait_before_retry(outcome, attempt)
            self.stats.retries += 1
            self._defer_host(url, wait)
            await self._sleep(wait)
            attempt += 1

    def _wait_before_retry(self, failure: TransientFetchError, attempt: int) -> float:
        """Seconds to wait before the next attempt, or raise `failure` to give up."""
        if attempt >= self._settings.max_retries:
            raise failure
        if failure.retry_after_s is not None:
            if failure.retry_after_s > self._settings.max_retry_after_s:
                raise failure
            return failure.retry_after_s
        return self._backoff(attempt)

    def _backoff(self, attempt: int) -> float:
        # "Equal jitter": half fixed, half random, so retries spread but never collapse to 0.
        ceiling = min(self._settings.backoff_cap_s, self._settings.backoff_base_s * 2.0**attempt)
        return ceiling / 2 + self._rng.uniform(0, ceiling / 2)

    async def _try_once(
        self, method: str, url: str, headers: Mapping[str, str], content: bytes | None
    ) -> httpx.Response | TransientFetchError:
        try:
            response = await self._throttled_request(method, url, headers, content)
        except httpx.TimeoutException:
            return self._transport_failure(url, "timeout")
        except httpx.UnsupportedProtocol as exc:
            raise PermanentFetchError(url, "unsupported protocol") from exc
        except httpx.TransportError as exc:
            return self._transport_failure(url, f"connection error ({type(exc).__name__})")
        except (httpx.RequestError, httpx.InvalidURL) as exc:
            raise PermanentFetchError(url, type(exc).__name__) from exc
        if not is_retryable_status(response.status_code) or block_page(response.content):
            return response  # a block page served with 429/503 is not retried at once
        retry_after = parse_retry_after(response.headers.get("Retry-After"), self._now())
        return TransientFetchError(
            url,
            f"HTTP {response.status_code}",
            status=response.status_code,
            retry_after_s=retry_after,
        )

    def _transport_failure(self, url: str, reason: str) -> TransientFetchError:
        self.stats.transport_errors[reason] += 1
        return TransientFetchError(url, reason)

    async def _throttled_request(
        self, method: str, url: str, headers: Mapping[str, str], content: bytes | None
    ) -> httpx.Response:
        host = self._host(url)
        async with host.semaphore:
            await self._wait_turn(host)
            self.stats.requests += 1
            response = await self._client.request(
                method, url, headers=headers, content=content, timeout=self._timeout
            )
        self.stats.by_status[response.status_code] += 1
        return response

    async def _wait_turn(self, host: _Host) -> None:
        """Space request starts on a host by max(configured delay, robots Crawl-delay)."""
        async with host.lock:
            spacing = max(self._settings.per_host_delay_s, host.crawl_delay)
            ready = max(host.last_start + spacing, host.not_before)
            wait = ready - self._clock()
            if wait > 0:
                await self._sleep(wait)
            host.last_start = max(self._clock(), ready)

    def _host(self, url: str) -> _Host:
        key = _host_key(url)
        if key not in self._hosts:
            self._hosts[key] = _Host(asyncio.Semaphore(self._settings.per_host_concurrency))
        return self._hosts[key]

    def _defer_host(self, url: str, wait: float) -> None:
        # A 429/503 speaks for the whole host: other requests to it wait too.
        host = self._host(url)
        host.not_before = max(host.not_before, self._clock() + wait)

    async def _ensure_allowed(self, url: str) -> None:
        policy = await self._robots_policy(url)
        if policy.state is RobotsState.UNAVAILABLE:
            self.stats.robots_blocked += 1
            if policy.network_error is not None:
                raise HostUnreachable(url, policy.network_error)
            raise RobotsUnavailable(url, "robots.txt unavailable, assuming disallow")
        if not policy.allows(url, self._settings.user_agent):
            self.stats.robots_blocked += 1
            raise RobotsBlocked(url, "disallowed by robots.txt")

    async def _robots_policy(self, url: str) -> RobotsPolicy:
        origin = _origin(url)
        lock = self._robots_locks.setdefault(origin, asyncio.Lock())
        async with lock:
            policy = self._robots.get(origin)
            if policy is None or policy.expires_at <= self._clock():
                policy = await self._fetch_robots(origin)
                self._robots[origin] = policy
                delay = policy.crawl_delay(self._settings.user_agent)
                self._host(url).crawl_delay = delay or 0.0
            return policy

    async def _fetch_robots(self, origin: str) -> RobotsPolicy:
        settings = self._settings
        self.stats.robots_requests += 1
        url = f"{origin}/robots.txt"
        try:
            response = await self._throttled_request("GET", url, {}, None)
            redirects = 0
            while response.has_redirect_location:
                redirects += 1
                if redirects > MAX_ROBOTS_REDIRECTS:
                    # A loop or an endless chain: RFC 9309 lets us call the file unavailable.
                    self.stats.robots_redirect_limit += 1
                    log.warning("robots.txt of %s: more than %d redirects", origin, redirects - 1)
                    return too_many_redirects_policy(self._clock(), settings.robots_failure_ttl_s)
                # The target's rules govern `origin`; the target itself is not robots-checked.
                url = str(response.url.join(response.headers["Location"]))
                response = await self._throttled_request("GET", url, {}, None)
        except (httpx.TransportError, OSError) as exc:
            return unavailable_policy(
                self._clock(), settings.robots_failure_ttl_s, network_error(origin, exc)
            )
        except (httpx.HTTPError, httpx.InvalidURL):
            return unavailable_policy(self._clock(), settings.robots_failure_ttl_s)
        return policy_for_status(
            response.status_code,
            response.content,
            self._clock(),
            settings.robots_ttl_s,
            settings.robots_failure_ttl_s,
        )


DNS_FAILURES = (
    "name or service not known",
    "temporary failure in name resolution",
    "nodename nor servname",
    "no address associated",
)


def network_error(origin: str, exc: BaseException) -> str:
    """What failed, in words an operator can act on (offline runs used to read as
    'robots.txt unavailable')."""
    host = httpx.URL(origin).host
    text = str(exc) or type(exc).__name__
    if any(marker in text.lower() for marker in DNS_FAILURES):
        cause = f"DNS lookup of {host} failed"
    elif isinstance(exc, httpx.TimeoutException):
        cause = f"timed out connecting to {host}"
    else:
        cause = f"cannot connect to {host} ({text})"
    return f"network error: {cause}; check the network, DNS or proxy"


def _host_key(url: str) -> str:
    return urlsplit(url).netloc.lower()


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.lower()}"
