"""Bad input is a 4xx in the envelope, never a 500, on SQLite and PostgreSQL: strict JSON,
JSON content types only, no NUL or lone surrogate in any string of a body or query, a
request size limit, and 422s that echo only a short excerpt of the input."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from services.api.app import create_app
from services.api.errors import EXCERPT_CHARS, MAX_ERRORS, MESSAGE_CHARS
from shared.alerts.keys import create_key
from shared.kit.db import session_scope
from shared.models import PriceObservation
from tests.services.api.test_error_envelope import assert_envelope

PRICE = {"gpu_id": "rtx-4090", "usd": 1450, "condition": "used", "source": "Acme quote 42"}
MAX_BYTES = 4096


@pytest.fixture(scope="module")
def write_key(market_client: TestClient) -> dict[str, str]:
    with session_scope(market_client.app.state.engine) as session:  # type: ignore[attr-defined]
        created = create_key(session, "guard", "write")
    return {"Authorization": f"Bearer {created.key}"}


@pytest.fixture(scope="module")
def small_client(market_client: TestClient) -> Iterator[TestClient]:
    """The same database behind an app with a small request size limit."""
    settings = market_client.app.state.settings.model_copy(  # type: ignore[attr-defined]
        update={"max_request_bytes": MAX_BYTES}
    )
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        yield client


def post_raw(client: TestClient, path: str, body: bytes, headers: dict[str, str], **extra: str):
    return client.post(
        path, content=body, headers={"content-type": "application/json", **headers, **extra}
    )


def stored_sources(client: TestClient) -> set[str]:
    with session_scope(client.app.state.engine) as session:  # type: ignore[attr-defined]
        return set(session.exec(select(PriceObservation.source)).all())


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/prices", b'{"gpu_id":"rtx-4090","usd":NaN,"condition":"used","source":"nan"}'),
        ("/prices", b'{"gpu_id":"rtx-4090","usd":Infinity,"condition":"used","source":"i"}'),
        ("/prices", b'{"gpu_id":"rtx-4090","usd":-Infinity,"condition":"used","source":"i"}'),
        ("/prices", b'{"gpu_id":"rtx-4090","usd":1e400,"condition":"used","source":"big"}'),
        ("/quotes/cluster", b'{"gpu":"rtx-4090","count":NaN}'),
        ("/quotes/compare", b'{"candidates":[{"gpu":"rtx-4090","count":1}],"years":Infinity}'),
        ("/quotes/cluster", b'{"gpu":"rtx-4090","count":' + b"9" * 5000 + b"}"),
        ("/prices", b'{"gpu_id":"\xff\xfe"}'),  # not UTF-8
        ("/prices", b"{"),
        ("/alerts", b"[" * 100_000 + b"]" * 100_000),  # nested past the parser's stack
    ],
)
def test_json_that_is_not_strict_json_is_422(market_client, write_key, path, body) -> None:
    response = post_raw(market_client, path, body, write_key)
    payload = assert_envelope(response, 422)
    assert payload["detail"][0]["type"] == "json_invalid"
    assert payload["detail"][0]["loc"] == ["body"]
    assert payload["message"].startswith("body: not valid JSON")


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "text/plain"])
@pytest.mark.parametrize("path", ["/prices", "/quotes/cluster", "/alerts"])
def test_bodies_that_are_not_json_are_415(market_client, write_key, content_type, path) -> None:
    response = post_raw(
        market_client, path, b"gpu_id=rtx-4090&usd=1", write_key, **{"content-type": content_type}
    )
    payload = assert_envelope(response, 415)
    assert payload["detail"]["field"] == "Content-Type"
    assert content_type in payload["message"]


def test_json_with_a_charset_or_a_suffix_type_is_accepted(market_client, write_key) -> None:
    for content_type in ("application/json; charset=utf-8", "application/merge-patch+json"):
        body = {**PRICE, "source": f"charset {content_type}"}
        response = market_client.post(
            "/prices", json=body, headers={**write_key, "content-type": content_type}
        )
        assert response.status_code == 201, response.text


@pytest.mark.parametrize(
    ("text", "why"),
    [("a\u0000b", "NUL"), ("\ud800", "surrogate"), ("ok \udfff", "surrogate")],
)
@pytest.mark.parametrize("field", ["source", "title", "gpu_id"])
def test_unstorable_text_in_any_body_string_is_422(market_client, write_key, text, why, field):
    """Escaped in JSON (`\\u0000`, `\\ud800`): valid JSON, but no text column holds it."""
    raw = json.dumps({**PRICE, field: text})  # ASCII: \u0000 and \ud800 as escapes
    before = stored_sources(market_client)
    response = post_raw(market_client, "/prices", raw.encode(), write_key)
    payload = assert_envelope(response, 422)
    error = payload["detail"][0]
    assert (error["type"], error["loc"]) == ("string_unstorable", ["body", field])
    assert why in error["msg"]
    assert stored_sources(market_client) == before


def test_unstorable_text_in_nested_strings_and_keys_is_422(market_client, write_key) -> None:
    nested = b'{"candidates": [{"gpu": "rtx-4090", "count": 1}, {"gpu": "a\\u0000"}]}'
    error = assert_envelope(post_raw(market_client, "/quotes/compare", nested, write_key), 422)
    assert error["detail"][0]["loc"] == ["body", "candidates", 1, "gpu"]
    key = b'{"gpu": "rtx-4090", "\\ud800": 1}'
    error = assert_envelope(post_raw(market_client, "/quotes/cluster", key, write_key), 422)
    assert error["detail"][0]["loc"] == ["body", "\\ud800"]  # escaped, never unencodable


@pytest.mark.parametrize(
    "url",
    [
        "/gpus/rtx-3090/prices?source=a%00b",
        "/gpus?segment=%00",
        "/recommend?task=cv%00",
        "/tco?gpu=rtx-4090%00",
        "/quotes?standard=%00true",
        "/gpus?bad%00name=1",
    ],
)
def test_nul_in_any_query_value_or_name_is_422(market_client, url) -> None:
    payload = assert_envelope(market_client.get(url), 422)
    assert payload["detail"][0]["type"] == "string_unstorable"
    assert payload["detail"][0]["loc"][0] == "query"


@pytest.mark.parametrize(
    "url",
    [
        "/quotes?offset=9223372036854775808",
        "/quotes?offset=9223372036854775807",
        "/quotes?offset=1000001",
        "/gpus?offset=9223372036854775808",
        "/gpus/rtx-3090/prices?offset=9223372036854775808",
        "/model/predict?gpu=rtx-4090&task=llm-inference&precision=fp16&params_b=7"
        "&batch=99999999999999999999",
        "/model/predict?gpu=rtx-4090&task=llm-inference&precision=fp16&params_b=7"
        "&context=9223372036854775808",
    ],
)
def test_integers_past_their_bounds_are_422(market_client, write_key, url) -> None:
    response = market_client.get(url, headers=write_key)
    payload = assert_envelope(response, 422)
    assert payload["detail"][0]["type"] in ("less_than_equal", "int_parsing")


def test_every_integer_parameter_and_body_field_has_a_maximum(market_client) -> None:
    """The systematic check behind the 2^63 offsets: no integer the API takes is unbounded."""
    document = market_client.get("/openapi.json").json()
    unbounded: list[str] = []

    def walk(schema: dict[str, Any], where: str) -> None:
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[1]
            walk(document["components"]["schemas"][name], f"{where}->{name}")
            return
        if schema.get("type") == "integer" and "maximum" not in schema:
            unbounded.append(where)
        for part in schema.get("anyOf", []) + schema.get("oneOf", []):
            walk(part, where)
        for name, sub in schema.get("properties", {}).items():
            walk(sub, f"{where}.{name}")
        if isinstance(schema.get("items"), dict):
            walk(schema["items"], f"{where}[]")

    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                walk(parameter["schema"], f"{method} {path} {parameter['name']}")
            content = operation.get("requestBody", {}).get("content", {})
            for media in content.values():
                walk(media["schema"], f"{method} {path} body")
    assert unbounded == []


def test_a_body_above_the_limit_is_413_from_its_content_length(small_client, write_key) -> None:
    body = b'{"source": "' + b"x" * MAX_BYTES + b'"}'
    payload = assert_envelope(post_raw(small_client, "/prices", body, write_key), 413)
    assert payload["detail"]["max_bytes"] == MAX_BYTES
    assert str(MAX_BYTES) in payload["message"]


def test_a_streamed_body_is_counted_as_it_comes(small_client, write_key) -> None:
    """No Content-Length (chunked): the guard counts the chunks and stops past the limit."""
    chunks = [b'{"source": "'] + [b"x" * 1000] * 10 + [b'"}']
    sent: list[int] = []

    def stream() -> Iterator[bytes]:
        for chunk in chunks:
            sent.append(len(chunk))
            yield chunk

    response = small_client.post(
        "/prices", content=stream(), headers={**write_key, "content-type": "application/json"}
    )
    assert "content-length" not in response.request.headers
    assert_envelope(response, 413)


def test_a_body_below_the_limit_still_works(small_client, write_key) -> None:
    response = small_client.post("/prices", json={**PRICE, "source": "small"}, headers=write_key)
    assert response.status_code == 201, response.text


def test_a_non_numeric_content_length_is_400(small_client, write_key) -> None:
    response = post_raw(small_client, "/prices", b"{}", write_key, **{"content-length": "abc"})
    assert_envelope(response, 400)


def test_a_422_echoes_only_a_short_excerpt(market_client, write_key) -> None:
    """A long body once came back whole (a 50 MB body got a 52 MB reply)."""
    long_text = "y" * 250_000  # three of them: 750 kB, below the 1 MiB default
    body = {**PRICE, "gpu_id": long_text, "title": long_text, "source": long_text}
    response = market_client.post("/prices", json=body, headers=write_key)
    payload = assert_envelope(response, 422)
    assert len(response.content) < 4000
    for error in payload["detail"]:
        assert len(str(error.get("input", ""))) <= EXCERPT_CHARS + 3


def test_a_422_for_a_whole_wrong_body_shows_an_excerpt(market_client, write_key) -> None:
    extra = {f"field_{n}": "x" * 1000 for n in range(200)}  # 200 errors, one per field
    response = market_client.post("/prices", json={**PRICE, **extra}, headers=write_key)
    payload = assert_envelope(response, 422)
    assert len(payload["detail"]) <= MAX_ERRORS
    assert "more errors" in payload["message"]
    assert len(response.content) < 20_000
    response = market_client.post("/prices", json=[1] * 10_000, headers=write_key)
    payload = assert_envelope(response, 422)
    assert isinstance(payload["detail"][0]["input"], str)
    assert len(payload["detail"][0]["input"]) <= EXCERPT_CHARS + 3


def test_every_422_item_has_the_documented_keys(market_client, write_key) -> None:
    """README: `type`, `loc` and `msg` on every field error (`valid` where there are some),
    from pydantic, from the domain (InputError) and from the guard alike."""
    answers = [
        market_client.get("/gpus", params={"segment": "gaming"}),  # pydantic
        market_client.get("/tco", params={"gpu": "rtx-9999"}),  # domain InputError
        market_client.get("/gpus", params={"segmnt": "x"}),  # unknown parameter
        post_raw(market_client, "/prices", b"{", write_key),  # guard
        market_client.post("/prices", json={**PRICE, "gpu_id": "rtx-9999"}, headers=write_key),
    ]
    for response in answers:
        for error in assert_envelope(response, 422)["detail"]:
            assert {"type", "loc", "msg"} <= set(error), error
            assert isinstance(error["type"], str) and error["type"]


@pytest.mark.parametrize("gpu_id", ["not a 4090", "DROP TABLE 3090", "my rtx 3090 ti card"])
def test_a_posted_gpu_id_is_an_id_or_a_known_alias_exactly(market_client, write_key, gpu_id):
    response = market_client.post("/prices", json={**PRICE, "gpu_id": gpu_id}, headers=write_key)
    payload = assert_envelope(response, 422)
    assert payload["message"].startswith("gpu_id: unknown GPU")
    # A body field is located in the body, as pydantic's own 422s locate them.
    assert payload["detail"][0]["loc"] == ["body", "gpu_id"]


@pytest.mark.parametrize(
    ("gpu_id", "expected"),
    [("rtx-4090", "rtx-4090"), ("GeForce RTX 4090", "rtx-4090"), ("RTX3090", "rtx-3090")],
)
def test_ids_and_known_aliases_still_post(market_client, write_key, gpu_id, expected) -> None:
    body = {**PRICE, "gpu_id": gpu_id, "source": f"alias {gpu_id}"}
    response = market_client.post("/prices", json=body, headers=write_key)
    assert response.status_code == 201, response.text
    assert response.json()["gpu_id"] == expected


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        " javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
        "file:///etc/passwd",
        "ftp://example.com/quote.pdf",
        "//example.com/no-scheme",
        "http://",
        "http://[::1",
    ],
)
def test_a_price_url_must_be_http_or_https(market_client, write_key, url) -> None:
    response = market_client.post("/prices", json={**PRICE, "url": url}, headers=write_key)
    payload = assert_envelope(response, 422)
    assert payload["detail"][0]["loc"] == ["body", "url"]


def test_an_http_or_https_price_url_is_kept(market_client, write_key) -> None:
    for url in ("https://vendor.example.com/q/42", "HTTP://vendor.example.com/q?id=1"):
        body = {**PRICE, "url": url, "source": f"url {url}"}
        assert market_client.post("/prices", json=body, headers=write_key).status_code == 201


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"gpu": "rtx-4090", "count": 512, "gpu_price_usd": "99999999999"}, "gpu_price_usd"),
        ({"gpu": "rtx-4090", "count": 1, "budget_usd": "1e30"}, "budget_usd"),
    ],
)
def test_quote_prices_past_any_gpu_are_422(market_client, body, field) -> None:
    """Found by the fuzz run: PostgreSQL's NUMERIC(12, 2) total overflowed (a 500)."""
    payload = assert_envelope(market_client.post("/quotes/cluster", json=body), 422)
    assert payload["message"].startswith(f"{field}:")


def test_a_comparison_whose_total_no_quote_holds_is_422(market_client) -> None:
    """512 rented GPUs at $1,000 an hour for 20 years: beyond NUMERIC(12, 2)."""
    rent = {"gpu": "h100-pcie", "count": 512, "acquisition": "rent", "cloud_usd_per_hour": 1000}
    body = {"candidates": [{**rent, "rent_hours": 24 * 366 * 20}], "task": "nlp", "years": 20}
    response = market_client.post("/quotes/compare", json=body)
    assert assert_envelope(response, 422)["message"].startswith("total_usd:")


def test_a_comparison_over_a_moment_is_refused_naming_years(market_client) -> None:
    """Found by the fuzz run: years=1e-300 made the cost per unit of work too large to
    round to the cent (a 500). Since issue 26 the schema bounds it (one day at least); the
    shortest accepted period still answers."""
    body = {"candidates": [{"gpu": "rtx-4090", "count": 1}], "years": 1e-300}
    response = market_client.post("/quotes/compare", json=body)
    assert assert_envelope(response, 422)["message"].startswith("years:")
    shortest = market_client.post("/quotes/compare", json={**body, "years": 1 / 365})
    assert shortest.status_code == 201, shortest.text


def test_other_errors_quote_only_an_excerpt_of_the_input(market_client) -> None:
    response = market_client.get("/gpus/" + "z" * 5000)
    payload = assert_envelope(response, 404)
    assert len(response.content) < 2 * MESSAGE_CHARS + 200
    assert payload["message"].startswith("gpu_id: unknown GPU 'zzz")


def test_refused_requests_are_counted_in_the_request_metrics(market_client, write_key) -> None:
    post_raw(market_client, "/prices", b"usd=1", write_key, **{"content-type": "text/plain"})
    metrics = market_client.get("/metrics").text
    assert 'method="POST",route="unmatched",status="415"' in metrics
