"""Hardware constants of a build: node sizes, allowances, power and network rules.

Defined once for every caller that prices or times a build (/recommend, quotes, TCO,
/model/predict, scores and alerts). Each constant is either a rule from docs/domain.md
section 4 (cited) or an assumption that the answer labels as such; none is a scraped
price. Node base costs are settings (`GPU_ADVISOR_SYSTEM_COST_*`).
"""

from __future__ import annotations

from decimal import Decimal

DOMAIN4 = "docs/domain.md section 4"

WORKSTATION_MAX_GPUS = 4
SERVER_GPUS = 8
# "auto" (the default everywhere) picks one of the other two: see layout.default_deployment.
DEPLOYMENTS = ("auto", "workstation", "datacenter")
AUTO = "auto"
NETWORKS = ("infiniband", "ethernet")
# The performance model's network names (shared/perfmodel/scaling.NETWORK_EFFICIENCY).
MODEL_NETWORK = {"infiniband": "infiniband", "ethernet": "ethernet-10g"}

# RAM: as much system RAM as GPU memory in the node (assumption: the usual sizing rule
# for data loading and pinned buffers); the node base already includes some.
RAM_INCLUDED_GB = {"desktop-1-2": 32, "workstation-4": 128, "server-8": 512}
RAM_USD_PER_GB = Decimal("3.00")
RAM_SOURCE = "assumption: ECC DDR4/DDR5 at ~$3/GB; RAM sized to the node's GPU memory"

# PSU: the sum of GPU and system watts plus headroom, so the PSU runs below ~90 % load.
# DOMAIN4: 4 x 350 W + ~200 W = 1,600 W is "too tight" for a 1,600 W PSU, "look for
# 1,700 W+"; 10 % headroom gives 1,760 W there.
PSU_HEADROOM = 0.10
US_OUTLET_PSU_W = 1600  # DOMAIN4: many US outlets cannot feed more than a 1,600 W PSU
WORKSTATION_BASE_PSU_W = 1600  # the 4-GPU base system includes a 1,600 W PSU (settings)
PSU_SIZES_W = (650, 850, 1000, 1200, 1300, 1500, 1600, 2000, 2400, 2800, 3200)
EXTRA_PSU_USD = Decimal("300")
EXTRA_PSU_SOURCE = "assumption: second ATX PSU (~1,000 W) with an add2psu adapter"

# Cooling: DOMAIN4: 3-slot cards (RTX 3090/4090) need 2-slot, blower or water-cooled
# variants, or PCIe extenders for a 4x build. Extenders are priced (riser cable + frame).
COOLING_MIN_CARDS = 4
RISER_USD = Decimal("60")
RISER_SOURCE = "assumption: PCIe 4.0 riser cable and open-frame mounting per card"

# Network between nodes: DOMAIN4: at least 50 Gbit/s (EDR InfiniBand) for speed-ups;
# 10 GbE only for special networks or algorithms.
IB_MIN_GBITS = 50
IB_GBITS = 200
IB_HCA_USD = Decimal("1500")
IB_SWITCH_PORT_USD = Decimal("600")
IB_CABLE_USD = Decimal("200")
IB_SOURCE = "assumption: HDR 200 Gbit/s HCA, 40-port switch (~$24k) per port, DAC cable"
ETH_GBITS = 10
ETH_NIC_USD = Decimal("150")
ETH_SWITCH_PORT_USD = Decimal("60")
ETH_CABLE_USD = Decimal("20")
ETH_SOURCE = "assumption: 10 GbE NIC, managed switch per port, DAC cable"
SWITCH_RADIX = 40

# Rack power a colocation rack typically supplies (assumption); servers above it need
# another rack.
RACK_KW = 15.0
RACK_SOURCE = "assumption: 15 kW per high-density colocation rack"

# GeForce cards that draw this much are "RTX 3090-class" (DOMAIN4: no more than 3 per
# workstation chassis).
RTX_3090_CLASS_W = 350
MAX_3090_CLASS_PER_WORKSTATION = 3
MAX_GEFORCE_PER_MACHINE = 4
