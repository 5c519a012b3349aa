"""A fresh SQLite database seeded with the bundled data, as on a first start (for benches)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import Engine

from shared.kit.db import make_engine
from shared.kit.settings import Settings
from shared.wiring.bootstrap import prepare_database
from shared.wiring.runtime import open_context


def bundled_database(directory: Path) -> tuple[Engine, Settings]:
    """(engine, settings) of a database in `directory` holding the bundled data."""
    url = f"sqlite:///{directory / 'bench.db'}"
    settings = Settings.model_validate(
        {
            "environment": "test",
            "data_dir": directory,
            "database_url": url,
            "broker_url": "",
            "inprocess_scheduler": False,
        }
    )
    engine = make_engine(url)
    prepare_database(open_context(settings, engine))
    return engine, settings
