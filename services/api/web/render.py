"""Templates, static files and the filters and choices every page shares."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from services.api.charts import data
from shared.catalog.specs import load_catalog

HERE = Path(__file__).parent
STATIC_DIR = HERE / "static"
STATIC_TYPES = {".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}

# The forms' (value, label) choices, in the order of the README.
TASK_LABELS = {
    "cv": "Computer vision",
    "nlp": "NLP / transformers",
    "llm-inference": "LLM inference",
    "llm-training": "LLM training",
    "image-generation": "Image generation",
    "video": "Video",
    "rl": "Reinforcement learning",
    "kaggle": "Kaggle",
    "prototyping": "Prototyping",
}
CONDITION_LABELS = {
    "any": "Any (fresher, then cheaper)",
    "new": "New",
    "used": "Used",
    "cloud": "Rent (cloud, per GPU-hour)",
}


# --- templates and static files -----------------------------------------------------


@lru_cache(maxsize=1)
def environment() -> Environment:
    """Loaded on first render, then reused; autoescape is on for every template."""
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.globals.update(static_url=static_url, task_labels=TASK_LABELS, short_name=data.short_name)
    env.filters.update(usd=usd, day=day, num=num, short_source=data.short_source)
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


@lru_cache(maxsize=1)
def static_files() -> dict[str, tuple[bytes, str, str]]:
    """name -> (content, media type, short content hash); only these files are served."""
    files = {}
    for path in sorted(STATIC_DIR.iterdir()):
        if path.suffix in STATIC_TYPES:
            content = path.read_bytes()
            digest = hashlib.sha256(content).hexdigest()[:10]
            files[path.name] = (content, STATIC_TYPES[path.suffix], digest)
    return files


def static_url(name: str) -> str:
    """A URL that changes with the file's content, so browsers may cache it for long."""
    return f"/static/{name}?v={static_files()[name][2]}"


def usd(value: Decimal | float | int | None, digits: int = 0) -> str:
    if value is None:
        return "—"
    return f"${float(value):,.{digits}f}"


def day(value: datetime | date | None) -> str:
    if value is None:
        return "—"
    return value.date().isoformat() if isinstance(value, datetime) else value.isoformat()


def num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


@dataclass(frozen=True, slots=True)
class FieldError:
    field: str
    message: str


def gpu_choices() -> list[tuple[str, str]]:
    return [(g.id, data.short_name(g.name)) for g in load_catalog().gpus]
