"""Cluster quote requests: bad input names the field at fault."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from shared.kit.errors import InputError
from shared.quotes.request import cluster_with_catalog_ids, compare_with_catalog_ids, validate
from shared.quotes.schemas import ClusterRequest, CompareRequest


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


def test_gpu_names_are_exact_and_free_text_names_the_field() -> None:
    named = ClusterRequest.model_validate(
        {"gpu": "RTX 4090", "count": 2, "additional_gpus": [{"gpu": "3090", "count": 1}]}
    )
    converted = cluster_with_catalog_ids(named)
    assert (converted.gpu, converted.additional_gpus[0].gpu) == ("rtx-4090", "rtx-3090")
    loose = ClusterRequest.model_validate(
        {"gpu": "rtx-3090", "count": 2, "additional_gpus": [{"gpu": "not a 4090", "count": 1}]}
    )
    with pytest.raises(InputError) as error:
        cluster_with_catalog_ids(loose)
    assert error.value.field == "additional_gpus"
    compare = CompareRequest.model_validate({"candidates": [{"gpu": "a 3090 maybe"}]})
    with pytest.raises(InputError) as error:
        compare_with_catalog_ids(compare)
    assert error.value.field == "candidates.gpu" and "rtx-3090" in (error.value.valid or [])
