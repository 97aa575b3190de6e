"""``console-cli usage``: the account's metered usage (the contract's ``usage`` tag). Each command
is a module of this package, added to the group by being here: a new way to read usage (a range
of days, say) is one more module defining ``command``. Modules whose name starts with ``_``
are helpers."""

from __future__ import annotations

import importlib
import pkgutil

import click


@click.group()
def usage() -> None:
    """Read the account's usage: over any range, or per billing cycle."""


for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        usage.add_command(importlib.import_module(f"{__name__}.{_module.name}").command)
