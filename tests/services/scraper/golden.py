"""Golden-file helpers: listings to plain JSON, compared exactly with `<page>.expected.json`.

Regenerate after an intended change with `UPDATE_GOLDEN=1 pytest ...`, then review the diff.
"""

from __future__ import annotations

import dataclasses
import json
import os
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from pathlib import Path
from typing import Any

from services.scraper.errors import ParseError


def to_jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    return value


def outcome(parse: Any, body: bytes, url: str) -> Any:
    """What a golden file records: the listings, or the ParseError kind and reason."""
    try:
        return to_jsonable(parse(body, url))
    except ParseError as exc:
        return {"error": type(exc).__name__, "reason": exc.reason}


def check_golden(sample: Path, actual: Any) -> None:
    expected_path = sample.with_name(f"{sample.stem}.expected.json")
    rendered = json.dumps(actual, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        expected_path.write_text(rendered, encoding="utf-8")
    assert expected_path.exists(), f"missing {expected_path}; run with UPDATE_GOLDEN=1"
    assert json.loads(rendered) == json.loads(expected_path.read_text(encoding="utf-8"))
