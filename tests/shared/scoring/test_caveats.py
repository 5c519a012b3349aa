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


def test_an_assumed_full_tensor_rate_says_so():
    """The RTX PRO 6000 Blackwell editions' FP32-accumulate rate is computed at the full
    rate, which no sheet or measurement of them confirms (catalog tag
    assumed:full-rate-fp32-accumulate); a datasheet or a GeForce count settles the others'."""
    for gpu_id in (
        "rtx-pro-6000-blackwell",
        "rtx-pro-6000-blackwell-max-q",
        "rtx-pro-6000-blackwell-server",
    ):
        assert [c for c in _caveats(gpu_id) if "assumed at the full" in c], gpu_id
    for gpu_id in ("rtx-5090", "l40s", "rtx-6000-ada", "rtx-4000-ada"):
        assert not [c for c in _caveats(gpu_id) if "assumed at the full" in c], gpu_id


def test_a_card_without_tensor_cores_is_told_what_it_does_not_judged():
    """The caveat describes the hardware; the ranking, not the caveat, says what it is worth
    (an RX 7900 XTX may top a perf-per-dollar ranking)."""
    amd = [c for c in _caveats("rx-7900-xtx") if c.startswith("no Tensor Cores")]
    nvidia = [c for c in _caveats("gtx-1080-ti") if c.startswith("no Tensor Cores")]
    assert amd == ["no Tensor Cores: matrix math runs as WMMA instructions on the shader units"]
    assert len(nvidia) == 1 and "shader units" in nvidia[0] and "WMMA" not in nvidia[0]
    assert not [c for c in _caveats("rtx-3090") if c.startswith("no Tensor Cores")]
