"""Accuracy of the listing-title matcher on the labelled title sets.

Prints one line per set: the held-out `test` half of the real eBay Browse API titles
(the honest number), its `tune` half, and the original corpus (tuned on: in-sample),
real titles apart from hand-written ones. Method and results: docs/matching.md.

    .venv/bin/python bench/matcher_accuracy.py
    .venv/bin/python bench/matcher_accuracy.py --misses tune    # list what a set gets wrong
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shared.matching.titles import match_title  # noqa: E402
from tests.shared.matching.accuracy import (  # noqa: E402
    Labelled,
    Scores,
    load_corpus,
    load_real,
    misses,
    score,
)

CORPUS_REAL = ("ebay-1050-2022", "finn-no")


def title_sets() -> dict[str, list[Labelled]]:
    """Named sets, the held-out one first."""
    real, corpus = load_real(), load_corpus()
    return {
        "test": [row for row in real if row.split == "test"],
        "tune": [row for row in real if row.split == "tune"],
        "corpus-real": [row for row in corpus if row.origin in CORPUS_REAL],
        "corpus-written": [row for row in corpus if row.origin == "written"],
    }


def _share(part: int, whole: int) -> str:
    if not whole:
        return "-"
    return f"{part}/{whole} {part / whole:.1%}"


def _line(name: str, scores: Scores) -> str:
    cells = (
        name,
        str(scores.titles),
        _share(scores.wrong_id, scores.accepted),
        _share(scores.cards_found, scores.cards),
        _share(scores.not_cards_rejected, scores.not_cards),
        _share(scores.other_gpus_rejected, scores.other_gpus),
        _share(scores.exact, scores.titles),
        str(scores.wrong_quantity),
    )
    return " | ".join(cells)


HEADER = (
    "set | titles | wrong id / accepted | right id / catalog cards | "
    "rejected / not-a-card | rejected / other GPU | label exact | wrong qty"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", metavar="SET", help="list the titles a set gets wrong")
    args = parser.parse_args()
    sets = title_sets()
    print(HEADER)
    for name, rows in sets.items():
        print(_line(name, score(rows, match_title)))
    if args.misses:
        print()
        for row, got in misses(sets[args.misses], match_title):
            expected = row.gpu_id or row.reason
            actual = got.gpu_id or got.reason
            print(f"{expected} x{row.quantity} <- {actual} x{got.quantity} | {row.title}")


if __name__ == "__main__":
    main()
