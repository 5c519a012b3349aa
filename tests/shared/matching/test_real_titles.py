"""Real eBay Browse API titles (real_browse_titles.csv, see REAL_TITLES.md): the file is
well formed, its tune/test split is the documented one, and the matcher meets the
accuracy targets of docs/matching.md on both halves."""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest

from shared.catalog.specs import load_catalog
from shared.matching.titles import match_title
from tests.shared.matching.accuracy import (
    MATCHED,
    MAX_WRONG_ID_RATE,
    MIN_RECALL,
    MIN_REJECTED,
    REASONS,
    Labelled,
    assign_splits,
    load_real,
    score,
    search_group,
)


@cache
def _rows() -> tuple[Labelled, ...]:
    return tuple(load_real())


def test_real_titles_are_unique_labelled_and_consistent() -> None:
    rows = _rows()
    assert len(rows) >= 1000
    assert len({row.title for row in rows}) == len(rows)
    ids = set(load_catalog().ids)
    for row in rows:
        assert row.reason in REASONS, row
        if row.reason == MATCHED:
            assert row.gpu_id in ids and row.quantity is not None and row.quantity >= 1, row
        else:
            assert row.gpu_id is None and row.quantity is None, row


def test_split_is_by_search_group_and_follows_the_seeded_rule() -> None:
    rows = _rows()
    expected = assign_splits(row.origin for row in rows)
    for row in rows:
        assert row.split == expected[search_group(row.origin)], row
    splits = Counter(row.split for row in rows)
    assert set(splits) == {"tune", "test"}
    # Whole searches are held out, so the halves are only roughly equal.
    assert 0.4 < splits["test"] / len(rows) < 0.6


def test_both_splits_hold_cards_and_junk() -> None:
    for split in ("tune", "test"):
        reasons = Counter(row.reason for row in _split(split))
        assert reasons[MATCHED] >= 100, split
        assert reasons["accessory"] + reasons["for_parts"] >= 30, split


def _split(name: str) -> list[Labelled]:
    return [row for row in _rows() if row.split == name]


@pytest.mark.parametrize("split", ["test", "tune"])
def test_accuracy_targets(split: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Floors on fixed data: `test` is held out (never tuned on), `tune` guards regressions."""
    scores = score(_split(split), match_title)
    with capsys.disabled():
        print(
            f"\nreal {split}: {scores.titles} titles; wrong id {scores.wrong_id}/"
            f"{scores.accepted}; right id {scores.cards_found}/{scores.cards}; "
            f"not-a-card rejected {scores.not_cards_rejected}/{scores.not_cards}"
        )
    assert scores.wrong_id_rate is not None and scores.wrong_id_rate < MAX_WRONG_ID_RATE
    assert scores.recall is not None and scores.recall >= MIN_RECALL
    assert scores.rejected_rate is not None and scores.rejected_rate >= MIN_REJECTED
    assert scores.wrong_quantity == 0
