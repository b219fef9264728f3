"""The demo scripts run, answer --help and print the same bytes every run; scripts/03 prints the right figures."""
import json
import re
import subprocess
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tool_core  # noqa: E402


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=60)


class Harness03(unittest.TestCase):
    """scripts/03_harness.py: the same bytes every run, and the figures that carry the lecture's points."""

    @classmethod
    def setUpClass(cls):
        cls.first = run("scripts/03_harness.py")
        cls.second = run(str(ROOT / "scripts/03_harness.py"), cwd=ROOT / "tests")

    def test_prints_the_four_sections_the_same_every_time(self):
        self.assertEqual(self.first.returncode, 0, self.first.stderr)
        self.assertEqual(self.first.stdout, self.second.stdout)
        banners = re.findall(r"^=== (.*) ===$", self.first.stdout, re.M)
        self.assertEqual(banners, ["Demo 1. Three kinds of error, three different readers",
                                   "Demo 2. Twelve model outputs, two parsers",
                                   "Demo 3. The loop: parallel calls, relevance, correction",
                                   "What the tools cost in the prompt"])

    def test_the_figures(self):
        out = self.first.stdout
        # hand counts: the regex parser misses cases 1-4 and 7-11; the robust one gets all twelve;
        # the invalid create_ticket writes nothing; the corrected one writes WO-5001 with priority high
        for figure in ("Tickets in the work-order system after these calls: 0 ",
                       "regex parser: silently wrong or silent on 9 of 12;",
                       "robust parser: 12 of 12 as expected",
                       "execution: turn 1: call_1 get_incident + call_2 get_substation (concurrently);",
                       "   tickets created: 1 (WO-5001 high)\n"):
            with self.subTest(figure=figure):
                self.assertIn(figure, out)
        demo1 = out.split("=== Demo 2.")[0]
        kinds = re.findall(r"^\S.*? {2,}(unknown_tool|invalid_arguments|execution_error) ", demo1, re.M)
        self.assertEqual(kinds, ["unknown_tool", "invalid_arguments", "invalid_arguments", "execution_error",
                                 "execution_error"])

    def test_token_figures_match_an_independent_count(self):
        registry, _ = tool_core.orrin_grid_registry()
        definitions = sum(tool_core.count_tokens(json.dumps(t.spec())) for t in registry)
        rules = tool_core.count_tokens(tool_core.render_tool_prompt([]))  # the prompt with no tool in it
        total = definitions + rules
        self.assertEqual(total, tool_core.count_tokens(tool_core.render_tool_prompt(registry)))
        self.assertIn(f"\n4 tools ~ {total} tokens in the system prompt: {definitions} for the tool definitions "
                      f"(~{round(definitions / 4)} per tool) and {rules} for the format and rules.\n", self.first.stdout)
        self.assertIn(f"a 5-turn task pays it 5 times ({5 * total} tokens)", self.first.stdout)

    def test_help(self):
        result = run("scripts/03_harness.py", "--help")
        self.assertEqual(result.returncode, 0)
        self.assertIn("usage", result.stdout)


class RunAll(unittest.TestCase):
    """scripts/run_all.py lists every numbered script (.ci/run runs them all; each script's own tests run it)."""

    def test_lists_every_numbered_script(self):
        listed = run(str(ROOT / "scripts/run_all.py"), "--list", cwd=ROOT / "tests").stdout.split()
        self.assertEqual(listed, sorted(p.name for p in (ROOT / "scripts").glob("[0-9][0-9]_*.py")))
        self.assertEqual(listed[:3], ["01_why_tools.py", "02_toolformer.py", "03_harness.py"])

    def test_ci_runs_them_all(self):
        self.assertIn('"$py" scripts/run_all.py', (ROOT / ".ci" / "run").read_text(encoding="utf-8"))


if __name__ == "__main__":
    unittest.main()
