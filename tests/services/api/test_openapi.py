"""The OpenAPI document keeps the names clients generate code from."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.testclient import TestClient

from services.api import openapi_errors, openapi_inputs
from services.api.app import create_app
from shared.builds.predict import TASKS
from shared.catalog.aliases import accepted_spellings, exact_alias
from shared.catalog.tasks import PRECISION_NAMES
from shared.kit.db import migrate
from shared.perfmodel.workloads import WEIGHT_FORMATS
from tests.conftest import _drop_postgres_database, make_settings, new_database

KEY_REQUIRED: list[dict[str, list[str]]] = [{"ApiKey": []}]
GPU_FIELDS = openapi_inputs.GPU_FIELDS
# A value for every path parameter of the document.
PATH_VALUES = {
    "gpu_id": "rtx-3090",
    "alert_id": "1",
    "quote_id": "0" * 32,
    "decision_id": "0" * 32,
    "image_format": "svg",
}


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
        # best_quote: the caller's key's posted quotes, none for anonymous callers.
        ("get", "/recommend"),
        ("get", "/gpus/{gpu_id}"),
        ("get", "/gpus/{gpu_id}/prices"),
    ]:
        assert paths[path][method]["security"] == [{"ApiKey": []}, {}], (method, path)
    assert "security" not in paths["/gpus"]["get"]


@pytest.fixture(params=[False, True], ids=["open-reads", "keyed-reads"])
def keyed_client(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path
) -> Iterator[tuple[bool, TestClient]]:
    """An app on an empty database, with `require_key_for_reads` off and on."""
    url, pg_name = new_database(backend, tmp_path)
    migrate(url)
    keyed: bool = request.param
    settings = make_settings(url, tmp_path, load_bundled_data=False, require_key_for_reads=keyed)
    with TestClient(create_app(settings)) as client:
        yield keyed, client
    if pg_name:
        _drop_postgres_database(pg_name)


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            yield method, path, operation


def test_the_document_requires_a_key_exactly_where_the_app_does(
    keyed_client: tuple[bool, TestClient],
) -> None:
    keyed, client = keyed_client
    document = client.get("/openapi.json").json()
    required: set[tuple[str, str]] = set()
    for method, path, operation in _operations(document):
        # Without a key: 401 where one is needed (the key is checked before any input).
        url = path.format(**PATH_VALUES)
        body: dict[str, Any] | None = {} if method in ("post", "patch") else None
        answered = client.request(method, url, json=body).status_code
        declared = operation.get("security") == KEY_REQUIRED
        assert declared == (answered == 401), (method, path, answered, operation.get("security"))
        if declared:
            required.add((method, path))
    writes = {("post", "/prices"), ("post", "/alerts"), ("delete", "/alerts/{alert_id}")}
    reads = {
        ("get", "/recommend"),
        ("get", "/tco"),
        ("post", "/quotes/cluster"),
        ("get", "/quotes"),
    }
    assert writes <= required
    assert (reads <= required) if keyed else not (reads & required)
    assert ("get", "/health") not in required  # the load balancer's probe never takes a key


def test_error_answers_are_documented_in_the_envelope_they_have(
    market_client: TestClient,
) -> None:
    document = market_client.get("/openapi.json").json()
    envelope = "#/components/schemas/ErrorEnvelope"
    assert "HTTPValidationError" not in document["components"]["schemas"]

    def refs(path: str, method: str) -> dict[str, str]:
        responses = document["paths"][path][method]["responses"]
        return {
            status: answer["content"]["application/json"]["schema"]["$ref"]
            for status, answer in responses.items()
            if not status.startswith("2")
        }

    assert refs("/alerts/{alert_id}", "patch") == dict.fromkeys(
        ("401", "403", "404", "413", "415", "422", "429"), envelope
    )
    assert refs("/gpus/{gpu_id}", "get").keys() >= {"404", "422"}
    assert "401" not in refs("/health", "get") and "422" not in refs("/health", "get")
    # And the answers are what the document says: a refused key and an unknown id.
    answer = market_client.get("/alerts/nope", headers={"Authorization": "Bearer gpa_x_y"})
    assert answer.status_code == 401 and set(answer.json()) == {"message", "detail"}
    assert market_client.get("/gpus/rtx-9999").json().keys() == {"message", "detail"}


def _gpu_fields(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every GPU field of the document's inputs and components, by where it is."""
    found: dict[str, dict[str, Any]] = {}
    for method, path, operation in _operations(document):
        for parameter in operation.get("parameters", []):
            if parameter["name"] in GPU_FIELDS:
                found[f"{method} {path} {parameter['name']}"] = parameter["schema"]
    for name, schema in document["components"]["schemas"].items():
        for field, sub in schema.get("properties", {}).items():
            if field in GPU_FIELDS:
                found[f"{name}.{field}"] = sub
    return found


def test_every_gpu_field_lists_the_spellings_the_api_resolves(market_client: TestClient) -> None:
    document = market_client.get("/openapi.json").json()
    spellings = document["components"]["schemas"]["GpuName"]["enum"]
    assert spellings == list(accepted_spellings())
    assert {"rtx-4090", "NVIDIA GeForce RTX 4090", "4090", "h100sxm"} <= set(spellings)
    fields = _gpu_fields(document)
    inputs = {
        "get /tco gpu",
        "get /tco cloud_gpu",
        "get /model/predict gpu",
        "get /gpus/{gpu_id} gpu_id",
        "get /gpus/{gpu_id}/prices gpu_id",
        "get /charts/price-history.{image_format} gpu",
        "PriceIn.gpu_id",
        "PriceCheckRequest.gpu",
        "ClusterIn.gpu",
        "GpuCount.gpu",
        "CandidateIn.gpu",
        "PriceBelow.gpu_id",
        "PerfPerDollarAbove.gpu_id",
    }
    assert inputs <= fields.keys()
    ref = "#/components/schemas/GpuName"
    for where in inputs:
        branches = fields[where].get("anyOf", [fields[where]])
        assert ref in [b.get("$ref") for b in branches], where
    # Listed once and referred to: the document stays small (about 130 kB).
    assert json.dumps(document).count('"NVIDIA GeForce RTX 4090"') == 1
    # Each spelling names the GPU it resolves to, also in a path.
    for spelling in spellings:
        gpu_id = exact_alias(spelling)
        assert gpu_id is not None, spelling
        if not spelling.islower():  # a name: the ids and aliases resolve the same way
            answer = market_client.get(f"/gpus/{quote(spelling)}")
            assert answer.status_code == 200 and answer.json()["id"] == gpu_id, spelling


def test_the_inputs_keep_their_names_and_list_their_rules(market_client: TestClient) -> None:
    app = market_client.app
    assert isinstance(app, FastAPI)
    # The document as FastAPI writes it, with the error answers but not the inputs amended.
    generated = openapi_errors.document_errors(
        get_openapi(title=app.title, version=app.version, routes=app.routes)
    )
    document = market_client.get("/openapi.json").json()

    def names(doc: dict[str, Any]) -> set[tuple[str, ...]]:
        found: set[tuple[str, ...]] = {
            (method, path, p["in"], p["name"], str(p.get("required", False)))
            for method, path, operation in _operations(doc)
            for p in operation.get("parameters", [])
        }
        for name, schema in doc["components"]["schemas"].items():
            found |= {(name, field) for field in schema.get("properties", {})}
        return found

    assert names(generated) == names(document)
    predict = document["paths"]["/model/predict"]["get"]
    schemas = {p["name"]: p["schema"] for p in predict["parameters"]}
    assert schemas["task"]["enum"] == list(TASKS)
    assert schemas["weights"]["anyOf"][0]["enum"] == list(WEIGHT_FORMATS)
    trigger = document["components"]["schemas"]["PerfPerDollarAbove"]["properties"]
    assert trigger["precision"]["enum"] == list(PRECISION_NAMES)
    for method, path, operation in _operations(document):
        assert "x-amend-inputs" not in operation, (method, path)
        for rule in operation.get("x-field-rules", []):
            assert rule["fields"] and rule["rule"] in operation["description"], (method, path)
    rules = predict["x-field-rules"]
    assert any(r["fields"] == ["mode"] for r in rules)
    # A decimal may be sent as a string in decimal notation, held to the number's bounds.
    usd = document["components"]["schemas"]["PriceIn"]["properties"]["usd"]["anyOf"]
    assert usd[1]["pattern"] == openapi_inputs.DECIMAL
    post_price = document["paths"]["/prices"]["post"]["x-field-rules"]
    assert {"fields": ["usd"], "rule": openapi_inputs.DECIMAL_RULE} in post_price
    # No text may hold a NUL (the input guard refuses it).
    title = document["components"]["schemas"]["PriceIn"]["properties"]["title"]
    assert title["anyOf"][0]["pattern"] == openapi_inputs.NO_NUL
