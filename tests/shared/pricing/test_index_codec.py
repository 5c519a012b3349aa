"""A fitted index written as JSON reads back equal, and a shape the classes no longer
have does not read at all (the caller refits)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from sqlmodel import Session

from shared.pricing import index as index_module
from shared.pricing.index import INDEXES, market_index
from shared.pricing.index_codec import StaleFit, decode, encode
from shared.seed import seed_catalog
from tests.factories import make_offer, monthly_sales

NOW = datetime.now(UTC)


def test_a_real_fit_reads_back_equal(session: Session) -> None:
    seed_catalog(session)
    monthly_sales(session, "rtx-4090", 1500, 0.02, 12, NOW)
    monthly_sales(session, "rtx-3080-10gb", 400, -0.01, 12, NOW)
    session.flush()
    INDEXES.clear()
    fitted = market_index(session)
    assert fitted.groups, "the test needs a fit with groups"
    text = encode(fitted)
    again = decode(text, index_module)
    assert again == fitted
    assert encode(again) == text


def test_tuples_sets_and_keys_keep_their_types() -> None:
    value = {"a": (1, 2.5), ("x", "y"): frozenset({3, 4}), 7: [None, True, "s"]}
    assert decode(encode(value), index_module) == value
    assert isinstance(decode(encode((1,)), index_module), tuple)


@pytest.mark.parametrize(
    "stored",
    [
        {"__dataclass__": "Volatility", "fields": {"obs_noise": 0.1}},
        {"__dataclass__": "NoSuchClass", "fields": {}},
        {"__dataclass__": "month_of", "fields": {}},
        {"unknown": 1},
    ],
)
def test_a_shape_the_code_no_longer_has_is_stale(stored: object) -> None:
    with pytest.raises(StaleFit):
        decode(json.dumps(stored), index_module)


def test_a_value_json_cannot_hold_is_refused() -> None:
    with pytest.raises(TypeError):
        encode(make_offer("rtx-4090", "1.00", NOW).observed_at)
