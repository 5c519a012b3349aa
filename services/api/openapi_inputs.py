"""The OpenAPI document says which inputs the API accepts, not only their types: a client
(or schemathesis, tests/services/api/test_fuzz.py) that sends what the document allows
gets an answer, not a 422.

Amended once, on the generated document, by rule:
- a GPU field (a query, path or body field named `gpu`, `gpu_id` or `cloud_gpu`) is a
  `GpuName`: the spellings the catalog resolves (`accepted_spellings`: ids, catalog
  names, aliases), listed when the app is built. Other spacing, case and vendor words are
  accepted too; an unknown GPU is still a 422 (404 on a path) naming the field and the
  closest ids;
- a route may declare more of what its fields accept than their types say (`inputs`):
  the closed set a free-text field takes, a lower bound its code checks;
- no text of the query or a body may hold a NUL (the input guard refuses it: PostgreSQL
  cannot store it), and a decimal sent as a string is written as a number;
- what no schema can state (one field's rule depending on another, or on the data
  stored) is listed per operation in `x-field-rules` (each rule: the fields its 422
  names, and the rule), and in the operation's description for people.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from fastapi import FastAPI

from shared.catalog.aliases import accepted_spellings

GPU_FIELDS = frozenset({"gpu", "gpu_id", "cloud_gpu"})
GPU_NAME = "GpuName"
GPU_NAME_REF = {"$ref": f"#/components/schemas/{GPU_NAME}"}
# What `inputs` declares, taken off the operation once applied.
AMEND = "x-amend-inputs"
RULES = "x-field-rules"
NO_NUL = r"^[^\u0000]*$"
# Decimal notation as Python's Decimal (and so pydantic) reads it; a subset of what it
# takes (it also reads "1_000" and non-ASCII digits), never more.
DECIMAL = r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$"
DECIMAL_RULE = "a decimal sent as a string is held to the bounds of the number"
# Keys a field keeps when its type is replaced by a reference.
ANNOTATIONS = ("title", "description", "examples", "default")


def rule(text: str, *fields: str) -> dict[str, Any]:
    """A rule no schema can state: the fields its 422 names (dotted body paths without
    list indices, as in the error's `loc`), and what it says."""
    return {"fields": list(fields), "rule": text}


def inputs(rules: Sequence[dict[str, Any]] = (), **fields: Mapping[str, Any]) -> dict[str, Any]:
    """A route's `openapi_extra`: `fields` maps a field (query parameter or body property,
    at any depth) to JSON Schema keywords its code enforces (`enum`, `minimum`, ...), added
    to its non-null type; `rules` what no schema can state. A body's components are shared:
    what one route declares for them holds wherever they are used."""
    extra: dict[str, Any] = {}
    if fields:
        extra[AMEND] = {name: dict(keywords) for name, keywords in fields.items()}
    if rules:
        extra[RULES] = list(rules)
    return extra


# Rules of shared.builds.predict and shared.perfmodel.llm_shapes, stated for every
# operation that takes an LLM description or a phase (/model/predict, /recommend).
PHASE_RULE = rule("inference only with task cv; training only with a training task", "phase")
# The buyer's-units fields of /recommend and /model/predict (shared/perfmodel/units.py).
LLM_SERVING_RULE = rule(
    "only with task llm-inference", "prompt_tokens", "min_tokens_per_s_per_user", "max_ttft_ms"
)
SOFTWARE_RULE = rule(
    "a software the task's workload class runs on (llm-inference: vllm, sglang, trt-llm, "
    "llama.cpp; training: pytorch; image-generation and cv inference: trt-llm)",
    "software",
)
LLM_SHAPE_RULE = rule(
    "a named model's size, KV heads and active parameters are its own; without a model, "
    "active_params_b is at most params_b",
    "params_b",
    "kv_heads",
    "active_params_b",
)


def one_of(values: Sequence[str]) -> dict[str, Any]:
    return {"enum": list(values)}


def _free_text(schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "string" and not (
        {"enum", "const", "pattern", "format"} & schema.keys()
    )


class _Amender:
    """Walks one operation's inputs (parameters, and the body through its references)."""

    def __init__(self, schemas: dict[str, Any], amend: Mapping[str, Mapping[str, Any]]) -> None:
        self.schemas = schemas
        self.amend = amend
        self.decimals: list[str] = []
        self._seen: set[str] = set()

    def field(self, name: str, schema: dict[str, Any], path: str, text: bool = True) -> None:
        """Amend the schema of field `name` (at dotted `path`) in place."""
        if name in GPU_FIELDS and _free_text(schema):
            annotations = {k: schema[k] for k in ANNOTATIONS if k in schema}
            schema.clear()
            schema.update(GPU_NAME_REF, **annotations)
            return
        branches = schema.get("anyOf", [schema])
        typed = [b for b in branches if b.get("type") != "null"]
        if sorted(b.get("type", "") for b in typed) == ["number", "string"]:
            string = next(b for b in typed if b.get("type") == "string")
            # A Decimal: a number, or a string that is one (already amended for another
            # operation that shares the component).
            if _free_text(string) or string.get("pattern") == DECIMAL:
                string["pattern"] = DECIMAL
                self.decimals.append(path)
        for branch in typed:
            if name in GPU_FIELDS and _free_text(branch):
                branch.clear()
                branch.update(GPU_NAME_REF)
                continue
            if name in self.amend:
                branch.update(self.amend[name])
            if text and _free_text(branch):
                branch["pattern"] = NO_NUL
            self.nested(branch, path)

    def nested(self, schema: dict[str, Any], path: str) -> None:
        """The fields inside an object, list or reference."""
        ref = schema.get("$ref", "")
        if ref.startswith("#/components/schemas/"):
            name = ref.rsplit("/", 1)[1]
            if name not in self._seen and name != GPU_NAME:
                self._seen.add(name)
                self.nested(self.schemas[name], path)
            return
        for key in ("anyOf", "oneOf", "allOf"):
            for branch in schema.get(key, []):
                self.nested(branch, path)
        if isinstance(schema.get("items"), dict):
            self.field(path.rsplit(".", 1)[-1], schema["items"], path)
        for name, sub in schema.get("properties", {}).items():
            self.field(name, sub, f"{path}.{name}" if path else name)


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            yield path, method, operation


def _describe(rules: Sequence[Mapping[str, Any]]) -> str:
    header = "Rules the schema cannot state (`x-field-rules`); a 422 names the field:"
    return "\n".join([header, *(f"- {', '.join(r['fields'])}: {r['rule']}" for r in rules)])


def document_inputs(document: dict[str, Any]) -> dict[str, Any]:
    """Amend each operation's inputs and list its rules (see the module docstring)."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    schemas[GPU_NAME] = {
        "title": GPU_NAME,
        "type": "string",
        "enum": list(accepted_spellings()),
        "description": "a catalog id, catalog name or alias (GET /gpus lists the GPUs); "
        "other spacing, case and vendor words are accepted too",
    }
    for _, _, operation in _operations(document):
        amender = _Amender(schemas, operation.pop(AMEND, {}))
        for parameter in operation.get("parameters", []):
            name = parameter["name"]
            # The input guard reads the query and bodies for NULs, not paths.
            amender.field(name, parameter["schema"], name, text=parameter["in"] == "query")
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body is not None:
            amender.nested(body["schema"], "")
        rules = list(operation.get(RULES, []))
        if amender.decimals:
            rules.append(rule(DECIMAL_RULE, *amender.decimals))
        if rules:
            operation[RULES] = rules
            described = operation.get("description")
            operation["description"] = "\n\n".join(filter(None, [described, _describe(rules)]))
    return document


def install(app: FastAPI) -> None:
    """Amend every document FastAPI generates (its documented hook)."""
    generate = app.openapi
    app.openapi = lambda: document_inputs(generate())  # type: ignore[method-assign]
