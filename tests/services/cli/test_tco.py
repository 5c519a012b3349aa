"""`gpu-advisor tco --as-of`: the prices GET /tco uses as of that day, and the same 422's
range as exit 2 (both backends, on the bundled data)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from services.api.app import create_app
from services.cli.main import app
from shared.kit.settings import get_settings

runner = CliRunner()
QUERY = {"gpu": "rtx-3090", "condition": "used", "cloud_gpu": "rtx-4090"}


@pytest.fixture(scope="module")
def api(seeded_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    environment = {
        "GPU_ADVISOR_DATABASE_URL": seeded_url,
        "GPU_ADVISOR_DATA_DIR": str(tmp_path_factory.mktemp("tco")),
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


def _prices(assumptions: list[dict[str, object]]) -> dict[str, str]:
    names = ("gpu_price", "cloud_usd_per_hour")
    return {
        str(a["name"]).split(" ")[0]: str(a["value"])
        for a in assumptions
        if str(a["name"]).split(" ")[0] in names
    }


def test_as_of_prints_the_prices_get_tco_uses_that_day(api: TestClient) -> None:
    day = "2026-06-30"
    answer = api.get("/tco", params={**QUERY, "as_of": day})
    assert answer.status_code == 200, answer.text
    today = api.get("/tco", params=QUERY).json()
    result = runner.invoke(
        app,
        ["tco", "--gpu", "rtx-3090", "--condition", "used", "--cloud-gpu", "rtx-4090"]
        + ["--as-of", day],
    )
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    body = answer.json()
    assert printed["as_of"] == body["as_of"] == day
    assert printed["as_of_note"] == body["as_of_note"]
    assert _prices(printed["assumptions"]) == _prices(body["assumptions"])
    # The day's prices, not today's (the bundled data has newer ones of both cards).
    assert _prices(body["assumptions"]) != _prices(today["assumptions"])
    for price in body["prices_used"]:
        assert price["as_of"] is None or price["as_of"] <= day


def test_a_date_before_the_first_price_exits_2_naming_as_of(api: TestClient) -> None:
    result = runner.invoke(app, ["tco", "--gpu", "rtx-3090", "--as-of", "1999-01-01"])
    assert result.exit_code == 2
    assert "as_of" in result.output and "before the first stored price" in result.output
