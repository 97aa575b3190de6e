"""``python -m api.app.commands.reconcile [--fix]``: compare every account that has a Stripe
customer
with Stripe and print one line per difference; ``--fix`` repairs them, Stripe winning (what
is compared and fixed: ``api/billing/reconcile.py``).

Exit code: 0 when everything is in step (or was fixed), 1 when differences remain.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from api.billing.reconcile import run
from api.kernel.config import Settings


def main() -> None:
    """Parse ``--fix``, reconcile, print the lines and exit with the report's code."""
    parser = argparse.ArgumentParser(
        prog="python -m api.app.commands.reconcile",
        description="Reconcile our billing state with Stripe's.",
    )
    parser.add_argument("--fix", action="store_true", help="repair the differences (Stripe wins)")
    lines, code = asyncio.run(run(Settings(), fix=parser.parse_args().fix))
    for line in lines:
        print(line)
    sys.exit(code)


if __name__ == "__main__":
    main()
