from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from services.scraper.settings import ScraperSettings


def test_reads_prefixed_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPU_ADVISOR_SCRAPER_PER_HOST_DELAY_S", "5")
    monkeypatch.setenv("GPU_ADVISOR_SCRAPER_EBAY_BASE_URL", "https://www.ebay.co.uk/")
    monkeypatch.setenv("GPU_ADVISOR_SCRAPER_LAMBDA_API_KEY", "lk-9f8e7d")
    monkeypatch.setenv("GPU_ADVISOR_PER_HOST_DELAY_S", "99")  # the shared prefix is not ours
    settings = ScraperSettings()
    assert settings.per_host_delay_s == 5.0
    assert settings.ebay_base_url == "https://www.ebay.co.uk"
    assert settings.lambda_api_key.get_secret_value() == "lk-9f8e7d"
    assert "lk-9f8e7d" not in repr(settings)


def test_defaults_are_polite() -> None:
    settings = ScraperSettings()
    assert settings.per_host_concurrency == 1
    assert settings.per_host_delay_s > 0
    assert settings.user_agent.startswith("GPUAdvisorBot/")


def test_quarantine_settings_are_shared_with_posted_prices(monkeypatch) -> None:
    from shared.kit.settings import Settings

    assert Settings().quarantine_factor == Decimal("3")
    # The older scraper-only name still works, for the one shared setting.
    monkeypatch.setenv("GPU_ADVISOR_SCRAPER_QUARANTINE_FACTOR", "4")
    assert Settings().quarantine_factor == Decimal("4")
    monkeypatch.setenv("GPU_ADVISOR_QUARANTINE_FACTOR", "5")
    assert Settings().quarantine_factor == Decimal("5")


def test_robots_cache_cannot_exceed_a_day() -> None:
    with pytest.raises(ValidationError):
        ScraperSettings(robots_ttl_s=2 * 86400)


def test_base_urls_must_be_http() -> None:
    with pytest.raises(ValidationError):
        ScraperSettings(newegg_base_url="ftp://newegg.com")
