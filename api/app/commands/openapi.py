"""Write the /web contract: ``python -m api.app.commands.openapi`` (to openapi.json) or
``--stdout``.

The document is built from a production-configured app (no stand-in routes), with sorted keys
so it is identical in every environment.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from api.app.web import create_app
from api.kernel.config import Settings

OPENAPI_PATH = Path(__file__).resolve().parents[3] / "openapi.json"


def contract() -> str:
    """The OpenAPI document as canonical JSON text (sorted keys, 2-space indent, newline)."""
    app = create_app(Settings(environment="production", dev_stand_ins=False, web_dist=""))
    document: dict[str, Any] = app.openapi()
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def main(argv: list[str]) -> None:
    """Entry point: ``--stdout`` prints, otherwise writes openapi.json at the repo root."""
    text = contract()
    if "--stdout" in argv:
        sys.stdout.write(text)
    else:
        OPENAPI_PATH.write_text(text)


if __name__ == "__main__":
    main(sys.argv[1:])
