"""``python -m api.app.commands.new_key``: print a fresh ``API_KEY_ENCRYPTION_KEYS`` value, one
random
AES-256 key named for the current month (``{"2026-11": "q3...="}``; api/kernel/secretbox.py).
"""

from __future__ import annotations

from datetime import UTC, datetime

from api.kernel.secretbox import new_key_json


def main() -> None:
    """Print the new key ring's JSON on stdout."""
    print(new_key_json(datetime.now(UTC).strftime("%Y-%m")))


if __name__ == "__main__":
    main()
