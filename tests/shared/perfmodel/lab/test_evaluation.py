from __future__ import annotations

import pytest

from shared.perfmodel.lab.evaluation import CvPoint, all_logo_points, all_summaries
from shared.perfmodel.lab.report import meets_targets


@pytest.fixture(scope="module")
def points() -> list[CvPoint]:
    return all_logo_points()


def test_logo_beats_or_matches_bandwidth_baseline(points):
    summaries = all_summaries(points)
    assert len(summaries) == 4
    for s in summaries:
        assert s.count >= 12
        # The numbers in docs/model/report.md (medians 2.7-6.4 %, p90 10-30 %), with slack.
        assert s.median <= 0.095
        assert s.p90 <= 0.31
        assert s.spearman >= 0.9
        # Every row meets the half-baseline target (cv since 2026.11.3).
        assert s.median <= s.baseline_median * 0.5
        assert meets_targets(s) == []
    cv = [s for s in summaries if s.family == "cv"]
    # cv p90 14.0 % since 2026.12.10 (11.7 % before): the Ada workstation cards' half-rate
    # tensor figures leave the two Ada cards 10 % low when either is held out (method.md).
    assert all(s.median <= 0.045 and s.p90 <= 0.15 for s in cv)


def test_sibling_correction_never_uses_the_held_out_gpu(points):
    # The Ada cards have no measured sibling of their own segment once held out, so
    # their held-out prediction is the bare model; Titan RTX and RTX 2080 Ti
    # (Turing consumer) correct each other.
    for p in points:
        if p.gpu_id in ("rtx-4090", "rtx-6000-ada", "rtx-a6000", "quadro-rtx-8000"):
            assert p.predicted == pytest.approx(p.uncorrected)
    titan = [p for p in points if p.gpu_id == "titan-rtx"]
    assert titan and all(p.predicted != pytest.approx(p.uncorrected) for p in titan)
