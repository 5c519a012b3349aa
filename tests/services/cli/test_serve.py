"""`gpu-advisor serve` refuses what the embedded default cannot do safely."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from services.cli.main import app
from shared.kit.settings import get_settings


def test_several_workers_need_a_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPU_ADVISOR_BROKER_URL", "")
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, ["serve", "--workers", "2"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 2
    assert "--workers > 1 needs a broker" in result.output
