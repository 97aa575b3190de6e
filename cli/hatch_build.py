"""The build hook of console-cli: the console's Python client, generated from the contract by
openapi-python-client (pinned in ``[build-system] requires``) while the package is built, into
``console_cli/generated``. It is never committed nor edited by hand; the contract decides it.

- wheel: generated into a temporary folder and put into the wheel as ``console_cli/generated``;
- editable install (``pip install -e``): generated into the source tree, where the editable
  install imports it from (the folder is git-ignored and left out of every build);
- sdist: the contract itself goes into the sdist (``openapi.json`` beside this file), so a wheel
  built from the sdist generates the same client.

The contract is ``openapi.json`` beside this file when there is one (an unpacked sdist), else the
repository's ``../openapi.json``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PACKAGE_PATH = "console_cli/generated"
CONTRACT = "openapi.json"
GENERATOR_CONFIG = "openapi-python-client.yaml"


class CustomBuildHook(BuildHookInterface):
    """Generates the client before the wheel is built; ships the contract in the sdist."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Called by hatchling before each target is built."""
        root = Path(self.root)
        contract = self._contract(root)
        if self.target_name == "sdist":
            build_data["force_include"][str(contract)] = CONTRACT
            return
        if version == "editable":
            generate(contract, root / PACKAGE_PATH, root / GENERATOR_CONFIG)
            return
        self._scratch = tempfile.mkdtemp(prefix="console-cli-client-")
        output = Path(self._scratch) / "generated"
        generate(contract, output, root / GENERATOR_CONFIG)
        build_data["force_include"][str(output)] = PACKAGE_PATH

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Called by hatchling once the target is built: the temporary client goes."""
        scratch = getattr(self, "_scratch", None)
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)

    @staticmethod
    def _contract(root: Path) -> Path:
        for candidate in (root / CONTRACT, root.parent / CONTRACT):
            if candidate.is_file():
                return candidate
        raise RuntimeError(
            f"console-cli: no {CONTRACT} beside {root} nor in its parent folder: build it from "
            "the repository's cli/ folder (pip install ./cli) or from its sdist"
        )


def generate(contract: Path, output: Path, config: Path) -> None:
    """Run openapi-python-client on ``contract`` into the package folder ``output``; a warning
    of the generator (a part of the contract it could not type) fails the build."""
    command = [
        sys.executable,
        "-m",
        "openapi_python_client",
        "generate",
        "--path",
        str(contract),
        "--meta",
        "none",
        "--config",
        str(config),
        "--output-path",
        str(output),
        "--overwrite",
        "--fail-on-warning",
    ]
    # NO_COLOR: the generator's messages plain in the build's log.
    result = subprocess.run(  # noqa: S603 (our own interpreter and arguments)
        command,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"console-cli: openapi-python-client failed on {contract}:\n"
            f"{result.stdout}{result.stderr}"
        )
