"""resolve_gpu_name (API alias resolution), the family table and the CLI function."""

from __future__ import annotations

import io
import json

import pytest

from services.cli.match import match_titles
from shared.catalog.specs import load_catalog
from shared.matching.families import check_families
from shared.matching.titles import resolve_gpu_name


@pytest.mark.parametrize(
    ("name", "gpu_id"),
    [
        ("GeForce RTX 3090", "rtx-3090"),
        ("RTX3090", "rtx-3090"),
        ("rtx-3090", "rtx-3090"),
        ("rtx 3090", "rtx-3090"),
        ("RTX 3080", "rtx-3080-10gb"),
        ("RTX 3080 12GB", "rtx-3080-12gb"),
        ("RTX 3080 Ti", "rtx-3080-ti"),
        ("4070 TiS", "rtx-4070-ti-super"),
        ("A100 80GB SXM", "a100-80gb-sxm4"),
        ("NVIDIA A100-SXM4-80GB", "a100-80gb-sxm4"),
        ("A100 40GB PCIe", "a100-40gb-pcie"),
        ("Tesla V100-SXM2-32GB", "v100-32gb-sxm2"),
        ("V100 16GB", "v100-16gb-pcie"),
        ("H100 NVL", "h100-nvl"),
        ("H100 SXM", "h100-sxm5"),
        ("RTX A6000", "rtx-a6000"),
        ("Quadro RTX 6000", "quadro-rtx-6000"),
        ("RTX 6000 Ada", "rtx-6000-ada"),
        ("L40S", "l40s"),
        ("MI300X", "mi300x"),
        ("RX 7900 XTX", "rx-7900-xtx"),
        ("  t4 ", "t4"),
    ],
)
def test_resolves_aliases(name: str, gpu_id: str) -> None:
    assert resolve_gpu_name(name) == gpu_id


@pytest.mark.parametrize(
    "name",
    [
        "RTX 6000",
        "A100",
        "A100 80GB",
        "H100",
        "V100",
        "RTX 5060 Ti",
        "RTX A6000 Ada",
        "RTX 3080 / 3080 Ti",
        "RX 7900 XT",
        "RTX 4090 D",
        "GTX 1050 Ti",
        "Tesla V100S",
        "banana",
        "",
    ],
)
def test_unknown_or_ambiguous_names_resolve_to_none(name: str) -> None:
    assert resolve_gpu_name(name) is None


def test_every_catalog_id_and_name_resolves_to_itself() -> None:
    for gpu in load_catalog().gpus:
        assert resolve_gpu_name(gpu.id) == gpu.id
        assert resolve_gpu_name(gpu.name) == gpu.id
        # Without the vendor prefix the name goes through the matcher, not the exact lookup.
        short = gpu.name.removeprefix("NVIDIA ").removeprefix("AMD ")
        assert resolve_gpu_name(short) == gpu.id, short


def test_family_table_matches_catalog() -> None:
    check_families()


def test_cli_writes_one_json_object_per_title(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    titles = ["4x RTX 3090 FE", "RTX 3090 for parts", "", "Tesla V100-SXM2-32GB"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(titles) + "\n"))
    match_titles()
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line) for line in lines] == [
        {"title": "4x RTX 3090 FE", "gpu_id": "rtx-3090", "quantity": 4, "reason": "matched"},
        {"title": "RTX 3090 for parts", "gpu_id": None, "quantity": None, "reason": "for_parts"},
        {
            "title": "Tesla V100-SXM2-32GB",
            "gpu_id": "v100-32gb-sxm2",
            "quantity": 1,
            "reason": "matched",
        },
    ]


def test_cli_keeps_non_ascii_titles(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("RTX 2080 Ti på Vannkjøler (AIO)\r\n"))
    match_titles()
    record = json.loads(capsys.readouterr().out)
    assert record["title"] == "RTX 2080 Ti på Vannkjøler (AIO)"
    assert record["gpu_id"] == "rtx-2080-ti"
