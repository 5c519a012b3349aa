"""Documented defaults of the build, TCO and quote arithmetic, each with its source.

Every number here is shown to users through `Sourced`, so its basis (measured,
calibrated, scraped, snapshot, msrp, assumption, input) and its origin travel with it.
Settings are not used for these on purpose: they are domain assumptions, overridable per
request, not deployment configuration.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Literal

Basis = Literal[
    "input",
    "spec",
    "measured",
    "calibrated",
    "scraped",
    "snapshot",
    "msrp",
    "seed",
    "assumption",
    # Today's price moved from an older observation by a market index (pricing/today.py).
    "estimated",
]


@dataclass(frozen=True, slots=True)
class Sourced:
    """One number as shown to a user: value, unit, where it came from and when."""

    name: str
    value: float | Decimal | str | None
    unit: str
    basis: Basis
    source: str
    as_of: date | None = None


DOMAIN = "docs/domain.md"
SEED = f"{DOMAIN} section 5 (Dettmers 2020 worked example)"

HOURS_PER_DAY = 24
DAYS_PER_YEAR = 365
# Months of the series: a calendar-average month, so 12 of them make 365 days.
DAYS_PER_MONTH = DAYS_PER_YEAR / 12

UTILIZATION = 0.15
# Lower bounds of the inputs that divide by hours: 0.1 % of the hours (about nine a year)
# and one day. Below them a cost per hour grows past what a Decimal quantises (a 500,
# "InvalidOperation"), and no purchase is decided on less.
MIN_UTILIZATION = 0.001
MIN_YEARS = 1 / DAYS_PER_YEAR
# Cloud time is billed by the hour at the finest.
MIN_RENT_HOURS = 1.0
UTILIZATION_SOURCE = (
    f"{SEED}: 15 % (PhD desktop < 15 %, shared Slurm > 35 %, company cluster > 60 %)"
)
DATACENTER_UTILIZATION = 0.60
DATACENTER_UTILIZATION_SOURCE = f"{DOMAIN} section 5: company-wide Slurm cluster > 60 %"

ELECTRICITY_USD_PER_KWH = Decimal("0.12")
ELECTRICITY_SOURCE = f"{SEED}: $0.12/kWh (2020)"

# A desktop has no cooling plant of its own; the seed counts wall power only.
PUE = 1.0
PUE_SOURCE = f"{SEED}: wall power only (desktop, no facility overhead)"
# Facility overhead of a datacenter; a round figure between hyperscalers (~1.1) and
# older enterprise rooms (~2). Assumption, not a measurement of any given site.
DATACENTER_PUE = 1.5
DATACENTER_PUE_SOURCE = "assumption: typical enterprise datacenter (1.1 hyperscale - 2.0 old)"

YEARS = 3
YEARS_SOURCE = "assumption: 3-year hardware horizon (about one GPU generation and a half)"

# CPU, board, drives and fans: the seed's 100 W CPU for 1-2 GPUs; DOMAIN section 4's
# ~200 W left for CPU and board in a 4-GPU build; a dual-socket 8-GPU server is a guess.
SYSTEM_WATTS_1_2 = 100
SYSTEM_WATTS_4 = 200
SYSTEM_WATTS_8 = 800
SYSTEM_WATTS_SOURCES = {
    SYSTEM_WATTS_1_2: f"{SEED}: 100 W CPU",
    SYSTEM_WATTS_4: f"{DOMAIN} section 4: ~200 W for CPU and board in a 4-GPU build",
    SYSTEM_WATTS_8: "assumption: dual-socket CPUs, fans, NICs and drives of an 8-GPU server",
}

# US average CO2 per kWh of generation, EPA eGRID2022 (823 lb/MWh): the grid mix of the
# site is unknown, so the national average stands in.
CARBON_KG_PER_KWH = 0.373
CARBON_SOURCE = "EPA eGRID2022 (data year 2022) US average output emission rate, 823 lb CO2/MWh"

# DOMAIN section 5: spot V100 instances are interrupted more than 20 % of the time. The
# lost work is assumed to equal that share of extra hours (no checkpoint tuning).
SPOT_INTERRUPTION_OVERHEAD = 0.20
SPOT_OVERHEAD_SOURCE = (
    f"{DOMAIN} section 5: spot V100 interrupted > 20 % of the time; assumed lost as re-run hours"
)

# Longest break-even searched: beyond it the answer is "not within any useful horizon".
MAX_BREAK_EVEN_YEARS = 50


def system_watts_for(gpus_per_node: int) -> int:
    if gpus_per_node <= 2:
        return SYSTEM_WATTS_1_2
    if gpus_per_node <= 4:
        return SYSTEM_WATTS_4
    return SYSTEM_WATTS_8
