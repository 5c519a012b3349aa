from datetime import UTC, datetime

from shared.catalog.specs import load_catalog
from shared.scoring.caveats import build_caveats

NOW = datetime(2026, 12, 3, tzinfo=UTC)


def _caveats(gpu_id: str) -> list[str]:
    return build_caveats(load_catalog().by_id[gpu_id], 1, NOW, NOW)


def test_a_tensor_rate_carried_over_from_another_card_says_so():
    """The smaller Ada workstation cards' tensor rates follow the RTX 6000 Ada's measured
    half rate (catalog tag analogy:rtx-6000-ada); the RTX 6000 Ada's own rests on Lambda's
    measurements, a GeForce card's on the whitepaper's count."""
    analogy = [c for c in _caveats("rtx-4000-ada") if "by analogy" in c]
    assert analogy == [
        "tensor rate set by analogy with the NVIDIA RTX 6000 Ada Generation (no measurement "
        "of this card): training answers less certain"
    ]
    for gpu_id in ("rtx-6000-ada", "rtx-4090", "h100-sxm5"):
        assert not [c for c in _caveats(gpu_id) if "by analogy" in c]
