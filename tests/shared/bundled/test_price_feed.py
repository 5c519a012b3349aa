"""gpu-price-feed: each provider's cheapest on-demand price per GPU and day. Every key is mapped
to the one catalog card it names, form factor included, or counted with why it is not."""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal

from shared.bundled._data import Skip, read_csv
from shared.bundled.mapping import FEED_GPUS
from shared.bundled.price_feed import FEED_FILE, feed_gpu, feed_skips, iter_feed_offers
from shared.catalog.aliases import exact_alias
from shared.catalog.specs import Catalog

# The keys whose form factor decides the card, and the card each must go to.
FORM_FACTOR_KEYS = {
    "A100 40GB PCIe": "a100-40gb-pcie",
    "A100 40GB SXM": "a100-40gb-sxm4",
    "A100 80GB PCIe": "a100-80gb-pcie",
    "A100 80GB SXM": "a100-80gb-sxm4",
    "B200 180GB SXM": "b200",
    "B300 288GB SXM": "b300",
    "GB300 288GB SXM": "gb300",
    "H100 80GB PCIe": "h100-pcie",
    "H100 80GB SXM": "h100-sxm5",
    "H100 94GB NVL": "h100-nvl",
    "H200 141GB NVL": "h200-nvl",
    "H200 141GB SXM": "h200-sxm",
    "V100 16GB PCIe": "v100-16gb-pcie",
    "V100 16GB SXM": "v100-16gb-sxm2",
    "RTX PRO 6000 Blackwell 96GB Workstation": "rtx-pro-6000-blackwell",
    "RTX PRO 6000 Blackwell 96GB Server": "rtx-pro-6000-blackwell-server",
    "RTX PRO 6000 Blackwell 96GB Max-Q": "rtx-pro-6000-blackwell-max-q",
}
# Catalog memory that differs from the capacity the feed's key states, and why that is the card.
MEMORY_EXCEPTIONS = {
    "B300 288GB SXM": 270,  # sold as 288 GB; the catalog lists the HGX B300's usable 270 GB
    "MI350X 294GB": 288,  # RunPod's figure for the MI350X's 288 GB
}
SKIPS = {
    "GPU not in catalog": 723,
    "variant unstated": 496,
    "raw key without VRAM": 165,
    "VRAM of no standard card (modded or misreported)": 64,
    "MIG slice, not a whole GPU": 52,
    "laptop part (Mobile)": 50,
}


def _keys() -> set[str]:
    return {row["gpu_as_written"] for row in read_csv(*FEED_FILE)}


def _bare_alias(key: str) -> str | None:
    """The catalog id of the key's name without its memory ("RTX 4090 24GB" -> "RTX 4090")."""
    return exact_alias(re.sub(r"\s*\b\d+GB\b", "", key))


def _offers(provider: str, gpu_id: str) -> dict[datetime, Decimal | None]:
    return {
        r.observed_at: r.on_demand_usd_per_hour
        for r in iter_feed_offers()
        if r.provider == provider and r.gpu_id == gpu_id
    }


def test_form_factor_keys_go_to_their_own_form():
    for key, gpu_id in FORM_FACTOR_KEYS.items():
        assert feed_gpu(key) == gpu_id, key


def test_every_mapped_key_names_its_card(catalog: Catalog):
    """Memory, form factor and the catalog's own aliases agree with each mapping."""
    assert len(FEED_GPUS) == 73 and set(FEED_GPUS) <= _keys()
    for key, gpu_id in FEED_GPUS.items():
        spec = catalog.by_id[gpu_id]
        [vram] = re.findall(r"\b(\d+)GB\b", key)
        assert spec.memory_gb == MEMORY_EXCEPTIONS.get(key, int(vram)), key
        if key.endswith((" SXM", " NVL", " PCIe")):
            form = {"SXM": {"sxm", "superchip"}, "NVL": {"pcie"}, "PCIe": {"pcie"}}
            assert spec.form_factor in form[key.rsplit(" ", 1)[1]], key
        # Where the catalog knows the name without the memory, it is the same card.
        assert _bare_alias(key) in (None, gpu_id), key
    for key in ("RTX 4090 24GB", "RTX 3090 24GB", "RTX 5090 32GB", "H100 80GB SXM"):
        assert _bare_alias(key) == FEED_GPUS[key]


def test_unstated_form_is_used_for_neither_form():
    for key in (
        "B200 180GB (form unstated)",
        "H200 141GB (form unstated)",
        "V100 16GB (form unstated)",
        "V100 32GB (form unstated)",
        "P100 16GB (form unstated)",
        "RTX PRO 6000 Blackwell 96GB (form unstated)",
    ):
        assert feed_gpu(key) == Skip("variant unstated"), key
    # RunPod lists B200 only without its form: no RunPod B200 record.
    assert _offers("runpod", "b200") == {}


def test_slices_laptop_modded_raw_and_unknown_keys_are_counted_skips():
    assert feed_gpu("RTX PRO 6000 Blackwell 24GB Server MIG") == Skip("MIG slice, not a whole GPU")
    assert feed_gpu("RTX 3060 12GB Mobile") == Skip("laptop part (Mobile)")
    for modded in ("RTX 4090 48GB", "RTX 2080 Ti 22GB", "RTX 4080 SUPER 32GB", "H100 64GB NVL"):
        assert feed_gpu(modded) == Skip("VRAM of no standard card (modded or misreported)")
    for raw in ("RTX 2060", "Titan V", "RTX 4090D", "GTX 1650 S", "Q RTX 4000"):
        assert feed_gpu(raw) == Skip("raw key without VRAM"), raw
    assert feed_gpu("RTX 4000 SFF Ada 20GB") == Skip("GPU not in catalog")
    assert feed_gpu("RTX 9090 64GB") == Skip("unmapped name")  # a new key is never guessed


def test_skip_counts_and_every_row_accounted_for():
    records = list(iter_feed_offers())
    assert feed_skips() == SKIPS
    assert len(records) + sum(SKIPS.values()) == len(read_csv(*FEED_FILE)) == 7860
    assert len(records) == 6310
    reasons = Counter(r.reason for key in _keys() if isinstance(r := feed_gpu(key), Skip))
    assert reasons == {
        "GPU not in catalog": 16,
        "raw key without VRAM": 15,
        "variant unstated": 7,
        "VRAM of no standard card (modded or misreported)": 6,
        "laptop part (Mobile)": 4,
        "MIG slice, not a whole GPU": 2,
    }


def test_records_are_one_providers_cheapest_offer_per_gpu_hour(catalog: Catalog):
    records = list(iter_feed_offers())
    assert {r.provider for r in records} == {
        "akamai",
        "datacrunch",
        "digitalocean",
        "lambdalabs",
        "runpod",
        "scaleway",
        "vastai",
        "vultr",
    }
    assert all(r.gpu_id in catalog.by_id for r in records)
    assert all(r.gpu_count == 1 and r.spot_usd_per_hour is None for r in records)
    assert {(r.kind, r.measure, r.region) for r in records} == {
        ("snapshot", "provider_cheapest", "global")
    }
    runpod_4090 = _offers("runpod", "rtx-4090")
    at = datetime(2026, 10, 4, 12, 20, 45, tzinfo=UTC)
    assert runpod_4090[at] == Decimal("0.34")
    [record] = [
        r
        for r in records
        if r.observed_at == at and r.provider == "runpod" and r.gpu_id == "rtx-4090"
    ]
    assert record.instance_type == "RTX 4090 24GB cheapest on-demand"
    assert "toolshedlabs-hash/gpu-price-feed@3c41e775" in record.source
    # Both runs of the first day are kept (two timestamps).
    assert len([t for t in runpod_4090 if t.date().isoformat() == "2026-07-23"]) == 2


def test_vast_outliers_are_kept_as_asked():
    """One host's ask far from the usual level is a real price; judging it is not the reader's."""
    h100 = _offers("vastai", "h100-sxm5")
    assert [day.date().isoformat() for day, usd in h100.items() if usd == Decimal("5.7156")] == [
        "2026-09-10"
    ]
    gtx_1060 = _offers("vastai", "gtx-1060-6gb")
    assert Decimal("0.0158") in gtx_1060.values() and Decimal("0.3444") in gtx_1060.values()
