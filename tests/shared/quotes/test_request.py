"""Cluster quote requests: bad input names the field at fault."""

from __future__ import annotations

import pytest

from shared.kit.errors import InputError
from shared.quotes.request import ClusterRequest, validate


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"deployment": "moon"}, "deployment"),
        ({"network": "carrier-pigeon"}, "network"),
        ({"gpu": "rtx-9999"}, "gpu"),
        ({"memory_gb": 100.0}, "count"),
    ],
)
def test_bad_input_names_the_field(overrides: dict[str, object], field: str) -> None:
    req = ClusterRequest(**{"gpu": "rtx-3090", "count": 4, **overrides})  # type: ignore[arg-type]
    with pytest.raises(InputError) as error:
        validate(req)
    assert error.value.field == field
