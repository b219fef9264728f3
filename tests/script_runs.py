"""Every subprocess run of a demo script, in one place: each runs once per test run, and every test that reads it
shares its output.

The table, for each numbered script scripts/NN_*.py, run as a user runs it (no API key in the environment):

    "root"       python3 scripts/NN_x.py               from the repository root, a relative path   PYTHONHASHSEED=1
    "elsewhere"  python3 /.../scripts/NN_x.py [--seed 0]   from an empty temporary folder, an absolute path,
                                                       with the default seed said where there is a --seed  PYTHONHASHSEED=2
    "seed 1"     python3 scripts/NN_x.py --seed 1      from the root, only where the script has a --seed    PYTHONHASHSEED=3

Different hash seeds make output that depends on set or dict order show up as different bytes. Each "root" run is a
fresh interpreter, exactly as a user starts the script; the "elsewhere" runs share fresh interpreters, as do the
"seed 1" runs (BATCHED: a driver runs the scripts one after another as __main__, from that folder, with that hash
seed; sent after the root runs), which saves an interpreter start and
the lab's imports per run. Other commands (the README's) go through command(); one that is a run of the table is not
run again.

How the runs overlap the tests without a thread in the test process: the first run queued starts one helper process
(this file run as a script, `--drive FOLDER`), which reads run orders from its stdin, one JSON line each, runs them one
after another (each a fresh interpreter), writes each result to FOLDER/N.json and prints N when it is there. A test
module names the scripts it reads when it is imported (prefetch), so that during discovery every run the suite needs
is queued before the first test starts; the helper works through them on the second core while the tests run on the
first. result() reads the helper's "done" lines until the one it needs has come. Nothing in the test process runs
beside the tests, so a test may patch what it likes; what is still running at exit is killed.

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
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import types
from pathlib import Path
from typing import NamedTuple
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
NUMBERED = sorted(p.name for p in SCRIPTS.glob("[0-9][0-9]_*.py"))
VARIANTS = ("root", "elsewhere", "seed 1")
BATCHED = ("elsewhere", "seed 1")  # one interpreter runs the whole variant; see _BATCH
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


# --- The helper process: run orders in on stdin, "N" out on stdout when FOLDER/N.json holds the result ---

def run_one(argv: list[str], cwd: str, env: dict, closed: bool = False) -> Result:
    """Run `python3 argv...` (this interpreter) from cwd with env; (returncode, stdout, stderr), None when killed.
    closed: stdout is a pipe whose reader has already gone, as `... | head` is once head has exited (closed before
    the child starts, so its first write to stdout fails, whatever the machine's speed); stdout is then ""."""
    reader, writer = os.pipe() if closed else (None, subprocess.PIPE)
    if closed:
        os.close(reader)
    try:
        done = subprocess.run([sys.executable, *argv], cwd=cwd, env=env, encoding="utf-8", stdout=writer,
                              stderr=subprocess.PIPE, timeout=TIMEOUT)
        return Result(done.returncode, done.stdout or "", done.stderr)
    except subprocess.TimeoutExpired as exc:
        out, err = (x.decode("utf-8", "replace") if isinstance(x, bytes) else x or "" for x in (exc.stdout, exc.stderr))
        return Result(None, out, err + f"\n[killed after {TIMEOUT} s]")
    finally:
        if closed:
            os.close(writer)


def drive(folder: str) -> None:
    """The helper's loop: each stdin line {"n", "argv", "cwd", "env", "closed"} is run, its result written, its n
    printed."""
    for line in sys.stdin:
        order = json.loads(line)
        result = run_one(order["argv"], order["cwd"], order["env"], order["closed"])
        partial = Path(folder, f"{order['n']}.partial")
        partial.write_text(json.dumps(result), encoding="utf-8")
        os.replace(partial, Path(folder, f"{order['n']}.json"))
        print(order["n"], flush=True)


# --- The test process's side: queue, wait, read ---

_RUNS: dict[object, int] = {}  # a run's key -> its number
_LATER: list[str] = []  # orders held back until the first wait (the batches: most tests read the root runs)
_DONE: set[int] = set()
_HELPER: dict[str, object] = {}  # "process", "folder" once started
_ELSEWHERE = tempfile.TemporaryDirectory(prefix="script-runs-")


def _helper() -> subprocess.Popen:
    if "process" not in _HELPER:
        _HELPER["folder"] = tempfile.TemporaryDirectory(prefix="script-runs-results-")
        _HELPER["process"] = subprocess.Popen(
            [sys.executable, __file__, "--drive", _HELPER["folder"].name], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, encoding="utf-8", start_new_session=True)  # its own group: killed whole at exit
    return _HELPER["process"]


def _send(order: str) -> None:
    _helper().stdin.write(order)
    _helper().stdin.flush()


def _start(key: object, argv: tuple[str, ...], cwd: Path, env: dict, later: bool = False, closed: bool = False) -> None:
    """Queue a run once; a later one (a batch) is sent when a test first waits, after every run queued by then."""
    if key in _RUNS:
        return
    _RUNS[key] = len(_RUNS)
    order = json.dumps({"n": _RUNS[key], "argv": list(argv), "cwd": str(cwd), "env": env, "closed": closed}) + "\n"
    if later:
        _LATER.append(order)
    else:
        _send(order)


def _wait(key: object) -> Result:
    """Wait until the helper has run this queued run; return its result."""
    while _LATER:
        _send(_LATER.pop(0))
    n = _RUNS[key]
    while n not in _DONE:
        line = _helper().stdout.readline()
        if not line:
            return Result(None, "", f"[could not run: the helper process ended with {_helper().poll()}]")
        _DONE.add(int(line))
    return Result(*json.loads(Path(_HELPER["folder"].name, f"{n}.json").read_text(encoding="utf-8")))


def _table_run(script: str, variant: str) -> tuple[tuple[str, ...], Path, dict]:
    if variant not in variants(script):
        raise KeyError(f"{script} has no run {variant!r} in the table (it has {', '.join(variants(script))})")
    relative, absolute = f"scripts/{script}", str(SCRIPTS / script)
    argv, cwd, hashseed = {"root": ((relative,), ROOT, "1"),
                           "elsewhere": ((absolute, *(("--seed", "0") if has_seed(script) else ())),
                                         Path(_ELSEWHERE.name), "2"),
                           "seed 1": ((relative, "--seed", "1"), ROOT, "3")}[variant]
    return argv, cwd, ENV | {"PYTHONHASHSEED": hashseed}


_BATCH = """\
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
    (see _BATCH), from cwd with env; batch_result(key, name) reads each one's (exit code, stdout, stderr)."""
    argv = ("-c", _BATCH, json.dumps([[name, path, *args] for name, path, args in runs]))
    _start(("batch", key), argv, cwd, env, later=True)


def batch_result(key: str, name: str) -> Result:
    """(returncode, stdout, stderr) of one file of a batch queued by queue_batch."""
    driver = _wait(("batch", key))
    try:
        return Result(*json.loads(driver.stdout)[name])
    except (ValueError, KeyError, TypeError):
        return Result(None, driver.stdout[-2000:], driver.stderr + f"\n[the driver of {key!r} reported no {name!r}]")


def _queue_variant(variant: str) -> str:
    """Queue the batch of a BATCHED variant (every script that has it, with that variant's arguments); return its key."""
    runs = []
    for script in NUMBERED:
        if variant in variants(script):
            argv, cwd, env = _table_run(script, variant)
            runs.append((script, str(cwd / argv[0]), argv[1:]))
    queue_batch(variant, runs, cwd, env)
    return variant


def prefetch(*scripts: str) -> None:
    """Queue every run of the table for these scripts (all numbered scripts when none is named); a BATCHED variant
    is queued whole."""
    for script in scripts or NUMBERED:
        for variant in variants(script):
            if variant in BATCHED:
                _queue_variant(variant)
            else:
                _start((script, variant), *_table_run(script, variant))


def result(script: str, variant: str = "root") -> Result:
    """(returncode, stdout, stderr) of one run of the table, e.g. result("06_evaluation.py", "seed 1")."""
    run = _table_run(script, variant)  # KeyError for a run the table does not have
    if variant in BATCHED:
        return batch_result(_queue_variant(variant), script)
    _start((script, variant), *run)
    return _wait((script, variant))


def _table_key(argv: tuple[str, ...], cwd: Path, env: dict) -> tuple[str, str] | None:
    """(script, variant) when `python3 argv...` from cwd is a run of the table (a README command may be), else None."""
    script = argv[0].removeprefix("scripts/") if argv else ""
    if cwd == ROOT and env == ENV and script in NUMBERED:
        for variant in variants(script):
            if _table_run(script, variant)[:2] == (argv, cwd):
                return script, variant
    return None


def _command_key(argv: tuple[str, ...], cwd: Path, env: dict, closed: bool) -> tuple:
    return "command", argv, str(cwd), tuple(sorted(env.items())), closed


def queue_command(*argv: str, cwd: Path = ROOT, env: dict | None = None, closed_stdout: bool = False) -> None:
    """Queue `python3 argv...` (run with sys.executable) to run beside the tests; env defaults to ENV. closed_stdout:
    stdout is a pipe whose reader has gone (see run_one)."""
    env = ENV if env is None else env
    table = None if closed_stdout else _table_key(argv, cwd, env)
    if table:
        prefetch(table[0])
    else:
        _start(_command_key(argv, cwd, env, closed_stdout), argv, cwd, env, closed=closed_stdout)


def command(*argv: str, cwd: Path = ROOT, env: dict | None = None, closed_stdout: bool = False) -> Result:
    """(returncode, stdout, stderr) of `python3 argv...`: queued by queue_command, or run now."""
    env = ENV if env is None else env
    table = None if closed_stdout else _table_key(argv, cwd, env)
    if table:
        return result(*table)
    key = _command_key(argv, cwd, env, closed_stdout)
    _start(key, argv, cwd, env, closed=closed_stdout)
    return _wait(key)


def sections(out: str, notes: bool = False) -> dict[str, str]:
    """A demo script's stdout as {title: body}, undoing tool_core.print_demos: '=== title ===', a blank line, the
    body, and a blank line before the next banner; without the handout notes print_demos adds (notes=True keeps
    them)."""
    if not notes:
        sys.path.insert(0, str(ROOT))
        from tool_core import without_notes
        out = without_notes(out)
    parts = re.split(r"(?m)^=== (.*) ===\n\n", out)
    if parts[0]:
        raise ValueError(f"text before the first banner: {parts[0][:80]!r}")
    titles, bodies = parts[1::2], [body.removesuffix("\n") for body in parts[2::2]]  # print's own newline
    bodies[:-1] = [body.removesuffix("\n") for body in bodies[:-1]]  # the blank line before the next banner
    return dict(zip(titles, bodies))


def load_script(name: str) -> types.ModuleType:
    """A script of scripts/ as a module, e.g. load_script("run_all.py"): its functions to call, its main() not run
    (every script's main() is behind __name__ == "__main__"); a fresh module each time."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name.removesuffix(".py").replace("-", "_"), SCRIPTS / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


# --- Servers a test launches as a subprocess, started at import so that they boot while other tests run ---

_EARLY: dict[str, object] = {}


def launch_early(key: str, launch) -> None:
    """Call launch() now, when the test module is imported: it starts a server process (it returns the Popen, or a
    transport holding it as .process) that boots, importing the lab, while other tests run. take_early(key, launch)
    hands it to the test that talks to it; one no test took is killed at exit."""
    if key not in _EARLY:
        _EARLY[key] = launch()


def take_early(key: str, launch):
    """What launch_early(key, ...) started, once; launch() now when there is none (a test run on its own)."""
    early = _EARLY.pop(key, None)
    return early if early is not None else launch()


@atexit.register
def _stop() -> None:
    """End the helper and whatever it still runs (its whole process group), and remove the temporary folders."""
    process = _HELPER.get("process")
    if process is not None:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        process.stdin.close()
        process.stdout.close()
        _HELPER["folder"].cleanup()
    _ELSEWHERE.cleanup()
    for early in _EARLY.values():  # launched and never taken: a test skipped, or a selection run
        process = getattr(early, "process", early)
        if process.poll() is None:
            process.kill()
        process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()


if __name__ == "__main__" and sys.argv[1:2] == ["--drive"]:
    drive(sys.argv[2])
