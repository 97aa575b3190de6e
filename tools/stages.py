"""``make test``'s stages, one after the other, with each stage's time printed at the end.

    python -m tools.stages lint audit test-api ...

Runs ``make <stage>`` for each stage in order and stops at the first that fails; either way it
ends with a table of the stages run and their wall-clock times (seconds), so a slow stage is
seen in every CI log. Exits with the failing stage's status.
"""

from __future__ import annotations

import subprocess
import sys
import time


def main(stages: list[str]) -> int:
    """Run ``stages``; returns the exit status (0, or the first failing stage's)."""
    times: list[tuple[str, float, int]] = []
    status = 0
    for stage in stages:
        started = time.monotonic()
        status = subprocess.call(["make", "--no-print-directory", stage])
        times.append((stage, time.monotonic() - started, status))
        if status != 0:
            break
    total = sum(seconds for _, seconds, _ in times)
    print("\nmake test stages (wall clock):")
    for stage, seconds, code in times:
        print(f"  {stage:<15} {seconds:7.1f} s{'  FAILED' if code else ''}")
    print(f"  {'total':<15} {total:7.1f} s ({total / 60:.1f} min)")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
