"""Run every numbered demo script (scripts/NN_*.py) in order, each under a header.

Exits non-zero if any script fails. Works from any working directory; offline, no API key.
Usage: python3 scripts/run_all.py [--list]
"""
import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def numbered_scripts() -> list[Path]:
    """Return scripts/NN_*.py, sorted by their number."""
    return sorted(p for p in HERE.glob("[0-9][0-9]_*.py"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="only list the scripts that would run")
    args = parser.parse_args()
    failed = []
    for script in numbered_scripts():
        if args.list:
            print(script.name)
            continue
        print(f"\n{'#' * 100}\n# {script.name}\n{'#' * 100}\n", flush=True)
        began = time.perf_counter()
        code = subprocess.call([sys.executable, str(script)], cwd=HERE.parent)
        if code:
            failed.append(script.name)
            print(f"\n!! {script.name} exited with status {code}", flush=True)
        print(f"\n[{script.name}: {'ok' if not code else 'FAILED'}, {time.perf_counter() - began:.2f} s]", file=sys.stderr)
    if failed:
        print(f"\n{len(failed)} script(s) failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
