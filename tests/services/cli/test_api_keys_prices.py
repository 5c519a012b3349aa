"""`gpu-advisor api-keys create --all-quotes` / `list`, and `prices add` (an operator
quote, no key) saying the reference it was checked against (both backends)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlmodel import select
from typer.testing import CliRunner, Result

from services.cli.main import app
from shared.kit.db import make_engine, migrate, session_scope
from shared.kit.settings import get_settings
from shared.models import PriceObservation
from shared.seed import seed_catalog
from tests.conftest import _drop_postgres_database, new_database

Run = Callable[..., Result]


@pytest.fixture(scope="module")
def cli_db(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url, pg_name = new_database(backend, tmp_path_factory.mktemp("cli-keys"))
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
    engine.dispose()
    yield url
    if pg_name:
        _drop_postgres_database(pg_name)


@pytest.fixture
def run(cli_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Run]:
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", cli_db)
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("GPU_ADVISOR_LOAD_BUNDLED_DATA", "false")
    monkeypatch.setenv("GPU_ADVISOR_INPROCESS_SCHEDULER", "false")
    get_settings.cache_clear()

    def invoke(*args: str) -> Result:
        result = CliRunner().invoke(app, list(args))
        assert result.exit_code == 0, result.output
        return result

    yield invoke
    get_settings.cache_clear()


def test_a_key_may_see_every_quote_and_the_list_says_which(run: Run) -> None:
    operator = json.loads(
        run("api-keys", "create", "--name", "ops", "--all-quotes", "--json").output
    )
    plain = json.loads(run("api-keys", "create", "--name", "buyer", "--json").output)
    assert operator["all_quotes"] is True and plain["all_quotes"] is False
    text = run("api-keys", "create", "--name", "ops2", "--all-quotes").output
    assert "(ops2, write, all quotes)" in text
    rows = {
        line.split("\t")[0]: line.split("\t")
        for line in run("api-keys", "list").output.splitlines()
    }
    assert rows[str(operator["id"])][1:4] == ["ops", "write", "all-quotes"]
    assert rows[str(plain["id"])][1:4] == ["buyer", "write", "own-quotes"]


def test_prices_add_stores_an_operator_quote_and_says_its_reference(run: Run, cli_db: str) -> None:
    base = ["prices", "add", "--condition", "new", "--source", "op quote"]
    held = json.loads(run(*base, "--gpu", "rtx-a6000", "--usd", "99").output)
    assert held["quarantined"] is True and held["quarantine_reason"] == "below_median_factor"
    assert held["reference_usd"] == "4650.00" and held["reference"] == "launch price $4,650"
    unchecked = json.loads(run(*base, "--gpu", "mi300x", "--usd", "99").output)
    # No market, no launch price and no priced peer here: nothing to check it against.
    assert unchecked["quarantined"] is False and unchecked["reference"] is None
    engine = make_engine(cli_db)
    with session_scope(engine) as session:
        stored = session.exec(select(PriceObservation).where(PriceObservation.source == "op quote"))
        assert {(o.gpu_id, o.owner_key_id) for o in stored} == {
            ("rtx-a6000", None),
            ("mi300x", None),
        }
    engine.dispose()
