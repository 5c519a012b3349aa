"""The OpenAPI document keeps the names clients generate code from."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_request_body_schemas_keep_their_names(market_client: TestClient) -> None:
    document = market_client.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    assert {"ClusterIn", "CompareIn", "CandidateIn"} <= set(schemas)
    body = document["paths"]["/quotes/cluster"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"]["$ref"].endswith("/ClusterIn")
    compare = schemas["CompareIn"]["properties"]["candidates"]["items"]["$ref"]
    assert compare.endswith("/CandidateIn")
    assert schemas["ClusterIn"]["properties"]["deployment"]["default"] == "auto"
