"""Subcommands imported when they run or show their own help, not when the CLI starts.

Typer builds every command's options when any command runs, and the options of `tco`,
`quotes`, `prices`, `model` and `recommend` come from request schemas, some in modules
that import SQLAlchemy and the ORM models; `scrape` imports every scraper adapter. So
`gpu-advisor --help` paid for all of them. A parent's command list needs only each
child's name and help, which `Lazy` states up front; tests/services/cli/test_main.py
checks it against the loaded command. Groups do the same for a command whose schema's
module is heavy (`quotes cluster`, `prices check`, `model predict`), so the group's own
help and its other commands do not pay for it.

`plain_flags` reaches into typer's private coercion (`_runtime_param`, typer pinned in
constraints.txt); test_main.py checks that help screens import no pydantic, so a typer
that changes it fails there rather than only getting slower.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import typer
from typer._coercion import PassThroughRuntimeParam
from typer.core import TyperCommand, TyperGroup


@dataclass(frozen=True)
class Lazy:
    """`module`'s `attribute`, a typer.Typer (a command group) or a command function."""

    module: str
    attribute: str
    help: str  # its first paragraph, as the parent's command list shows it


class LazyCommand(TyperCommand):
    """Stands in a parent's command list; parsing hands over to the loaded command."""

    def __init__(self, name: str, lazy: Lazy) -> None:
        super().__init__(name, help=lazy.help)
        self.lazy = lazy

    @cached_property
    def loaded(self) -> Any:  # typer's own click Command (typer ships a private click)
        target = getattr(importlib.import_module(self.lazy.module), self.lazy.attribute)
        # Registered on a holder app as the eager CLI registered it, so it is built with
        # the same settings and without a second set of shell-completion options.
        holder = typer.Typer(add_completion=False)
        if isinstance(target, typer.Typer):
            holder.add_typer(target, name=self.name)
            group: Any = typer.main.get_command(holder)
            return group.commands[self.name]
        holder.command(self.name)(target)
        return typer.main.get_command(holder)

    def make_context(
        self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any
    ) -> Any:
        # The parent invokes `context.command`, so the loaded command runs from here on.
        return self.loaded.make_context(info_name, args, parent=parent, **extra)


class Group(TyperGroup):
    """A command group whose own flags need no pydantic (see `plain_flags`)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        plain_flags(self.get_params(ctx))
        return super().parse_args(ctx, args)


def lazy_group(lazy: Mapping[str, Lazy], order: Sequence[str]) -> type[TyperGroup]:
    """A group class (for `typer.Typer(cls=...)`) that adds the `lazy` commands to those
    typer built, listed in `order` (any others after them)."""

    class LazyGroup(Group):
        def __init__(self, **attrs: Any) -> None:
            super().__init__(**attrs)
            built = {**self.commands, **{n: LazyCommand(n, entry) for n, entry in lazy.items()}}
            listed = {name: built.pop(name) for name in order if name in built}
            self.commands = {**listed, **built}

    return LazyGroup


def plain_flags(params: Sequence[Any]) -> None:
    """Let the group's bool flags through as click parses them (True, or None when not
    given) instead of through a pydantic TypeAdapter, which typer builds for every
    parameter it processes. The root's --install-completion and --show-completion and a
    group's --help default to None: every subcommand, --help included, imported pydantic
    for the groups above it (about a third of `gpu-advisor db --help`'s time)."""
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        # A value from the environment is text, which only the adapter reads as a bool.
        if descriptor is None or descriptor.annotation is not bool or param.envvar:
            continue
        if getattr(param, "_runtime_param", True) is None:  # not built yet
            param._runtime_param = PassThroughRuntimeParam(
                parameter_info=descriptor.parameter_info, annotation=bool
            )
