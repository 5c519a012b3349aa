"""`as_of` on /recommend, /gpus/{id}, /tco and /prices/check: what the OpenAPI document
says of it, and the values of the fields an answer as of a date adds
(shared/scoring/as_of_fields.py)."""

from __future__ import annotations

from services.api.openapi_inputs import rule
from shared.scoring.as_of import AsOf

# What the code checks against the stored prices (shared/scoring/as_of.py).
AS_OF_RULE = rule("a date from the first stored price to today (UTC)", "as_of")
AS_OF_INPUT = {"format": "date"}


def as_of_fields(as_of: AsOf | None, model_version: str) -> dict[str, object]:
    """The as_of fields of an answer: none without as_of."""
    return {} if as_of is None else as_of.fields(model_version)
