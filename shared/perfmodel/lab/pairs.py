"""Groups and pairs: which benchmark measurements may be compared as ratios.

A *group* is one table, one workload in it, one precision and one system size; its cell
per GPU is the median per-GPU value of that GPU's systems. A GPU pair is two GPUs of one
group (pairs never cross tables or system sizes). A scaling pair is one GPU at a larger
system size vs its smallest size in the same table and workload.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from shared.perfmodel.benchmark_sources import measurement as bm

GPU_PAIR, SCALING_PAIR = "gpu", "scaling"


@dataclass(frozen=True, slots=True)
class Group:
    """GPUs comparable on one workload of one table: same stated precision and system size."""

    dataset: str
    table_id: str
    workload_class: str
    workload: str
    precision: str | None
    gpus_per_system: int
    submitter: str
    # Median per-GPU value of each GPU's systems in this group.
    values: dict[str, float]


@dataclass(frozen=True, slots=True)
class Pair:
    """Two measurements of one table: two GPUs (kind "gpu") or one GPU at two sizes."""

    kind: str
    dataset: str
    table_id: str
    workload_class: str
    workload: str
    gpu_a: str
    gpu_b: str
    count_a: int
    count_b: int
    # Per-GPU value of a / per-GPU value of b.
    measured: float

    @property
    def table_key(self) -> tuple[str, str]:
        return (self.dataset, self.table_id)


def build_groups(measurements: Iterable[bm.Measurement], by_submitter: bool = False) -> list[Group]:
    """Cells per (table, workload, precision, system size[, submitter]); medians per GPU."""
    cells: dict[tuple[str, str, str, str, str | None, int, str], dict[str, list[float]]]
    cells = defaultdict(lambda: defaultdict(list))
    for m in measurements:
        submitter = m.submitter if by_submitter else ""
        key = (
            m.dataset,
            m.table_id,
            m.workload_class,
            m.workload,
            m.precision,
            m.gpus_per_system,
            submitter,
        )
        cells[key][m.gpu_id].append(m.value)
    return [
        Group(*key, values={gpu: statistics.median(v) for gpu, v in sorted(by_gpu.items())})
        for key, by_gpu in sorted(cells.items(), key=lambda item: repr(item[0]))
    ]


def gpu_pairs(groups: Iterable[Group]) -> list[Pair]:
    """Every two GPUs of one group, a / b with a before b by catalog id."""
    pairs = []
    for g in groups:
        for a, b in combinations(sorted(g.values), 2):
            n = g.gpus_per_system
            measured = g.values[a] / g.values[b]
            pairs.append(
                Pair(
                    GPU_PAIR,
                    g.dataset,
                    g.table_id,
                    g.workload_class,
                    g.workload,
                    a,
                    b,
                    n,
                    n,
                    measured,
                )
            )
    return pairs


def scaling_pairs(groups: Iterable[Group]) -> list[Pair]:
    """Each larger system size of a GPU vs its smallest size, in one table and workload."""
    sizes: dict[tuple[str, str, str, str, str | None, str, str], dict[int, float]]
    sizes = defaultdict(dict)
    for g in groups:
        for gpu, value in g.values.items():
            key = (
                g.dataset,
                g.table_id,
                g.workload_class,
                g.workload,
                g.precision,
                g.submitter,
                gpu,
            )
            sizes[key][g.gpus_per_system] = value
    pairs = []
    for key, by_count in sorted(sizes.items(), key=lambda item: repr(item[0])):
        dataset, table_id, workload_class, workload, _, _, gpu = key
        smallest = min(by_count)
        for count in sorted(by_count):
            if count == smallest:
                continue
            measured = by_count[count] / by_count[smallest]
            pairs.append(
                Pair(
                    SCALING_PAIR,
                    dataset,
                    table_id,
                    workload_class,
                    workload,
                    gpu,
                    gpu,
                    count,
                    smallest,
                    measured,
                )
            )
    return pairs
