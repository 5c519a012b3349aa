"""A one-round run of the CLI start bench, so the bench cannot rot (no timings)."""

from __future__ import annotations

import sys

import pytest

from bench.cli_start import PREPARED, UNCHECKED, Samples, commands, main, run_once


def test_one_round_times_every_command_against_python(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--runs", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("1 runs each")
    measured = {label: line for line in lines[1:] for label in commands() if line.startswith(label)}
    assert list(measured) == list(commands())
    assert measured["python -c pass"].endswith(" 1.0x")
    assert all(line.count(" ms") == 3 and line.endswith("x") for line in measured.values())


def test_a_failing_command_stops_the_bench() -> None:
    with pytest.raises(SystemExit, match="exited 3"):
        run_once([sys.executable, "-c", "raise SystemExit(3)"], {}, Samples())


def test_database_round_times_recommend_with_and_without_the_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["--runs", "1", "--database"])
    out = capsys.readouterr().out
    assert f"{PREPARED} " in out and f"{UNCHECKED} " in out
