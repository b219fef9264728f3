"""tests/parallel.py, the second test process: a suite run in two processes reports what it reports in one, and a
test the second process never reports is an error, not lost.

A small suite is written to a temporary folder and run with `python3 -m unittest discover`; the same modules, but for
the one that ends the second process, are run again by unittest in this process, with no second process.
"""
import io
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path
from unittest import mock

TESTS = Path(__file__).resolve().parent  # this file stays in the first process: a broken parallel.py cannot hide it

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


def run_here(modules: dict[str, str]) -> str:
    """The same modules run by unittest in this process, with no second process: what -v prints."""
    with tempfile.TemporaryDirectory() as folder, mock.patch.dict(os.environ, {"TESTS_ONE_PROCESS": "1"}):
        for name, body in modules.items():
            Path(folder, name).write_text(textwrap.dedent(body), encoding="utf-8")
        sys.path.insert(0, folder)
        try:
            suite = unittest.defaultTestLoader.discover(folder, top_level_dir=folder)
            stream = io.StringIO()
            unittest.TextTestRunner(stream=stream, verbosity=2).run(suite)
        finally:
            sys.path.remove(folder)
            for name in modules:
                sys.modules.pop(name.removesuffix(".py"), None)
        return stream.getvalue()


def verdicts(stderr: str) -> list[str]:
    """The failure headers and the summary lines, in order: 'FAIL: test_fails (test_second.Outcomes...)', ..."""
    return [line for line in stderr.splitlines() if line.startswith(("FAIL:", "ERROR:", "Ran ", "FAILED", "OK"))]


class SecondProcess(unittest.TestCase):
    """One suite run two ways: test_second.py and test_xcrash.py in the second process, test_zhere.py here; and the
    first and last of them in this process alone. test_xcrash's first test ends the second process."""

    @classmethod
    def setUpClass(cls):
        cls.two = run_suite({"test_second.py": SECOND, "test_xcrash.py": CRASH, "test_zhere.py": HERE})
        cls.one = run_here({"test_second.py": SECOND, "test_zhere.py": HERE})

    def test_it_reports_what_one_process_reports(self):
        def counts(text: str) -> dict[str, int]:
            ran = int(re.search(r"^Ran (\d+) tests?", text, re.M).group(1))
            return {"ran": ran} | {k: int(v) for k, v in re.findall(r"(\w[\w ]*?)=(\d+)", text.split("\nFAILED (")[1])}
        one, two = counts(self.one), counts(self.two.stderr)
        # 6 in Outcomes (3.12.1 does not count the skipped one) and test_here; the one under the broken set-up is not
        # run, its setUpClass is an error
        self.assertIn(one, ({"ran": 7, "failures": 2, "errors": 2, "skipped": 1, "expected failures": 1},
                            {"ran": 6, "failures": 2, "errors": 2, "skipped": 1, "expected failures": 1}))
        self.assertEqual(two, one | {"ran": one["ran"] + 2, "errors": one["errors"] + 2})  # and test_xcrash's two
        headers = lambda text: sorted(l for l in verdicts(text) if l.startswith(("FAIL:", "ERROR:")))  # noqa: E731
        self.assertEqual([h for h in headers(self.two.stderr) if "xcrash" not in h], headers(self.one))
        self.assertEqual(self.two.returncode, 1)

    def test_the_second_process_ran_them(self):
        # its tests are handed over once this process's own are done: they are listed after test_here
        lines = [line for line in self.two.stderr.splitlines() if " ... " in line]
        self.assertIn("test_here", lines[0])
        self.assertIn("InTheSecondProcess: Traceback", self.two.stderr)
        self.assertNotIn("InTheSecondProcess", self.one)

    def test_failures_keep_the_child_traceback(self):
        for needle in ("AssertionError: 1 != 2", "KeyError: 'boom'", "RuntimeError: class set-up broke",
                       "FAIL: test_subtests (test_second.Outcomes", "(i=1)"):
            with self.subTest(needle=needle):
                self.assertIn(needle, self.two.stderr)

    def test_a_second_process_that_dies_loses_no_test(self):
        for test in ("test_a_exits", "test_b_after"):
            with self.subTest(test=test):
                self.assertIn(f"ERROR: test_xcrash.Crash.{test}\n", self.two.stderr)
        self.assertEqual(self.two.stderr.count(
            "the second test process ended (exit code 7) without reporting this test"), 2)


if __name__ == "__main__":
    unittest.main()
