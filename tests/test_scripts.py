"""Smoke tests: the demo scripts run, print their demos, answer --help, and are deterministic."""
import subprocess
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=60)


class Harness03(unittest.TestCase):
    def test_prints_the_three_demos_the_same_every_time(self):
        first, second = run("scripts/03_harness.py"), run(str(ROOT / "scripts/03_harness.py"), cwd=ROOT / "tests")
        self.assertEqual(first.returncode, 0, first.stderr)
        self.assertEqual(first.stdout, second.stdout)
        for needle in ("Demo 1", "Demo 2", "Demo 3", "unknown_tool", "invalid_arguments", "execution_error",
                       "regex parser: silently wrong or silent on", "12 of 12", "(concurrently)",
                       "tickets created: 1", "tokens in the system prompt"):
            self.assertIn(needle, first.stdout)

    def test_help(self):
        result = run("scripts/03_harness.py", "--help")
        self.assertEqual(result.returncode, 0)
        self.assertIn("usage", result.stdout)


class RunAll(unittest.TestCase):
    def test_runs_every_numbered_script(self):
        listed = run("scripts/run_all.py", "--list").stdout.split()
        self.assertEqual(listed, sorted(p.name for p in (ROOT / "scripts").glob("[0-9][0-9]_*.py")))
        self.assertIn("03_harness.py", listed)
        result = run(str(ROOT / "scripts/run_all.py"), cwd=ROOT / "tests")
        self.assertEqual(result.returncode, 0, result.stdout[-2000:])
        for name in listed:
            self.assertIn(f"# {name}", result.stdout)


if __name__ == "__main__":
    unittest.main()
