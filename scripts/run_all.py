"""Run every numbered demo script (scripts/NN_*.py) in order, each under a header.

Exits non-zero if any script fails. Works from any working directory; offline, no API key.
Usage: python3 scripts/run_all.py [--list] [--svg DIR] [--csv DIR] | --vs-handout [text|markdown] [--all]
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
    parser.add_argument("--vs-handout", nargs="?", const="text", choices=["text", "markdown"],
                        help="instead of the demos, list every figure handout 001 states that this run prints "
                             "differently, with why: a table (text), or README's Markdown rows (markdown)")
    parser.add_argument("--all", action="store_true", help="with --vs-handout: the figures that agree too")
    parser.add_argument("--svg", metavar="DIR", help="also write every script's charts into DIR as SVG files")
    parser.add_argument("--csv", metavar="DIR", help="also write every table the scripts print into DIR as CSV files")
    args = parser.parse_args()
    if args.vs_handout:
        code, text = crosswalk(args.vs_handout, args.all)
        print(text)
        return code
    failed = []
    extra = [flag for name in ("svg", "csv") if getattr(args, name) for flag in (f"--{name}",
                                                                                   os.path.abspath(getattr(args, name)))]
    for script in numbered_scripts():
        if args.list:
            print(script.name)
            continue
        print(f"\n{'#' * 100}\n# {script.name}\n{'#' * 100}\n", flush=True)
        began = time.perf_counter()
        code = subprocess.call([sys.executable, str(script), *extra], cwd=HERE.parent)
        if code:
            failed.append(script.name)
            print(f"\n!! {script.name} exited with status {code}", flush=True)
        print(f"\n[{script.name}: {'ok' if not code else 'FAILED'}, {time.perf_counter() - began:.2f} s]", file=sys.stderr)
    if failed:
        print(f"\n{len(failed)} script(s) failed: {', '.join(failed)}")
    return 1 if failed else 0


def crosswalk(style: str, every_row: bool, markdown_rows=None) -> tuple[int, str]:
    """The crosswalk with handout 001 of scripts 01 to 07 (each script's --vs-handout markdown rows): the rows that
    differ, or every row; as a text table, or as README's Markdown table. Return the exit status and the text.

    markdown_rows(script) -> (exit status, its rows) runs the script (a test hands in the rows it already has)."""
    sys.path.insert(0, str(HERE.parent))
    import tool_core
    header, rows, failed = [], [], []
    for script in numbered_scripts():
        code, lines = (markdown_rows or _markdown_rows)(script)
        if code:
            failed.append(script.name)
        header = header or lines[:2]
        rows += [line for line in lines[2:] if every_row or not line.endswith("| the same |")]
    if style == "markdown":
        return 1 if failed else 0, "\n".join(header + rows)
    table = tool_core.format_table(tool_core.HANDOUT_HEADERS, [tool_core.markdown_cells(line) for line in rows],
                                   [0, 0, 0, 22, 16, 16, 34])
    return 1 if failed else 0, (f"{table}\n\n{len(rows)} figures of handout 001" + (
        " in all" if every_row else " that this run prints differently (--all: every figure)")
        + "; --vs-handout markdown --all prints README's table.")


def _markdown_rows(script: Path) -> tuple[int, list[str]]:
    done = subprocess.run([sys.executable, str(script), "--vs-handout", "markdown"], cwd=HERE.parent,
                          capture_output=True, text=True)
    if done.returncode:
        print(done.stderr, file=sys.stderr)
    return done.returncode, [line for line in done.stdout.splitlines() if line.startswith("|")]


if __name__ == "__main__":
    try:
        status = main()
        sys.stdout.flush()  # what is still buffered fails here, inside the try, not at the interpreter's exit
    except BrokenPipeError:  # a reader that stops early (| head): end quietly, as tool_core.quiet_broken_pipe does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    sys.exit(status)
