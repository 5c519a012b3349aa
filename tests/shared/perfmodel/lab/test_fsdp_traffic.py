from __future__ import annotations

import math

import pytest

from shared.perfmodel.benchmark_sources.answerai import (
    CONTEXT,
    SAMPLES,
    cross_hardware_builds,
    load_answerai,
)
from shared.perfmodel.lab import fsdp_traffic as ft


def test_builds_carry_the_batch_their_setting_names():
    builds = {(b.gpu_id, b.gpus): b for b in cross_hardware_builds()}
    h100 = builds[("h100-sxm5", 4)]
    assert (h100.batch, h100.cpu_offload) == (8, False)
    assert h100.steps == SAMPLES / 32
    assert builds[("rtx-a5000", 2)].cpu_offload


def test_traffic_is_two_gathers_of_the_other_shards_over_the_link():
    builds = {(t.build.gpu_id, t.build.gpus): t for t in ft.build_traffic(lambda gpu: 10.0)}
    four = builds[("rtx-a5000", 4)]
    assert four.traffic_s is not None
    weights = 70e9 * ft.WEIGHT_BITS / 8
    assert four.traffic_s == pytest.approx(2 * 3 / 4 * weights / 10e9)
    # 4,829 s for 256 steps of one 2,048-token sample per GPU.
    assert four.step_s == pytest.approx(4829 / 256)
    assert four.achieved_tflops == pytest.approx(CONTEXT * 6 * 70e9 / four.step_s / 1e12)
    assert four.compute_only_time_s == pytest.approx(4829 - 256 * four.traffic_s)
    offload = builds[("rtx-a5000", 2)]
    assert offload.traffic_s is None and offload.compute_only_time_s == offload.build.time_s


def test_a_predictor_of_the_measured_times_has_no_error_only_against_them():
    runs = load_answerai()
    throughput = {(r.gpu_id, r.gpus): r.value for r in runs}
    traffic = ft.build_traffic(lambda gpu: 20.0)
    checks = ft.pair_checks(runs, lambda r: throughput[(r.gpu_id, r.gpus)], traffic)
    # Every same-count pair of the nine builds: 3 at 2 GPUs, 6 at 4, 1 at 8.
    assert len(checks) == 10
    measured, compute_only = ft.median_errors(checks)
    assert measured == pytest.approx(0.0, abs=1e-12)
    assert compute_only > 0.05
    assert all(math.isclose(c.measured, c.predicted) for c in checks)


def test_a_link_too_slow_for_the_measured_step_is_refused():
    slow = {(t.build.gpu_id, t.build.gpus): t for t in ft.build_traffic(lambda gpu: 1.0)}
    with pytest.raises(ValueError, match="traffic exceeds the step"):
        _ = slow[("a100-40gb-sxm4", 2)].compute_only_time_s
