"""Real eBay Browse API titles (real_browse_titles.csv, see REAL_TITLES.md): the file is
well formed and its tune/test split is the documented one."""

from __future__ import annotations

from collections import Counter

from shared.catalog.specs import load_catalog
from tests.shared.matching.accuracy import (
    MATCHED,
    REASONS,
    assign_splits,
    load_real,
    search_group,
)

ROWS = load_real()


def test_real_titles_are_unique_labelled_and_consistent() -> None:
    assert len(ROWS) >= 1000
    assert len({row.title for row in ROWS}) == len(ROWS)
    ids = set(load_catalog().ids)
    for row in ROWS:
        assert row.reason in REASONS, row
        if row.reason == MATCHED:
            assert row.gpu_id in ids and row.quantity is not None and row.quantity >= 1, row
        else:
            assert row.gpu_id is None and row.quantity is None, row


def test_split_is_by_search_group_and_follows_the_seeded_rule() -> None:
    expected = assign_splits(row.origin for row in ROWS)
    for row in ROWS:
        assert row.split == expected[search_group(row.origin)], row
    splits = Counter(row.split for row in ROWS)
    assert set(splits) == {"tune", "test"}
    # Whole searches are held out, so the halves are only roughly equal.
    assert 0.4 < splits["test"] / len(ROWS) < 0.6


def test_both_splits_hold_cards_and_junk() -> None:
    for split in ("tune", "test"):
        reasons = Counter(row.reason for row in ROWS if row.split == split)
        assert reasons[MATCHED] >= 100, split
        assert reasons["accessory"] + reasons["for_parts"] >= 30, split
