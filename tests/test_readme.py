"""The README cannot drift from the code: every runnable command and snippet in it is run here.

Fenced ```bash blocks: each line is a command, run from the repository root with this
interpreter; it must exit 0. The two set-up commands at the top are what CI runs, so this test
checks that .ci/run runs them (running the test suite from inside the test suite would recurse).
Fenced ```python blocks (not marked no-run) are run as scripts from the repository root.
"""
import re
import shlex
import subprocess
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.M | re.S)
SETUP = ["python3 scripts/run_all.py", "python3 -m unittest discover -s tests"]


def blocks(kind: str) -> list[str]:
    """Return the bodies of the fenced blocks whose info string is exactly `kind`."""
    return [body for info, body in FENCE.findall(README) if info.strip() == kind]


def commands() -> list[str]:
    """Return every command line of the bash blocks, comments dropped."""
    out = []
    for body in blocks("bash"):
        for line in body.splitlines():
            command = line.split("  #")[0].split(" #")[0].strip()
            if command:
                out.append(command)
    return out


class ReadmeCommands(unittest.TestCase):
    """Each command the README shows runs and exits 0."""

    def test_the_setup_commands_come_first_and_ci_runs_them(self):
        self.assertEqual(commands()[:2], SETUP)
        ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
        self.assertIn('"$py" -m unittest discover -s tests', ci)
        self.assertIn('"$py" scripts/run_all.py', ci)

    def test_every_other_command_runs(self):
        rest = commands()[2:]
        self.assertGreaterEqual(len(rest), 5)
        env = {"PATH": "/usr/bin:/bin", "HOME": str(ROOT)}  # no API key: the offline paths
        for command in rest:
            self.assertEqual(shlex.split(command)[0], "python3", "README commands are python3 commands")
        running = [(c, subprocess.Popen([sys.executable, *shlex.split(c)[1:]], cwd=ROOT, env=env, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)) for c in rest]
        for command, process in running:  # started together: the suite waits for the slowest, not the sum
            with self.subTest(command=command):
                out, err = process.communicate(timeout=120)
                self.assertEqual(process.returncode, 0, err[-1500:])
                self.assertTrue(out.strip())


class HandoutDifferences(unittest.TestCase):
    """The table of where a run differs from handout 001 quotes what the demos print (default seeds)."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, str(ROOT))
        import tool_catalog
        import toolformer_lab
        section = README.split("## Where a run differs from handout 001")[1].split("\n## ")[0]
        cls.rows = {cells[0]: cells[1:] for cells in (
            [c.strip() for c in line.strip("|").split("|")] for line in section.splitlines() if line.startswith("| "))}
        cls.compute = toolformer_lab.demo_cant_compute(0)
        cls.sweep = toolformer_lab.demo_threshold_sweep(toolformer_lab.toolformer_pipeline(0))
        cls.retrieval = tool_catalog.demo_retrieval(0)

    def row(self, starts: str) -> list[str]:
        return next(cells for handout, cells in self.rows.items() if handout.startswith(starts))

    def test_the_unseen_product(self):
        answer = re.search(r"'32 times 34 is' -> (\d+)", self.compute).group(1)
        self.assertEqual(self.row("§1")[0], answer)

    def test_the_sweep(self):
        said = self.row("§3.6")[0]
        rows = {line.split()[0]: line for line in self.sweep.split("The same sweep")[0].splitlines()
                if re.match(r"(0|0\.5|1|1\.5) ", line)}
        right = {tau: [int(n) for n in re.findall(r"\((\d+) right\)", rows[tau])] for tau in rows}
        self.assertEqual(right["0.5"], [35, 30, 30])  # "only tau = 0.5 does": every right call, and
        self.assertIn(" 0%", rows["0.5"])  # nothing useless
        self.assertEqual(30 - right["1"][2], int(re.search(r"at tau = 1, (\d+) right Calendar calls go", said).group(1)))
        self.assertEqual(35 - right["1.5"][0], 1)  # "at 1.5 one calculator call too"
        self.assertIn("6%", rows["0"])  # tau = 0 keeps useless calls: not exactly the right ones either

    def test_the_recall_of_paraphrases(self):
        recall = {k: re.search(rf"BM25 top {k} +\d+% +(\d+%)", self.retrieval).group(1) for k in (3, 10)}
        self.assertEqual(self.row("exercise 6")[0].split(" (")[0], f"{recall[3]} and {recall[10]}")


class ReadmeSnippets(unittest.TestCase):
    """Each python snippet the README shows runs as written."""

    def test_every_snippet_runs(self):
        snippets = blocks("python")
        self.assertGreaterEqual(len(snippets), 5)
        for n, code in enumerate(snippets):
            with self.subTest(snippet=n, first_line=code.splitlines()[0]):
                result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                                        timeout=60, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
                self.assertEqual(result.returncode, 0, result.stderr[-1500:])

    def test_no_run_blocks_are_few_and_say_why(self):
        marked = [info for info, _ in FENCE.findall(README) if "no-run" in info]
        self.assertLessEqual(len(marked), 2)
        self.assertIn("is only shown", README)


if __name__ == "__main__":
    unittest.main()
