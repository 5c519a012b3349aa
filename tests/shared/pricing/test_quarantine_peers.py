"""The quarantine reference of a card with no market price: its launch price, else its
peers' (same vendor, segment and architecture, similar memory, its form first)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlmodel import Session

from shared.catalog.specs import GpuSpec, load_catalog
from shared.models import PriceObservation
from shared.pricing.quarantine import QuarantineRules, peer_tiers, reference_details
from shared.seed import seed_catalog
from tests.factories import make_observation

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
RULES = QuarantineRules()


def _ids(tiers: list[list[GpuSpec]]) -> list[set[str]]:
    return [{gpu.id for gpu in tier} for tier in tiers]


def test_peers_share_vendor_segment_architecture_and_memory_class() -> None:
    catalog = load_catalog()
    h200 = catalog.by_id["h200-sxm"]
    # Modules first (H100 SXM, GH200), then the PCIe cards; 80-141 GB: all within 2x.
    assert _ids(peer_tiers(h200, catalog.gpus)) == [
        {"h100-sxm5", "gh200"},
        {"h100-pcie", "h100-nvl", "h200-nvl"},
    ]
    mi300x = catalog.by_id["mi300x"]
    # CDNA 3 only (not the CDNA 4 MI350X/MI355X, nor the CDNA 2 MI250X).
    assert _ids(peer_tiers(mi300x, catalog.gpus)) == [{"mi325x"}]
    b200 = catalog.by_id["b200"]
    tiers = _ids(peer_tiers(b200, catalog.gpus))
    assert tiers[0] == {"b300", "gb200", "gb300"}
    assert all("rtx-5090" not in tier for tier in tiers)  # a consumer card is no peer


def _new(gpu_id: str, usd: str, days_ago: float = 1, **kw: object) -> PriceObservation:
    return make_observation(
        gpu_id=gpu_id,
        condition="new",
        usd=usd,
        source="newegg",
        observed_at=NOW - timedelta(days=days_ago),
        **kw,
    )


def test_the_first_priced_tier_of_peers_gives_the_reference(session: Session) -> None:
    seed_catalog(session)
    session.add_all([_new("h100-pcie", "25000"), _new("h100-nvl", "27000")])  # PCIe tier
    session.flush()
    key = ("h200-sxm", "new")
    [reference] = reference_details(session, {key}, NOW, RULES).values()
    assert reference.usd == Decimal("26000")
    assert (
        reference.basis == "peer cards' reference (median of h100-nvl $27,000, h100-pcie $25,000)"
    )
    # A priced module peer wins over the PCIe cards.
    session.add(_new("h100-sxm5", "31000"))
    session.flush()
    assert reference_details(session, {key}, NOW, RULES)[key].usd == Decimal("31000")


def test_quotes_and_quarantined_prices_never_make_a_peer_reference(session: Session) -> None:
    seed_catalog(session)
    session.add_all(
        [
            _new("mi325x", "99", kind="manual", measure="quote"),
            _new("mi325x", "5", quarantined=True),
        ]
    )
    session.flush()
    assert reference_details(session, {("mi300x", "new")}, NOW, RULES) == {}


def test_a_launch_price_comes_before_peers(session: Session) -> None:
    seed_catalog(session)
    session.add(_new("rtx-a6000", "4000"))  # an Ampere workstation peer with a market
    session.flush()
    key = ("rtx-a5000", "used")
    reference = reference_details(session, {key}, NOW, RULES)[key]
    assert reference.usd == Decimal("1125")  # half of the $2,250 launch price
    assert reference.basis == "launch price $2,250 (half for used)"
