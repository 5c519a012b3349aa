"""Power limits: throughput factor at a power cap, and the watts saved.

factor = (cap / TDP) ** POWER_EXPONENT for cap < TDP (1 at or above TDP). The exponent
is fitted to the one measurement we have: an RTX 2080 Ti (250 W) capped 50 W lower
loses ~7 % (Dettmers, BERT Large inference): ln(0.93) / ln(200 / 250) = 0.325. It is
close to the 1/3 that dynamic power ~ f^3 (voltage tracking clock) would give.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from shared.catalog.specs import GpuSpec

MEASURED_CAP_FRACTION = 200.0 / 250.0
MEASURED_FACTOR = 0.93
POWER_EXPONENT = math.log(MEASURED_FACTOR) / math.log(MEASURED_CAP_FRACTION)
# Drivers do not allow caps far below TDP; extrapolating further would be a guess.
MIN_CAP_FRACTION = 0.3


@dataclass(frozen=True, slots=True)
class PowerLimit:
    cap_w: float
    throughput_factor: float
    saved_w_per_gpu: float


def throughput_factor(tdp_w: float, cap_w: float) -> float:
    if cap_w < MIN_CAP_FRACTION * tdp_w:
        raise ValueError(f"power limit {cap_w:g} W is below {MIN_CAP_FRACTION:.0%} of TDP")
    return float(min(1.0, cap_w / tdp_w) ** POWER_EXPONENT)


def power_limit(gpu: GpuSpec, cap_w: float) -> PowerLimit:
    factor = throughput_factor(gpu.tdp_w, cap_w)
    return PowerLimit(cap_w, factor, max(0.0, gpu.tdp_w - cap_w))
