"""Labelled title sets and the accuracy measures the matcher is held to.

Two files beside this module: `corpus.csv` (the original corpus: real eBay "1050" and
finn.no titles plus hand-written hard cases) and `real_browse_titles.csv` (real eBay
Browse API titles, split into `tune` and `test` by search; see REAL_TITLES.md). Used by
the tests in this folder and by `bench/matcher_accuracy.py`.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from shared.matching.titles import TitleMatch

HERE = Path(__file__).parent
CORPUS = HERE / "corpus.csv"
REAL = HERE / "real_browse_titles.csv"

MATCHED = "matched"
# Not a working GPU card at all: what the "rejected" measure is about.
NOT_A_CARD = frozenset({"accessory", "laptop", "system", "for_parts", "no_gpu"})
# A GPU, but not one catalog card: rejected too, counted apart.
OTHER_GPU = frozenset({"not_in_catalog", "ambiguous"})
REASONS = NOT_A_CARD | OTHER_GPU | {MATCHED}

# Targets on the held-out split (docs/matching.md).
MAX_WRONG_ID_RATE = 0.01
MIN_RECALL = 0.95
MIN_REJECTED = 0.95


@dataclass(frozen=True)
class Labelled:
    title: str
    gpu_id: str | None
    quantity: int | None
    reason: str
    origin: str
    split: str
    note: str = ""

    @property
    def expected(self) -> TitleMatch:
        return TitleMatch(self.title, self.gpu_id, self.quantity, self.reason)


def _quantity(text: str) -> int | None:
    return int(text) if text else None


def load_corpus() -> list[Labelled]:
    """The original corpus; all of it was labelled and tuned on (split "corpus")."""
    with CORPUS.open(encoding="utf-8", newline="") as handle:
        return [
            Labelled(
                title=row["title"],
                gpu_id=row["gpu_id"] or None,
                quantity=_quantity(row["quantity"]),
                reason=row["reason"],
                origin=row["origin"],
                split="corpus",
            )
            for row in csv.DictReader(handle)
        ]


def load_real() -> list[Labelled]:
    """The real eBay Browse API titles with their tune/test split."""
    with REAL.open(encoding="utf-8", newline="") as handle:
        return [
            Labelled(
                title=row["title"],
                gpu_id=row["expected_gpu_id"] or None,
                quantity=_quantity(row["expected_quantity"]),
                reason=row["expected_reason"],
                origin=row["source_file"],
                split=row["split"],
                note=row["note"],
            )
            for row in csv.DictReader(handle)
        ]


# Searches whose results overlap (the same listings, or the same product line from the
# same sellers) are one group, so near-duplicate titles never sit on both sides.
_MERGED_SEARCHES = {
    "amd-radeon-rx-580x": "rx-580-590",
    "amd-radeon-rx-590": "rx-580-590",
    "amd-radeon-rx-7900-xt": "rx-7900",
    "amd-radeon-rx-7900-xtx": "rx-7900",
    "nvidia-a100-pcie": "a100",
    "nvidia-a100-sxm": "a100",
    "nvidia-geforce-rtx-4070": "rtx-4070",
    "nvidia-geforce-rtx-4070-ti": "rtx-4070",
    "nvidia-h100-pcie": "h100",
    "nvidia-h100-sxm": "h100",
    "nvidia-tesla-p100": "tesla-p100-v100",
    "nvidia-tesla-v100-16gb": "tesla-p100-v100",
}
SPLIT_SEED = "matcher-split-2025:"


def search_group(source_file: str) -> str:
    """The group of searches a snapshot file belongs to."""
    search = source_file.removeprefix("search-listings-").removesuffix(".json")
    if search in _MERGED_SEARCHES:
        return _MERGED_SEARCHES[search]
    for prefix in ("nvidia-geforce-", "nvidia-", "amd-radeon-"):
        search = search.removeprefix(prefix)
    return search


def _stratum(source_file: str) -> str:
    if "geforce" in source_file:
        return "geforce"
    return "radeon" if "amd-radeon" in source_file else "pro"


def assign_splits(source_files: Iterable[str]) -> dict[str, str]:
    """Split of each search group: within a stratum (GeForce, Radeon, datacenter and
    workstation) groups are ordered by a seeded hash and alternate tune, test, tune..."""
    strata: dict[str, set[str]] = {}
    for source_file in source_files:
        strata.setdefault(_stratum(source_file), set()).add(search_group(source_file))
    splits: dict[str, str] = {}
    for groups in strata.values():
        ordered = sorted(groups, key=lambda g: hashlib.sha256((SPLIT_SEED + g).encode()).digest())
        for index, group in enumerate(ordered):
            splits[group] = "tune" if index % 2 == 0 else "test"
    return splits


@dataclass(frozen=True)
class Scores:
    """Counts behind the three measures; rates are None when their denominator is 0."""

    titles: int
    accepted: int
    wrong_id: int
    wrong_quantity: int
    cards: int
    cards_found: int
    not_cards: int
    not_cards_rejected: int
    other_gpus: int
    other_gpus_rejected: int
    exact: int

    @property
    def wrong_id_rate(self) -> float | None:
        return _rate(self.wrong_id, self.accepted)

    @property
    def recall(self) -> float | None:
        return _rate(self.cards_found, self.cards)

    @property
    def rejected_rate(self) -> float | None:
        return _rate(self.not_cards_rejected, self.not_cards)

    @property
    def other_rejected_rate(self) -> float | None:
        return _rate(self.other_gpus_rejected, self.other_gpus)


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def score(rows: list[Labelled], match: Callable[[str], TitleMatch]) -> Scores:
    """Wrong-id share of accepted titles, recall of catalog cards, rejection of the rest."""
    results = [(row, match(row.title)) for row in rows]
    accepted = [(row, got) for row, got in results if got.reason == MATCHED]
    return Scores(
        titles=len(rows),
        accepted=len(accepted),
        wrong_id=sum(got.gpu_id != row.gpu_id for row, got in accepted),
        wrong_quantity=sum(
            got.quantity != row.quantity for row, got in accepted if got.gpu_id == row.gpu_id
        ),
        cards=sum(row.reason == MATCHED for row in rows),
        cards_found=sum(row.reason == MATCHED and got.gpu_id == row.gpu_id for row, got in results),
        not_cards=sum(row.reason in NOT_A_CARD for row in rows),
        not_cards_rejected=sum(
            row.reason in NOT_A_CARD and got.reason != MATCHED for row, got in results
        ),
        other_gpus=sum(row.reason in OTHER_GPU for row in rows),
        other_gpus_rejected=sum(
            row.reason in OTHER_GPU and got.reason != MATCHED for row, got in results
        ),
        exact=sum(got == row.expected for row, got in results),
    )


def misses(
    rows: list[Labelled], match: Callable[[str], TitleMatch]
) -> list[tuple[Labelled, TitleMatch]]:
    """Rows whose match differs from the label (reason, id or quantity)."""
    return [(row, got) for row in rows if (got := match(row.title)) != row.expected]
