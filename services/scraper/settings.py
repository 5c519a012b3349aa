"""Scraper configuration, read from GPU_ADVISOR_SCRAPER_* environment variables."""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# RFC 9309 section 2.4: a cached robots.txt should not be used for more than 24 hours.
MAX_ROBOTS_TTL_S = 24 * 3600.0


class ScraperSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="GPU_ADVISOR_SCRAPER_", env_file=None, extra="ignore"
    )

    # Identifying user agent: the product token is what robots.txt groups match against.
    user_agent: str = (
        "GPUAdvisorBot/0.1 (+https://github.com/gpu-advisor/gpu-advisor; price research)"
    )

    connect_timeout_s: float = Field(default=10.0, gt=0)
    read_timeout_s: float = Field(default=30.0, gt=0)
    write_timeout_s: float = Field(default=10.0, gt=0)
    pool_timeout_s: float = Field(default=30.0, gt=0)

    per_host_concurrency: int = Field(default=1, ge=1)
    per_host_delay_s: float = Field(default=2.0, ge=0)

    max_retries: int = Field(default=3, ge=0)
    backoff_base_s: float = Field(default=1.0, ge=0)
    backoff_cap_s: float = Field(default=60.0, ge=0)
    # A Retry-After longer than this is not slept through: the fetch fails as transient
    # and carries the server's delay so the caller can reschedule.
    max_retry_after_s: float = Field(default=120.0, ge=0)

    robots_ttl_s: float = Field(default=MAX_ROBOTS_TTL_S, gt=0, le=MAX_ROBOTS_TTL_S)
    # A 5xx/unreachable robots.txt blocks the host; re-check sooner than a good one.
    robots_failure_ttl_s: float = Field(default=600.0, gt=0, le=MAX_ROBOTS_TTL_S)
    conditional_cache_entries: int = Field(default=4096, ge=0)

    # Each source's own settings, named by its module's `SOURCE.settings`
    # (services/scraper/sources/<site>.py). Declared here, in one class, so that every
    # GPU_ADVISOR_SCRAPER_* name stays what operators set and one object configures a run.
    ebay_base_url: str = "https://www.ebay.com"
    ebay_api_base_url: str = "https://api.ebay.com"
    ebay_marketplace_id: str = "EBAY_US"
    ebay_client_id: str = ""
    ebay_client_secret: SecretStr = SecretStr("")
    newegg_base_url: str = "https://www.newegg.com"
    bhphoto_base_url: str = "https://www.bhphotovideo.com"
    azure_prices_base_url: str = "https://prices.azure.com"
    aws_pricing_base_url: str = "https://pricing.us-east-1.amazonaws.com"
    vast_base_url: str = "https://console.vast.ai"
    lambda_base_url: str = "https://cloud.lambda.ai"
    lambda_api_key: SecretStr = SecretStr("")

    # Pipeline validation bounds, per unit in USD.
    min_unit_price_usd: Decimal = Field(default=Decimal("20"), gt=0)
    max_unit_price_usd: Decimal = Field(default=Decimal("100000"), gt=0)
    # Quarantine settings are shared with posted prices: see shared/kit/settings.py.

    # A price shown in another currency is converted to USD at the reference rate of the
    # day it was observed, if the newest rate on or before that day is at most this old;
    # else it is refused (no_exchange_rate). Rates: the bundled ECB table
    # (services/scraper/data/ecb_rates/), or an ECB eurofxref-hist.csv at this path.
    exchange_rates_path: Path | None = None
    exchange_rate_max_age_days: int = Field(default=7, ge=0, le=31)

    # What a run fetches, for every source. Empty search_terms: one term per GPU family of
    # the title matcher.
    search_terms: list[str] = Field(default_factory=list)
    # Result pages per search term (eBay shows 240 listings a page); API pages per source.
    max_pages: int = Field(default=2, ge=1)
    max_api_pages: int = Field(default=50, ge=1)
    aws_regions: list[str] = Field(default_factory=lambda: ["us-east-1", "us-west-2"])

    @field_validator(
        "ebay_base_url",
        "ebay_api_base_url",
        "newegg_base_url",
        "bhphoto_base_url",
        "azure_prices_base_url",
        "aws_pricing_base_url",
        "vast_base_url",
        "lambda_base_url",
    )
    @classmethod
    def _strip_trailing_slash(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("base URL must start with http:// or https://")
        return value.rstrip("/")


@lru_cache(maxsize=1)
def get_scraper_settings() -> ScraperSettings:
    return ScraperSettings()
