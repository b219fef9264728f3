"""A second test process: the test modules that import this module's load_tests run there while this process runs
the rest, so `python3 -m unittest discover -s tests` keeps both cores busy. Standard library only.

    from parallel import load_tests  # noqa: F401 - this module's tests run in the second test process

How it goes. When discovery imports the first such module, this process starts `python3 tests/parallel.py FD PATH`
(PATH: its sys.path, as JSON) and
sends it the module's test ids, one JSON line a module; the child runs each module's tests as one suite (its class
and module fixtures included) and writes one JSON record a test to the pipe FD. This process runs its own tests
meanwhile; when they are done (the runner's stopTestRun), it closes the child's input, reads the records, and hands
each to the runner's result as if the test had run here: startTest, its subtests, its outcome with the child's
traceback text, stopTest. So the counts, the failures and their tracebacks, -v and -k work as usual; -b and -f do
not reach the child. A test that the child never reports (it crashed or hung past TIMEOUT) is reported as an error
that says so: no test is lost.

Script runs of tests/script_runs.py are shared between the two processes (a run is claimed in a folder both see), but
in-memory caches such as tests/lab_results.py are not: modules that share one stay in the same process. TESTS_ONE_PROCESS=1 in the environment (e.g. to debug with pdb), a platform without
pass_fds, or a test process that is itself the child keeps every test in this process.
"""
import json
import os
import subprocess
import sys
import threading
import time
import unittest

CHILD = "TESTS_SECOND_PROCESS"  # set in the child's environment
TIMEOUT = 300  # seconds to wait for the child's last record once this process's own tests are done


class InTheSecondProcess(AssertionError):
    """A failure in the child: its message is the child's formatted traceback."""


class ErrorInTheSecondProcess(Exception):
    """An error in the child: its message is the child's formatted traceback."""


for _cls in (InTheSecondProcess, ErrorInTheSecondProcess):
    _cls.__module__ = "builtins"  # the result prints "InTheSecondProcess: Traceback (most recent call last): ..."


class Reported:
    """What the result needs of a test that ran in the child: its id, its description, and failureException."""
    failureException = AssertionError

    def __init__(self, record: dict):
        self._id, self._str, self._short = record["id"], record["str"], record["short"]

    def id(self) -> str:
        return self._id

    def __str__(self) -> str:
        return self._str

    def shortDescription(self) -> str | None:
        return self._short


class _Child:
    """The one second process of this test run, fed module by module during discovery."""

    def __init__(self):
        import script_runs  # noqa: F401 - names the folder where both processes share script runs, before the child starts
        read, write = os.pipe()
        self.process = subprocess.Popen([sys.executable, __file__, str(write), json.dumps(sys.path)], stdin=subprocess.PIPE,
                                        pass_fds=(write,), env=os.environ | {CHILD: "1"}, encoding="utf-8")
        os.close(write)
        self.records: list[dict] = []
        self.batches: list[list[str]] = []  # the ids sent, a module at a time
        self.done = 0  # how many batches the child has finished
        self.reader = threading.Thread(target=self._read, args=(os.fdopen(read, encoding="utf-8"),), daemon=True)
        self.reader.start()
        self.replayed = False

    def _read(self, pipe) -> None:
        with pipe:
            for line in pipe:
                record = json.loads(line)
                if "batch done" in record:
                    self.done += 1
                else:
                    self.records.append(record | {"batch": self.done})

    def send(self, ids: list[str]) -> None:
        self.batches.append(ids)
        self.process.stdin.write(json.dumps(ids) + "\n")
        self.process.stdin.flush()

    def replay(self, result: unittest.TestResult) -> None:
        """Wait for the child, then hand every record (and every test it never reported) to the result."""
        self.replayed = True
        self.process.stdin.close()
        self.reader.join(TIMEOUT)
        if self.reader.is_alive():
            self.process.kill()
            self.reader.join()
        code = self.process.wait()
        for record in self.records:
            _replay(record, result)
        reported = {r["id"] for r in self.records if r["started"]}
        fixture_failed = {r["batch"] for r in self.records if not r["started"] and r["outcome"] != "skip"}  # a test
        for n, batch in enumerate(self.batches):  # a fixture failure skipped is not run in one process either
            if n < self.done and n in fixture_failed:
                continue
            for missing in (i for i in batch if i not in reported):
                _replay({"id": missing, "str": missing, "short": None, "started": True, "subtests": [],
                         "outcome": "error", "text": f"the second test process ended (exit code {code}) without "
                                                     "reporting this test" if n >= self.done else
                         "the second test process finished this module without reporting this test"}, result)


_child: _Child | None = None


def load_tests(loader: unittest.TestLoader, tests: unittest.TestSuite, pattern) -> unittest.TestSuite:
    """unittest's load_tests protocol: send this module's tests to the child and stand in for them here."""
    global _child
    if os.environ.get(CHILD) or os.environ.get("TESTS_ONE_PROCESS") or os.name != "posix":
        return tests
    ids = [test.id() for test in _flatten(tests)]
    if not ids or any(type(t).__name__ == "_FailedTest" for t in _flatten(tests)):
        return tests  # nothing to send, or an error to report here as usual
    if _child is None:
        _child = _Child()
    _child.send(ids)
    return _Deferred(len(ids))


class _Deferred(unittest.TestSuite):
    """Where the module's tests stood: when run, it arranges for the child's records to be replayed at the end."""

    def __init__(self, count: int):
        super().__init__()
        self.count = count

    def countTestCases(self) -> int:
        return self.count

    def run(self, result, debug=False):
        if getattr(result, "_parallel_replay", None) is None:
            stop = result.stopTestRun

            def stop_test_run():
                if not _child.replayed:
                    _child.replay(result)
                stop()
            result._parallel_replay = result.stopTestRun = stop_test_run
        return result


def _flatten(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from _flatten(test)
        else:
            yield test


def _err(kind: str, text: str) -> tuple:
    cls = InTheSecondProcess if kind == "failure" else ErrorInTheSecondProcess
    return cls, cls(text), None


def _replay(record: dict, result: unittest.TestResult) -> None:
    test = Reported(record)
    if record["started"]:
        result.startTest(test)
    for sub in record["subtests"]:
        result.addSubTest(test, Reported(sub), _err(sub["outcome"], sub["text"]))
    outcome, text = record["outcome"], record["text"]
    if outcome in ("failure", "error"):
        (result.addFailure if outcome == "failure" else result.addError)(test, _err(outcome, text))
    elif outcome == "skip":
        result.addSkip(test, text)
    elif outcome == "expected failure":
        result.addExpectedFailure(test, _err("failure", text))
    elif outcome == "unexpected success":
        result.addUnexpectedSuccess(test)
    elif outcome == "success":
        result.addSuccess(test)
    if record.get("seconds") is not None and hasattr(result, "addDuration"):  # Python 3.12+: --durations
        result.addDuration(test, record["seconds"])
    if record["started"]:
        result.stopTest(test)


# --- the child --------------------------------------------------------------------------------------------------

class _Recorder(unittest.TestResult):
    """Records each test's outcome as a JSON-ready dict; the parent replays it."""

    def __init__(self, report):
        super().__init__()
        self.report, self.current = report, None

    def _record(self, test, started: bool) -> dict:
        return {"id": test.id(), "str": str(test), "short": test.shortDescription(), "started": started,
                "subtests": [], "outcome": None, "text": "", "seconds": None}

    def startTest(self, test):
        super().startTest(test)
        self.current, self.began = self._record(test, True), time.perf_counter()

    def stopTest(self, test):
        super().stopTest(test)
        if self.current is None:  # Python 3.12.1 stops a skipped test it never started (gh-113267): recorded already
            return
        self.current["seconds"] = time.perf_counter() - self.began
        self._write(self.current)
        self.current = None

    def _write(self, record: dict) -> None:
        self.report.write(json.dumps(record) + "\n")
        self.report.flush()

    def _outcome(self, test, outcome: str, text: str) -> None:
        if self.current is not None and test.id() == self.current["id"]:
            self.current["outcome"], self.current["text"] = outcome, text
        else:  # a class or module fixture failed: unittest reports it without startTest
            self._write(self._record(test, False) | {"outcome": outcome, "text": text})

    def addSuccess(self, test):
        self._outcome(test, "success", "")

    def addError(self, test, err):
        self._outcome(test, "error", self._exc_info_to_string(err, test))

    def addFailure(self, test, err):
        self._outcome(test, "failure", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        self._outcome(test, "skip", reason)

    def addExpectedFailure(self, test, err):
        self._outcome(test, "expected failure", self._exc_info_to_string(err, test))

    def addUnexpectedSuccess(self, test):
        self._outcome(test, "unexpected success", "")

    def addSubTest(self, test, subtest, err):
        if err is None:
            return  # a passing subtest: the result records nothing for it
        kind = "failure" if issubclass(err[0], test.failureException) else "error"
        self.current["subtests"].append({"id": subtest.id(), "str": str(subtest), "short": subtest.shortDescription(),
                                         "outcome": kind, "text": self._exc_info_to_string(err, test)})


def _run_child(fd: int) -> None:
    loader = unittest.TestLoader()
    with os.fdopen(fd, "w", encoding="utf-8") as report:
        result = _Recorder(report)
        for line in sys.stdin:
            loader.loadTestsFromNames(json.loads(line)).run(result)
            result._write({"batch done": True})


if __name__ == "__main__":
    sys.path[:] = json.loads(sys.argv[2])  # the parent's: its test ids import from there
    _run_child(int(sys.argv[1]))
