"""Price records read from the data bundled with the product (see shared/data/SOURCES.md)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

# Conditions and kinds a record can carry.
NEW = "new"
USED = "used"
MSRP = "msrp"
SNAPSHOT = "snapshot"


@dataclass(frozen=True, slots=True)
class PriceRecord:
    """One purchase price of one GPU, per unit."""

    gpu_id: str
    condition: str  # "new" | "used"
    price_usd: Decimal
    kind: str  # "msrp" | "snapshot"
    source: str  # human-readable, with repository commit or date
    url: str | None
    listing_id: str | None  # stable id for dedupe
    title: str | None
    observed_at: datetime  # timezone-aware UTC
    measure: str  # shared/pricing/measures.py: sale, sold_average, ask, list_price...
    quantity: int = 1


@dataclass(frozen=True, slots=True)
class CloudRecord:
    """One cloud instance type in one region; prices are per instance-hour."""

    provider: str
    instance_type: str
    gpu_id: str
    gpu_count: float  # below 1 for fractional GPU sizes (Azure NVadsA10_v5)
    region: str
    on_demand_usd_per_hour: Decimal | None
    spot_usd_per_hour: Decimal | None
    kind: str
    source: str
    observed_at: datetime  # timezone-aware UTC
    measure: str = "list"  # a provider's price list, or a marketplace/segment median
