from __future__ import annotations

from shared.perfmodel.evaluation import all_logo_points, all_summaries
from shared.perfmodel.report import meets_targets


def test_logo_beats_or_matches_bandwidth_baseline():
    summaries = all_summaries(all_logo_points())
    assert len(summaries) == 4
    for s in summaries:
        assert s.count >= 12
        # The numbers in docs/model/report.md, with a little slack.
        assert s.median <= 0.11
        assert s.p90 <= 0.35
        assert s.spearman >= 0.85
        assert s.median <= s.baseline_median * 1.1
        assert isinstance(meets_targets(s), list)
    nlp = [s for s in summaries if s.family == "nlp"]
    assert all(s.median <= 0.5 * s.baseline_median for s in nlp)
