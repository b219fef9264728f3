"""Run every numbered demo script (scripts/NN_*.py) in order, each under a header.

Exits non-zero if any script fails. Works from any working directory; offline, no API key.
Usage: python3 scripts/run_all.py [--list]
"""
import argparse
import os
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
    parser.add_argument("--vs-handout", action="store_true",
                        help="print README's table 'Where a run differs from handout 001': every script's "
                             "--vs-handout markdown rows under one header")
    args = parser.parse_args()
    failed = []
    if args.vs_handout:
        header: list[str] = []
        for script in numbered_scripts():
            done = subprocess.run([sys.executable, str(script), "--vs-handout", "markdown"], cwd=HERE.parent,
                                  capture_output=True, text=True)
            if done.returncode:
                failed.append(script.name)
                print(done.stderr, file=sys.stderr)
            rows = [line for line in done.stdout.splitlines() if line.startswith("|")]
            print("\n".join(rows if not header else rows[2:]))
            header = header or rows[:2]
        return 1 if failed else 0
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
    try:
        status = main()
        sys.stdout.flush()  # what is still buffered fails here, inside the try, not at the interpreter's exit
    except BrokenPipeError:  # a reader that stops early (| head): end quietly, as tool_core.quiet_broken_pipe does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    sys.exit(status)
