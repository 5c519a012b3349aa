"""Synthetic MLPerf Training rows for fit tests: value 1, one table per entry."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.class_rows import prepare
from shared.perfmodel.lab import classeval


def training_rows(
    benchmark: str,
    tables: Iterable[str],
    gpus: Iterable[str],
    klass: str = bm.TRAINING_NLP,
    gpus_per_system: int = 8,
) -> list[Any]:
    """Prepared rows of `benchmark` for every GPU in every table."""
    protos = [
        bm.Measurement(
            bm.MLPERF_TRAINING,
            table,
            klass,
            benchmark,
            gpu_id,
            gpus_per_system,
            None,
            1.0,
            "samples/min per accelerator (derived)",
            True,
            "synthetic",
        )
        for table in tables
        for gpu_id in gpus
    ]
    return prepare(protos, classeval.training_base)
