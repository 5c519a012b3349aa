"""The price check on the quote page (/quotes/check): is a vendor's quote a good price?

The form is POST /prices/check's body as a GET query, validated by the same model and
answered by the same route function, so the page and the API never disagree. It stores
nothing (the API's check is read only), so a GET is the honest method: reloads and
crawlers change nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, get_args

from services.api.web.render import FieldError, gpu_choices
from shared.pricing.measures import describe
from shared.scoring.schemas import PriceCheckOut, PriceCheckRequest

# The form's fields, in the order shown; each a PriceCheckRequest field of the same name.
CHECK_FIELDS = ("gpu", "usd", "condition", "count", "task")
CHECK_CONDITION_LABELS = {
    "new": "New",
    "used": "Used",
    "refurbished": "Refurbished",
    "cloud": "Cloud rental (per GPU-hour)",
}
VERDICT_LABELS = {
    "suspicious": "Suspicious: far below every market band",
    "below_market": "Below market",
    "fair": "Fair",
    "above_market": "Above market",
    "no_market": "No market price to compare with",
}
ALTERNATIVE_LABELS = {"used": "Buy used", "new": "Buy new", "cloud": "Rent (on demand)"}
DEFAULT_CHECK_GPU = "rtx-3090"
# Where the check's form and answer sit on the page: the form's action jumps there.
ANCHOR = "price-check"


def check_body(query: Mapping[str, str]) -> PriceCheckRequest:
    """The form as POST /prices/check's body: the same model, so the same validation
    (unknown fields and values refused); raises pydantic's ValidationError. The form has
    one price field: per GPU-hour for a cloud quote (the API's usd_per_hour)."""
    body = dict(query)
    if body.get("condition") == "cloud" and "usd" in body:
        body["usd_per_hour"] = body.pop("usd")
    return PriceCheckRequest.model_validate(body)


def condition_choices() -> dict[str, str]:
    """The API's own conditions, labelled (a test keeps the labels in step)."""
    values = get_args(PriceCheckRequest.model_fields["condition"].annotation)
    return {v: CHECK_CONDITION_LABELS.get(v, v) for v in values}


def check_context(
    form: Mapping[str, object],
    answer: PriceCheckOut | None = None,
    errors: list[FieldError] | None = None,
) -> dict[str, Any]:
    """What quotes.html needs for the check: the form as typed, the answer or the errors."""
    return {
        "check_form": {name: _text(form.get(name)) for name in CHECK_FIELDS},
        "check": answer,
        "check_errors": errors or [],
        "check_gpus": gpu_choices(),
        "check_default_gpu": DEFAULT_CHECK_GPU,
        "check_conditions": condition_choices(),
        "verdict_labels": VERDICT_LABELS,
        "alternative_labels": ALTERNATIVE_LABELS,
        "describe_measure": describe,
        "check_anchor": ANCHOR,
    }


def _text(value: object) -> str:
    return "" if value is None else str(value)
