"""Bad input stops at the door: request size, content type, JSON and text that no field
may hold, answered in the error envelope before any route or database sees them.

One ASGI middleware, so every endpoint gets the same rules:
- a body larger than `max_request_bytes` is a 413, refused from its Content-Length before
  it is read, and counted as it streams when there is none (chunked uploads);
- a body sent to the API must be JSON (`application/json` or `+json`): anything else is a
  415; a body that is not strict JSON is a 422: `NaN`, `Infinity`, numbers beyond a float
  (`1e400`), invalid UTF-8;
- no string of a body or of the query (keys included) may hold a NUL (PostgreSQL refuses
  it in text) or a lone surrogate (`"\\ud800"`: not text, cannot be stored or encoded).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.api.errors import error_response, field_errors
from shared.kit.text import UNSTORABLE

BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class _Refused(Exception):
    def __init__(self, response: JSONResponse) -> None:
        self.response = response


def _envelope(status: int, message: str, **extra: Any) -> JSONResponse:
    return error_response(status, message, {"message": message, **extra})


def _error(loc: list[Any], kind: str, msg: str, value: Any) -> dict[str, Any]:
    return {"type": kind, "loc": loc, "msg": msg, "input": value}


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is beyond the numbers a field can hold")
    return value


def strict_json(body: bytes) -> Any:
    """JSON as RFC 8259 has it: no NaN or Infinity, no number that overflows a float."""
    return json.loads(body, parse_constant=_reject_constant, parse_float=_finite)


def unstorable_strings(value: Any, loc: list[Any]) -> Iterator[dict[str, Any]]:
    """A field error for each string (or key) holding a NUL or a lone surrogate; walked
    with a stack, not recursion, so any depth the parser accepted is fine."""
    stack: list[tuple[Any, list[Any]]] = [(value, loc)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if UNSTORABLE.search(item):
                yield _error(where, "string_unstorable", _why(item), item)
        elif isinstance(item, dict):
            for key, sub in reversed(item.items()):
                if UNSTORABLE.search(key):
                    yield _error([*where, key], "string_unstorable", _why(key), key)
                stack.append((sub, [*where, key]))
        elif isinstance(item, list):
            stack.extend((sub, [*where, n]) for n, sub in reversed(list(enumerate(item))))


def _why(text: str) -> str:
    if "\x00" in text:
        return "text may not contain NUL characters"
    return "text may not contain lone surrogates (invalid Unicode)"


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


class InputGuard:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            self._check_query(scope)
            if scope["method"] in BODY_METHODS:
                receive = await self._checked_body(scope, receive)
        except _Refused as refused:
            await refused.response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _check_query(self, scope: Scope) -> None:
        raw = scope.get("query_string", b"").decode("latin-1")
        errors = [
            error
            for name, value in parse_qsl(raw, keep_blank_values=True)
            for error in unstorable_strings({name: value}, ["query"])
        ]
        if errors:
            raise _Refused(field_errors(errors))

    def _too_large(self) -> _Refused:
        return _Refused(
            _envelope(
                413,
                f"the request body is larger than {self.max_bytes} bytes",
                max_bytes=self.max_bytes,
            )
        )

    async def _checked_body(self, scope: Scope, receive: Receive) -> Receive:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        length = headers.get("content-length")
        if length is not None:
            if not length.strip().isdigit():
                raise _Refused(_envelope(400, "Content-Length must be a number of bytes"))
            if int(length) > self.max_bytes:
                raise self._too_large()
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _Refused(_envelope(400, "the client went away mid-request"))
            body += message.get("body", b"")
            if len(body) > self.max_bytes:
                raise self._too_large()
            more = message.get("more_body", False)
        if body:
            self._check_json(headers.get("content-type", "application/json"), bytes(body))
        return _replay(bytes(body), receive)

    def _check_json(self, content_type: str, body: bytes) -> None:
        if not _is_json(content_type):
            media = content_type.split(";", 1)[0].strip() or "none"
            raise _Refused(
                _envelope(
                    415,
                    f"the body must be JSON (Content-Type: application/json), not {media[:100]}",
                    field="Content-Type",
                    valid=["application/json"],
                )
            )
        try:
            value = strict_json(body)
        except RecursionError:
            raise _Refused(
                field_errors(
                    [_error(["body"], "json_invalid", "not valid JSON: nested too deeply", None)]
                )
            ) from None
        except ValueError as exc:  # also UnicodeDecodeError: not UTF-8
            msg = f"not valid JSON: {exc}"
            raise _Refused(
                field_errors(
                    [_error(["body"], "json_invalid", msg, body[:100].decode("utf-8", "replace"))]
                )
            ) from None
        errors = list(unstorable_strings(value, ["body"]))
        if errors:
            raise _Refused(field_errors(errors))


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body already read, once, then the client's own channel (for disconnects)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
