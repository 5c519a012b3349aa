"""Exact GPU names for API fields and CLI options: ids, catalog names and known aliases
resolve; free text never does, and the loose matcher only suggests."""

from __future__ import annotations

import pytest

from shared.catalog.aliases import UnknownGpu, catalog_id, closest_ids, exact_alias
from shared.catalog.specs import load_catalog


def test_every_id_and_catalog_name_resolves_to_itself() -> None:
    for gpu in load_catalog().gpus:
        assert exact_alias(gpu.id) == gpu.id
        assert exact_alias(gpu.name) == gpu.id
        assert exact_alias(f"  {gpu.name.upper()} ") == gpu.id


@pytest.mark.parametrize(
    ("spelling", "gpu_id"),
    [
        ("RTX 4090", "rtx-4090"),
        ("4090", "rtx-4090"),
        ("GeForce RTX 3090", "rtx-3090"),
        ("3090 Ti", "rtx-3090-ti"),
        ("A6000", "rtx-a6000"),
        ("7900 XTX", "rx-7900-xtx"),
        ("H100 SXM", "h100-sxm5"),
        ("A100 80GB SXM", "a100-80gb-sxm4"),
        ("MI355", "mi355x"),
    ],
)
def test_short_forms_clients_send_are_known_aliases(spelling: str, gpu_id: str) -> None:
    assert exact_alias(spelling) == gpu_id


@pytest.mark.parametrize(
    "text",
    # The listing-title matcher reads each of these as a card; an API field must not.
    ["not a 4090", "RTX 3060", "4060 Ti", "RTX PRO 6000", "H100", "used 3090 for sale"],
)
def test_free_text_and_ambiguous_names_are_no_gpu(text: str) -> None:
    assert exact_alias(text) is None
    with pytest.raises(UnknownGpu) as error:
        catalog_id("cloud_gpu", text)
    assert error.value.field == "cloud_gpu"
    assert str(error.value).startswith(f"cloud_gpu: unknown GPU {text!r}; did you mean ")


def test_the_error_offers_the_closest_ids_best_first() -> None:
    with pytest.raises(UnknownGpu) as error:
        catalog_id("gpu", "not a 4090")
    assert error.value.valid is not None and error.value.valid[0] == "rtx-4090"
    assert "did you mean rtx-4090" in error.value.message
    assert {"h100-pcie", "h100-nvl", "h100-sxm5"} <= set(closest_ids("H100"))
    assert set(closest_ids("A100")[:4]) == {
        "a100-40gb-pcie",
        "a100-40gb-sxm4",
        "a100-80gb-pcie",
        "a100-80gb-sxm4",
    }


def test_nothing_close_lists_every_id() -> None:
    with pytest.raises(UnknownGpu) as error:
        catalog_id("gpu", "voodoo-5")
    assert error.value.close == []
    assert error.value.valid == load_catalog().ids
    assert error.value.message == "unknown GPU 'voodoo-5'; GET /gpus lists the ids"
