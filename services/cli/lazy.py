"""Subcommands imported when they run or show their own help, not when the CLI starts.

Typer builds every command's options when any command runs, and the options of `tco`,
`quotes`, `prices`, `model` and `recommend` come from request schemas, some in modules
that import SQLAlchemy and the ORM models; `scrape` imports every scraper adapter. So
`gpu-advisor --help` paid for all of them. A parent's command list needs only each
child's name and help, which `Lazy` states up front; tests/services/cli/test_main.py
checks it against the loaded command.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import typer
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


def lazy_group(lazy: Mapping[str, Lazy], order: Sequence[str]) -> type[TyperGroup]:
    """A group class (for `typer.Typer(cls=...)`) that adds the `lazy` commands to those
    typer built, listed in `order` (any others after them)."""

    class LazyGroup(TyperGroup):
        def __init__(self, **attrs: Any) -> None:
            super().__init__(**attrs)
            built = {**self.commands, **{n: LazyCommand(n, entry) for n, entry in lazy.items()}}
            listed = {name: built.pop(name) for name in order if name in built}
            self.commands = {**listed, **built}

    return LazyGroup
