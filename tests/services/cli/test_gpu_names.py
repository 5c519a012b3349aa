"""Every CLI option that takes a GPU takes an id, a catalog name or a known alias,
exactly: free text exits 2 naming the option's field and the closest ids, before any
database is opened."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli.main import app
from shared.kit.db import make_engine, migrate, session_scope
from shared.kit.settings import get_settings
from shared.seed import seed_catalog
from tests.conftest import new_database

runner = CliRunner()

LOOSE = "not a 4090"  # the listing-title matcher reads an RTX 4090 here


@pytest.mark.parametrize(
    "args",
    [
        ["tco", "--gpu", LOOSE],
        ["tco", "--gpu", "rtx-4090", "--cloud-gpu", LOOSE],
        ["quotes", "cluster", "--gpu", LOOSE, "--count", "2"],
        ["quotes", "recompute-standard", "--gpu", LOOSE],
        ["model", "predict", "--gpu", LOOSE, "--task", "cv", "--precision", "fp16"],
        ["prices", "add", "--gpu", LOOSE, "--usd", "1", "--condition", "used", "--source", "x"],
        ["recompute", "--gpu", LOOSE],
    ],
)
def test_free_text_exits_2_with_the_closest_ids(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    field = "cloud_gpu" if "--cloud-gpu" in args else "gpu"
    assert f"error: {field}: unknown GPU {LOOSE!r}; did you mean rtx-4090" in result.output
    # The suggestions are said once, not again as "valid values".
    assert "valid values" not in result.output


def test_compare_file_with_free_text_names_the_candidate_field(tmp_path: Path) -> None:
    body = tmp_path / "compare.json"
    body.write_text(json.dumps({"candidates": [{"gpu": LOOSE}]}), "utf-8")
    result = runner.invoke(app, ["quotes", "compare", str(body)])
    assert result.exit_code == 2
    assert f"candidates.gpu: unknown GPU {LOOSE!r}; did you mean rtx-4090" in result.output


def test_model_predict_takes_a_known_alias() -> None:
    args = ["model", "predict", "--gpu", "4090", "--task", "cv", "--precision", "fp16", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["relative_throughput"] > 1


@pytest.fixture
def catalog_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The CLI's environment on a fresh database holding only the catalog."""
    url, _ = new_database("sqlite", tmp_path)
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
    engine.dispose()
    env = {
        "GPU_ADVISOR_DATABASE_URL": url,
        "GPU_ADVISOR_DATA_DIR": str(tmp_path),
        "GPU_ADVISOR_BROKER_URL": "",
        "GPU_ADVISOR_LOAD_BUNDLED_DATA": "false",
        "GPU_ADVISOR_INPROCESS_SCHEDULER": "false",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()


def test_prices_add_takes_a_known_alias_like_post_prices(catalog_db: str) -> None:
    args = ["prices", "add", "--gpu", "RTX 4090", "--usd", "1500", "--condition", "used"]
    result = runner.invoke(app, [*args, "--source", "Acme quote 7"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["gpu_id"] == "rtx-4090"
