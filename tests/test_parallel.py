"""tests/parallel.py, the second test process: a suite run in two processes reports what it reports in one, and a
test the second process never reports is an error, not lost.

A small suite is written to a temporary folder (one module in the second process, one here) and run with
`python3 -m unittest discover` twice: as it is, and with TESTS_ONE_PROCESS=1.
"""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))
from parallel import load_tests  # noqa: E402,F401 - these tests run in the second test process (tests/parallel.py)

SECOND = f"""\
import sys, unittest
sys.path.insert(0, {str(TESTS)!r})
from parallel import load_tests  # noqa: F401


class Outcomes(unittest.TestCase):
    def test_passes(self):
        pass

    def test_fails(self):
        self.assertEqual(1, 2)

    def test_raises(self):
        raise KeyError("boom")

    @unittest.skip("not today")
    def test_skipped(self):
        pass

    def test_subtests(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertNotEqual(i, 1)

    @unittest.expectedFailure
    def test_expected_to_fail(self):
        self.fail()


class BrokenFixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise RuntimeError("class set-up broke")

    def test_never_runs(self):
        pass
"""
HERE = """\
import unittest


class Here(unittest.TestCase):
    def test_here(self):
        pass
"""
CRASH = f"""\
import os, sys, unittest
sys.path.insert(0, {str(TESTS)!r})
from parallel import load_tests  # noqa: F401


class Crash(unittest.TestCase):
    def test_a_exits(self):
        os._exit(7)

    def test_b_after(self):
        pass
"""


def run_suite(modules: dict[str, str], **env: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as folder:
        for name, body in modules.items():
            Path(folder, name).write_text(textwrap.dedent(body), encoding="utf-8")
        clean = {k: v for k, v in os.environ.items() if not k.startswith("TESTS_")}
        return subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", folder, "-v"], env=clean | env,
                              capture_output=True, encoding="utf-8", timeout=60)


def verdicts(stderr: str) -> list[str]:
    """The failure headers and the summary lines, in order: 'FAIL: test_fails (test_second.Outcomes...)', ..."""
    return [line for line in stderr.splitlines()
            if line.startswith(("FAIL:", "ERROR:", "Ran ", "FAILED", "OK")) or " ... " in line]


class SecondProcess(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        modules = {"test_second.py": SECOND, "test_zhere.py": HERE}
        cls.two, cls.one = run_suite(modules), run_suite(modules, TESTS_ONE_PROCESS="1")

    def test_it_reports_what_one_process_reports(self):
        summary = lambda run: [l for l in verdicts(run.stderr) if l.startswith(("Ran ", "FAILED"))]  # noqa: E731
        self.assertEqual(summary(self.two)[0].split(" in ")[0], "Ran 7 tests")  # the one under the broken set-up is not run, as in one process
        self.assertEqual(summary(self.two)[1], "FAILED (failures=2, errors=2, skipped=1, expected failures=1)")
        self.assertEqual([s.split(" in ")[0] for s in summary(self.two)], [s.split(" in ")[0] for s in summary(self.one)])
        headers = lambda run: sorted(l for l in verdicts(run.stderr) if l.startswith(("FAIL:", "ERROR:")))  # noqa: E731
        self.assertEqual(headers(self.two), headers(self.one))
        self.assertEqual(self.two.returncode, 1)

    def test_the_second_process_ran_them(self):
        # its tests are handed over once this process's own are done: they are listed after test_here
        lines = [l for l in self.two.stderr.splitlines() if " ... " in l]
        self.assertIn("test_here", lines[0])
        self.assertIn("InTheSecondProcess: Traceback", self.two.stderr)
        self.assertNotIn("InTheSecondProcess", self.one.stderr)

    def test_failures_keep_the_child_traceback(self):
        for needle in ("AssertionError: 1 != 2", "KeyError: 'boom'", "RuntimeError: class set-up broke",
                       "FAIL: test_subtests (test_second.Outcomes", "(i=1)"):
            with self.subTest(needle=needle):
                self.assertIn(needle, self.two.stderr)

    def test_a_second_process_that_dies_loses_no_test(self):
        run = run_suite({"test_crash.py": CRASH, "test_zhere.py": HERE})
        self.assertIn("Ran 3 tests", run.stderr)
        for test in ("test_a_exits", "test_b_after"):
            with self.subTest(test=test):
                self.assertIn(f"ERROR: test_crash.Crash.{test}", run.stderr)
        self.assertIn("the second test process ended (exit code 7) without reporting this test", run.stderr)
        self.assertEqual(run.returncode, 1)


if __name__ == "__main__":
    unittest.main()
