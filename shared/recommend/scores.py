"""Score rows of one ranking key (task, precision, condition): the stored ones, cached per
score revision, or as of a past date computed in memory (`AsOfRows`)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol

from sqlmodel import Session, select

from shared.catalog.specs import GpuSpec, load_catalog
from shared.models import Score, ScoreState
from shared.scoring.score_rows import ScoreRows


@dataclass(frozen=True, slots=True)
class Ranked:
    spec: GpuSpec
    score: Score


class RankedRows(Protocol):
    """Where the ranking reads its rows from."""

    def rows(
        self, session: Session, state: ScoreState | None, key: tuple[str, str, str]
    ) -> list[Ranked]: ...


class AsOfRows:
    """The rows of a ranking as of a past date: computed from the prices observed by then
    (shared/scoring/score_rows.py), never stored."""

    def __init__(self, scores: ScoreRows) -> None:
        self.scores = scores

    def rows(
        self, session: Session, state: ScoreState | None, key: tuple[str, str, str]
    ) -> list[Ranked]:
        catalog = load_catalog()
        return [Ranked(catalog.by_id[s.gpu_id], s) for s in self.scores.select(*key)]


class ScoreCache:
    """Score rows per (task, precision, condition), reloaded when score_state changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._revision: int | None = None
        self._rows: dict[tuple[str, str, str], list[Ranked]] = {}

    def rows(
        self, session: Session, state: ScoreState | None, key: tuple[str, str, str]
    ) -> list[Ranked]:
        revision = state.revision if state else None
        with self._lock:
            if revision != self._revision:
                self._rows = {}
                self._revision = revision
            cached = self._rows.get(key)
        if cached is not None:
            return cached
        loaded = _load(session, key)
        with self._lock:
            if revision == self._revision:
                self._rows[key] = loaded
        return loaded


def _load(session: Session, key: tuple[str, str, str]) -> list[Ranked]:
    task, precision, condition = key
    catalog = load_catalog()
    query = select(Score).where(
        Score.task == task, Score.precision == precision, Score.condition == condition
    )
    scores = list(session.exec(query))
    for score in scores:
        # Cached rows outlive this request's session: detached now, a rollback of the
        # request that loaded them (a 422 found after this dependency ran, e.g. a chart's
        # unknown image format) cannot expire them and poison the cache (a 500 until the
        # next price write, as measured).
        session.expunge(score)
    return [Ranked(catalog.by_id[s.gpu_id], s) for s in scores]
