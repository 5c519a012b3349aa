"""The `gpu-advisor` app starts without the database layer or the scraper, and lists
every command, those loaded when invoked included."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import typer
from typer.testing import CliRunner

from services.cli.lazy import LazyCommand
from services.cli.main import LAZY, ORDER, app
from tests.processes import ROOT

# What the commands that need no database must not pay for at start.
HEAVY = ("sqlalchemy", "alembic", "sqlmodel", "fastapi", "shared.models", "services.scraper")


def loaded_modules(code: str) -> set[str]:
    """The modules a fresh interpreter has imported after running `code`."""
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print('\\n'.join(sys.modules))"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return set(done.stdout.split())


def heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY)}


def test_importing_the_cli_imports_no_database_layer_and_no_scraper() -> None:
    modules = loaded_modules("import services.cli.main")
    assert "services.cli.main" in modules
    assert heavy(modules) == set()


def test_help_builds_every_command_without_loading_them() -> None:
    code = (
        "from typer.testing import CliRunner\n"
        "from services.cli.main import app\n"
        "assert CliRunner().invoke(app, ['--help']).exit_code == 0\n"
        "assert CliRunner().invoke(app, ['parse-page', '--help']).exit_code == 0\n"
    )
    modules = loaded_modules(code)
    assert heavy(modules) == set()
    # No request schema is built for the list: the lazy commands stay unloaded. The
    # sources' specs name parse-page's sources.
    shared = {m for m in modules if m.startswith("shared.")}
    assert shared == {"shared.sources", "shared.sources.specs"}
    assert not {m for m in modules if m.startswith("services.cli.tco")}


def help_code(commands: tuple[list[str], ...]) -> str:
    """Code that shows each command's --help, in one process."""
    invoke = "assert CliRunner().invoke(app, {!r}).exit_code == 0\n"
    return "from typer.testing import CliRunner\nfrom services.cli.main import app\n" + "".join(
        invoke.format([*command, "--help"]) for command in commands
    )


# Commands whose options come from no request schema, and groups that list commands.
NO_SCHEMA = (
    ["parse-page"], ["match-titles"], ["scrape"], ["serve"], ["recompute"], ["db"],
    ["db", "seed"], ["api-keys"], ["api-keys", "create"], ["prices"], ["prices", "add"],
    ["quotes"], ["quotes", "compare"], ["quotes", "list"], ["quotes", "recompute-standard"],
    ["model"], ["model", "report"],
)  # fmt: skip
# With a schema that needs no database layer; not `quotes cluster` and `prices check`,
# whose schemas' modules (shared/) import it.
LIGHT_SCHEMA = (["recommend"], ["tco"], ["model", "predict"])


def test_help_without_a_schema_imports_no_pydantic() -> None:
    """typer coerces each parameter it processes through a pydantic TypeAdapter; the
    groups let their flags through as they are (lazy.plain_flags) and the options'
    helpers import pydantic only to read a schema."""
    modules = loaded_modules(help_code(NO_SCHEMA))
    assert not {m for m in modules if m.split(".")[0] == "pydantic"}


def test_help_imports_no_database_layer_and_no_scraper() -> None:
    assert heavy(loaded_modules(help_code(NO_SCHEMA + LIGHT_SCHEMA))) == set()


def test_the_command_list_is_every_command_in_order() -> None:
    group: Any = typer.main.get_command(app)
    assert list(group.commands) == list(ORDER)
    help_text = " ".join(CliRunner().invoke(app, ["--help"]).output.split())
    assert all(name in help_text for name in ORDER)


def lazy_commands(group: Any) -> Iterator[LazyCommand]:
    """Every lazy command below `group`, nested groups' included."""
    for command in group.commands.values():
        if isinstance(command, LazyCommand):
            yield command
        loaded = getattr(command, "loaded", command)
        if hasattr(loaded, "commands"):
            yield from lazy_commands(loaded)


def test_each_lazy_command_is_listed_with_the_help_it_loads_with() -> None:
    group: Any = typer.main.get_command(app)
    assert {c.name for c in lazy_commands(group)} >= set(LAZY) | {"check", "cluster", "predict"}
    for command in lazy_commands(group):
        first_paragraph = " ".join(command.loaded.help.split("\n\n")[0].split())
        assert first_paragraph == command.lazy.help, command.name
        assert command.loaded.name == command.name


def test_a_lazy_group_runs_its_subcommands_and_their_help() -> None:
    listed = CliRunner().invoke(app, ["tco", "--help"])
    assert listed.exit_code == 0 and "--cloud-gpu" in listed.output
    wrong = CliRunner().invoke(app, ["quotes", "cluster", "--gpu", "rtx-3090", "--task", "x"])
    assert wrong.exit_code == 2 and "task: unknown value 'x'" in wrong.output
    typo = CliRunner().invoke(app, ["qoutes"])
    assert typo.exit_code == 2 and "quotes" in typo.output


def test_model_predict_help_loads_no_performance_model_code() -> None:
    """Its options come from PredictRequest alone (shared/builds/predict_request.py); the
    model is loaded when a prediction runs."""
    modules = loaded_modules(help_code((["model", "predict"],)))
    assert "shared.builds.predict_request" in modules
    assert not {m for m in modules if m.startswith(("shared.perfmodel", "shared.builds.predict."))}
    assert "shared.builds.predict" not in modules
