"""Every API field that takes a GPU takes an id, a catalog name or a known alias, exactly:
free text is a 422 (404 on a path) naming the field and the closest ids."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from tests.services.api.test_tco import tco_client  # noqa: F401  (fixture)

LOOSE = "not a 4090"  # the listing-title matcher reads an RTX 4090 here

# method, path, query or body with LOOSE in it, the field the 422 names
FIELDS: list[tuple[str, str, dict[str, Any], str]] = [
    ("get", "/tco", {"gpu": LOOSE, "purchase_usd": 3000}, "gpu"),
    ("get", "/tco", {"gpu": "rtx-4090", "cloud_gpu": LOOSE, "purchase_usd": 3000}, "cloud_gpu"),
    ("get", "/model/predict", {"gpu": LOOSE, "task": "cv", "precision": "fp16"}, "gpu"),
    ("get", "/charts/price-history.svg", {"gpu": LOOSE}, "gpu"),
    ("post", "/quotes/cluster", {"gpu": LOOSE, "count": 2}, "gpu"),
    (
        "post",
        "/quotes/cluster",
        {"gpu": "rtx-3090", "count": 2, "additional_gpus": [{"gpu": LOOSE, "count": 1}]},
        "additional_gpus",
    ),
    ("post", "/quotes/compare", {"candidates": [{"gpu": LOOSE}]}, "candidates.gpu"),
]


@pytest.mark.parametrize(("method", "path", "given", "field"), FIELDS)
def test_free_text_is_a_422_naming_the_field_and_the_closest_ids(
    tco_client: TestClient,  # noqa: F811
    method: str,
    path: str,
    given: dict[str, Any],
    field: str,
) -> None:
    if method == "get":
        response = tco_client.get(path, params=given)
    else:
        response = tco_client.post(path, json=given)
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["message"].startswith(f"{field}: unknown GPU {LOOSE!r}; did you mean rtx-4090")
    assert body["detail"][0]["valid"][0] == "rtx-4090"


@pytest.mark.parametrize("path", ["/gpus/{}", "/gpus/{}/prices"])
def test_free_text_in_a_path_is_a_404_with_the_closest_ids(
    tco_client: TestClient,  # noqa: F811
    path: str,
) -> None:
    response = tco_client.get(path.format(quote(LOOSE)))
    assert response.status_code == 404
    body = response.json()
    assert body["message"].startswith(f"gpu_id: unknown GPU {LOOSE!r}; did you mean rtx-4090")
    assert body["detail"]["valid"][0] == "rtx-4090"


def test_ids_names_and_known_aliases_still_work(tco_client: TestClient) -> None:  # noqa: F811
    tco = tco_client.get("/tco", params={"gpu": "4090", "purchase_usd": 3000})
    assert tco.status_code == 200 and tco.json()["gpu"]["id"] == "rtx-4090"
    quote_body = {"gpu": "GeForce RTX 3090", "count": 2, "condition": "used"}
    assert tco_client.post("/quotes/cluster", json=quote_body).status_code == 201
    predict = {"gpu": "RTX 4090", "task": "cv", "precision": "fp16"}
    assert tco_client.get("/model/predict", params=predict).status_code == 200
    assert tco_client.get("/gpus/3090").json()["id"] == "rtx-3090"
    assert tco_client.get("/gpus/GeForce%20RTX%203090/prices").status_code == 200
