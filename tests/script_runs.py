"""Every subprocess run of a demo script, in one place: each runs once per test process, in the background, and
every test that reads it shares its output.

The table, for each numbered script scripts/NN_*.py, run as a user runs it (no API key in the environment):

    "root"       python3 scripts/NN_x.py               from the repository root, a relative path   PYTHONHASHSEED=1
    "elsewhere"  python3 /.../scripts/NN_x.py [--seed 0]   from an empty temporary folder, an absolute path,
                                                       with the default seed said where there is a --seed  PYTHONHASHSEED=2
    "seed 1"     python3 scripts/NN_x.py --seed 1      from the root, only where the script has a --seed    PYTHONHASHSEED=3

Different hash seeds make output that depends on set or dict order show up as different bytes. Other commands
(the README's) go through command(); one that is a run of the table is not run again.

A test module names the scripts it reads when it is imported (prefetch), so that during discovery every run the
suite needs is queued before the first test starts. Worker threads (one fewer than the CPUs, at least one) work
through the queue while the in-process tests run; result() waits only for a run not done yet, and runs it at once
if it is still queued. Runs no test read are killed when the process exits.

    import script_runs
    script_runs.prefetch("05_many_tools.py")
    code, out, err = script_runs.result("05_many_tools.py", "seed 1")

in_process() runs a script's main (as __main__) in this process instead: for --help and usage errors, which
need no fresh interpreter.
"""
import atexit
import contextlib
import functools
import io
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import types
from pathlib import Path
from typing import NamedTuple
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
NUMBERED = sorted(p.name for p in SCRIPTS.glob("[0-9][0-9]_*.py"))
VARIANTS = ("root", "elsewhere", "seed 1")
ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(ROOT)}  # no API key: the offline paths
TIMEOUT = 120  # seconds for one run; a run past it is killed and reported with returncode None


class Result(NamedTuple):
    returncode: int | None
    stdout: str
    stderr: str


def has_seed(script: str) -> bool:
    """Whether scripts/<script> takes a --seed (its argparse says so)."""
    return '"--seed"' in (SCRIPTS / script).read_text(encoding="utf-8")


def variants(script: str) -> tuple[str, ...]:
    """The table's runs of one script."""
    return VARIANTS if has_seed(script) else VARIANTS[:2]


class _Run:
    def __init__(self, argv: tuple[str, ...], cwd: Path, env: dict):
        self.argv, self.cwd, self.env = argv, cwd, env
        self.claimed, self.done, self.process, self.result = False, threading.Event(), None, None


_LOCK = threading.Lock()
_RUNS: dict[object, _Run] = {}
_QUEUE: "queue.Queue[_Run]" = queue.Queue()
_WORKERS: list[threading.Thread] = []
_STOPPED = threading.Event()
_ELSEWHERE = tempfile.TemporaryDirectory(prefix="script-runs-")


def _execute(run: _Run) -> None:
    """Run it here unless another thread has it already; then wait until it is done."""
    with _LOCK:
        mine = not run.claimed
        run.claimed = True
    if mine:
        try:
            if _STOPPED.is_set():
                raise RuntimeError("the test process is exiting")
            run.process = subprocess.Popen([sys.executable, *run.argv], cwd=run.cwd, env=run.env, encoding="utf-8",
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                out, err = run.process.communicate(timeout=TIMEOUT)
                run.result = Result(run.process.returncode, out, err)
            except subprocess.TimeoutExpired:
                run.process.kill()
                out, err = run.process.communicate()
                run.result = Result(None, out, err + f"\n[killed after {TIMEOUT} s]")
        except Exception as exc:  # noqa: BLE001 - reported to the test that reads the run
            run.result = Result(None, "", f"[could not run: {exc!r}]")
        finally:
            run.done.set()
    run.done.wait()


def _work() -> None:
    while True:
        _execute(_QUEUE.get())


def _start(key: object, argv: tuple[str, ...], cwd: Path, env: dict) -> None:
    with _LOCK:
        if key in _RUNS:
            return
        _RUNS[key] = run = _Run(argv, cwd, env)
        if not _WORKERS:  # one fewer than the CPUs: the tests in this process keep one
            for _ in range(max(1, (os.cpu_count() or 2) - 1)):
                _WORKERS.append(threading.Thread(target=_work, daemon=True, name="script-runs"))
                _WORKERS[-1].start()
    _QUEUE.put(run)


def _table_run(script: str, variant: str) -> tuple[tuple[str, ...], Path, dict]:
    if variant not in variants(script):
        raise KeyError(f"{script} has no run {variant!r} in the table (it has {', '.join(variants(script))})")
    relative, absolute = f"scripts/{script}", str(SCRIPTS / script)
    argv, cwd, hashseed = {"root": ((relative,), ROOT, "1"),
                           "elsewhere": ((absolute, *(("--seed", "0") if has_seed(script) else ())),
                                         Path(_ELSEWHERE.name), "2"),
                           "seed 1": ((relative, "--seed", "1"), ROOT, "3")}[variant]
    return argv, cwd, ENV | {"PYTHONHASHSEED": hashseed}


def prefetch(*scripts: str) -> None:
    """Queue every run of the table for these scripts (all numbered scripts when none is named)."""
    for script in scripts or NUMBERED:
        for variant in variants(script):
            _start((script, variant), *_table_run(script, variant))


def result(script: str, variant: str = "root") -> Result:
    """(returncode, stdout, stderr) of one run of the table, e.g. result("06_evaluation.py", "seed 1")."""
    key = (script, variant)
    _start(key, *_table_run(script, variant))
    _execute(_RUNS[key])
    return _RUNS[key].result


def _lookup(argv: tuple[str, ...], cwd: Path, env: dict) -> tuple[object, tuple[tuple[str, ...], Path, dict]]:
    """The key and (argv, cwd, env) of a command: the table's run when it is one, else the command's own."""
    script = argv[0].removeprefix("scripts/") if argv else ""
    if cwd == ROOT and env == ENV and script in NUMBERED:
        for variant in variants(script):
            run = _table_run(script, variant)
            if run[:2] == (argv, cwd):
                return (script, variant), run
    return ("command", argv, str(cwd), tuple(sorted(env.items()))), (argv, cwd, env)


def queue_command(*argv: str, cwd: Path = ROOT, env: dict | None = None) -> None:
    """Queue `python3 argv...` (run with sys.executable) to run in the background; env defaults to ENV."""
    key, run = _lookup(argv, cwd, ENV if env is None else env)
    _start(key, *run)


def command(*argv: str, cwd: Path = ROOT, env: dict | None = None) -> Result:
    """(returncode, stdout, stderr) of `python3 argv...`: queued by queue_command, or run now."""
    key, run = _lookup(argv, cwd, ENV if env is None else env)
    _start(key, *run)
    _execute(_RUNS[key])
    return _RUNS[key].result


def sections(out: str) -> dict[str, str]:
    """A demo script's stdout as {title: body}, undoing tool_core.print_demos: '=== title ===', a blank line, the
    body, and a blank line before the next banner."""
    parts = re.split(r"(?m)^=== (.*) ===\n\n", out)
    if parts[0]:
        raise ValueError(f"text before the first banner: {parts[0][:80]!r}")
    titles, bodies = parts[1::2], [body.removesuffix("\n") for body in parts[2::2]]  # print's own newline
    bodies[:-1] = [body.removesuffix("\n") for body in bodies[:-1]]  # the blank line before the next banner
    return dict(zip(titles, bodies))


@functools.cache
def _code(path: Path, stamp: tuple[int, int]):
    """The file compiled once (per version of it): interfaces.py takes 0.07 s to compile."""
    return compile(path.read_bytes(), str(path), "exec")


def in_process(path: str | Path, *args: str) -> Result:
    """Run a Python file as __main__ in this process with these arguments; (exit code, stdout, stderr).

    As runpy.run_path does: a fresh module named __main__ stands in sys.modules while it runs. The exit code is
    what the interpreter would make of it: 0 when it returns, SystemExit's code, or 1 with the message on stderr when
    sys.exit is given a string. sys.argv, sys.path and sys.modules["__main__"] are restored afterwards."""
    path = Path(path)
    stat = path.stat()
    code_object = _code(path, (stat.st_mtime_ns, stat.st_size))
    module = types.ModuleType("__main__")
    module.__file__ = str(path)
    out, err, code = io.StringIO(), io.StringIO(), 0
    saved_path, saved_main = list(sys.path), sys.modules["__main__"]
    try:
        sys.modules["__main__"] = module
        with mock.patch.object(sys, "argv", [str(path), *args]), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            try:
                exec(code_object, module.__dict__)
            except SystemExit as exit_:
                if exit_.code is None or isinstance(exit_.code, int):
                    code = exit_.code or 0
                else:
                    print(exit_.code, file=sys.stderr)
                    code = 1
    finally:
        sys.path[:], sys.modules["__main__"] = saved_path, saved_main
    return Result(code, out.getvalue(), err.getvalue())


@atexit.register
def _stop() -> None:
    """Start nothing more, kill what still runs, and remove the temporary folder."""
    _STOPPED.set()
    with _LOCK:
        for run in _RUNS.values():
            run.claimed = True  # a queued run stays unstarted
            if run.process is not None and run.process.poll() is None:
                run.process.kill()
    _ELSEWHERE.cleanup()

