"""Unknown query parameters are a 422, not a silent default.

A misspelt `memroy_gb=48` used to be ignored and the default memory used; the answer
looked right and was not. Every API route's known names come from its own signature and
dependencies, so the check never needs a list kept by hand.
"""

from __future__ import annotations

import difflib

from fastapi import Request
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel


def _query_names(dependant: Dependant) -> frozenset[str]:
    names: set[str] = set()
    for param in dependant.query_params:
        model = param.field_info.annotation
        if isinstance(model, type) and issubclass(model, BaseModel):
            # A schema as the query (`Annotated[TcoRequest, Query()]`): its fields are the
            # parameters.
            names |= {f.alias or name for name, f in model.model_fields.items()}
        else:
            names.add(param.alias)
    for sub in dependant.dependencies:
        names |= _query_names(sub)
    return frozenset(names)


_CACHE = "_gpu_advisor_query_names"


def known_query_names(route: APIRoute) -> frozenset[str]:
    """Computed once per route and kept on it (each app has its own route objects)."""
    names: frozenset[str] | None = getattr(route, _CACHE, None)
    if names is None:
        names = _query_names(route.dependant)
        setattr(route, _CACHE, names)
    return names


def _message(name: str, known: frozenset[str]) -> str:
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    if close:
        return f"unknown query parameter; did you mean '{close[0]}'?"
    return "unknown query parameter" if known else "this endpoint takes no query parameters"


async def reject_unknown_query(request: Request) -> None:
    """A router dependency: 422 naming each unknown parameter and the valid ones."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute) or not request.query_params:
        return
    known = known_query_names(route)
    unknown = [name for name in dict.fromkeys(request.query_params.keys()) if name not in known]
    if unknown:
        raise RequestValidationError(
            [
                {
                    "type": "extra_forbidden",
                    "loc": ("query", name),
                    "msg": _message(name, known),
                    # Cut to an excerpt by the one 422 builder (errors.field_errors).
                    "input": request.query_params[name],
                    "valid": sorted(known),
                }
                for name in unknown
            ]
        )
