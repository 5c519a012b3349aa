"""Property-based fuzzing of the whole API (schemathesis): generated valid and invalid
requests on every operation, a write key on every request so write paths are fuzzed past
authentication, on PostgreSQL (the stricter backend: NUL bytes). Every answer must be no
server error and match the response schema the OpenAPI document declares; input the
document forbids must be refused, and input it allows accepted (or refused by a rule the
operation documents in `x-field-rules`).

FUZZ_EXAMPLES cases per operation (see the measured run time in the commit message);
GPU_ADVISOR_FUZZ_EXAMPLES raises it for a longer local run.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.generation.modes import GenerationMode
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.specs.openapi.schemas import OpenApiSchema

from services.api.app import create_app
from shared.alerts.keys import create_key
from shared.kit.db import make_engine, migrate, session_scope
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.services.api.conftest import _load_market

# Per operation and mode (valid, invalid): 2 x 50 = 100 cases per operation.
FUZZ_EXAMPLES = int(os.environ.get("GPU_ADVISOR_FUZZ_EXAMPLES", "50"))

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


@pytest.fixture(scope="module")
def fuzz_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[object, str]]:
    directory: Path = tmp_path_factory.mktemp("fuzz")
    url, pg_name = new_database("postgresql", directory)
    migrate(url)
    _load_market(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        key = create_key(session, "fuzz", "write").key
    engine.dispose()
    settings_ = make_settings(
        url,
        directory,
        load_bundled_data=False,
        # Thousands of requests on one key: the limits are tested elsewhere.
        rate_limit_per_minute=10**9,
        anonymous_quote_rate_per_minute=10**9,
        # Generated webhook URLs must not reach out: every host is refused unresolved.
        webhook_timeout_s=0.5,
    )
    app = create_app(settings_)
    yield app, key
    asgi.shutdown_lifespans()  # the app's lifespan (its context) ends before the drop
    if pg_name:
        _drop_postgres_database(pg_name)


@pytest.fixture(scope="module")
def api_schema(fuzz_target: tuple[object, str]) -> OpenApiSchema:
    app, _ = fuzz_target
    return schemathesis.openapi.from_asgi("/openapi.json", app)


def fuzz_operation(operation, mode: GenerationMode, headers: dict[str, str], seen: Counter[str]):
    """Run FUZZ_EXAMPLES cases of one mode; None, or the failure hypothesis shrank."""
    keyed = bool(operation.definition.raw.get("security"))

    @given(
        case=operation.as_strategy(generation_mode=mode),
        pick=st.integers(min_value=0, max_value=5),
        real=st.booleans(),
    )
    @settings(
        max_examples=FUZZ_EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
        derandomize=True,  # the same cases each run: a red CI run reproduces locally
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
    )
    def run(case, pick: int, real: bool) -> None:
        checks = CHECKS
        if mode is GenerationMode.POSITIVE:
            if real:  # half the cases name real GPUs and tasks: into the domain
                with_known_values(case, pick)
        elif keyed and "authorization" not in {k.lower() for k in case.headers or {}}:
            # The case left out the key the operation requires; the key sent below makes it
            # a valid request, which must not count as invalid input accepted.
            checks = [c for c in checks if c is not negative_data_rejection]
        response = case.call(headers=headers)
        seen[f"{operation.label} {response.status_code}"] += 1
        case.validate_response(response, checks=checks)

    try:
        run()
    except Unsatisfiable:
        return None  # an operation with no inputs has no invalid ones
    except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - the report names it
        return f"{operation.label} ({mode.value}): {type(exc).__name__}: {str(exc)[:2000]}"
    return None


def refused_fields(response: Any) -> list[str]:
    """The fields a 422 names, as `x-field-rules` writes them: the `loc` of each error
    without its location ("query", "body") and list indices."""
    detail = response.json().get("detail")
    errors = detail if isinstance(detail, list) else [detail]
    return [
        ".".join(
            str(part)
            for part in error.get("loc", [])
            if not isinstance(part, int) and part not in ("query", "body", "path")
        )
        for error in errors
        if isinstance(error, dict)
    ]


def covers(documented: str, field: str) -> bool:
    """Whether a rule's field is this error's: the same field, maybe under a union tag
    (`trigger.max_usd_per_hour` covers `trigger.cloud_price_below.max_usd_per_hour`)."""
    want, got = documented.split("."), field.split(".")
    if want[-1] != got[-1]:
        return False
    parts = iter(got)
    return all(part in parts for part in want)


def accepted_or_documented_rule(ctx: Any, response: Any, case: Any) -> bool | None:
    """positive_data_acceptance, except a 422 every error of which names a field of one of
    the operation's `x-field-rules` (services/api/openapi_inputs.py): the rules no schema
    can state. Any other refusal of input the schema allows fails."""
    positive = case.meta is not None and case.meta.generation.mode.is_positive
    if positive and response.status_code == 422:
        rules = case.operation.definition.raw.get("x-field-rules", [])
        documented = [field for rule in rules for field in rule["fields"]]
        fields = refused_fields(response)
        if fields and all(any(covers(d, f) for d in documented) for f in fields):
            return None
    return positive_data_acceptance(ctx, response, case)


# Every answer: no server error, its status and content type documented, its body the
# declared schema; input the schema forbids refused, input it allows accepted (a 404 for a
# path naming nothing counts as accepted, as schemathesis has it) unless the 422 names a
# rule the operation documents.
CHECKS = [
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
    content_type_conformance,
    negative_data_rejection,
    accepted_or_documented_rule,
]
# Real values of the test market (tests/services/api/conftest.py) in half the valid cases:
# the document's GPUs and tasks are mostly unpriced there, and these reach the domain.
GPU_IDS = ["rtx-3090", "rtx-4090", "h100-pcie"]
KNOWN = {
    "gpu": GPU_IDS,
    "gpu_id": GPU_IDS,
    "cloud_gpu": GPU_IDS,
    "task": ["cv", "nlp", "llm-inference"],
    "precision": ["fp16", "bf16", "int8"],
}


def _known(value: Any, pick: int) -> Any:
    if isinstance(value, dict):
        return {
            k: KNOWN[k][pick % len(KNOWN[k])]
            if k in KNOWN and isinstance(v, str)
            else _known(v, pick)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_known(item, pick) for item in value]
    return value


def with_known_values(case: Any, pick: int) -> None:
    """Real values in those fields of the path, the query and the body."""
    for part in ("path_parameters", "query"):
        values = getattr(case, part)
        if isinstance(values, dict):
            setattr(case, part, _known(values, pick))
    if isinstance(case.body, dict | list):
        case.body = _known(case.body, pick)


def test_no_server_error_and_every_answer_matches_its_schema(api_schema, fuzz_target) -> None:
    _, key = fuzz_target
    headers = {"Authorization": f"Bearer {key}"}
    operations = [result.ok() for result in api_schema.get_all_operations()]
    failures: list[str] = []
    seen: Counter[str] = Counter()
    started = time.monotonic()
    for operation in operations:
        # Half valid (past validation, into the domain), half invalid (the 4xx paths).
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            failure = fuzz_operation(operation, mode, headers, seen)
            if failure is not None:
                failures.append(failure)
    elapsed = time.monotonic() - started
    print(f"fuzz: {len(operations)} operations, {seen.total()} cases in {elapsed:.0f} s")
    print("\n".join(f"  {label}: {n}" for label, n in sorted(seen.items())))
    assert len(operations) >= 20
    assert failures == [], "\n\n".join(failures)
