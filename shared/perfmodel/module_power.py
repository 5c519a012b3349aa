"""Board power per peak matrix TFLOPS of server modules, within an architecture.

One module silicon is sold at several board powers (MI300X 750 W and MI325X 1000 W with
identical peak rates; MI350X 1000 W and MI355X 1400 W; B300 1100 W and GB300 1400 W; B200
1000 W and GB200 1200 W). The datasheet peaks assume a clock that a dense matrix multiply
only sustains with the power to hold it: a module with fewer watts per peak TFLOPS than its
architecture's best-fed module runs its matrix units at a lower clock. Since dynamic power
grows between clock^1 (voltage at its floor) and clock^3 (voltage tracking clock), the
sustained matrix rate scales as (W per TFLOPS) ** beta with beta between 1/3 and 1; beta is
fitted on MLPerf Training (prior 1/3, the same cube root as the Lambda clock term). It acts
on the time a benchmark spends in large matrix multiplies only: those kernels draw the most
power, while memory-bound kernels run below the limit: the MLPerf benchmark's own large
matrix multiplies (`FittedParams.gemm_share`) and the matrix share of the Lambda mix
(`matrix_clock.py`), the latter also in the product's training classes.

Only SXM, OAM and superchip modules: their board power is a configurable module power of
one silicon, while an add-in card's peak is quoted at its own clock and NVIDIA cards' power
limits are already in the Lambda-calibrated clock term (`timemodel.clock_factor`). A
module whose stated power also feeds a CPU (GH200: Grace + Hopper + memory) has no GPU
board power to compare and is left out.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

from shared.catalog.specs import GpuSpec, load_catalog

MODULE_FORMS = ("sxm", "oam", "superchip")
# Catalog ids whose tdp_w covers a CPU as well (gpu_catalog.csv notes: "TDP is the whole
# module (Grace+Hopper+memory)"); GB200/GB300 rows state one GPU's power.
POWER_INCLUDES_CPU = frozenset({"gh200"})
# Prior of the exponent: dynamic power ~ clock^3 (timemodel.POWER_CLOCK_EXPONENT).
POWER_EXPONENT_PRIOR, POWER_EXPONENT_PRIOR_SD = 1.0 / 3.0, 0.3


WattsPerTflops = Callable[[GpuSpec], float | None]


def _rate_watts(gpu: GpuSpec) -> float | None:
    rate = gpu.fp16_tensor_tflops
    if not rate or gpu.tdp_w <= 0 or gpu.id in POWER_INCLUDES_CPU:
        return None
    return gpu.tdp_w / rate


def watts_per_tflops(gpu: GpuSpec) -> float | None:
    """Board power per dense 16-bit peak matrix TFLOPS of a server module (None else)."""
    return _rate_watts(gpu) if gpu.form_factor in MODULE_FORMS else None


def hbm_watts_per_tflops(gpu: GpuSpec) -> float | None:
    """The same of a datacenter part on an architecture's large HBM die, in any form factor
    (None for other parts)."""
    hbm = gpu.segment == "datacenter" and gpu.memory_type.upper().startswith("HBM")
    return _rate_watts(gpu) if hbm else None


@lru_cache(maxsize=2)
def _best_fed(measure: WattsPerTflops) -> dict[str, float]:
    """Highest W per TFLOPS by `measure` among each architecture's parts in the catalog."""
    out: dict[str, float] = {}
    for gpu in load_catalog().gpus:
        value = measure(gpu)
        if value is not None:
            out[gpu.architecture] = max(value, out.get(gpu.architecture, 0.0))
    return out


def _headroom_log(gpu: GpuSpec, measure: WattsPerTflops) -> float:
    value = measure(gpu)
    best = _best_fed(measure).get(gpu.architecture)
    if value is None or best is None:
        return 0.0
    return min(0.0, math.log(value / best))


def power_headroom_log(gpu: GpuSpec) -> float:
    """log(W per TFLOPS / the architecture's best-fed module's), <= 0; 0 where undefined."""
    return _headroom_log(gpu, watts_per_tflops)


def card_power_headroom_log(gpu: GpuSpec) -> float:
    """log(W per TFLOPS / the best-fed HBM datacenter part of its architecture), <= 0, for
    HBM datacenter parts, add-in cards included (H100 PCIe and NVL, A100 PCIe); 0 else.

    The vision inference classes use it (inference.power_clock): there the data held out
    favoured it, while in training the Lambda clock term covers add-in cards and in LLM
    serving it made held-out errors worse (docs/model/classes.md, eighth round)."""
    return _headroom_log(gpu, hbm_watts_per_tflops)
