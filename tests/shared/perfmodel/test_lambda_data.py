from __future__ import annotations

import pytest

from shared.perfmodel.lambda_data import (
    GEN_2022,
    GEN_V1,
    GPU_NAME_MAP,
    UnmappedGpuNameError,
    _read_csv,
    load_runs,
    map_gpu_name,
    ratio_points,
)


def test_every_data_name_is_mapped_explicitly(catalog):
    names = {row["name_gpu"] for row in _read_csv("pytorch-train-throughput-fp16.csv")}
    names |= {row["gpu"] for row in _read_csv("lambda_2022_seed_tables.csv")}
    for name in names:
        gpu_id = map_gpu_name(name)
        assert gpu_id is None or gpu_id in catalog.by_id
    assert all(v is None or v in catalog.by_id for v in GPU_NAME_MAP.values())


def test_unknown_names_are_refused():
    with pytest.raises(UnmappedGpuNameError):
        map_gpu_name("RTX 9999 Super")


def test_multi_gpu_and_build_names_map():
    assert map_gpu_name("LambdaCloud 4xV100 16GB") == "v100-16gb-sxm2"
    assert map_gpu_name("Dell 8x H100 80GB SXM5") == "h100-sxm5"
    assert map_gpu_name("RTX 3080 Max-Q") is None


def test_zero_cells_are_skipped_and_builds_merged():
    runs = load_runs()
    assert all(r.throughput > 0 for r in runs)
    keys = [(r.gpu_id, r.workload, r.precision, r.generation, r.num_gpu) for r in runs]
    assert len(keys) == len(set(keys))
    assert not any(r.workload == "ncf" for r in runs)


def test_ratios_stay_within_a_generation():
    points = {(p.gpu_id, p.workload, p.precision, p.generation): p.ratio for p in ratio_points()}
    # Lambda v1: RTX 4090 resnet50 fp16 1301 / RTX 3090 905.
    assert points[("rtx-4090", "resnet50", "fp16", GEN_V1)] == pytest.approx(1301 / 905)
    # 2022 table: Titan RTX ResNet50 fp16 644 / RTX 3090 801.
    assert points[("titan-rtx", "resnet50", "fp16", GEN_2022)] == pytest.approx(644 / 801)
