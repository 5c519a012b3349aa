"""Errors as clear JSON: the field at fault and the values it accepts.

Every 4xx and 5xx answer has one envelope: a top-level `message` (a sentence for humans)
and a `detail` (the list of field errors for a 422, else an object with what the raise
site gave). Procurement tools read both keys, so keys may be added but never renamed.
"""

from __future__ import annotations

import json
import logging
import math
import secrets
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler as fastapi_http_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from shared.kit.errors import InputError

log = logging.getLogger(__name__)


class InvalidParameter(InputError):
    """A request value that passed type checks but makes no sense (422)."""


# A 422 echoes at most this much of any input (a 50 MB body once got a 52 MB reply).
EXCERPT_CHARS = 100
# Messages are ours, but may quote an input: long enough for any list of valid values.
MESSAGE_CHARS = 1000
# Field errors shown in one answer; the rest are counted in the message.
MAX_ERRORS = 20


def clean_text(text: str, limit: int = EXCERPT_CHARS) -> str:
    """`text` cut to `limit` characters, lone surrogates escaped (never unencodable)."""
    cut = text if len(text) <= limit else text[:limit] + "..."
    return cut.encode("utf-8", "backslashreplace").decode("utf-8")


def excerpt(value: Any, limit: int = EXCERPT_CHARS) -> Any:
    """A short, JSON-safe excerpt of an input: small values as they are, others as text."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int) and abs(value) < 2**53:
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, str):
        return clean_text(value, limit)
    try:
        encoded = jsonable_encoder(value)
        text = json.dumps(encoded, ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError):
        return clean_text(repr(value), limit)
    if len(text) <= limit and "\\u" not in text:
        return encoded  # a small object or list keeps its shape
    return clean_text(text, limit)


def _describe(error: dict[str, Any]) -> str:
    loc = [str(part) for part in error["loc"]]
    # Only the leading part is the location: a body field may itself be named "query".
    field = ".".join(loc[1:] if loc and loc[0] in ("query", "body", "path") else loc)
    field = field or ".".join(loc)
    return f"{field}: {clean_text(str(error['msg']), MESSAGE_CHARS)}"


def error_response(
    status: int, message: str, detail: Any, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The envelope every 4xx and 5xx answer has: a sentence and its detail."""
    content = jsonable_encoder({"message": message, "detail": detail})
    return JSONResponse(status_code=status, content=content, headers=headers)


def field_errors(errors: list[dict[str, Any]]) -> JSONResponse:
    """The one 422 answer: every error with its `type`, `loc` and `msg`, `input` cut to an
    excerpt, and at most MAX_ERRORS of them."""
    shown = []
    for raw in errors[:MAX_ERRORS]:
        error = {k: v for k, v in raw.items() if k not in ("ctx", "url")}  # ctx: not JSON
        error.setdefault("type", "value_error")
        error["loc"] = [excerpt(part, 2 * EXCERPT_CHARS) for part in error.get("loc", ())]
        error["msg"] = clean_text(str(error.get("msg", "")), MESSAGE_CHARS)
        if "input" in error:
            error["input"] = excerpt(error["input"])
        shown.append(error)
    message = "; ".join(_describe(e) for e in shown)
    if len(errors) > len(shown):
        message += f"; and {len(errors) - len(shown)} more errors"
    return error_response(422, message, shown)


async def validation_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return field_errors([dict(e) for e in exc.errors()])


async def input_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """Any domain InputError (bad price, TCO or quote input, parameter) is a 422."""
    assert isinstance(exc, InputError)
    # The domain does not know where its input came from: a write's fields are its body's.
    where = "body" if request.method in ("POST", "PUT", "PATCH") else "query"
    detail: dict[str, Any] = {
        "type": "value_error",
        "loc": [where, exc.field],
        "msg": exc.message,
    }
    if exc.valid is not None:
        detail["valid"] = exc.valid
    return field_errors([detail])


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def _default_message(request: Request, exc: StarletteHTTPException) -> str:
    """A sentence for raises that gave only the status phrase (Starlette's own 404/405)."""
    method, path = request.method, request.url.path
    if exc.status_code == 404 and "route" not in request.scope:
        return f"no endpoint at {path}; see /docs for the API"
    if exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        return f"{method} is not allowed on {path}" + (f"; use {allowed}" if allowed else "")
    return str(exc.detail)


def _envelope(request: Request, exc: StarletteHTTPException) -> tuple[str, Any]:
    raw: Any = exc.detail
    if isinstance(raw, str):
        message = raw
        if raw == _phrase(exc.status_code):
            message = _default_message(request, exc)
        detail: Any = {"message": raw}
    elif isinstance(raw, dict):
        detail = dict(raw)
        message = str(raw.get("message") or _phrase(exc.status_code))
    else:
        detail = raw if isinstance(raw, list) else {"value": raw}
        message = _phrase(exc.status_code)
    # Raise sites quote the input (`unknown GPU '...'`): an excerpt, never the whole of it.
    message = clean_text(message, MESSAGE_CHARS)
    if isinstance(detail, dict) and isinstance(detail.get("message"), str):
        detail["message"] = clean_text(detail["message"], MESSAGE_CHARS)
    retry_after = (exc.headers or {}).get("Retry-After")
    if isinstance(detail, dict) and retry_after is not None and "retry_after" not in detail:
        # Clients that only parse the body still learn when to come back.
        detail["retry_after"] = int(retry_after) if retry_after.isdigit() else retry_after
    return message, detail


async def http_error_handler(request: Request, exc: Exception) -> Response:
    """HTTPException (ours and Starlette's 404/405) as the envelope, keeping its headers."""
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code < 400:
        return await fastapi_http_handler(request, exc)  # 304 and friends have no body
    message, detail = _envelope(request, exc)
    return error_response(exc.status_code, message, detail, exc.headers)


async def unhandled_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """A 500 that names an id to quote to operators, never the exception text."""
    error_id = secrets.token_hex(6)
    log.error(
        "unhandled error %s on %s %s",
        error_id,
        request.method,
        request.url.path,
        exc_info=(type(exc), exc, exc.__traceback__),
    )
    return error_response(500, "internal error", {"error_id": error_id})


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, validation_handler)
    app.add_exception_handler(InputError, input_error_handler)
    # Starlette's class: FastAPI's HTTPException subclasses it, and the router raises it
    # for unknown routes (404) and wrong methods (405).
    app.add_exception_handler(StarletteHTTPException, http_error_handler)
    # Exception goes to the outermost middleware, so this also covers errors in middleware.
    app.add_exception_handler(Exception, unhandled_error_handler)
