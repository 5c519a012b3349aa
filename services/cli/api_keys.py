"""`gpu-advisor api-keys`: create, list and revoke API keys."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from services.cli.lazy import Group

# The commands import the database layer when they run: `api-keys --help` needs none of it.
app = typer.Typer(
    help="API keys for write endpoints (alerts, prices).", no_args_is_help=True, cls=Group
)


@app.command("create")
def create(
    name: Annotated[str, typer.Option(help="who or what uses the key")],
    scope: Annotated[str, typer.Option(help="read or write")] = "write",
    all_quotes: Annotated[
        bool,
        typer.Option(
            "--all-quotes",
            help="sees every key's posted quotes and the operator's, and its alerts fire on "
            "them (operators' keys); without it a key sees only its own",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON line: id and key")] = False,
) -> None:
    """Create a key; it is printed once and only its hash is stored."""
    from services.cli.context import cli_context
    from shared.alerts.keys import SCOPES, create_key

    if scope not in SCOPES:
        typer.echo(f"error: scope: invalid {scope!r}; valid values: {', '.join(SCOPES)}", err=True)
        raise typer.Exit(2)
    try:
        with cli_context() as ctx, ctx.session() as session:
            created = create_key(session, name, scope, all_quotes=all_quotes)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(
            json.dumps({"id": created.id, "key": created.key, "all_quotes": created.all_quotes})
        )
        return
    quotes = ", all quotes" if created.all_quotes else ""
    typer.echo(f"key {created.id} ({created.name}, {created.scope}{quotes}): {created.key}")
    typer.echo("Store it now: it is not shown again.")


@app.command("list")
def list_command() -> None:
    """Keys with their prefix, scope, whose quotes they see (own or all) and state (never
    the key)."""
    from services.cli.context import cli_context
    from shared.alerts.keys import list_keys

    with cli_context() as ctx, ctx.session() as session:
        for key in list_keys(session):
            state = f"revoked {key.revoked_at.isoformat()}" if key.revoked_at else "active"
            quotes = "all-quotes" if key.all_quotes else "own-quotes"
            typer.echo(f"{key.id}\t{key.name}\t{key.scope}\t{quotes}\tgpa_{key.prefix}_…\t{state}")


@app.command("revoke")
def revoke(key_id: Annotated[int, typer.Argument(help="the key's id")]) -> None:
    """Revoke a key; requests with it fail at once."""
    from services.cli.context import cli_context
    from shared.alerts.keys import revoke_key

    with cli_context() as ctx, ctx.session() as session:
        done = revoke_key(session, key_id)
    if not done:
        typer.echo(f"error: no active key with id {key_id}", err=True)
        raise typer.Exit(2)
    typer.echo(f"key {key_id} revoked")
