"""All configuration, read once from GPU_ADVISOR_* environment variables."""

from __future__ import annotations

import ipaddress
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="GPU_ADVISOR_", env_file=None, extra="ignore", populate_by_name=True
    )

    environment: Literal["development", "test", "production"] = "development"
    data_dir: Path = Path("./var")
    # Empty means the embedded default: SQLite inside data_dir.
    database_url: str = ""
    # Empty means no broker: background work runs in-process.
    broker_url: str = ""
    load_bundled_data: bool = True
    # The API (and each CLI command that opens the database) migrates and seeds on start
    # in the embedded default; deployments run the one-shot `migrate` and `seed` services
    # instead, so API workers never race.
    prepare_on_start: bool = True
    # Without a broker: "thread" runs background work on one in-process worker thread,
    # "eager" runs it inline right after the commit (deterministic, for tests).
    inprocess_mode: Literal["thread", "eager"] = "thread"
    # Without a broker the API process also runs the periodic work beat would send.
    inprocess_scheduler: bool = True
    # Without a broker, queued work is rows in the database: a claim older than the lease
    # is taken over (a hung process; a dead one's claims are taken at once), and the
    # scheduler looks for rows other processes left this often.
    job_lease_s: float = Field(default=900.0, gt=0)
    job_resume_interval_s: float = Field(default=30.0, gt=0)
    # The daily full recompute's first run at start (the scheduler); turned off by the
    # fault tests, to show the queue alone catches up.
    full_recompute_on_start: bool = True

    # Celery on Redis. Retry countdowns stay below the visibility timeout, after which
    # Redis hands an unacknowledged task to another worker. Matched to the task limits:
    # above the hard time limit (360 s, so a running task is never handed out twice) and
    # the longest retry countdown (600 s); a killed worker's task then comes back within
    # about 13 minutes (with the restore sweep), not the hour of Celery's default.
    redis_visibility_timeout_s: int = Field(default=720, ge=5)
    # How often a worker sweeps for tasks whose worker died (older than the timeout).
    redis_restore_interval_s: int = Field(default=60, ge=1)
    task_soft_time_limit_s: int = Field(default=300, ge=1)
    task_time_limit_s: int = Field(default=360, ge=2)
    task_max_retries: int = Field(default=5, ge=0)
    task_retry_backoff_max_s: int = Field(default=600, ge=1)
    full_recompute_hour_utc: int = Field(default=3, ge=0, le=23)
    staleness_sweep_interval_s: int = Field(default=3600, ge=10)
    # How often beat sends the tasks parked while the broker was unreachable.
    unsent_resend_interval_s: float = Field(default=30.0, gt=0)
    # Sources beat scrapes, with their intervals: "ebay=21600,newegg=43200". Empty in the
    # embedded default, which never contacts live sites on its own.
    scrape_sources: str = ""
    # The largest request body the API reads (413 beyond it); its JSON bodies are small.
    max_request_bytes: int = Field(default=1_048_576, ge=1024)
    # A connection must deliver a whole request head this soon after it opens (or after
    # its previous response), and a body must not pause longer than the body timeout:
    # a stalled client is closed instead of holding a connection and a task forever.
    request_header_timeout_s: float = Field(default=10.0, gt=0, le=300)
    request_body_timeout_s: float = Field(default=30.0, gt=0, le=600)
    # Proxies whose X-Forwarded-For names the client (IPs or CIDRs, comma-separated):
    # "127.0.0.1" behind a local reverse proxy. Empty: the connecting address is the
    # client, and the header is ignored.
    trusted_proxies: str = ""
    # API keys and webhooks.
    require_key_for_reads: bool = False
    rate_limit_per_minute: int = Field(default=120, ge=1)
    # New quotes stored per minute per client IP without an API key (each one is a row).
    anonymous_quote_rate_per_minute: int = Field(default=10, ge=1)
    # Hosts or CIDRs webhooks may target although private (e.g. "127.0.0.1,10.1.0.0/16").
    webhook_allowlist: str = ""
    webhook_timeout_s: float = Field(default=10.0, gt=0)
    # POST /alerts/{id}/test calls in flight at once per API key (per API process).
    webhook_tests_per_key: int = Field(default=2, ge=1, le=50)
    webhook_disable_after_days: float = Field(default=5.0, gt=0)
    alert_cooldown_s: int = Field(default=3600, ge=0)
    alert_dispatch_interval_s: float = Field(default=5.0, gt=0)
    # A claimed delivery is retried after this long if its worker never recorded it.
    webhook_lease_s: float = Field(default=60.0, gt=0)
    # Waits after each failed attempt (Standard Webhooks' suggested schedule).
    webhook_retry_schedule_s: str = "5,300,1800,7200,18000,36000,36000"
    # Fault injection for the fault tests only (refused in production), e.g.
    # "recompute-pause:5" (sleep mid-transaction) or "recompute-transient".
    fault_injection: str = ""

    # System share of a build, per node (see shared/builds/bom.py for the sources).
    system_cost_1_2_gpu_usd: float = 700.0
    system_cost_4_gpu_usd: float = 2500.0
    system_cost_8_gpu_usd: float = 9000.0

    # Market price: observations within this many days of the newest one form the price.
    market_window_days: int = Field(default=7, ge=1)
    # A price older than this is stale: flagged, with a caveat, and /health reports it; a
    # cloud price list older than this is history, not an offer one can rent today.
    price_stale_days: int = Field(default=90, ge=1)
    # A marketplace's asking prices form a market price only with at least this many
    # listings in the window: one or two stray asks (a 3070 Ti found in a T4 search) are
    # not a market. Completed sales, retailers' offers and published aggregates count as
    # they are.
    market_min_asks: int = Field(default=3, ge=1)
    # A rental offer below its GPU's median current offer divided by this factor (same
    # pricing) is held back, like a purchase price beyond the quarantine factor.
    cloud_quarantine_factor: Decimal = Field(default=Decimal("2"), gt=1)
    # A launch MSRP stands for a new price only this long after launch: later the card may
    # be discontinued, and its list price says nothing about what buyers pay.
    msrp_as_new_max_age_days: int = Field(default=730, ge=0)
    # Quarantine, for scraped and posted prices alike: a price beyond `factor` times the
    # reference either way is stored but held back. The reference is the median of the
    # last `window_days` (with at least `min_n` listings), else the newest market price,
    # else the launch list price. The GPU_ADVISOR_SCRAPER_* names are the older spelling.
    quarantine_factor: Decimal = Field(
        default=Decimal("3"),
        gt=1,
        validation_alias=AliasChoices(
            "GPU_ADVISOR_QUARANTINE_FACTOR", "GPU_ADVISOR_SCRAPER_QUARANTINE_FACTOR"
        ),
    )
    quarantine_window_days: int = Field(
        default=30,
        ge=1,
        validation_alias=AliasChoices(
            "GPU_ADVISOR_QUARANTINE_WINDOW_DAYS", "GPU_ADVISOR_SCRAPER_QUARANTINE_WINDOW_DAYS"
        ),
    )
    quarantine_min_n: int = Field(
        default=3,
        ge=1,
        validation_alias=AliasChoices(
            "GPU_ADVISOR_QUARANTINE_MIN_N", "GPU_ADVISOR_SCRAPER_QUARANTINE_MIN_N"
        ),
    )

    @model_validator(mode="after")
    def _no_fault_injection_in_production(self) -> Settings:
        if self.environment == "production" and self.fault_injection:
            raise ValueError("GPU_ADVISOR_FAULT_INJECTION must be empty in production")
        if self.task_retry_backoff_max_s >= self.redis_visibility_timeout_s:
            raise ValueError("task_retry_backoff_max_s must be below redis_visibility_timeout_s")
        return self

    def retry_schedule(self) -> tuple[float, ...]:
        return tuple(
            float(part) for part in self.webhook_retry_schedule_s.split(",") if part.strip()
        )

    def scrape_schedule(self) -> dict[str, int | None]:
        """Source name -> interval in seconds from `scrape_sources`; None where only the
        name is given (the source's own default: shared.sources.specs.scrape_intervals)."""
        return parse_scrape_sources(self.scrape_sources)

    @field_validator("scrape_sources")
    @classmethod
    def _scrape_sources_parse(cls, value: str) -> str:
        parse_scrape_sources(value)
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies_are_addresses(cls, value: str) -> str:
        ip_networks(value)
        return value

    @property
    def sqlalchemy_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'gpu_advisor.db').resolve()}"

    @property
    def in_process_tasks(self) -> bool:
        return not self.broker_url


def parse_scrape_sources(text: str) -> dict[str, int | None]:
    """ "ebay=600,vast" -> {"ebay": 600, "vast": None}; a bad interval is a ValueError."""
    schedule: dict[str, int | None] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, seconds = (part.strip() for part in item.partition("="))
        if not seconds:
            schedule[name] = None
            continue
        if not seconds.isdigit() or int(seconds) < 1:
            raise ValueError(
                f"scrape_sources: {name}={seconds!r} is not a whole number of seconds >= 1 "
                '(format: "ebay=21600,vast"; a name alone takes the source\'s default)'
            )
        schedule[name] = int(seconds)
    return schedule


def ip_networks(text: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """IPs and CIDRs, comma-separated; ValueError names an entry that is neither."""
    out = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        try:
            out.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{item!r} is not an IP address or CIDR") from None
    return tuple(out)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
