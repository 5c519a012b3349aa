"""The fields an answer as of a date adds (`as_of`, `as_of_note`, and `model_version`
where the answer has none): absent from an answer without as_of, which stays unchanged.
Plain pydantic, so the request and answer schemas that use them load light."""

from __future__ import annotations

from typing import Any

from pydantic import Field


def absent(value: object) -> bool:
    return value is None


def as_of_field() -> Any:
    return Field(
        default=None,
        exclude_if=absent,
        description="only with as_of: prices observed by the end of this day (UTC)",
    )


def as_of_note_field() -> Any:
    return Field(
        default=None,
        exclude_if=absent,
        description="only with as_of: the prices are as of that day, the model is today's",
    )


def model_version_field() -> Any:
    return Field(
        default=None,
        exclude_if=absent,
        description="only with as_of: the performance model version that answers (today's)",
    )
