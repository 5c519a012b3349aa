"""Decisions against the database: store, read (the owner's only), the document, CSV.

Functions only flush; the caller (request dependency, CLI) commits. The document is
written as JSON text around the stored answer, so an answer reads back byte for byte as
it was given.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session

from shared.decisions.models import Decision
from shared.kit.spreadsheet import csv_text

CSV_COLUMNS = (
    "category",
    "rank",
    "gpu",
    "price_usd",
    "unit",
    "condition",
    "estimated",
    "price_basis",
    "price_as_of",
    "total_cost_usd",
    "perf_per_1000_usd",
    "cost_per_unit_usd",
    "cost_unit",
    "price_observation_ids",
    "cloud_offer_ids",
    "text",
)


def store_decision(
    session: Session,
    owner_key_id: int,
    query: dict[str, Any],
    note: str | None,
    answer: bytes,
    prices: list[dict[str, Any]],
    now: datetime | None = None,
) -> Decision:
    """Keep `answer` (a /recommend body) as given, with its query and prices."""
    text = answer.decode()
    decision = Decision(
        id=uuid.uuid4().hex,
        owner_key_id=owner_key_id,
        note=note,
        query_json=json.dumps(query, sort_keys=True),
        answer_json=text,
        prices_json=json.dumps(prices),
        model_version=str(json.loads(text).get("model_version", "none"))[:64],
        created_at=now or datetime.now(UTC),
    )
    session.add(decision)
    session.flush()
    return decision


def owned_decision(session: Session, decision_id: str, key_id: int) -> Decision | None:
    """The decision if `key_id` made it; None for an unknown id or another key's (the same
    answer, so an id tells nothing about other keys' decisions)."""
    decision = session.get(Decision, decision_id)
    if decision is None or decision.owner_key_id != key_id:
        return None
    return decision


def document_json(decision: Decision) -> str:
    """The decision as the API returns it: the stored answer and prices inserted as kept."""
    head = {
        "id": decision.id,
        "created_at": decision.created_at.isoformat(),
        "note": decision.note,
        "model_version": decision.model_version,
    }
    fields = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in head.items()]
    fields += [
        f'"query": {decision.query_json}',
        f'"answer": {decision.answer_json}',
        f'"prices": {decision.prices_json}',
    ]
    return "{" + ", ".join(fields) + "}"


def query_of(decision: Decision) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(decision.query_json)
    return found


def answer_of(decision: Decision) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(decision.answer_json)
    return found


def _ids(entry: dict[str, Any] | None, key: str) -> str:
    return " ".join(str(row["id"]) for row in (entry or {}).get(key, []))


def decision_csv(decision: Decision) -> str:
    """One line per ranked result with its price's basis, date and the ids of the rows it
    rests on; then the query, the note and the model (a spreadsheet keeps what the JSON
    says). Text cells a spreadsheet would run as formulas are quoted (kit.spreadsheet)."""
    answer = answer_of(decision)
    prices = {entry["rank"]: entry for entry in json.loads(decision.prices_json)}
    rows: list[dict[str, Any]] = []
    for result in answer.get("results", []):
        price = result["price"]
        cost = result.get("cost_per_unit") or {}
        used = prices.get(result["rank"])
        rows.append(
            {
                "category": "result",
                "rank": result["rank"],
                "gpu": result["gpu"]["id"],
                "price_usd": price["usd"],
                "unit": price["unit"],
                "condition": price["condition"],
                "estimated": price["estimated"],
                "price_basis": price.get("basis") or price["measure_description"],
                "price_as_of": price["observed_at"],
                "total_cost_usd": result["total_cost_usd"],
                "perf_per_1000_usd": result["perf_per_1000_usd"],
                "cost_per_unit_usd": cost.get("usd"),
                "cost_unit": cost.get("unit"),
                "price_observation_ids": _ids(used, "price_observations"),
                "cloud_offer_ids": _ids(used, "cloud_offers"),
            }
        )
    made = decision.created_at.isoformat()
    rows.append({"category": "query", "text": decision.query_json, "price_as_of": made})
    if decision.note:
        rows.append({"category": "note", "text": decision.note})
    rows.append(
        {
            "category": "model",
            "text": f"performance model {decision.model_version}",
            "price_as_of": answer.get("prices_as_of"),
        }
    )
    return csv_text(CSV_COLUMNS, rows)
