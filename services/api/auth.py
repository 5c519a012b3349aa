"""API keys on requests: `Authorization: Bearer KEY`, scopes, per-key rate limits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.engine import Engine
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from services.api.deps import SessionDep, SettingsDep
from services.api.forwarded import client_of
from services.api.ratelimit import RateLimiter
from shared.alerts.keys import verify_key
from shared.alerts.models import ApiKey
from shared.kit.settings import Settings

SCOPE_RANK = {"read": 0, "write": 1}
INVALID_KEYS = "invalid-keys"  # the rate limiter's namespace for failed key checks
# Declares the scheme in the OpenAPI document for every endpoint that reads a key; it
# never answers itself (auto_error=False): the checks below give the envelope's 401/403.
BEARER = HTTPBearer(
    scheme_name="ApiKey",
    description="Authorization: Bearer gpa_... (gpu-advisor api-keys create)",
    auto_error=False,
)
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)]


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _unauthorized(message: str) -> HTTPException:
    return HTTPException(
        status_code=401,
        detail={"message": message, "field": "Authorization"},
        headers={"WWW-Authenticate": "Bearer"},
    )


def _invalid_keys(request: Request) -> RateLimiter:
    """Failed key checks per client, at the per-key limit: a client guessing keys (or
    replaying a revoked one in a loop) is slowed like one key would be."""
    base: RateLimiter = request.app.state.rate_limiter
    return base.scoped(INVALID_KEYS, base.per_minute)


def _too_many(wait: float, message: str) -> HTTPException:
    return HTTPException(429, detail={"message": message}, headers={"Retry-After": str(int(wait))})


def require_scope(scope: str) -> Callable[..., ApiKey]:
    def dependency(
        request: Request, session: SessionDep, settings: SettingsDep, _: Credentials = None
    ) -> ApiKey:
        token = _bearer(request)
        if token is None:
            raise _unauthorized("Authorization: Bearer <API key> is required")
        invalid = _invalid_keys(request)
        client = client_of(request)
        # A client over its budget of failed checks is refused before the lookup, so a
        # guess cannot be told right from wrong until the window has passed.
        wait = invalid.waiting(client)
        if wait is not None:
            raise _too_many(wait, f"too many invalid API keys from {client}; try again later")
        key = verify_key(session, token)
        if key is None:
            invalid.hit(client)
            raise _unauthorized("unknown or revoked API key")
        if SCOPE_RANK[key.scope] < SCOPE_RANK[scope]:
            raise HTTPException(
                403, detail={"message": f"this key has scope {key.scope}; {scope} needed"}
            )
        limiter: RateLimiter = request.app.state.rate_limiter
        assert key.id is not None
        wait = limiter.hit(key.id)
        if wait is not None:
            raise _too_many(wait, f"rate limit of {limiter.per_minute} requests per minute")
        return key

    return dependency


WriteKey = Annotated[ApiKey, Depends(require_scope("write"))]
ReadKey = Annotated[ApiKey, Depends(require_scope("read"))]


async def optional_read_key(request: Request, settings: SettingsDep) -> ApiKey | None:
    """Read endpoints stay open unless `require_key_for_reads` is set.

    Async, and opening a session only when a key is required, so open reads pay nothing.
    """
    if not settings.require_key_for_reads:
        return None
    engine: Engine = request.app.state.engine
    return await run_in_threadpool(_check_read_key, request, engine, settings)


def _check_read_key(request: Request, engine: Engine, settings: Settings) -> ApiKey:
    with Session(engine, expire_on_commit=False) as session:
        key = require_scope("read")(request, session, settings)
        session.commit()
        return key


async def optional_api_key(
    request: Request,
    settings: SettingsDep,
    read_key: Annotated[ApiKey | None, Depends(optional_read_key)],
    _: Credentials = None,
) -> ApiKey | None:
    """The caller's API key when it presents one, None when it presents none.

    For endpoints open to anonymous callers that still tell keyed callers apart. A key
    that does not verify is a 401 (never silently anonymous); a valid one is counted
    against its per-key limit once: `read_key` is the router's `optional_read_key`, which
    FastAPI resolves once per request, so a key it already checked is not counted twice.
    """
    if read_key is not None:
        return read_key
    if _bearer(request) is None:
        return None
    engine: Engine = request.app.state.engine
    return await run_in_threadpool(_check_read_key, request, engine, settings)


OptionalKey = Annotated[ApiKey | None, Depends(optional_api_key)]

# OpenAPI for endpoints open to anonymous callers that still take a key (`openapi_extra`
# of the route): FastAPI lists the bearer scheme; this adds the empty requirement (none).
KEY_OPTIONAL: dict[str, Any] = {"security": [{}]}
