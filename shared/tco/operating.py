"""Running the owned build: watts, power limit, utilization, electricity, PUE, years."""

from __future__ import annotations

from decimal import Decimal

from shared.builds import assumptions as d
from shared.builds.assumptions import Sourced
from shared.builds.build import Build
from shared.catalog.specs import GpuSpec
from shared.perfmodel.power import power_limit
from shared.tco.request import TcoInputError, from_request
from shared.tco.schemas import TcoRequest


def gpu_power(req: TcoRequest, gpu: GpuSpec, out: list[Sourced]) -> tuple[float, float]:
    """(watts per GPU, throughput factor of the power limit)."""
    factor = 1.0
    if req.power_limit_w is not None:
        try:
            factor = power_limit(gpu, req.power_limit_w).throughput_factor
        except ValueError as exc:
            raise TcoInputError("power_limit_w", str(exc), [f">= 30 % of {gpu.tdp_w} W"]) from exc
        out.append(
            Sourced(
                "power_limit_throughput_factor",
                round(factor, 3),
                "x",
                "calibrated",
                "shared/perfmodel/power.py: (cap/TDP) ** 0.325, RTX 2080 Ti measurement",
            )
        )
    if req.gpu_watts is not None:
        out.append(from_request("gpu_watts", req.gpu_watts, "W per GPU"))
        return req.gpu_watts, factor
    if req.power_limit_w is not None:
        watts = min(float(gpu.tdp_w), req.power_limit_w)
        out.append(Sourced("gpu_watts", watts, "W per GPU", "input", "power_limit_w"))
        return watts, factor
    out.append(Sourced("gpu_watts", gpu.tdp_w, "W per GPU", "spec", f"catalog TDP of {gpu.id}"))
    return float(gpu.tdp_w), factor


def _pick(
    name: str,
    given: float | Decimal | None,
    default: float | Decimal,
    unit: str,
    basis: d.Basis,
    source: str,
    out: list[Sourced],
) -> float | Decimal:
    if given is not None:
        out.append(from_request(name, given, unit))
        return given
    out.append(Sourced(name, default, unit, basis, source))
    return default


def running_inputs(req: TcoRequest, build: Build, out: list[Sourced]) -> dict[str, float | Decimal]:
    lay = build.layout
    watts = build.power.system_watts_per_node * lay.nodes
    spot = d.SPOT_INTERRUPTION_OVERHEAD if req.pricing == "spot" else 0.0
    spot_source = d.SPOT_OVERHEAD_SOURCE if req.pricing == "spot" else "on-demand: not interrupted"
    return {
        "system_watts": _pick(
            "system_watts",
            req.system_watts,
            watts,
            "W",
            "assumption",
            f"{d.SYSTEM_WATTS_SOURCES[build.power.system_watts_per_node]}, x {lay.nodes} "
            f"machine(s) ({lay.describe()})",
            out,
        ),
        "utilization": _pick(
            "utilization",
            req.utilization,
            d.UTILIZATION,
            "share of hours",
            "seed",
            d.UTILIZATION_SOURCE,
            out,
        ),
        "electricity_usd_per_kwh": _pick(
            "electricity_usd_per_kwh",
            req.electricity_usd_per_kwh,
            d.ELECTRICITY_USD_PER_KWH,
            "USD/kWh",
            "seed",
            d.ELECTRICITY_SOURCE,
            out,
        ),
        "pue": _pick("pue", req.pue, d.PUE, "x", "seed", d.PUE_SOURCE, out),
        "years": _pick("years", req.years, d.YEARS, "years", "assumption", d.YEARS_SOURCE, out),
        "spot_interruption_overhead": _pick(
            "spot_interruption_overhead",
            req.spot_interruption_overhead,
            spot,
            "share of extra hours",
            "assumption",
            spot_source,
            out,
        ),
        "carbon_kg_per_kwh": _pick(
            "carbon_kg_per_kwh",
            req.carbon_kg_per_kwh,
            d.CARBON_KG_PER_KWH,
            "kg CO2/kWh",
            "assumption",
            d.CARBON_SOURCE,
            out,
        ),
    }
