"""Which precision the bundled MLPerf rows state, against the one the class model assumes.

The model times a training row's matrix multiplies at FP8 where the hardware has it for
transformer benchmarks, 16 bits for CNNs (class_rows.training_precision), and never
assumes FP4. These tests pin what the bundled sources say, so that a data update stating
another precision (FP4 on Blackwell, say) fails here and is taken into the model rather
than left out (docs/model/classes.md, fifth round)."""

from __future__ import annotations

import re

from shared.catalog.specs import load_catalog
from shared.perfmodel.benchmark_sources.gpu_names import map_gpu_name
from shared.perfmodel.benchmark_sources.measurement import read_rows
from shared.perfmodel.benchmark_sources.mlperf_training import TRAINING_BENCHMARK_CLASS
from shared.perfmodel.class_rows import training_precision

_PRECISION = re.compile(r"\b(?:NV|MX)?(FP4|FP6|FP8|BF16|FP16|FP32|TF32|INT8|INT4)\b", re.I)
TEXT_COLUMNS = ("hw_notes", "sw_notes", "notes", "framework", "software_stack", "system_name")


def test_mlperf_training_states_fp8_only_where_the_model_already_uses_it():
    catalog = load_catalog()
    stated = []
    for row in read_rows("mlperf-training", "mlperf_training_closed_available.csv"):
        found = {m.group(1).lower() for col in TEXT_COLUMNS for m in _PRECISION.finditer(row[col])}
        if not found:
            continue
        gpu_id, _ = map_gpu_name(row["accelerator_model_name"], catalog)
        stated.append((row["round"], gpu_id, row["benchmark"], found))
        klass = TRAINING_BENCHMARK_CLASS[row["benchmark"]]
        assert gpu_id is not None
        assert found == {"fp8"}
        assert training_precision(klass, catalog.by_id[gpu_id]) == "fp8"
    # AMD's four v5.1 submissions ("FP8 Training" in their software notes); no other row
    # states a precision, none states FP4.
    assert sorted(stated) == [
        ("v5.1", gpu, bench, {"fp8"})
        for gpu in ("mi350x", "mi355x")
        for bench in ("llama2_70b_lora", "llama31_8b")
    ]


def test_mlperf_inference_states_no_precision():
    for name in ("mlperf_inference_v4.0_closed.csv", "mlperf_inference_v5.0_closed_selected.csv"):
        rows = read_rows("mlperf-inference", name)
        assert rows and all(not row["precision"].strip() for row in rows)
