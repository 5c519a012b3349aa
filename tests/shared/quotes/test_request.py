"""Cluster quote requests: bad input names the field at fault."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from shared.kit.errors import InputError
from shared.quotes.request import validate
from shared.quotes.schemas import ClusterRequest


@pytest.mark.parametrize(
    ("overrides", "field"),
    [({"gpu": "rtx-9999"}, "gpu"), ({"memory_gb": 100.0}, "count")],
)
def test_bad_input_names_the_field(overrides: dict[str, object], field: str) -> None:
    req = ClusterRequest.model_validate({"gpu": "rtx-3090", "count": 4, **overrides})
    with pytest.raises(InputError) as error:
        validate(req)
    assert error.value.field == field


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"deployment": "moon"}, "deployment"),
        ({"network": "carrier-pigeon"}, "network"),
        ({"condition": "cloud"}, "condition"),
        ({"count": 513}, "count"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_the_schema_refuses_bad_choices_bounds_and_unknown_fields(
    overrides: dict[str, object], field: str
) -> None:
    with pytest.raises(ValidationError) as error:
        ClusterRequest.model_validate({"gpu": "rtx-3090", "count": 4, **overrides})
    assert error.value.errors()[0]["loc"] == (field,)
