"""A fitted index as JSON and back, from the dataclasses' own fields.

Nothing here names a field: a dataclass is written as its class name and fields, so the
fit can gain or lose fields without this module changing. A stored fit whose classes no
longer match (a field renamed, a class gone) does not decode: `decode` raises
`StaleFit` and the caller refits. JSON has no tuples, sets or non-string keys, so those
are tagged; floats keep their exact value (Python writes the shortest repr that reads
back to the same float).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from types import ModuleType
from typing import Any

_DATACLASS = "__dataclass__"
_TUPLE = "__tuple__"
_FROZENSET = "__frozenset__"
_MAPPING = "__mapping__"


class StaleFit(ValueError):
    """A stored fit that the current code's classes cannot read."""


def encode(value: object) -> str:
    return json.dumps(_plain(value), separators=(",", ":"))


def decode(text: str, home: ModuleType) -> Any:
    """The value `encode` wrote; dataclasses are looked up by name in `home`."""
    try:
        return _rebuilt(json.loads(text), home)
    except (TypeError, KeyError, ValueError, AttributeError) as exc:
        raise StaleFit(str(exc)) from exc


def _plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {_DATACLASS: type(value).__name__, "fields": fields}
    if isinstance(value, Mapping):
        return {_MAPPING: [[_plain(k), _plain(v)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return {_TUPLE: [_plain(v) for v in value]}
    if isinstance(value, frozenset | set):
        # Sorted so equal fits write equal text.
        return {_FROZENSET: sorted((_plain(v) for v in value), key=json.dumps)}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"cannot store a {type(value).__name__} in a fitted index")


def _rebuilt(value: Any, home: ModuleType) -> Any:
    if isinstance(value, list):
        return [_rebuilt(v, home) for v in value]
    if not isinstance(value, dict):
        return value
    if _DATACLASS in value:
        cls: Any = getattr(home, value[_DATACLASS])
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
            raise TypeError(f"{value[_DATACLASS]} is not a dataclass")
        stored = {name: _rebuilt(v, home) for name, v in value["fields"].items()}
        # Missing or unknown fields raise TypeError: the code changed under the fit.
        return cls(**stored)
    if _MAPPING in value:
        return {_rebuilt(k, home): _rebuilt(v, home) for k, v in value[_MAPPING]}
    if _TUPLE in value:
        return tuple(_rebuilt(v, home) for v in value[_TUPLE])
    if _FROZENSET in value:
        return frozenset(_rebuilt(v, home) for v in value[_FROZENSET])
    raise ValueError(f"untagged object in a stored fit: {sorted(value)[:3]}")
