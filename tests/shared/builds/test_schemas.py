"""The request choices (shared/builds/schemas.py) match what the domain code accepts."""

from __future__ import annotations

from typing import get_args

from shared.builds import constants as c
from shared.builds import schemas
from shared.catalog.tasks import PRECISION_NAMES, SCORE_CONDITIONS, TASK_NAMES
from shared.pricing.cloud import PRICINGS


def test_choices_are_the_domain_values() -> None:
    assert get_args(schemas.Task) == TASK_NAMES
    assert get_args(schemas.Precision) == PRECISION_NAMES
    assert get_args(schemas.Deployment) == c.DEPLOYMENTS
    assert get_args(schemas.Network) == c.NETWORKS
    assert get_args(schemas.Pricing) == PRICINGS
    assert get_args(schemas.MarketCondition) == SCORE_CONDITIONS
    assert get_args(schemas.Condition) == (*SCORE_CONDITIONS, "cloud")
