"""Every subprocess run of a demo script, in one place: each runs once per test process, in the background, and
every test that reads it shares its output.

The table, for each numbered script scripts/NN_*.py, run as a user runs it (no API key in the environment):

    "root"       python3 scripts/NN_x.py               from the repository root, a relative path   PYTHONHASHSEED=1
    "elsewhere"  python3 /.../scripts/NN_x.py [--seed 0]   from an empty temporary folder, an absolute path,
                                                       with the default seed said where there is a --seed  PYTHONHASHSEED=2
    "seed 1"     python3 scripts/NN_x.py --seed 1      from the root, only where the script has a --seed    PYTHONHASHSEED=3

Different hash seeds make output that depends on set or dict order show up as different bytes. Each "root" run is a
fresh interpreter, exactly as a user starts the script; the "elsewhere" runs share fresh interpreters, as do the
"seed 1" runs (BATCHED: a driver runs the scripts one after another as __main__, from that folder, with that hash
seed; the scripts split in BATCH_HALVES batches, started after the root runs), which saves an interpreter start and
the lab's imports per run. Other commands (the README's) go through command(); one that is a run of the table is not
run again.

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
import hashlib
import io
import itertools
import json
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
BATCHED = ("elsewhere", "seed 1")  # one interpreter runs the whole variant; see _DRIVER
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
    def __init__(self, key: object, argv: tuple[str, ...], cwd: Path, env: dict):
        self.key, self.argv, self.cwd, self.env = key, argv, cwd, env
        self.claimed, self.done, self.process, self.result = False, threading.Event(), None, None
        self.shared = SHARED / hashlib.sha1(repr(key).encode()).hexdigest()  # + ".claim" / ".json"


_LOCK = threading.Lock()
_RUNS: dict[object, _Run] = {}
_QUEUE: "queue.PriorityQueue[tuple[int, int, _Run]]" = queue.PriorityQueue()  # (0 first, 1 later; order queued)
_ORDER = itertools.count()
_WORKERS: list[threading.Thread] = []
_STOPPED = threading.Event()
_ELSEWHERE = tempfile.TemporaryDirectory(prefix="script-runs-")
if not os.environ.get("TESTS_SCRIPT_RUNS"):  # the first test process of a run makes the folder its children share
    _SHARED_OWNER = tempfile.TemporaryDirectory(prefix="script-runs-shared-")
    os.environ["TESTS_SCRIPT_RUNS"] = _SHARED_OWNER.name
SHARED = Path(os.environ["TESTS_SCRIPT_RUNS"])


def _execute(run: _Run) -> None:
    """Run it unless another thread has it already, then wait until it is done. Test processes share runs (the second
    one of tests/parallel.py): whichever claims a run in SHARED first runs it and leaves its result there."""
    with _LOCK:
        mine = not run.claimed
        run.claimed = True
    if mine:
        try:
            while not run.shared.with_suffix(".json").exists():
                if _claim(run):
                    run.result = _run_here(run)
                    _publish(run)
                    break
                if _STOPPED.wait(0.01):
                    raise RuntimeError("the test process is exiting")
            else:
                run.result = Result(*json.loads(run.shared.with_suffix(".json").read_text(encoding="utf-8")))
        except Exception as exc:  # noqa: BLE001 - reported to the test that reads the run
            run.result = Result(None, "", f"[could not run: {exc!r}]")
        finally:
            run.done.set()
    run.done.wait()


def _claim(run: _Run) -> bool:
    try:
        os.close(os.open(run.shared.with_suffix(".claim"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False  # another process runs it: wait for its .json (or for its claim to be given up at its exit)


def _run_here(run: _Run) -> Result:
    if _STOPPED.is_set():
        raise RuntimeError("the test process is exiting")
    run.process = subprocess.Popen([sys.executable, *run.argv], cwd=run.cwd, env=run.env, encoding="utf-8",
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = run.process.communicate(timeout=TIMEOUT)
        return Result(run.process.returncode, out, err)
    except subprocess.TimeoutExpired:
        run.process.kill()
        out, err = run.process.communicate()
        return Result(None, out, err + f"\n[killed after {TIMEOUT} s]")


def _publish(run: _Run) -> None:
    if not _STOPPED.is_set():  # a run killed at exit is given up, not published
        partial = run.shared.with_suffix(".partial")
        partial.write_text(json.dumps(run.result), encoding="utf-8")
        os.replace(partial, run.shared.with_suffix(".json"))


def _work() -> None:
    while True:
        _execute(_QUEUE.get()[2])


def _start(key: object, argv: tuple[str, ...], cwd: Path, env: dict, later: bool = False) -> None:
    """Queue a run once; a later one (a batch: most tests read the root runs) starts after every other queued run."""
    with _LOCK:
        if key in _RUNS:
            return
        _RUNS[key] = run = _Run(key, argv, cwd, env)
        if not _WORKERS:  # one fewer than the CPUs: the tests in this process keep one
            for _ in range(max(1, (os.cpu_count() or 2) - 1)):
                _WORKERS.append(threading.Thread(target=_work, daemon=True, name="script-runs"))
                _WORKERS[-1].start()
    _QUEUE.put((int(later), next(_ORDER), run))


def _table_run(script: str, variant: str) -> tuple[tuple[str, ...], Path, dict]:
    if variant not in variants(script):
        raise KeyError(f"{script} has no run {variant!r} in the table (it has {', '.join(variants(script))})")
    relative, absolute = f"scripts/{script}", str(SCRIPTS / script)
    argv, cwd, hashseed = {"root": ((relative,), ROOT, "1"),
                           "elsewhere": ((absolute, *(("--seed", "0") if has_seed(script) else ())),
                                         Path(_ELSEWHERE.name), "2"),
                           "seed 1": ((relative, "--seed", "1"), ROOT, "3")}[variant]
    return argv, cwd, ENV | {"PYTHONHASHSEED": hashseed}


_DRIVER = """\
import contextlib, io, json, runpy, sys, traceback
results = {}
for name, path, *args in json.loads(sys.argv[1]):
    out, err, code, saved = io.StringIO(), io.StringIO(), 0, list(sys.path)
    sys.argv, sys.path[0] = [path, *args], path.rsplit("/", 1)[0]  # as `python3 path args...` sets them
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_path(path, run_name="__main__")
        except SystemExit as exit_:
            code = exit_.code if exit_.code is None or isinstance(exit_.code, int) else 1
            if not isinstance(exit_.code, (int, type(None))):
                print(exit_.code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
            code = 1
    sys.path[:] = saved
    results[name] = [code or 0, out.getvalue(), err.getvalue()]
sys.__stdout__.write(json.dumps(results))
"""


def queue_batch(key: str, runs: list[tuple[str, str, tuple[str, ...]]], cwd: Path, env: dict) -> None:
    """Queue one fresh interpreter that runs each (name, path of a Python file, arguments) of runs in turn as __main__
    (see _DRIVER), from cwd with env; batch_result(key, name) reads each one's (exit code, stdout, stderr)."""
    argv = ("-c", _DRIVER, json.dumps([[name, path, *args] for name, path, args in runs]))
    _start(("batch", key), argv, cwd, env, later=True)


def batch_result(key: str, name: str) -> Result:
    """(returncode, stdout, stderr) of one file of a batch queued by queue_batch."""
    _execute(_RUNS["batch", key])
    driver = _RUNS["batch", key].result
    try:
        return Result(*json.loads(driver.stdout)[name])
    except (ValueError, KeyError, TypeError):
        return Result(None, driver.stdout[-2000:], driver.stderr + f"\n[the driver of {key!r} reported no {name!r}]")


BATCH_HALVES = 2  # each BATCHED variant runs as this many batches, so that two workers can run them at once


def _half(script: str) -> int:
    """Which batch of its variant a script runs in: the numbered scripts split in BATCH_HALVES runs of neighbours."""
    return NUMBERED.index(script) * BATCH_HALVES // len(NUMBERED)


def _queue_variant(variant: str, script: str) -> str:
    """Queue the batch of a BATCHED variant that holds this script (each script with that variant's arguments);
    return the batch's key."""
    runs, half = [], _half(script)
    for other in NUMBERED:
        if variant in variants(other) and _half(other) == half:
            argv, cwd, env = _table_run(other, variant)
            runs.append((other, str(cwd / argv[0]), argv[1:]))
    key = f"{variant} {half + 1}/{BATCH_HALVES}"
    queue_batch(key, runs, cwd, env)
    return key


def prefetch(*scripts: str) -> None:
    """Queue every run of the table for these scripts (all numbered scripts when none is named); a BATCHED variant
    is queued whole."""
    for script in scripts or NUMBERED:
        for variant in variants(script):
            if variant in BATCHED:
                _queue_variant(variant, script)
            else:
                _start((script, variant), *_table_run(script, variant))


def result(script: str, variant: str = "root") -> Result:
    """(returncode, stdout, stderr) of one run of the table, e.g. result("06_evaluation.py", "seed 1")."""
    run = _table_run(script, variant)  # KeyError for a run the table does not have
    if variant in BATCHED:
        return batch_result(_queue_variant(variant, script), script)
    _start((script, variant), *run)
    _execute(_RUNS[script, variant])
    return _RUNS[script, variant].result


def _table_key(argv: tuple[str, ...], cwd: Path, env: dict) -> tuple[str, str] | None:
    """(script, variant) when `python3 argv...` from cwd is a run of the table (a README command may be), else None."""
    script = argv[0].removeprefix("scripts/") if argv else ""
    if cwd == ROOT and env == ENV and script in NUMBERED:
        for variant in variants(script):
            if _table_run(script, variant)[:2] == (argv, cwd):
                return script, variant
    return None


def queue_command(*argv: str, cwd: Path = ROOT, env: dict | None = None) -> None:
    """Queue `python3 argv...` (run with sys.executable) to run in the background; env defaults to ENV."""
    env = ENV if env is None else env
    table = _table_key(argv, cwd, env)
    if table:
        prefetch(table[0])
    else:
        _start(("command", argv, str(cwd), tuple(sorted(env.items()))), argv, cwd, env)


def command(*argv: str, cwd: Path = ROOT, env: dict | None = None) -> Result:
    """(returncode, stdout, stderr) of `python3 argv...`: queued by queue_command, or run now."""
    env = ENV if env is None else env
    table = _table_key(argv, cwd, env)
    if table:
        return result(*table)
    key = ("command", argv, str(cwd), tuple(sorted(env.items())))
    _start(key, argv, cwd, env)
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
    """Start nothing more, kill what still runs (and give up its claim: another test process may still need it), and
    remove the temporary folders."""
    _STOPPED.set()
    with _LOCK:
        for run in _RUNS.values():
            run.claimed = True  # a queued run stays unstarted
            if run.process is not None and run.process.poll() is None:
                run.process.kill()
                run.shared.with_suffix(".claim").unlink(missing_ok=True)
    _ELSEWHERE.cleanup()
    if "_SHARED_OWNER" in globals():
        _SHARED_OWNER.cleanup()

