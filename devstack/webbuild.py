"""Build the SPA into web/dist when its sources changed since the last build.

    python -m devstack.webbuild

The hash of every source file (web/ minus node_modules and dist) is kept in
``web/dist/.source-hash``; ``npm ci`` runs when package-lock.json is newer than the installed
packages. ``make test-web`` builds through here, so the dev stacks that ``make test`` starts
afterwards (end-to-end, fuzzing, contract) find the build of the same sources and do not build
it again.
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Callable
from pathlib import Path

from devstack.services import ROOT

WEB = ROOT / "web"
_SKIP = {"node_modules", "dist", "test-results", ".vite"}


def source_hash(web: Path = WEB) -> str:
    """SHA-256 over the relative paths and contents of the SPA's sources."""
    digest = hashlib.sha256()
    for path in sorted(web.rglob("*")):
        rel = path.relative_to(web)
        if path.is_file() and not _SKIP.intersection(rel.parts):
            digest.update(str(rel).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def build_if_changed(say: Callable[[str], None]) -> None:
    """``npm ci`` if needed, then ``npm run build`` if the sources changed."""
    installed = WEB / "node_modules" / ".package-lock.json"
    lock = WEB / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        say("installing web packages (npm ci)")
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=WEB, check=True)
    stamp = WEB / "dist" / ".source-hash"
    current = source_hash()
    if stamp.exists() and stamp.read_text() == current:
        return
    say("building the web app")
    subprocess.run(["npm", "run", "build"], cwd=WEB, check=True)
    stamp.write_text(current)


if __name__ == "__main__":
    build_if_changed(print)
