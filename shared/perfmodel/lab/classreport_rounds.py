"""The class report's (docs/model/classes.md) list of source rows the fit leaves out and why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from shared.perfmodel.benchmark_sources import measurement as bm
from shared.perfmodel.benchmark_sources.measurement import LoadResult

# Skip reasons that say the GPU itself is missing: the catalog could gain these rows.
_MISSING_GPU = (bm.SKIP_NOT_IN_CATALOG,)


def left_out(load: LoadResult, unfitted: Sequence[bm.Measurement]) -> list[str]:
    """Markdown lines: source rows read, kept, and skipped by reason; the named GPUs
    without a catalog id (rows a catalog row would bring in); and the measurements the
    fit cannot describe (`unfitted`: for MLPerf LLM rows, no tensor-parallel split of
    the system holds the weights and the nominal serving batch's KV cache)."""
    kept = len(load.measurements)
    lines = [
        "## Rows left out",
        "",
        f"{sum(load.rows_read.values())} source rows read, {kept} measurements kept, "
        f"{kept - len(unfitted)} fitted. Skipped by the loaders, by reason:",
        "",
        "| data set | reason | rows |",
        "|---|---|---|",
    ]
    for (dataset, reason), count in sorted(load.skipped_by_reason().items()):
        lines.append(f"| {dataset} | {reason} | {count} |")
    missing: Counter[tuple[str, str]] = Counter()
    for skip, count in load.skipped.items():
        if skip.reason in _MISSING_GPU:
            missing[(skip.dataset, skip.detail)] += count
    if missing:
        lines += [
            "",
            "GPUs named in the sources without a catalog id (rows that a catalog row with "
            "sourced specs would bring in): "
            + "; ".join(f"{name} ({where}, {n})" for (where, name), n in sorted(missing.items()))
            + ".",
        ]
    if unfitted:
        lines += [
            "",
            "Kept but not fitted (the model cannot describe them: for MLPerf LLM rows, no "
            "tensor-parallel split of the system holds the weights and the KV cache of the "
            "nominal serving batch): "
            + "; ".join(
                f"{m.table_id}, {m.gpu_id} x{m.gpus_per_system}"
                for m in sorted(unfitted, key=lambda m: (m.table_id, m.gpu_id))
            )
            + ".",
        ]
    return lines + [""]
