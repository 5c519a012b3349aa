"""The standard builds: common configurations recomputed whenever their prices change.

Chosen from docs/domain.md sections 4 and 6: the researcher's 4x RTX 3090 workstation (used
cards), pairs and quads of workstation cards, the 8-GPU servers of the cluster guidance,
and one two-node InfiniBand cluster.
"""

from __future__ import annotations

from shared.quotes.schemas import ClusterRequest

STANDARD_BUILDS: dict[str, ClusterRequest] = {
    "4x-rtx-3090-used-workstation": ClusterRequest(
        gpu="rtx-3090", count=4, condition="used", deployment="workstation"
    ),
    "4x-rtx-4090-workstation": ClusterRequest(
        gpu="rtx-4090", count=4, condition="any", deployment="workstation"
    ),
    "2x-rtx-a6000-new-workstation": ClusterRequest(
        gpu="rtx-a6000", count=2, condition="new", deployment="workstation"
    ),
    "4x-rtx-a6000-new-workstation": ClusterRequest(
        gpu="rtx-a6000", count=4, condition="new", deployment="workstation"
    ),
    "8x-rtx-a6000-server": ClusterRequest(
        gpu="rtx-a6000", count=8, condition="new", deployment="datacenter"
    ),
    "8x-h100-sxm5-server": ClusterRequest(
        gpu="h100-sxm5", count=8, condition="new", deployment="datacenter"
    ),
    "16x-h100-sxm5-infiniband": ClusterRequest(
        gpu="h100-sxm5", count=16, condition="new", deployment="datacenter", network="infiniband"
    ),
}


def gpu_ids_of(req: ClusterRequest) -> set[str]:
    return {req.gpu, *(extra.gpu for extra in req.additional_gpus)}


def builds_using(gpu_ids: list[str] | None) -> dict[str, ClusterRequest]:
    """The standard builds that use any of `gpu_ids` (all of them for None)."""
    if gpu_ids is None:
        return dict(STANDARD_BUILDS)
    wanted = set(gpu_ids)
    return {key: req for key, req in STANDARD_BUILDS.items() if gpu_ids_of(req) & wanted}
