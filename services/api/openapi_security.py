"""The OpenAPI document's security: the bearer requirement on exactly the operations that
need a key under the running settings.

Write endpoints declare it themselves (their key dependency reads `BEARER`). Read
endpoints need a key only when `require_key_for_reads` is on, which their routers cannot
know when they are declared: the app adds `BEARER` to the read routers' dependencies
then (`read_dependencies`), and FastAPI declares it on each of their operations.
"""

from __future__ import annotations

from typing import Any

from fastapi import Depends, FastAPI
from fastapi.params import Depends as DependsParam

from services.api.auth import BEARER, optional_read_key
from shared.kit.settings import Settings


def read_dependencies(settings: Settings) -> list[DependsParam]:
    """What every read router depends on: the read-key check, and with keyed reads the
    bearer scheme, so that the document requires it on each read operation."""
    reads = [Depends(optional_read_key)]
    if settings.require_key_for_reads:
        reads.append(Depends(BEARER))
    return reads


def _keyed(document: dict[str, Any]) -> dict[str, Any]:
    """Drop the anonymous alternative (`{}`, `KEY_OPTIONAL`) from every operation: with
    keyed reads, endpoints that take an optional key need one (`optional_api_key` calls
    `optional_read_key`)."""
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            if operation.get("security"):
                operation["security"] = [r for r in operation["security"] if r]
    return document


def install(app: FastAPI, settings: Settings) -> None:
    """With keyed reads, amend the generated document (FastAPI's documented hook)."""
    if not settings.require_key_for_reads:
        return
    generate = app.openapi
    # FastAPI regenerates the document when routes are added: amend each one it returns.
    app.openapi = lambda: _keyed(generate())  # type: ignore[method-assign]
