from __future__ import annotations

from shared.catalog.specs import load_catalog
from shared.perfmodel.benchmark_sources.localscore import load_localscore
from shared.perfmodel.benchmark_sources.measurement import LoadResult
from shared.perfmodel.benchmark_sources.trtllm import PREFILL_HEAVY, load_trtllm, read_tables


def _value(result: LoadResult, table_fragment: str, gpu_id: str) -> float:
    (m,) = [x for x in result.measurements if table_fragment in x.table_id and x.gpu_id == gpu_id]
    return m.value


def test_localscore_reads_the_bundled_medians():
    result = load_localscore(load_catalog())
    assert result.rows_read["localscore"] == 124
    assert len(result.measurements) == 93  # two RX 7900 XTX spellings merged per model
    # RTX 3090 on Llama 3.1 8B: median of 5 submissions (3552 .. 3991).
    assert _value(result, "8B", "rtx-3090") == 3641.0
    assert _value(result, "14B", "rtx-a6000") == 1883.0
    # One row per model and GPU.
    keys = [(m.table_id, m.gpu_id) for m in result.measurements]
    assert len(keys) == len(set(keys))


def test_localscore_skips_laptops_and_unknown_cards():
    result = load_localscore(load_catalog())
    details = {s.detail for s in result.skipped}
    assert "NVIDIA GeForce RTX 3060 Laptop GPU" in details
    assert "NVIDIA GeForce RTX 4090 D" in details
    assert all("Laptop" not in m.system for m in result.measurements)


def test_trtllm_parses_every_table_and_keeps_the_prefill_heavy_rows():
    cells = read_tables()
    assert len(cells) == 328
    result = load_trtllm(load_catalog())
    assert len(result.measurements) == 65
    assert {m.workload.split()[-1] for m in result.measurements} == set(PREFILL_HEAVY)
    # Llama 3.3 70B 2048/128, H200 TP1 FP8: 442 output tok/s -> 442 x 2176 / 128 per GPU.
    (h200,) = [
        m
        for m in result.measurements
        if m.table_id.endswith("Llama 3.3 70B 2048/128") and m.gpu_id == "h200-sxm"
    ]
    assert h200.value == 442 * 2176 / 128
    assert h200.precision == "fp8"
    # The RTX PRO 6000 Server columns carry their GPU name from the line above the table.
    pro = [m for m in result.measurements if m.gpu_id == "rtx-pro-6000-blackwell-server"]
    assert {m.gpus_per_system for m in pro} >= {1, 2, 4, 8}
    assert all(m.precision == "fp4" for m in pro)
