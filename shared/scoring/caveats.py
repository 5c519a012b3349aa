"""Plain-language warnings attached to a GPU choice (docs/domain.md sections 3 and 4)."""

from __future__ import annotations

from datetime import datetime

from shared.catalog.specs import GpuSpec, load_catalog

# A 1,600 W PSU is the largest many US outlets can feed; CPU and board take ~200 W.
US_OUTLET_PSU_W = 1600
SYSTEM_BASE_W = 200
STALE_PRICE_DAYS = 90


def build_caveats(
    gpu: GpuSpec,
    count: int,
    price_observed_at: datetime | None,
    now: datetime,
    *,
    stale_days: int = STALE_PRICE_DAYS,
    rental: bool = False,
    estimated: bool = False,
) -> list[str]:
    notes: list[str] = []
    if not gpu.has_tensor_cores:
        # Said as what the card does, not as a verdict: the ranking already prices it in
        # (an RX 7900 XTX can top a training ranking by perf per dollar).
        notes.append(
            "no Tensor Cores: matrix math runs as WMMA instructions on the shader units"
            if gpu.architecture == "RDNA 3"
            else "no Tensor Cores: matrix math runs on the shader units, at a fraction of a "
            "Tensor Core card's rate"
        )
    notes.extend(_analogy_caveats(gpu))
    if gpu.vendor == "AMD":
        notes.append("AMD ROCm: fewer frameworks and tricks than CUDA; throughput less certain")
    if gpu.geforce_eula:
        notes.append("GeForce/TITAN driver licence bars datacenter deployment")
    if gpu.form_factor in {"sxm", "oam", "superchip"} and not rental:
        notes.append("SXM/OAM module: sold in 8-GPU servers; priced with a server base")
    if not rental:
        notes.extend(_multi_gpu_caveats(gpu, count))
    if price_observed_at is not None:
        age = (now - price_observed_at).days
        if age > stale_days and estimated:
            notes.append(
                f"estimated price: last seen {age} days ago "
                f"({price_observed_at.date().isoformat()}), moved to today by the market "
                "index of comparable cards; its band says how sure"
            )
        elif age > stale_days:
            notes.append(
                f"stale price: {age} days old ({price_observed_at.date().isoformat()}), "
                f"older than {stale_days} days"
            )
    return notes


def _analogy_caveats(gpu: GpuSpec) -> list[str]:
    """A tensor rate carried over from another card, or assumed, is a guess for this one."""
    by_id = load_catalog().by_id
    notes = [
        f"tensor rate set by analogy with the {by_id[other].name} (no measurement of this "
        "card): training answers less certain"
        for other in gpu.carried_over_from
        if other in by_id
    ]
    if gpu.full_rate_assumed:
        notes.append(
            "tensor rate assumed at the full FP32-accumulate rate (no sheet or measurement "
            "of this card settles it; at half, as on GeForce cards, training is slower): "
            "training answers less certain"
        )
    return notes


def _multi_gpu_caveats(gpu: GpuSpec, count: int) -> list[str]:
    notes: list[str] = []
    if count < 2 or gpu.form_factor != "pcie":
        return notes
    if gpu.slot_width >= 3:
        notes.append(
            f"{gpu.slot_width}-slot card: {count}x needs blower or water-cooled cards, "
            "2-slot variants or PCIe extenders"
        )
    watts = count * gpu.tdp_w + SYSTEM_BASE_W
    if watts > US_OUTLET_PSU_W - 100:
        notes.append(
            f"power: {count}x {gpu.tdp_w} W + ~{SYSTEM_BASE_W} W system = {watts} W; more than "
            "a 1,600 W PSU on one US outlet can carry comfortably: power-limit the cards"
        )
    if not gpu.p2p_over_pcie:
        notes.append(_no_p2p_caveat(gpu, count))
    if gpu.geforce_eula and count > 4:
        notes.append("more than 4 GeForce cards in one machine parallelize inefficiently")
    if gpu.geforce_eula and gpu.tdp_w >= 350 and count > 3:
        notes.append("no more than 3 RTX 3090-class cards per workstation chassis")
    return notes


def _no_p2p_caveat(gpu: GpuSpec, count: int) -> str:
    if gpu.nvlink == "bridge-2way" and count == 2:
        return "no PCIe peer-to-peer: the pair needs an NVLink bridge to scale well"
    if gpu.nvlink == "bridge-2way":
        return "no PCIe peer-to-peer (only NVLink-bridged pairs): multi-GPU training scales poorly"
    return "no PCIe peer-to-peer: multi-GPU training scales poorly"
