"""``console-cli users``: the account's users (the contract's ``users`` tag, and the users of
``GET /web/account``): list, invite, set a role, remove. A user is named by their email or id."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from console_cli.console import Console, json_option, pass_console
from console_cli.errors import CliError, ExitCode, expect, expect_no_content
from console_cli.generated.api.account import get_account
from console_cli.generated.api.users import delete_user, invite_user, update_user
from console_cli.generated.models import (
    AccountResponse,
    AccountUser,
    Role,
    UserCreate,
    UserResponse,
    UserUpdate,
)
from console_cli.output import print_json, show

ROLE = click.Choice([role.value for role in Role], case_sensitive=False)  # gives the value
HEADERS = ("ID", "EMAIL", "NAME", "ROLE", "STATUS")


@click.group()
def users() -> None:
    """Manage the account's users. Owners and Admins change them; only Owners change Owners or
    make Owners."""


@users.command("list")
@json_option
@pass_console
def list_users(console: Console) -> None:
    """List the account's users and their roles."""
    found = account_users(console)
    show(console, [user.to_dict() for user in found], HEADERS, [_row(user) for user in found])


@users.command()
@click.argument("email")
@click.option("--first-name", required=True, help="Their first name.")
@click.option("--last-name", required=True, help="Their last name.")
@click.option("--role", type=ROLE, help="Their role (the console's default: Admin).")
@json_option
@pass_console
def invite(console: Console, email: str, first_name: str, last_name: str, role: str | None) -> None:
    """Invite EMAIL to the account. The console emails them a temporary password; they are
    Pending until they first sign in with it."""
    body = UserCreate(email=email, first_name=first_name, last_name=last_name)
    if role is not None:
        body.role = Role(role)
    answer = invite_user.sync_detailed(client=console.client, body=body)
    _show_user(console, expect(answer, UserResponse).user)


@users.command("set-role")
@click.argument("user")
@click.argument("role", type=ROLE)
@json_option
@pass_console
def set_role(console: Console, user: str, role: str) -> None:
    """Give USER the ROLE Owner, Admin or Member. USER is their email or id."""
    current = find_user(account_users(console), user)
    body = UserUpdate(first_name=current.first_name, last_name=current.last_name, role=Role(role))
    answer = update_user.sync_detailed(current.id, client=console.client, body=body)
    _show_user(console, expect(answer, UserResponse).user)


@users.command()
@click.argument("user")
@json_option
@pass_console
def remove(console: Console, user: str) -> None:
    """Remove USER from the account. USER is their email or id; invited or not, they cannot
    join the account again until invited."""
    current = find_user(account_users(console), user)
    expect_no_content(delete_user.sync_detailed(current.id, client=console.client))
    if console.json:
        print_json(current.to_dict())  # the user as they were
    else:
        click.echo(f"Removed {current.email}.")


def account_users(console: Console) -> list[AccountUser]:
    """The users of the caller's account (``GET /web/account``)."""
    answer = get_account.sync_detailed(client=console.client)
    return expect(answer, AccountResponse).account.users


def find_user(found: Sequence[AccountUser], reference: str) -> AccountUser:
    """The user of ``found`` whose email or id is ``reference``; not found is an error."""
    wanted = reference.strip().lower()
    for user in found:
        if wanted in (user.email.lower(), str(user.id)):
            return user
    raise CliError("NotFound", f"no user {reference} in the account", ExitCode.NOT_FOUND)


def _row(user: AccountUser) -> tuple[Any, ...]:
    name = f"{user.first_name} {user.last_name}"
    return (user.id, user.email, name, user.role, user.status)


def _show_user(console: Console, user: AccountUser) -> None:
    show(console, user.to_dict(), HEADERS, [_row(user)])
