"""Alert rules and their webhook deliveries (write-scoped API keys)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from services.api.alerts import service
from services.api.alerts.inflight import TestsInFlight
from services.api.alerts.schemas import (
    AlertCreate,
    AlertCreated,
    AlertList,
    AlertOut,
    AlertPatch,
    DeliveryList,
    TestResult,
)
from services.api.auth import WriteKey
from services.api.deps import SessionDep, SettingsDep
from services.api.openapi_inputs import inputs, one_of, rule
from shared.alerts.delivery import send_async
from shared.catalog.tasks import PRECISION_NAMES, TASK_NAMES

router = APIRouter(prefix="/alerts", tags=["alerts"])

# The shape shared/alerts/ssrf.py checks first: http(s), no credentials, no control
# characters or spaces; where the host resolves is known only when it is registered.
WEBHOOK_URL = (
    r"^[hH][tT][tT][pP][sS]?://[A-Za-z0-9._~%!$&'()*+,;=:-]+([/?#][^\u0000-\u0020\u007f]*)?$"
)
# The perf_per_dollar_above trigger keeps task and precision plain strings (its own
# check names the valid values): the document lists them.
ALERT_INPUTS = inputs(
    rules=[
        rule(
            "a public endpoint: its host resolves, to public addresses only (or allowlisted)",
            "url",
        )
    ],
    url={"pattern": WEBHOOK_URL},
    task=one_of(TASK_NAMES),
    precision=one_of(PRECISION_NAMES),
)


@router.post("", response_model=AlertCreated, status_code=201, openapi_extra=ALERT_INPUTS)
def create_alert(
    body: AlertCreate, key: WriteKey, session: SessionDep, settings: SettingsDep
) -> AlertCreated:
    """Create a rule; the response carries its signing secret, shown only this once."""
    return service.create(session, key, body, settings)


@router.get("", response_model=AlertList)
def list_alerts(key: WriteKey, session: SessionDep) -> AlertList:
    return AlertList(items=service.list_for(session, key))


@router.get("/{alert_id}", response_model=AlertOut)
def get_alert(alert_id: str, key: WriteKey, session: SessionDep) -> AlertOut:
    return service.out(service.owned(session, key, alert_id))


@router.patch("/{alert_id}", response_model=AlertOut, openapi_extra=ALERT_INPUTS)
def patch_alert(
    alert_id: str, body: AlertPatch, key: WriteKey, session: SessionDep, settings: SettingsDep
) -> AlertOut:
    return service.patch(session, service.owned(session, key, alert_id), body, settings)


@router.delete("/{alert_id}", status_code=204)
def delete_alert(alert_id: str, key: WriteKey, session: SessionDep) -> Response:
    service.delete(session, service.owned(session, key, alert_id))
    return Response(status_code=204)


@router.post("/{alert_id}/test", response_model=TestResult)
async def test_alert(
    alert_id: str, request: Request, key: WriteKey, session: SessionDep, settings: SettingsDep
) -> TestResult:
    """Send a signed test event now. Async: while the receiver answers, no worker thread
    and no database connection is held (the database steps run on the thread pool)."""
    inflight: TestsInFlight = request.app.state.webhook_tests
    assert key.id is not None
    async with inflight.slot(key.id):
        prepared = await run_in_threadpool(service.prepare_test, session, key, alert_id)
        outcome = await send_async(
            prepared.url,
            prepared.secret,
            prepared.event.webhook_id,
            prepared.event.payload,
            settings,
            prepared.at,
        )
        return await run_in_threadpool(service.record_test, session, prepared, outcome)


@router.get("/{alert_id}/deliveries", response_model=DeliveryList)
def list_deliveries(
    alert_id: str,
    key: WriteKey,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> DeliveryList:
    alert = service.owned(session, key, alert_id)
    return DeliveryList(items=service.deliveries(session, alert, limit))
