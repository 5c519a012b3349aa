"""A decision kept and read back (shared/decisions/store.py), both backends."""

from __future__ import annotations

import json

from sqlmodel import Session

from shared.alerts.keys import create_key
from shared.decisions.store import document_json, owned_decision, store_decision

# Spacing, key order and digits as an answer might have them: kept exactly.
ANSWER = b'{"model_version":"classes-7","results": [],"prices_as_of":null,"x":1.10}'


def test_the_answer_reads_back_byte_for_byte_and_to_its_key_alone(session: Session) -> None:
    owner = create_key(session, "owner", "write")
    other = create_key(session, "other", "write")
    query = {"task": "cv", "memory_gb": 24}
    prices = [{"rank": 1, "gpu_id": "rtx-3090", "price_observations": [{"id": 7}]}]
    kept = store_decision(session, owner.id, query, "PO 1", ANSWER, prices)
    session.commit()
    session.expire_all()

    found = owned_decision(session, kept.id, owner.id)
    assert found is not None
    document = document_json(found)
    assert '"answer": ' + ANSWER.decode() in document
    parsed = json.loads(document)
    assert parsed["query"] == query
    assert parsed["prices"] == prices
    assert parsed["model_version"] == "classes-7"
    assert parsed["note"] == "PO 1"
    assert owned_decision(session, kept.id, other.id) is None
    assert owned_decision(session, "f" * 32, owner.id) is None
