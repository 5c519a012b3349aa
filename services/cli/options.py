"""CLI options made from a domain request schema, so that a field, its default, its
bounds and its help are written once (in the schema) for the API and the CLI alike."""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

import typer

# pydantic is imported where a schema is read: `fail` and `gpu_id` serve commands without
# one, whose --help then needs no pydantic.
if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError
    from pydantic.fields import FieldInfo

Schema = TypeVar("Schema", bound="BaseModel")
# Click has no Decimal type, and the schema checks the choices with the API's messages.
AS_TEXT = (Decimal, str)


def fail(message: str, valid: list[str] | None = None) -> typer.Exit:
    # A "did you mean" message already names its valid values.
    named = valid is not None and all(value in message for value in valid)
    hint = f"; valid values: {', '.join(valid)}" if valid and not named else ""
    typer.echo(f"error: {message}{hint}", err=True)
    return typer.Exit(2)


def gpu_id(field: str, text: str) -> str:
    """The catalog id an option names (id, catalog name or known alias, exactly); exit 2
    naming the closest ids otherwise."""
    # Here, not at import: loading the catalog is part of a command, not of the CLI's start.
    from shared.catalog.aliases import catalog_id
    from shared.kit.errors import InputError

    try:
        return catalog_id(field, text)
    except InputError as exc:
        raise fail(str(exc), exc.valid) from None


def _choices(annotation: Any) -> tuple[str, ...]:
    """The values of a Literal field (or of an optional one)."""
    for arg in (annotation, *get_args(annotation)):
        if get_origin(arg) is Literal:
            return tuple(str(v) for v in get_args(arg))
    return ()


def _base(annotation: Any) -> tuple[Any, bool]:
    """The type of a field without its None, and whether it is optional."""
    args = [a for a in get_args(annotation) if a is not type(None)]
    optional = get_origin(annotation) in (Union, types.UnionType) and len(args) == 1
    return (args[0] if optional else annotation), optional


def _option_type(annotation: Any) -> Any:
    base, optional = _base(annotation)
    if _choices(base) or base in AS_TEXT:
        base = str
    return base | None if optional else base


def _metavar(name: str, annotation: Any) -> str | None:
    """What the option takes, where typer would say <str>: a choice names its field (the
    help lists the values: inline they would squeeze the help's columns), a Decimal says
    so (it is read as text)."""
    if _choices(annotation):
        return f"<{name.replace('_', '-')}>"
    return "<decimal>" if _base(annotation)[0] is Decimal else None


def _number(value: Any) -> str:
    return str(int(value)) if float(value).is_integer() else f"{float(value):g}"


def _bounds(info: FieldInfo) -> str | None:
    """The schema's limits, written as typer writes a range: "(0<x<=2048)", "(x>0)".
    In parentheses: help text is rich markup, where "[x>0]" would be read as a tag."""
    import annotated_types

    low = high = low_op = high_op = ""
    for limit in info.metadata:
        if isinstance(limit, annotated_types.Gt):
            low, low_op = _number(limit.gt), "<"
        elif isinstance(limit, annotated_types.Ge):
            low, low_op = _number(limit.ge), "<="
        elif isinstance(limit, annotated_types.Lt):
            high, high_op = _number(limit.lt), "<"
        elif isinstance(limit, annotated_types.Le):
            high, high_op = _number(limit.le), "<="
        elif isinstance(limit, annotated_types.MaxLen):
            return f"(at most {limit.max_length} characters)"
    if low and high:
        return f"({low}{low_op}x{high_op}{high})"
    if low:
        return f"(x{'>' if low_op == '<' else '>='}{low})"
    return f"(x{high_op}{high})" if high else None


def _parameter(name: str, info: FieldInfo) -> inspect.Parameter:
    listed = " | ".join(_choices(info.annotation))
    described = "; ".join(filter(None, [info.description, listed]))
    help_text = " ".join(filter(None, [described, _bounds(info)])) or None
    default = inspect.Parameter.empty if info.is_required() else info.get_default()
    option = typer.Option(help=help_text, metavar=_metavar(name, info.annotation))
    # Built at run time from the schema, for typer to read: no static type to check.
    annotation = Annotated[_option_type(info.annotation), option]  # type: ignore[valid-type]
    kind = inspect.Parameter.KEYWORD_ONLY
    return inspect.Parameter(name, kind, default=default, annotation=annotation)


def _field_at(schema: type[BaseModel], loc: tuple[int | str, ...]) -> FieldInfo | None:
    """The field an error's location points at, through nested models and lists."""
    from pydantic import BaseModel

    model: type[BaseModel] | None = schema
    info = None
    for part in loc:
        if isinstance(part, int):
            continue  # an index into a list of models
        if model is None or part not in model.model_fields:
            return None
        info = model.model_fields[part]
        inner = (info.annotation, *get_args(info.annotation))
        model = next((a for a in inner if isinstance(a, type) and issubclass(a, BaseModel)), None)
    return info


def invalid(schema: type[BaseModel], exc: ValidationError) -> typer.Exit:
    """The first error as the API's 422 names it: the field, and its values if a choice."""
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"])
    info = _field_at(schema, error["loc"])
    valid = list(_choices(info.annotation)) if info is not None else []
    if error["type"] == "literal_error" and valid:
        return fail(f"{field}: unknown value {error['input']!r}", valid)
    return fail(f"{field}: {error['msg']}")


def schema_options(
    schema: type[Schema], *, exclude: tuple[str, ...] = ()
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Give the decorated command one option per field of `schema`; the command receives
    the validated request as its first argument and its own options after it."""

    from pydantic import ValidationError

    def decorate(command: Callable[..., None]) -> Callable[..., None]:
        fields = {n: f for n, f in schema.model_fields.items() if n not in exclude}
        own = [
            p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            for p in list(inspect.signature(command, eval_str=True).parameters.values())[1:]
        ]

        @functools.wraps(command)
        def run(**values: Any) -> None:
            given = {name: values.pop(name) for name in fields}
            try:
                request = schema.model_validate(given)
            except ValidationError as exc:
                raise invalid(schema, exc) from None
            command(request, **values)

        params = [_parameter(n, f) for n, f in fields.items()]
        run.__signature__ = inspect.Signature(params + own)  # type: ignore[attr-defined]
        run.__annotations__ = {}
        del run.__wrapped__  # typer reads the signature above, not the command's
        return run

    return decorate
