"""The reports' Markdown templates and the code that fills them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from shared.perfmodel.lab import report_text as rt

ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(rt, "HERE", tmp_path)
    (tmp_path / "t.md").write_text("A $count-row table costs $$${price}0 per ${unit}s.\n\n")
    return tmp_path


def test_fills_every_placeholder_and_keeps_escaped_dollars(folder: Path) -> None:
    text = rt.report_text("t", count=3, price="1.5", unit="hour")
    assert text == "A 3-row table costs $1.50 per hours."
    assert rt.placeholders("t") == {"count", "price", "unit"}


def test_a_missing_value_fails(folder: Path) -> None:
    with pytest.raises(KeyError, match=r"t\.md: no value for \$unit"):
        rt.report_text("t", count=3, price="1.5")


def test_a_value_without_a_placeholder_fails(folder: Path) -> None:
    with pytest.raises(TypeError, match="no placeholder for cost"):
        rt.report_text("t", count=3, price="1.5", unit="hour", cost="2")


def test_a_malformed_placeholder_fails(folder: Path) -> None:
    (folder / "bad.md").write_text("costs $5\n")
    with pytest.raises(ValueError, match="malformed"):
        rt.report_text("bad")


def _calls() -> list[tuple[Path, ast.Call]]:
    """Every report_text(...) call in the code that writes reports."""
    calls = []
    for folder in ("shared", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Call):
                    func = node.func
                    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                    if name == "report_text":
                        calls.append((path, node))
    return calls


def test_every_call_fills_exactly_its_templates_placeholders() -> None:
    calls = _calls()
    used: set[str] = set()
    for path, call in calls:
        where = f"{path.relative_to(ROOT)}:{call.lineno}"
        assert len(call.args) == 1, where
        assert isinstance(call.args[0], ast.Constant), f"{where}: name the template literally"
        name = call.args[0].value
        assert isinstance(name, str), where
        keywords = [k.arg for k in call.keywords]
        assert None not in keywords, f"{where}: pass each value by name, not **mapping"
        assert set(keywords) == rt.placeholders(name), where
        used.add(name)
    templates = {p.stem for p in rt.HERE.glob("*.md")}
    assert {"llm_training", "prefill", "rounds", "scaling", "unmet"} <= used
    assert used == templates, "a template no code fills"
