"""One build, one answer: every endpoint that prices or times a build agrees on its
layout, total and speed-up, because they all call the one build model (shared/builds)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from fastapi.testclient import TestClient

# (gpu, count, condition, task): a GeForce build split over two workstations, a
# workstation card that outgrows one workstation (auto: 8-GPU servers), and two nodes
# over InfiniBand.
BUILDS = [
    ("rtx-3090", 6, "used", "cv"),
    ("rtx-a6000", 6, "new", "cv"),
    ("rtx-4090", 9, "new", "nlp"),
    ("h100-pcie", 16, "new", "nlp"),
]


def _ok(response: Any) -> dict[str, Any]:
    assert response.status_code in (200, 201), response.text
    body: dict[str, Any] = response.json()
    return body


def _recommended(client: TestClient, gpu: str, count: int, condition: str, task: str) -> Any:
    body = _ok(
        client.get(
            "/recommend",
            params={
                "task": task,
                "count": count,
                "condition": condition,
                "memory_gb": 8,
                "limit": 100,
            },
        )
    )
    [row] = [r for r in body["results"] if r["gpu"]["id"] == gpu]
    return row


@pytest.mark.parametrize(("gpu", "count", "condition", "task"), BUILDS)
def test_the_same_build_has_the_same_layout_total_and_speed_up_everywhere(
    market_client: TestClient, gpu: str, count: int, condition: str, task: str
) -> None:
    row = _recommended(market_client, gpu, count, condition, task)
    quote = _ok(
        market_client.post(
            "/quotes/cluster",
            json={"gpu": gpu, "count": count, "condition": condition, "task": task},
        )
    )
    compare = _ok(
        market_client.post(
            "/quotes/compare",
            json={
                "candidates": [{"gpu": gpu, "count": count, "condition": condition}],
                "task": task,
            },
        )
    )
    predicted = _ok(
        market_client.get(
            "/model/predict",
            params={"gpu": gpu, "task": task, "precision": "fp16", "count": count},
        )
    )
    tco = _ok(
        market_client.get(
            "/tco",
            params={
                "gpu": gpu,
                "count": count,
                "condition": condition,
                "task": task,
                "cloud_gpu": gpu,
                "cloud_usd_per_hour": "2.00",
            },
        )
    )
    [candidate] = compare["result"]["candidates"]

    layouts = [row["layout"], quote["result"]["layout"], predicted["layout"], tco["layout"]]
    # `reason` says why "auto" chose the machines; the machines themselves must agree.
    machines = [{k: v for k, v in lay.items() if k != "reason"} for lay in layouts]
    assert all(m == machines[0] for m in machines), machines
    assert machines[0]["total_gpus"] == count

    totals = {
        Decimal(row["total_cost_usd"]),
        Decimal(quote["total_usd"]),
        Decimal(candidate["capex_usd"]),
        Decimal(tco["own"]["purchase_usd"]),
    }
    assert len(totals) == 1, totals

    speeds = [
        row["relative_performance"],
        quote["result"]["performance"]["relative_throughput"],
        candidate["relative_throughput"],
        predicted["relative_throughput"],
        tco["own"]["relative_throughput"],
    ]
    assert max(speeds) == pytest.approx(min(speeds), rel=1e-3), speeds
    assert row["performance"]["multi_gpu_speedup"] == pytest.approx(
        predicted["multi_gpu_speedup"], rel=1e-3
    )
    # Quotes carry the version of the model that computed them.
    assert quote["model_version"] == predicted["model_version"]


def test_auto_is_the_default_deployment_of_every_endpoint(market_client: TestClient) -> None:
    quote = _ok(market_client.post("/quotes/cluster", json={"gpu": "rtx-a6000", "count": 6}))
    assert quote["request"]["deployment"] == "auto"
    assert quote["result"]["layout"]["deployment"] == "datacenter"
    assert "8-GPU servers" in quote["result"]["layout"]["reason"]
    asked = _ok(
        market_client.post(
            "/quotes/cluster", json={"gpu": "rtx-a6000", "count": 6, "deployment": "workstation"}
        )
    )
    assert asked["result"]["layout"]["node_counts"] == [3, 3]
    assert asked["result"]["layout"]["reason"] == "requested"
