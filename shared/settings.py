"""All configuration, read once from GPU_ADVISOR_* environment variables."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GPU_ADVISOR_", env_file=None, extra="ignore")

    environment: Literal["development", "test", "production"] = "development"
    data_dir: Path = Path("./var")
    # Empty means the embedded default: SQLite inside data_dir.
    database_url: str = ""
    # Empty means no broker: background work runs in-process.
    broker_url: str = ""
    load_bundled_data: bool = True

    # System share of a build, per node (see shared/pricing/system_cost.py for the sources).
    system_cost_1_2_gpu_usd: float = 700.0
    system_cost_4_gpu_usd: float = 2500.0
    system_cost_8_gpu_usd: float = 9000.0

    # Market price: observations within this many days of the newest one form the price.
    market_window_days: int = Field(default=7, ge=1)

    @property
    def sqlalchemy_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'gpu_advisor.db').resolve()}"

    @property
    def in_process_tasks(self) -> bool:
        return not self.broker_url


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
