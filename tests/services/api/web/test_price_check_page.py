"""The price check on the quote page (/quotes/check): POST /prices/check's answer,
server-rendered from the bundled data, its validation as HTML, and nothing stored."""

from __future__ import annotations

import re
from typing import Any, get_args

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape
from sqlalchemy import func
from sqlmodel import SQLModel, select

from services.api.web import check_page
from services.api.web.render import TASK_LABELS
from shared.alerts.models import AlertEvent
from shared.builds.schemas import Task
from shared.kit.db import session_scope
from shared.models import PriceObservation, QueuedJob, Score
from shared.quotes.models import Quote
from shared.scoring.schemas import PriceCheckRequest
from tests.services.api.web.conftest import BROWSER

MAX_PAGE_BYTES = 200_000
STORED: tuple[type[SQLModel], ...] = (PriceObservation, AlertEvent, Quote, QueuedJob, Score)


def _stored(client: TestClient) -> dict[str, int]:
    """Row counts of every table a check could write to (prices, alerts, quotes, jobs)."""
    with session_scope(client.app.state.engine) as session:  # type: ignore[attr-defined]
        return {
            table.__name__: session.exec(select(func.count()).select_from(table)).one()
            for table in STORED
        }


def _page(client: TestClient, query: dict[str, str], status: int = 200) -> str:
    page = client.get("/quotes/check", params=query, headers=BROWSER)
    assert page.status_code == status, page.text
    assert page.headers["content-type"].startswith("text/html")
    assert len(page.content) < MAX_PAGE_BYTES
    assert 'id="check-form"' in page.text  # the form, to check another or fix a mistake
    return page.text


def _api(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/prices/check", json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def _section(html: str, element_id: str, tag: str) -> str:
    """The element with this id, up to its first closing `tag` (none of them nest)."""
    found = re.search(rf'id="{element_id}".*?</{tag}>', html, re.S)
    assert found, element_id
    return found.group(0)


def test_the_quote_page_offers_the_check(web_bundled):
    page = web_bundled.get("/quotes", headers=BROWSER)
    assert page.status_code == 200
    form = re.search(r'<form[^>]*id="check-form"[^>]*>(.*?)</form>', page.text, re.S)
    assert form, "the check's form on the quote page"
    assert 'action="/quotes/check#price-check"' in page.text
    names = re.findall(r'name="([a-z_]+)"', form.group(1))
    assert names == list(check_page.CHECK_FIELDS)
    assert 'id="check-result"' not in page.text
    # A bare /quotes/check is the same empty form.
    assert 'id="check-result"' not in _page(web_bundled, {})


def test_a_check_shows_the_verdict_evidence_and_alternatives(web_bundled):
    query = {"gpu": "RTX 3090", "usd": "1207", "condition": "used", "count": "4", "task": "cv"}
    before = _stored(web_bundled)
    html = _page(web_bundled, query)
    answer = _api(web_bundled, **query)
    assert _stored(web_bundled) == before, "a check stores nothing"
    assert answer["verdict"] == "fair"
    result = re.search(r'<div id="check-result" data-verdict="([a-z_]+)"', html)
    assert result and result.group(1) == "fair"
    assert ">Fair</span>" in html and "$1,207.00 per GPU for 4× RTX 3090 (used)" in html
    assert "$4,828.00 in total" in html
    assert f"{answer['percentile']:,.1f}" in _section(html, "check-percentile", "dd")
    # The evidence: series, measure, n, date and basis of today's price, and its band.
    evidence = answer["evidence"]
    shown = _section(html, "check-evidence", "dl")
    for value in (evidence["series"], evidence["measure"], evidence["basis"]):
        assert str(escape(value)) in shown
    assert f"<dd>{evidence['n']}</dd>" in shown
    assert evidence["observed_at"][:10] in shown
    low, high = (f"${float(v):,.0f}" for v in evidence["band_usd"])
    assert f"80% band {low}–{high}" in html
    # The alternatives, in the API's order, with what the same money buys.
    alternatives = answer["alternatives"]
    assert {a["kind"] for a in alternatives} == {"used", "new", "cloud"}
    rows = re.findall(r'<tr data-kind="([a-z]+)" data-gpu="([^"]+)">(.*?)</tr>', html, re.S)
    assert [(kind, gpu) for kind, gpu, _ in rows] == [(a["kind"], a["gpu"]) for a in alternatives]
    for (_, _, row), alternative in zip(rows, alternatives, strict=True):
        assert f"{alternative['perf_per_1000_usd']:,.2f}×" in row
        buys = alternative["same_money_buys"]
        unit = "GPU-hours" if alternative["kind"] == "cloud" else "GPUs"
        assert f"{buys:,.{0 if unit == 'GPU-hours' else 1}f} {unit}" in row


def test_a_cheap_quote_is_below_market_and_a_card_without_a_market_says_so(web_bundled):
    fair = _api(web_bundled, gpu="rtx-3090", usd=1207, condition="used")
    low = float(fair["evidence"]["band_usd"][0])
    cheap = _page(web_bundled, {"gpu": "rtx-3090", "usd": f"{low * 0.9:.2f}", "condition": "used"})
    assert 'data-verdict="below_market"' in cheap and ">Below market</span>" in cheap
    none = _page(web_bundled, {"gpu": "h200-sxm", "usd": "30000", "condition": "new"})
    assert 'data-verdict="no_market"' in none and "No market price to compare with" in none
    reference = _api(web_bundled, gpu="h200-sxm", usd=30000, condition="new")["reference"]
    assert reference and str(escape(reference)) in none
    red_flag = _page(web_bundled, {"gpu": "rtx-3090", "usd": "99", "condition": "used"})
    assert 'data-verdict="suspicious"' in red_flag and "Suspicious" in red_flag
    reason = _api(web_bundled, gpu="rtx-3090", usd=99, condition="used")["reason"]
    assert str(escape(reason)) in red_flag


@pytest.mark.parametrize(
    ("query", "field", "valid"),
    [
        ({"gpu": "not a 4090", "usd": "1", "condition": "new"}, "gpu", "unknown GPU"),
        (
            {"gpu": "rtx-4090", "usd": "1", "condition": "mint"},
            "condition",
            "&#39;new&#39;, &#39;used&#39;, &#39;refurbished&#39; or &#39;cloud&#39;",
        ),
        ({"gpu": "rtx-4090", "usd": "-5", "condition": "new"}, "usd", "greater than or equal"),
        ({"gpu": "rtx-4090", "condition": "new"}, "usd", "a purchase quote gives usd"),
        (
            {"gpu": "rtx-4090", "usd": "1", "condition": "new", "task": "chess"},
            "task",
            "&#39;cv&#39;",
        ),
        ({"gpu": "rtx-4090", "usd": "1", "condition": "new", "colour": "red"}, "colour", "Extra"),
    ],
)
def test_bad_input_is_a_422_page_naming_the_field(web_bundled, query, field, valid):
    before = _stored(web_bundled)
    html = _page(web_bundled, query, 422)
    errors = _section(html, "check-errors", "div")
    assert f"<strong>{field}</strong>" in errors and valid in errors
    assert 'id="check-result"' not in html
    assert _stored(web_bundled) == before
    # The same field as the JSON API names for the same input.
    api = web_bundled.post("/prices/check", json=query)
    assert api.status_code == 422 and api.json()["message"].startswith(f"{field}:")


def test_an_unknown_gpu_names_the_closest_ids(web_bundled):
    html = _page(web_bundled, {"gpu": "rtx-409", "usd": "1500", "condition": "used"}, 422)
    assert "did you mean rtx-4090" in _section(html, "check-errors", "div")
    # The form keeps what was typed, so the mistake can be fixed.
    assert 'value="1500"' in html


def test_the_check_form_is_escaped(web_bundled):
    attack = '"><script>alert(1)</script>'
    html = _page(web_bundled, {"gpu": "rtx-3090", "usd": attack, "condition": "used"}, 422)
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html


def test_api_clients_never_get_the_page(web_bundled):
    answer = web_bundled.get("/quotes/check", params={"gpu": "rtx-3090"})
    assert answer.headers["content-type"].startswith("application/json")


def test_the_check_form_offers_exactly_the_api_values():
    condition = PriceCheckRequest.model_fields["condition"].annotation
    assert set(check_page.condition_choices()) == set(get_args(condition))
    assert set(check_page.CHECK_CONDITION_LABELS) == set(get_args(condition))
    assert set(TASK_LABELS) == set(get_args(Task))
    assert set(check_page.CHECK_FIELDS) <= set(PriceCheckRequest.model_fields)
