"""What every answer's cost per unit must satisfy (issue 38's acceptance), for the tests of
each endpoint that answers one."""

from __future__ import annotations

from typing import Any

import pytest

from shared.builds.unit_cost import COST_UNITS


def check_cost(cost: dict[str, Any], throughput: dict[str, Any]) -> None:
    """usd is the stated hourly cost over the stated hourly work, scaled to the unit, to
    the cent; the hourly work is the throughput's; the interval holds usd."""
    scale, name = COST_UNITS[throughput["unit"]]
    assert cost["unit"] == name
    per_second = throughput["value"] / (60 if throughput["unit"] == "images/min" else 1)
    assert cost["units_per_hour"] == pytest.approx(per_second * 3600, rel=1e-3)
    assert cost["usd"] == pytest.approx(
        cost["usd_per_hour"] / cost["units_per_hour"] * scale, abs=0.005, rel=1e-3
    )
    low, high = cost["interval"]
    assert low <= cost["usd"] <= high
