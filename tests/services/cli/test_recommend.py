"""`gpu-advisor recommend`: GET /recommend's parameters as options, its body with --json,
a table otherwise; bad input exits 2 naming the field (both backends)."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any, get_args

import pytest
import typer
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from services.api.app import create_app
from services.api.recommend.router import router as recommend_router
from services.cli.main import app
from shared.builds.schemas import Task
from shared.kit.settings import get_settings
from shared.recommend.request import RecommendRequest
from tests.services.cli.helptext import option_help

runner = CliRunner()
# (CLI options, the same query as GET /recommend's parameters)
QUERIES = [
    (["--task", "cv", "--memory-gb", "24"], {"task": "cv", "memory_gb": "24"}),
    (
        ["--task", "llm-inference", "--condition", "cloud", "--model", "llama-3-70b"]
        + ["--count", "2", "--limit", "3", "--datacenter"],
        {
            "task": "llm-inference",
            "condition": "cloud",
            "model": "llama-3-70b",
            "count": "2",
            "limit": "3",
            "datacenter": "true",
        },
    ),
    # Nothing left: the body says why.
    (["--task", "nlp", "--budget-usd", "1"], {"task": "nlp", "budget_usd": "1"}),
    # The other parameters, each away from its default.
    (
        ["--task", "llm-training", "--params-b", "47", "--active-params-b", "13"]
        + ["--mode", "lora", "--weights", "int4", "--context", "8192", "--batch", "2"]
        + ["--kv-heads", "8", "--precision", "bf16", "--count", "8", "--sort", "performance"]
        + ["--deployment", "datacenter", "--network", "ethernet", "--condition", "new"]
        + ["--pricing", "spot"],
        {
            "task": "llm-training",
            "params_b": "47",
            "active_params_b": "13",
            "mode": "lora",
            "weights": "int4",
            "context": "8192",
            "batch": "2",
            "kv_heads": "8",
            "precision": "bf16",
            "count": "8",
            "sort": "performance",
            "deployment": "datacenter",
            "network": "ethernet",
            "condition": "new",
            "pricing": "spot",
        },
    ),
    (
        ["--task", "cv", "--phase", "inference", "--budget-usd", "3000", "--limit", "4"],
        {"task": "cv", "phase": "inference", "budget_usd": "3000", "limit": "4"},
    ),
    # As of a past date: the prices observed by then, aged as of that day.
    (
        ["--task", "cv", "--memory-gb", "24", "--as-of", "2026-09-30"],
        {"task": "cv", "memory_gb": "24", "as_of": "2026-09-30"},
    ),
]


@pytest.fixture(scope="module")
def api(seeded_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The API on the settings the CLI reads from the same environment (the bundled data;
    nothing written to it)."""
    environment = {
        "GPU_ADVISOR_DATABASE_URL": seeded_url,
        "GPU_ADVISOR_DATA_DIR": str(tmp_path_factory.mktemp("recommend")),
        "GPU_ADVISOR_ENVIRONMENT": "test",
        "GPU_ADVISOR_PREPARE_ON_START": "false",
        "GPU_ADVISOR_INPROCESS_SCHEDULER": "false",
        "GPU_ADVISOR_BROKER_URL": "",
        "GPU_ADVISOR_RATE_LIMIT_PER_MINUTE": "10000",
    }
    with pytest.MonkeyPatch.context() as patch:
        for name, value in environment.items():
            patch.setenv(name, value)
        get_settings.cache_clear()
        with TestClient(create_app(get_settings())) as client:
            yield client
    get_settings.cache_clear()


def cli(*args: str) -> str:
    result = runner.invoke(app, ["recommend", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def rows(table: str) -> dict[str, str]:
    """GPU id -> its row of the table."""
    return {line.split()[1]: line for line in table.splitlines() if line[:1].isdigit()}


@pytest.mark.parametrize(("options", "params"), QUERIES)
def test_json_is_the_api_body_for_the_same_database(
    api: TestClient, options: list[str], params: dict[str, str]
) -> None:
    # Price ages are counted to the moment: a body before and one after the CLI's that are
    # equal leave the CLI's no other value to have. A rounding that ticks between is retried.
    for _ in range(3):
        before = api.get("/recommend", params=params)
        printed = cli(*options, "--json")
        after = api.get("/recommend", params=params)
        assert before.status_code == 200, before.text
        if before.text == after.text:
            break
    assert printed == before.text + "\n"
    assert before.text == after.text


def test_the_table_shows_each_gpu_its_value_interval_price_and_caveats(api: TestClient) -> None:
    body = api.get("/recommend", params={"task": "cv", "memory_gb": 24, "limit": 5}).json()
    assert len(body["results"]) == 5
    table = cli("--task", "cv", "--memory-gb", "24", "--limit", "5")
    assert "at least 24 GB per GPU (requested)" in table and body["sorted_by"] in table
    ranked = rows(table)
    assert list(ranked) == [r["gpu"]["id"] for r in body["results"]]
    for result in body["results"]:
        row, price = ranked[result["gpu"]["id"]], result["price"]
        low, high = result["perf_per_1000_usd_interval"]
        assert f"{result['perf_per_1000_usd']:.3g}" in row and f"{low:.3g}-{high:.3g}" in row
        assert f"${Decimal(price['usd']):,.2f} {price['condition']}" in row
        assert price["measure_description"] in row and price["observed_at"][:10] in row
        assert f"price: {price['basis']}" in table
        for caveat in result["caveats"]:
            assert f"caveat: {caveat}" in table
    assert any(r["caveats"] for r in body["results"]), "the table must show some caveat"


def test_rentals_are_priced_per_gpu_hour(api: TestClient) -> None:
    params = {"task": "llm-inference", "condition": "cloud", "pricing": "spot", "limit": "3"}
    body = api.get("/recommend", params=params).json()
    table = cli(*(f"--{name}={value}" for name, value in params.items()))
    assert "cloud spot, per GPU-hour" in table
    ranked = rows(table)
    assert list(ranked) == [r["gpu"]["id"] for r in body["results"]] and ranked
    for result in body["results"]:
        row = ranked[result["gpu"]["id"]]
        # The hourly price (the cost per unit beside it is in dollars too).
        [price] = [w for w in row.split() if w.startswith("$") and w.endswith("/GPU-h")]
        assert "/GPU-h spot" in row
        assert Decimal(price[1:].removesuffix("/GPU-h")) == Decimal(result["price"]["usd"])


def test_an_empty_answer_says_why(api: TestClient) -> None:
    body = api.get("/recommend", params={"task": "nlp", "budget_usd": 1}).json()
    table = cli("--task", "nlp", "--budget-usd", "1")
    assert body["results"] == [] and body["empty"]["message"] in table
    assert all(f"try: {s}" in table for s in body["empty"]["suggestions"])


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--task", "vision"], ["task: unknown value 'vision'", "cv, nlp, llm-inference"]),
        (["--task", "cv", "--condition", "rent"], ["condition:", "new, used, any, cloud"]),
        (["--task", "cv", "--memory-gb", "4096"], ["memory_gb:", "2048"]),
        # Checks between parameters are the router's own.
        (["--task", "cv", "--kv-heads", "8"], ["kv_heads: only with params_b or model"]),
        (["--task", "nlp", "--phase", "inference"], ["phase:", "training"]),
        (["--task", "llm-inference", "--model", "gpt-9"], ["model:", "llama-3-70b"]),
    ],
)
@pytest.mark.usefixtures("api")  # the router's checks run in the CLI's database context
def test_bad_input_exits_2_naming_the_field(options: list[str], says: list[str]) -> None:
    result = runner.invoke(app, ["recommend", *options])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert all(text in result.stderr for text in says), result.stderr


def test_a_missing_task_is_a_usage_error() -> None:
    # typer's own check: a required option, before any schema.
    result = runner.invoke(app, ["recommend", "--memory-gb", "24"])
    assert result.exit_code == 2 and "--task" in result.output


def test_help_lists_the_choices_not_a_type() -> None:
    # Wide enough that rich wraps the help rather than cropping a long choice.
    result = runner.invoke(app, ["recommend", "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    options = option_help(result.output)
    assert "<task>" in options["--task"]
    assert " | ".join(get_args(Task)) in options["--task"]
    assert "<condition>" in options["--condition"]
    assert "new | used | any | cloud" in options["--condition"]
    assert "<pricing>" in options["--pricing"] and "on-demand | spot" in options["--pricing"]
    assert "perf_per_dollar | perf_per_dollar_expected | performance" in options["--sort"]
    assert "(0<x<=2048)" in options["--memory-gb"] and "(x>0)" in options["--budget-usd"]
    assert "<str>" not in "".join(options[o] for o in ("--task", "--condition", "--sort"))
    assert "--json" in options


def test_the_options_and_the_route_are_built_from_one_schema() -> None:
    """GET /recommend's query model is the schema the command's options come from: one
    field, one option (the bodies above check that both answer alike)."""
    [route] = [r for r in recommend_router.routes if isinstance(r, APIRoute)]
    assert route.path == "/recommend"
    [query] = route.dependant.query_params
    assert query.field_info.annotation is RecommendRequest
    group: Any = typer.main.get_command(app)
    options = {p.name for p in group.commands["recommend"].loaded.params}
    assert options - {"as_json", "help"} == set(RecommendRequest.model_fields)


def test_a_fresh_database_is_prepared_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a fresh checkout the first command meets an empty SQLite file: like `serve`, it
    migrates, loads the bundled data and scores before answering (it used to end in
    "no such table: score_state")."""
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", "")
    monkeypatch.setenv("GPU_ADVISOR_ENVIRONMENT", "test")
    monkeypatch.setenv("GPU_ADVISOR_INPROCESS_SCHEDULER", "false")
    monkeypatch.setenv("GPU_ADVISOR_BROKER_URL", "")
    monkeypatch.delenv("GPU_ADVISOR_PREPARE_ON_START", raising=False)
    get_settings.cache_clear()
    try:
        table = cli("--task", "cv", "--limit", "3")
    finally:
        get_settings.cache_clear()
    assert len(rows(table)) == 3
