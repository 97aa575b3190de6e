"""The handbook: the documentation site built from ``docs/`` by MkDocs (Material theme), and
its API reference page built from ``openapi.json`` by Redocly CLI.

    python -m tools.handbook --strict   # make docs (and so make test): fail on any warning
    python -m tools.handbook            # what make dev runs when the sources changed

Both run ``python -m mkdocs build [--strict]`` into ``site/`` (git-ignored) and then record the
hash of the sources (:data:`SOURCES`) in ``site/.source-hash``, so the dev stack rebuilds only
when a page, ``mkdocs.yml``, ``openapi.json`` or this file changed (as devstack/webbuild.py does
for the SPA). ``--strict`` also refuses a README of :data:`README_MAX_LINES` lines or more: the
README is the one screen a newcomer reads, everything else is a page here.

This file is also the MkDocs hook of ``mkdocs.yml`` (``hooks:``): :func:`on_files` runs
``redocly build-docs`` (pinned in ``tools/contract/package-lock.json``) on ``openapi.json`` and
adds the page to the site as ``reference/index.html``, so the reference is made at every build
and never committed. docs/contributors/handbook.md says how the site is put together.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # MkDocs is imported only by the build (the dev stack imports this module)
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"
STAMP = ".source-hash"
SOURCES = ("mkdocs.yml", "docs", "openapi.json", "tools/handbook.py")
REFERENCE_URI = "reference/index.html"
REDOCLY = ROOT / "tools" / "contract" / "node_modules" / ".bin" / "redocly"
README_MAX_LINES = 150


def source_hash(root: Path = ROOT) -> str:
    """SHA-256 (hex) over the relative paths and contents of every file of :data:`SOURCES`."""
    digest = hashlib.sha256()
    for source in SOURCES:
        path = root / source
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            digest.update(str(file.relative_to(root)).encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def readme_problem(root: Path = ROOT) -> str | None:
    """Why the README is too long for one screen (:data:`README_MAX_LINES` lines or more), or
    None when it is short enough."""
    lines = len((root / "README.md").read_text().splitlines())
    if lines < README_MAX_LINES:
        return None
    return (
        f"README.md has {lines} lines; keep it under {README_MAX_LINES} (what this is, the two "
        "commands, the demo sign-ins, links) and move the rest to a page of docs/"
    )


def build(*, strict: bool, site: Path = SITE) -> subprocess.CompletedProcess[str]:
    """Build the site into ``site`` with MkDocs, then stamp it with :func:`source_hash`.

    Returns the finished ``mkdocs build`` (its ``stdout`` holds MkDocs' log, stderr merged);
    the stamp is written only when it exited 0.
    """
    command = [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site)]
    if strict:
        command.append("--strict")
    current = source_hash()
    done = subprocess.run(
        command,
        cwd=ROOT,
        # Material's banner about MkDocs 2.0 and its own end of life (May 2027) at every build:
        # known, and said once in docs/contributors/handbook.md.
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    if done.returncode == 0:
        (site / STAMP).write_text(current)
    return done


def build_if_changed(say: Callable[[str], None], site: Path = SITE) -> bool:
    """Build the site unless ``site`` was built from the current sources (make dev).

    Not strict: a page with a broken link still builds, and a failed build is reported through
    ``say`` rather than raised, so the console starts without its handbook. Returns whether
    ``site`` holds a built site.
    """
    stamp = site / STAMP
    if stamp.is_file() and stamp.read_text() == source_hash():
        return True
    say("building the handbook (docs/ with MkDocs)")
    done = build(strict=False, site=site)
    if done.returncode != 0:
        say(f"the handbook did not build, going on without it:\n{done.stdout[-3000:]}")
        return False
    return True


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """MkDocs hook: add the API reference (Redocly CLI's page of ``openapi.json``, its scripts
    inlined so it needs no CDN) to the site's files as :data:`REFERENCE_URI`.

    Raises:
        PluginError: Redocly CLI is not installed (``make docs`` installs it) or failed; the
            message carries its output.
    """
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.files import File

    if not REDOCLY.exists():
        raise PluginError(f"{REDOCLY} is missing: run `make docs` (it installs Redocly CLI)")
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "index.html"
        done = subprocess.run(
            [
                str(REDOCLY),
                "build-docs",
                "openapi.json",
                "--inlineBundle",
                "--title",
                "Account console API reference",
                "--output",
                str(output),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            check=False,
        )
        if done.returncode != 0 or not output.is_file():
            raise PluginError(f"redocly build-docs failed:\n{done.stdout[-3000:]}")
        files.append(File.generated(config, REFERENCE_URI, content=output.read_bytes()))
    return files


def main() -> int:
    """``make docs``: exit 0 when the site built (and, with ``--strict``, the README is short)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--strict", action="store_true", help="fail on any MkDocs warning")
    args = parser.parse_args()
    if args.strict and (problem := readme_problem()):
        print(problem, file=sys.stderr)
        return 1
    done = build(strict=args.strict)
    print(done.stdout, end="")
    if done.returncode == 0:
        print(f"handbook built into {SITE.relative_to(ROOT)}/")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
