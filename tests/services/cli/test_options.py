"""CLI options come from the domain request schemas: same names, defaults and checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

from services.cli.quotes import app as quotes_app
from services.cli.tco import app as tco_app
from shared.quotes.schemas import ClusterRequest
from shared.tco.schemas import TcoRequest
from tests.services.cli.helptext import option_help

runner = CliRunner()


def _options(command: Any) -> dict[str, object]:
    """name -> default of a command's options (typer ships its own click)."""
    return {p.name: p.default for p in command.params if p.param_type_name == "option"}


def test_tco_has_one_option_per_request_field_with_its_default() -> None:
    options = _options(typer.main.get_command(tco_app))
    fields = TcoRequest.model_fields
    assert set(options) - {"series", "install_completion", "show_completion"} == set(fields)
    assert options["count"] == fields["count"].default == 1
    assert options["deployment"] == "auto"


def test_cluster_has_one_option_per_request_field_but_additional_gpus() -> None:
    group: Any = typer.main.get_command(quotes_app)
    options = _options(group.commands["cluster"].loaded)  # loaded when invoked
    assert set(options) == set(ClusterRequest.model_fields) - {"additional_gpus"}
    assert options["deployment"] == "auto" and options["allow_geforce"] is False


def test_the_schema_bounds_apply_to_the_cli() -> None:
    result = runner.invoke(tco_app, ["--gpu", "rtx-3090", "--utilization", "2"])
    assert result.exit_code == 2 and "utilization:" in result.output


def test_compare_file_errors_name_the_field_and_its_values(tmp_path: Path) -> None:
    body = tmp_path / "compare.json"
    body.write_text('{"candidates": [{"gpu": "rtx-3090", "acquisition": "lease"}]}')
    result = runner.invoke(quotes_app, ["compare", str(body)])
    assert result.exit_code == 2
    assert "candidates.0.acquisition: unknown value 'lease'" in result.output
    assert "buy, rent" in result.output


def test_help_names_the_choices_and_bounds_not_a_type() -> None:
    result = runner.invoke(tco_app, ["--help"], env={"COLUMNS": "120"})
    options = option_help(result.output)
    assert "<pricing>" in options["--pricing"] and "on-demand | spot" in options["--pricing"]
    assert "<str>" not in options["--pricing"]
    assert "(1<=x<=512)" in options["--count"] and "[default: 1]" in options["--count"]
    assert "<decimal>" in options["--purchase-usd"]
    assert "(0<=x<=100000000)" in options["--purchase-usd"]
    assert "(0<=x<1)" in options["--resale-pct"]
    cluster = runner.invoke(quotes_app, ["cluster", "--help"], env={"COLUMNS": "120"})
    assert "(0<x<=1000000000)" in option_help(cluster.output)["--budget-usd"]
