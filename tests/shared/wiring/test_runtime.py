"""The composition root (shared/wiring/runtime.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.kit.settings import Settings
from shared.wiring.runtime import open_context


def test_every_entry_point_refuses_an_unknown_source_at_start(tmp_path: Path) -> None:
    settings = Settings(environment="test", data_dir=tmp_path, scrape_sources="ebay,newegg=60,typo")
    with pytest.raises(ValueError, match="unknown sources typo"):
        open_context(settings)
