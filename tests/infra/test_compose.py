"""docker-compose.yml without Docker: every service's command as a local process.

PostgreSQL and Redis map to this machine (a fresh database, a private Redis); the rest
run exactly the commands and environment the compose file gives them, with hosts
mapped to 127.0.0.1 and ports and scratch paths moved out of the way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from sqlalchemy import create_engine, text

from tests.conftest import POSTGRES_ADMIN_URL, _create_postgres_database, _drop_postgres_database
from tests.processes import ROOT, RedisServer, Service, free_port, run_once, wait_for

pytestmark = pytest.mark.slow
INFRASTRUCTURE = {"postgres", "redis"}
ONE_SHOT = ("migrate", "seed")


def load_compose() -> dict[str, Any]:
    compose: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return compose


def _ensure_role(name: str, database: str) -> None:
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        exists = conn.execute(
            text("SELECT 1 FROM pg_roles WHERE rolname = :n"), {"n": name}
        ).first()
        if not exists:
            conn.execute(text(f'CREATE ROLE "{name}" LOGIN'))
        conn.execute(text(f'ALTER DATABASE "{database}" OWNER TO "{name}"'))
    admin.dispose()


def local_env(
    service: dict[str, Any], database: str, redis_port: int, scratch: Path
) -> dict[str, str]:
    env = {key: str(value) for key, value in (service.get("environment") or {}).items()}
    mapped = {}
    for key, value in env.items():
        value = value.replace("@postgres:5432/gpu_advisor", f"@127.0.0.1:5432/{database}")
        value = value.replace("redis://redis:6379", f"redis://127.0.0.1:{redis_port}")
        if value.startswith("/tmp/"):
            value = str(scratch / value.removeprefix("/tmp/"))
            Path(value).mkdir(parents=True, exist_ok=True)
        mapped[key] = value
    return mapped


def local_command(command: str, api_port: int, scratch: Path) -> str:
    return (
        command.replace("--host 0.0.0.0", "--host 127.0.0.1")
        .replace("--port 8000", f"--port {api_port}")
        .replace("/tmp/", f"{scratch}/")
    )


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    scratch = tmp_path_factory.mktemp("compose")
    compose = load_compose()["services"]
    url, database = _create_postgres_database()
    _ensure_role("gpu_advisor", database)
    redis_server = RedisServer(scratch)
    redis_server.start()
    api_port = free_port()
    envs = {
        name: local_env(spec, database, redis_server.port, scratch)
        for name, spec in compose.items()
        if name not in INFRASTRUCTURE
    }
    for name in ONE_SHOT:
        result = run_once(local_command(compose[name]["command"], api_port, scratch), envs[name])
        assert result.returncode == 0, f"{name} failed:\n{result.stdout}\n{result.stderr}"
    services = [
        Service(
            name, local_command(compose[name]["command"], api_port, scratch), envs[name], scratch
        )
        for name in compose
        if name not in INFRASTRUCTURE and name not in ONE_SHOT
    ]
    for service in services:
        service.start()
    base = f"http://127.0.0.1:{api_port}"
    try:
        wait_for(lambda: httpx.get(f"{base}/health", timeout=2).json()["broker"] == "ok", 90, "api")
        yield {"base": base, "env": envs["api"], "services": services, "database_url": url}
    finally:
        for service in services:
            service.stop()
        redis_server.stop()
        _drop_postgres_database(database)


def rtx_3090_used(base: str, headers: dict[str, str] | None = None) -> dict[str, Any] | None:
    body = httpx.get(
        f"{base}/recommend",
        params={"task": "cv", "memory_gb": 24, "condition": "used", "limit": 100},
        headers=headers,
    ).json()
    for result in body["results"]:
        if result["gpu"]["id"] == "rtx-3090":
            return dict(result)
    return None


# What moves with the clock alone: the price's age (to a hundredth of a day) and its band,
# widened with age at the recompute the quote set off.
MOVES_WITH_AGE = ("age_days", "band_usd")


def _unaged(price: dict[str, Any]) -> dict[str, Any]:
    """A price without what its age moves between two reads a minute apart."""
    return {name: value for name, value in price.items() if name not in MOVES_WITH_AGE}


def best_quote(base: str, headers: dict[str, str] | None = None) -> Decimal | None:
    result = rtx_3090_used(base, headers)
    quote = result and result.get("best_quote")
    return Decimal(quote["usd"]) if quote else None


def test_every_compose_service_has_a_command_and_is_launched(stack):
    compose = load_compose()["services"]
    launched = {s.name for s in stack["services"]} | set(ONE_SHOT) | INFRASTRUCTURE
    assert launched == set(compose)
    for service in stack["services"]:
        assert service.process is not None and service.process.poll() is None, service.log_tail()


def test_a_price_change_reaches_recommend_through_a_real_worker(stack):
    base, env = stack["base"], stack["env"]
    before = rtx_3090_used(base)
    # A CLI quote is an operator quote: shown to keys that see every quote.
    created = run_once("gpu-advisor api-keys create --name compose --all-quotes --json", env)
    assert created.returncode == 0, created.stderr
    operator = {"Authorization": f"Bearer {json.loads(created.stdout)['key']}"}
    assert before is not None and best_quote(base, operator) is None
    # A plausible quote (within the quarantine band of the market price it sits beside).
    quoted = (Decimal(before["price"]["usd"]) * Decimal("0.9")).quantize(Decimal("1"))
    added = run_once(
        f"gpu-advisor prices add --gpu rtx-3090 --usd {quoted} --condition used "
        "--source compose-test",
        env,
    )
    assert added.returncode == 0, added.stderr
    try:
        wait_for(lambda: best_quote(base, operator) == quoted, 60, "the new quote")
    except TimeoutError:
        worker = next(s for s in stack["services"] if s.name == "worker-compute")
        pytest.fail(f"price never reached /recommend; worker log:\n{worker.log_tail()}")
    engine = create_engine(stack["database_url"])
    query = text("SELECT status FROM task_run WHERE name = 'compute.recompute_scores'")

    def recorded() -> bool:
        # The run's row turns to success just after the commit the API already reads.
        with engine.connect() as conn:
            return "success" in conn.execute(query).scalars().all()

    try:
        wait_for(recorded, 30, "the recompute's task_run row")
    finally:
        engine.dispose()
    after = rtx_3090_used(base)
    # A quote is not the market: the same market price, only older by the test's minute.
    assert after is not None and _unaged(after["price"]) == _unaged(before["price"])
    assert after["best_quote"] is None  # nor anyone's without a key


def test_health_and_metrics_see_the_broker_and_the_tasks(stack):
    health = httpx.get(f"{stack['base']}/health").json()
    assert health["status"] == "ok" and health["broker"] == "ok"
    metrics = httpx.get(f"{stack['base']}/metrics").text
    assert "gpu_advisor_http_requests" in metrics
    assert "gpu_advisor_queue_depth" in metrics
