"""The tco and quotes commands: unknown values exit 2 naming the valid ones."""

from __future__ import annotations

from typer.testing import CliRunner

from services.cli.quotes import app as quotes_app
from services.cli.tco import app as tco_app

runner = CliRunner()


def test_tco_unknown_pricing_exits_2_with_the_valid_values() -> None:
    result = runner.invoke(tco_app, ["--gpu", "rtx-3090", "--pricing", "reserved"])
    assert result.exit_code == 2
    assert "pricing" in result.output and "on-demand, spot" in result.output


def test_tco_unknown_gpu_exits_2() -> None:
    result = runner.invoke(tco_app, ["--gpu", "rtx-9999"])
    assert result.exit_code == 2 and "gpu: unknown GPU" in result.output


def test_quotes_unknown_deployment_exits_2() -> None:
    result = runner.invoke(
        quotes_app, ["cluster", "--gpu", "rtx-3090", "--count", "4", "--deployment", "moon"]
    )
    assert result.exit_code == 2
    assert "deployment" in result.output and "workstation, datacenter" in result.output
