"""The level fit's splits: a held-out unit never informs its own level."""

from __future__ import annotations

import math

import pytest

from shared.perfmodel.lab import units_fit as uf


def _row(table: str, gpu: str, level: float, source: str = "src") -> uf.LevelRow:
    return uf.LevelRow(
        key="decode@vllm",
        product_class="llm-serving",
        table=table,
        source=source,
        gpu_id=gpu,
        chip="geforce",
        measured=level * 100.0,
        model=100.0,
        ratio_half_width=0.1,
        detail="",
    )


def test_leave_one_table_out_scores_each_table_with_the_others_level() -> None:
    rows = [_row("a", "x", 1.0), _row("a", "y", 1.0), _row("b", "x", 2.0), _row("c", "z", 2.0)]
    scored = [s for s in uf.evaluate(rows) if s.split == uf.LOTO]
    by_table = {s.row.table: s for s in scored}
    # Table a's rows see b and c (both at 2): off by half.
    assert math.exp(by_table["a"].log_error) == pytest.approx(0.5)
    assert not by_table["a"].covered
    # b sees a (1) and c (2): the median of the two tables' levels, sqrt 2 in log.
    assert math.exp(by_table["b"].log_error) == pytest.approx(2.0 / math.exp(math.log(2) / 2))


def test_held_out_sources_are_scored_but_never_fitted() -> None:
    rows = [_row("a", "x", 1.0), _row("b", "y", 1.2), _row(uf.KATHERYNE, "z", 50.0, uf.KATHERYNE)]
    levels = uf.fitted_levels(rows)
    assert levels["decode@vllm"].scale == pytest.approx(math.exp((math.log(1.2)) / 2))
    [held] = [s for s in uf.evaluate(rows) if s.split == uf.HELD_OUT]
    assert held.row.source == uf.KATHERYNE and not held.covered


def test_the_bundled_rows_cover_every_served_level_and_both_held_out_sources() -> None:
    rows = uf.all_rows()
    assert {r.source for r in rows if r.held_out} >= {uf.KATHERYNE, uf.LHL}
    keys = {r.key for r in rows}
    assert {"decode@llama.cpp", "decode@vllm", "decode@trt-llm", "prefill@llama.cpp"} <= keys
    assert all(r.measured > 0 and r.model > 0 for r in rows)
