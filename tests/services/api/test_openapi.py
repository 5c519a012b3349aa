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


def test_endpoints_that_take_an_api_key_declare_the_bearer_scheme(
    market_client: TestClient,
) -> None:
    document = market_client.get("/openapi.json").json()
    scheme = document["components"]["securitySchemes"]["ApiKey"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    paths = document["paths"]
    required = [
        ("post", "/prices"),
        ("get", "/alerts"),
        ("post", "/alerts"),
        ("get", "/alerts/{alert_id}"),
        ("patch", "/alerts/{alert_id}"),
        ("delete", "/alerts/{alert_id}"),
        ("post", "/alerts/{alert_id}/test"),
        ("get", "/alerts/{alert_id}/deliveries"),
    ]
    for method, path in required:
        assert paths[path][method]["security"] == [{"ApiKey": []}], (method, path)
    # Open to anonymous callers, told apart when they present a key: bearer or nothing.
    for method, path in [
        ("post", "/quotes/cluster"),
        ("post", "/quotes/compare"),
        ("get", "/quotes"),
    ]:
        assert paths[path][method]["security"] == [{"ApiKey": []}, {}], (method, path)
    assert "security" not in paths["/recommend"]["get"]
