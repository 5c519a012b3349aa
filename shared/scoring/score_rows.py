"""The Score rows an answer reads: the stored ones, or as of a past date the same rows
computed in memory from the prices observed by then (shared/scoring/compute.py)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sqlmodel import Session, col, select

from shared.kit.settings import Settings
from shared.models import Score
from shared.perfmodel.base import PerformanceModel
from shared.scoring.as_of import AsOf
from shared.scoring.compute import RowKeys, scores_as_of


class ScoreRows:
    """Score rows by task, precision and condition (and GPU). Stored rows are read per
    call; rows as of a date are computed once per task and precision and kept."""

    def __init__(
        self,
        session: Session,
        as_of: AsOf | None = None,
        model: PerformanceModel | None = None,
        settings: Settings | None = None,
        gpu_ids: Sequence[str] | None = None,
    ) -> None:
        if as_of is not None and (model is None or settings is None):
            raise ValueError("rows as of a date need the model and the settings")
        self.session = session
        self.as_of = as_of
        self._model = model
        self._settings = settings
        self._gpu_ids = gpu_ids
        self._computed: dict[tuple[str, str], list[Score]] = {}

    def select(
        self, task: str, precision: str, condition: str, gpu_id: str | None = None
    ) -> list[Score]:
        return self.select_any(task, precision, [condition], gpu_id)

    def select_any(
        self, task: str, precision: str, conditions: Collection[str], gpu_id: str | None = None
    ) -> list[Score]:
        """The rows of the task and precision in any of `conditions` (of one GPU)."""
        if self.as_of is None:
            query = select(Score).where(
                Score.task == task,
                Score.precision == precision,
                col(Score.condition).in_(sorted(conditions)),
            )
            if gpu_id is not None:
                query = query.where(Score.gpu_id == gpu_id)
            return list(self.session.exec(query))
        return [
            s
            for s in self._as_of(task, precision)
            if s.condition in conditions and (gpu_id is None or s.gpu_id == gpu_id)
        ]

    def _as_of(self, task: str, precision: str) -> list[Score]:
        key = (task, precision)
        if key not in self._computed:
            assert self.as_of is not None and self._model is not None
            assert self._settings is not None
            self._computed[key] = scores_as_of(
                self.session,
                self.as_of,
                self._model,
                self._settings,
                self._gpu_ids,
                RowKeys(tasks={task}, precisions={precision}),
            )
        return self._computed[key]
