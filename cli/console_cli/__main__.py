"""``python -m console_cli``: the same as the ``console-cli`` command."""

from console_cli.main import main

main()
