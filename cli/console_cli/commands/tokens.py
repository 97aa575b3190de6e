"""``console-cli tokens``: the account's access tokens (README "Automation"): list and revoke.
Managing tokens is a signed-in person's work (an Owner's or an Admin's session token in
``CONSOLE_TOKEN``): an access token itself is refused by these operations."""

from __future__ import annotations

import uuid

import click

from console_cli.console import Console, json_option, pass_console
from console_cli.errors import expect, expect_no_content
from console_cli.generated.api.users import list_access_tokens, revoke_access_token
from console_cli.generated.models import AccessTokens
from console_cli.output import show

HEADERS = ("ID", "NAME", "TOKEN", "STATUS", "SCOPES", "CREATED BY", "EXPIRES", "LAST USED")


@click.group()
def tokens() -> None:
    """The account's access tokens, for scripts and CI. Listing and revoking need an Owner's
    or an Admin's own sign-in; create tokens in the console."""


@tokens.command("list")
@json_option
@pass_console
def list_(console: Console) -> None:
    """List the account's access tokens, newest first (revoked and expired ones included)."""
    found = expect(list_access_tokens.sync_detailed(client=console.client), AccessTokens)
    show(
        console,
        found.to_dict(),
        HEADERS,
        [
            (
                t.id,
                t.name,
                t.masked,
                t.status,
                " ".join(t.scopes),
                t.created_by,
                t.expires_at.isoformat(),
                t.last_used_at.isoformat() if t.last_used_at else "never",
            )
            for t in found.tokens
        ],
    )


@tokens.command()
@click.argument("token_id", type=click.UUID)
@pass_console
def revoke(console: Console, token_id: uuid.UUID) -> None:
    """Revoke the token TOKEN_ID: its next request is refused."""
    expect_no_content(revoke_access_token.sync_detailed(token_id, client=console.client))
    click.echo(f"revoked {token_id}")
