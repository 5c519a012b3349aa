"""Interconnect classes, and the old workload-blind multi-GPU fit kept as a baseline.

speedup(N) = N * eta ** log2(N), one efficiency-per-doubling eta per interconnect class
and task family, fitted on Lambda v1's 2/4/8-GPU rows (weak scaling). Since
calibrated-2026.12.7 the product's in-machine speed-ups come from `data_parallel.py`
(gradient bytes against compute per step); this fit stays in the calibrated parameters
as a record and a check. The networks between machines are defined here too.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from shared.catalog.specs import GpuSpec, load_catalog
from shared.perfmodel.lambda_data import GEN_V1, WORKLOAD_FAMILY, load_runs

NVSWITCH, PCIE_P2P, PCIE_NO_P2P, NVLINK_BRIDGE = "nvswitch", "pcie-p2p", "pcie-no-p2p", "bridge"
# AMD's OAM modules of CDNA 3 and 4 (MI300X, MI325X, MI350X, MI355X): eight on a UBB
# baseboard, a full mesh of Infinity Fabric (xGMI) links, 7 x 128 GB/s per module.
INFINITY_FABRIC = "infinity-fabric"
INTERCONNECTS = (NVSWITCH, PCIE_P2P, PCIE_NO_P2P, NVLINK_BRIDGE, INFINITY_FABRIC)
INFINITY_FABRIC_ARCHITECTURES = frozenset({"CDNA 3", "CDNA 4"})
# Per-GPU efficiencies above this are physically implausible for data parallelism:
# the 8-GPU bert_base rows on A100/H100 (1.2-1.4x per GPU) are excluded as broken.
MAX_PLAUSIBLE_EFFICIENCY = 1.15
# Networks between machines: efficiency per doubling of the node count. Assumptions,
# not fits (no multi-node data): InfiniBand >= 50 Gbit/s keeps data parallelism close to
# linear (Dettmers: the minimum for speed-ups); 10 GbE loses ~40 % per doubling
# for gradient all-reduce of typical models unless special algorithms are used.
NETWORK_EFFICIENCY: dict[str, float] = {"infiniband": 0.95, "ethernet-10g": 0.6}


def interconnect_class(gpu: GpuSpec) -> str:
    # A 2-way bridge is an optional accessory (Lambda's PCIe servers ran without one),
    # so such cards count as PCIe; NVL cards ("bridge") ship bridged.
    if gpu.nvlink == "nvswitch":
        return NVSWITCH
    if (
        gpu.vendor == "AMD"
        and gpu.form_factor == "oam"
        and gpu.architecture in INFINITY_FABRIC_ARCHITECTURES
    ):
        # Not PCIe: the catalog's nvlink column is "none" for AMD, the links are in its notes.
        return INFINITY_FABRIC
    if not gpu.p2p_over_pcie:
        return PCIE_NO_P2P
    if gpu.nvlink == "bridge":
        return NVLINK_BRIDGE
    return PCIE_P2P


def _efficiency_rows() -> dict[tuple[str, str], list[tuple[int, float]]]:
    runs = [r for r in load_runs() if r.generation == GEN_V1]
    single = {(r.gpu_id, r.workload, r.precision): r.throughput for r in runs if r.num_gpu == 1}
    catalog = load_catalog()
    rows: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
    for run in runs:
        base = single.get((run.gpu_id, run.workload, run.precision))
        if run.num_gpu == 1 or base is None:
            continue
        efficiency = run.throughput / base / run.num_gpu
        if efficiency > MAX_PLAUSIBLE_EFFICIENCY:
            continue
        key = (interconnect_class(catalog.by_id[run.gpu_id]), WORKLOAD_FAMILY[run.workload])
        rows[key].append((run.num_gpu, min(efficiency, 1.0)))
    return rows


def fit_scaling() -> dict[str, Any]:
    """eta per interconnect and family, and the largest N measured for each."""
    fitted: dict[str, dict[str, float]] = defaultdict(dict)
    max_n: dict[str, int] = {}
    for (link, family), rows in sorted(_efficiency_rows().items()):
        xs = [math.log2(n) for n, _ in rows]
        ys = [math.log(e) for _, e in rows]
        slope = sum(x * y for x, y in zip(xs, ys, strict=True)) / sum(x * x for x in xs)
        fitted[link][family] = min(1.0, math.exp(slope))
        max_n[link] = max(max_n.get(link, 1), max(n for n, _ in rows))
    return {"eta": dict(fitted), "max_measured_n": max_n}


def efficiency_per_doubling(scaling: dict[str, Any], link: str, family: str) -> float:
    # No bridged-pair measurements exist: a bridge is assumed no worse than PCIe P2P.
    eta: dict[str, dict[str, float]] = scaling["eta"]
    table = eta.get(link) or eta[PCIE_P2P]
    return float(table[family])


def speedup(scaling: dict[str, Any], gpu: GpuSpec, family: str, count: int) -> float:
    """Speed-up of `count` GPUs in one machine over one GPU; never above `count`."""
    if count < 1:
        raise ValueError("count must be at least 1")
    eta = efficiency_per_doubling(scaling, interconnect_class(gpu), family)
    return float(min(count, count * eta ** math.log2(count)))


def balanced_nodes(total: int, per_node: int) -> list[int]:
    """GPUs per node when `total` GPUs fill as few nodes as possible, evenly (9 -> 5, 4)."""
    nodes = math.ceil(total / per_node)
    base, extra = divmod(total, nodes)
    return [base + 1] * extra + [base] * (nodes - extra)


def multi_node_speedup(single_node: float, nodes: int, network: str) -> float:
    """Speed-up over one GPU for `nodes` machines of `single_node` speed-up each."""
    if nodes < 1:
        raise ValueError("nodes must be at least 1")
    eta = NETWORK_EFFICIENCY[network]
    return float(single_node * nodes * eta ** math.log2(nodes))
