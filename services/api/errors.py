"""Errors as clear JSON: the field at fault and the values it accepts."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from shared.errors import InputError


class InvalidParameter(InputError):
    """A request value that passed type checks but makes no sense (422)."""


def _describe(error: dict[str, Any]) -> str:
    field = ".".join(str(part) for part in error["loc"] if part not in ("query", "body", "path"))
    return f"{field}: {error['msg']}"


async def validation_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [dict(e) for e in exc.errors()]
    for error in errors:
        error.pop("ctx", None)  # may hold exception objects that are not JSON
        error.pop("url", None)
    message = "; ".join(_describe(e) for e in errors)
    return JSONResponse(status_code=422, content={"message": message, "detail": errors})


async def input_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """Any domain InputError (bad price, TCO or quote input, parameter) is a 422."""
    assert isinstance(exc, InputError)
    detail: dict[str, Any] = {"loc": ["query", exc.field], "msg": exc.message}
    if exc.valid is not None:
        detail["valid"] = exc.valid
    return JSONResponse(
        status_code=422, content={"message": f"{exc.field}: {exc.message}", "detail": [detail]}
    )


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, validation_handler)
    app.add_exception_handler(InputError, input_error_handler)
