"""The GPU catalog: invariants of every row, and the GPUs added for late 2026 (B300,
GB200/GB300 per GPU, MI325X, MI350X, MI355X, RTX PRO 6000 Blackwell Server and Max-Q editions)."""

from __future__ import annotations

import pytest

from shared.builds.predict import predict_full
from shared.catalog.aliases import resolve_alias
from shared.catalog.specs import PRECISION_COLUMNS, read_catalog_rows
from shared.matching.titles import match_title
from shared.perfmodel.base import TASK_FAMILIES
from shared.perfmodel.registry import get_model

VENDORS = {"NVIDIA", "AMD"}
SEGMENTS = {"consumer", "workstation", "datacenter"}
ARCHITECTURES = {
    "Kepler",
    "Pascal",
    "Volta",
    "Turing",
    "Ampere",
    "Ada Lovelace",
    "Hopper",
    "Blackwell",
    "CDNA 2",
    "CDNA 3",
    "CDNA 4",
    "RDNA 3",
}
FORM_FACTORS = {"pcie", "sxm", "oam", "superchip"}
NVLINK = {"none", "bridge-2way", "nvswitch", "bridge"}
SERVER_MODULES = {"sxm", "oam", "superchip"}

# id -> (memory GB, bandwidth GB/s, TDP W, form factor, FP8 in hardware)
NEW_GPUS = {
    "b300": (270, 7700, 1100, "sxm", True),
    "gb200": (186, 8000, 1200, "superchip", True),
    "gb300": (288, 8000, 1400, "superchip", True),
    "mi325x": (256, 6000, 1000, "oam", True),
    "mi350x": (288, 8000, 1000, "oam", True),
    "mi355x": (288, 8000, 1400, "oam", True),
    "rtx-pro-6000-blackwell-server": (96, 1597, 600, "pcie", True),
    "rtx-pro-6000-blackwell-max-q": (96, 1792, 300, "pcie", True),
}


def test_ids_and_names_are_unique(catalog):
    assert len(set(catalog.ids)) == len(catalog) == 97
    assert len({gpu.name for gpu in catalog.gpus}) == len(catalog)


def test_every_row_has_its_specs_and_sources(catalog):
    for gpu in catalog.gpus:
        assert gpu.vendor in VENDORS and gpu.segment in SEGMENTS, gpu.id
        assert gpu.architecture in ARCHITECTURES and gpu.form_factor in FORM_FACTORS, gpu.id
        assert gpu.nvlink in NVLINK and gpu.pcie_gen in (0, 3, 4, 5), gpu.id
        assert gpu.memory_gb > 0 and gpu.memory_bandwidth_gbs > 0 and gpu.tdp_w > 0, gpu.id
        assert gpu.sm_count > 0 and gpu.boost_clock_mhz > 0 and gpu.fp32_tflops > 0, gpu.id
        assert gpu.fp16_tensor_tflops is not None and gpu.fp16_tensor_tflops > 0, gpu.id
        assert gpu.sources.strip() and all(tag.strip() for tag in gpu.sources.split(";")), gpu.id
        assert gpu.notes.strip() or gpu.segment == "consumer", gpu.id
        # bf16 always uses FP32 accumulate: it equals the fp16 column where it exists.
        assert gpu.bf16_tensor_tflops in (None, gpu.fp16_tensor_tflops), gpu.id
        if gpu.form_factor in SERVER_MODULES:
            assert gpu.slot_width == 0, gpu.id
        assert not gpu.geforce_eula or gpu.segment == "consumer", gpu.id


def test_rows_have_every_column_and_no_team_folder_paths():
    for row in read_catalog_rows():
        assert None not in row and all(value is not None for value in row.values()), row["id"]
        assert "specs_raw" not in row["sources"] + row["notes"], row["id"]
        assert "/work/" not in row["sources"] + row["notes"], row["id"]


@pytest.mark.parametrize("gpu_id", sorted(NEW_GPUS))
def test_new_gpus_have_their_datasheet_specs(catalog, gpu_id):
    memory, bandwidth, tdp, form, _ = NEW_GPUS[gpu_id]
    gpu = catalog.by_id[gpu_id]
    assert (gpu.memory_gb, gpu.memory_bandwidth_gbs) == (memory, bandwidth)
    assert (gpu.tdp_w, gpu.form_factor) == (tdp, form)
    assert gpu.segment == ("workstation" if gpu_id.endswith("max-q") else "datacenter")
    assert gpu.launch_price_usd is None  # no official MSRP for any of them
    for precision in PRECISION_COLUMNS:
        rate = gpu.peak_rate(precision)
        assert rate is None or rate > 0


def test_dense_rates_follow_the_datasheets(catalog):
    by_id = catalog.by_id
    # Dense, not sparse: B300 2.25 PF FP16 like B200, GB200/GB300 2.5 PF per GPU.
    assert by_id["b300"].fp16_tensor_tflops == by_id["b200"].fp16_tensor_tflops == 2250
    assert by_id["gb200"].fp16_tensor_tflops == by_id["gb300"].fp16_tensor_tflops == 2500
    # MI325X has the MI300X compute silicon; MI355X (CDNA 4) has no TF32 hardware.
    for column in PRECISION_COLUMNS.values():
        assert getattr(by_id["mi325x"], column) == getattr(by_id["mi300x"], column)
    assert by_id["mi355x"].architecture == "CDNA 4" and by_id["mi355x"].tf32_tensor_tflops is None
    assert by_id["mi355x"].fp16_tensor_tflops == pytest.approx(256 * 4096 * 2.4e9 / 1e12, abs=0.1)
    # MI350X: the MI355X die at 2200 MHz and 1000 W, same memory.
    mi350x, mi355x = by_id["mi350x"], by_id["mi355x"]
    assert mi350x.fp16_tensor_tflops == pytest.approx(256 * 4096 * 2.2e9 / 1e12, abs=0.1)
    assert mi350x.fp8_tensor_tflops == pytest.approx(2 * 256 * 4096 * 2.2e9 / 1e12, abs=0.1)
    assert (mi350x.sm_count, mi350x.memory_gb) == (mi355x.sm_count, mi355x.memory_gb)
    assert mi350x.tf32_tensor_tflops is None
    # The three RTX PRO 6000 Blackwell editions: one GB202 configuration, three boards.
    workstation = by_id["rtx-pro-6000-blackwell"]
    server = by_id["rtx-pro-6000-blackwell-server"]
    max_q = by_id["rtx-pro-6000-blackwell-max-q"]
    assert workstation.sm_count == server.sm_count == max_q.sm_count == 188
    assert server.fp16_tensor_tflops == workstation.fp16_tensor_tflops
    assert max_q.fp16_tensor_tflops == pytest.approx(188 * 1024 * 2280e6 / 1e12, abs=0.1)
    assert (workstation.tdp_w, workstation.memory_bandwidth_gbs) == (600, 1792)


@pytest.mark.parametrize("gpu_id", sorted(NEW_GPUS))
def test_new_gpus_get_a_prediction_at_fp16_and_fp8(model, catalog, gpu_id):
    gpu = catalog.by_id[gpu_id]
    for task in TASK_FAMILIES:
        fp16 = model.predict(gpu, task, "fp16")
        assert fp16 is not None and fp16.relative_throughput > 0
        assert fp16.basis == "calibrated-model"
        fp8 = model.predict(gpu, task, "fp8")
        assert (fp8 is not None) == NEW_GPUS[gpu_id][4]
        if fp8 is not None:
            assert fp8.relative_throughput > fp16.relative_throughput
    full = predict_full(get_model(), gpu_id, "nlp", "fp8", count=8)
    assert full["relative_throughput"] > full["single_gpu_relative_throughput"] > 0


def test_unsupported_precisions_are_none_not_errors(model, catalog):
    for task in TASK_FAMILIES:
        assert model.predict(catalog.by_id["mi355x"], task, "tf32") is None
        assert model.predict(catalog.by_id["mi355x"], task, "fp32") is not None


def test_new_architectures_are_extrapolated_with_a_wider_interval(model, catalog):
    cdna4 = model.predict(catalog.by_id["mi355x"], "nlp", "fp16")
    cdna3 = model.predict(catalog.by_id["mi325x"], "nlp", "fp16")
    assert cdna4 is not None and cdna3 is not None
    assert any("CDNA 4 is not in the calibration data" in c for c in cdna4.caveats)

    def width(p):
        return p.interval[1] / p.interval[0]

    assert width(cdna4) == pytest.approx(width(cdna3))  # same prior as CDNA 3


@pytest.mark.parametrize(
    ("spelling", "gpu_id"),
    [
        ("B300", "b300"),
        ("NVIDIA B300 SXM", "b300"),
        ("HGX B300", "b300"),
        ("B300 288GB", "b300"),
        ("GB200", "gb200"),
        ("GB200 NVL72", "gb200"),
        ("NVIDIA GB300", "gb300"),
        ("MI325X", "mi325x"),
        ("AMD Instinct MI325X 256GB", "mi325x"),
        ("Instinct MI355X", "mi355x"),
        ("MI355", "mi355x"),
        ("MI350X", "mi350x"),
        ("AMD Instinct MI350X", "mi350x"),
        ("RTX PRO 6000 Blackwell Server Edition", "rtx-pro-6000-blackwell-server"),
        ("RTX PRO 6000 Server", "rtx-pro-6000-blackwell-server"),
        ("RTXPRO6000BSE", "rtx-pro-6000-blackwell-server"),
        ("NC 320 lds xl RTX PRO 6000 BSE v6", "rtx-pro-6000-blackwell-server"),
        ("RTX PRO 6000 Max-Q", "rtx-pro-6000-blackwell-max-q"),
        ("rtx pro 6000 maxq", "rtx-pro-6000-blackwell-max-q"),
        ("RTX PRO 6000", "rtx-pro-6000-blackwell"),
        ("RTXPRO6000WS", "rtx-pro-6000-blackwell"),
        ("RTX PRO 6000 Blackwell Workstation Edition", "rtx-pro-6000-blackwell"),
    ],
)
def test_common_spellings_resolve(spelling, gpu_id):
    assert resolve_alias(spelling) == gpu_id


@pytest.mark.parametrize("spelling", ["Blackwell Ultra", "RTX PRO 6000D", "MI350", "B300 PCIe"])
def test_other_cards_do_not_resolve(spelling):
    assert resolve_alias(spelling) is None


def test_a_superchip_listing_counts_its_two_gpus():
    title = match_title("NVIDIA GB200 Grace Blackwell Superchip")
    assert (title.gpu_id, title.quantity) == ("gb200", 2)
    assert match_title("NVIDIA B300 SXM").quantity == 1


def test_the_fp16_accumulate_column_is_twice_the_tensor_rate_only_on_half_rate_cards(catalog):
    """GeForce Turing-Blackwell (TITANs aside), the L40 and the Ada workstation cards run
    FP32 accumulate at half their FP16-accumulate rate; every other tensor-core card at
    full rate; cards without tensor or matrix cores have no such rate (gpu_catalog.md)."""
    half_rate = {
        gpu.id
        for gpu in catalog.gpus
        if gpu.id == "l40"
        or (gpu.segment == "workstation" and gpu.architecture == "Ada Lovelace")
        or (
            gpu.geforce_eula
            and gpu.has_tensor_cores
            and "TITAN" not in gpu.name.upper()
            and gpu.architecture in {"Turing", "Ampere", "Ada Lovelace", "Blackwell"}
        )
    }
    assert {"rtx-3090", "rtx-5090", "rtx-6000-ada", "l40"} <= half_rate
    for gpu in catalog.gpus:
        if not gpu.has_tensor_cores:
            assert gpu.fp16_accumulate_tflops is None, gpu.id
            continue
        assert gpu.fp16_tensor_tflops is not None and gpu.fp16_accumulate_tflops is not None
        factor = 2 if gpu.id in half_rate else 1
        assert gpu.fp16_accumulate_tflops == pytest.approx(factor * gpu.fp16_tensor_tflops), gpu.id
        assert gpu.half_rate_fp32_accumulate == (gpu.id in half_rate), gpu.id
