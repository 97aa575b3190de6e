"""``python -m api.app.commands.audit_federation [--fix]``: check the users recorded as Google or
GitHub
sign-ins against what Cognito asserts (``api/identity/sso/audit_federation.py``), against the
configured database and user pool.

Prints one line per user whose record Cognito does not back (``--fix`` records them as email
users) and a summary; exits 1 when it found any, so it can run in a deploy pipeline.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from api.adapters.cognito import CognitoClient
from api.identity.sso.audit_federation import audit
from api.kernel.config import Settings
from api.kernel.db import create_engine, create_sessionmaker


async def _main(fix: bool) -> int:
    settings = Settings()
    settings.check()
    engine = create_engine(settings.database_url, 2)
    cognito = CognitoClient.from_settings(settings)
    try:
        async with create_sessionmaker(engine)() as db, db.begin():
            findings = await audit(db, cognito, fix=fix)
    finally:
        await cognito.aclose()
        await engine.dispose()
    for finding in findings:
        print(finding)
    print(f"{len(findings)} user(s) not backed by Cognito" + (", fixed" if fix else ""))
    return 1 if findings else 0


def main() -> None:
    """Parse ``--fix`` and run the audit against the configured database and pool."""
    parser = argparse.ArgumentParser(
        description="Check the users recorded as Google or GitHub sign-ins against Cognito."
    )
    parser.add_argument("--fix", action="store_true", help="record them as email users")
    sys.exit(asyncio.run(_main(parser.parse_args().fix)))


if __name__ == "__main__":
    main()
