"""The OpenAPI document lists the error answers each operation gives, in the envelope they
have (errors.py: `{"message": ..., "detail": ...}`), not FastAPI's validation-error shape.

Which errors an operation can answer follows from what it takes, so they are added by
rule, once, to the generated document: a path parameter names something that may not
exist (404); an operation that takes a key can be refused it (401, 403) and rate limited
(429); a body can be too large (413) or not JSON (415); any input can be invalid (422).
Schemathesis checks every answer against this (tests/services/api/test_fuzz.py).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

ENVELOPE = "ErrorEnvelope"
ENVELOPE_SCHEMA: dict[str, Any] = {
    "title": ENVELOPE,
    "type": "object",
    "required": ["message", "detail"],
    "properties": {
        "message": {"type": "string", "description": "one sentence naming the field at fault"},
        "detail": {"description": "the errors: type, loc, msg, input excerpt, valid values"},
    },
}
BODY_METHODS = ("post", "put", "patch")


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ENVELOPE}"}}},
    }


def errors_of(path: str, method: str, operation: dict[str, Any]) -> dict[str, str]:
    """The error statuses `operation` can answer, with what each means."""
    out: dict[str, str] = {}
    if "{" in path:
        out["404"] = "what the path names does not exist (or is not yours)"
    if operation.get("security"):
        out["401"] = "no API key, or an unknown or revoked one"
        out["403"] = "the key's scope does not allow this"
        out["429"] = "rate limit; Retry-After says when to come back"
    if method in BODY_METHODS:
        out["413"] = "body larger than the limit"
        out["415"] = "body that is not JSON"
    if operation.get("parameters") or method in BODY_METHODS:
        out["422"] = "invalid input: the message names the field and the valid values"
    return out


def document_errors(document: dict[str, Any]) -> dict[str, Any]:
    """Add each operation's error answers (replacing FastAPI's 422 schema) in place."""
    document.setdefault("components", {}).setdefault("schemas", {})[ENVELOPE] = ENVELOPE_SCHEMA
    schemas = document["components"]["schemas"]
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            for status, description in errors_of(path, method, operation).items():
                if status == "422" or status not in responses:
                    responses[status] = _error(description)
    # FastAPI's own validation-error shape is no answer of this API.
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    return document


def install(app: FastAPI) -> None:
    """Amend every document FastAPI generates (its documented hook)."""
    generate = app.openapi
    app.openapi = lambda: document_errors(generate())  # type: ignore[method-assign]
