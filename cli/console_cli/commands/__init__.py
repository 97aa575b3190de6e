"""The groups of commands, one module (or package) per part of the console: each uses the
generated client's operations of one tag of the contract."""

from __future__ import annotations

import click

from console_cli.commands.audit import audit
from console_cli.commands.keys import keys
from console_cli.commands.tokens import tokens
from console_cli.commands.usage import usage
from console_cli.commands.users import users

GROUPS: tuple[click.Group, ...] = (users, keys, tokens, audit, usage)
"""What ``console-cli`` offers (``--help`` lists them by name)."""
