"""The README cannot drift from the code: every runnable command and snippet in it is run here.

Fenced ```bash blocks: each line is a command, run from the repository root with this
interpreter; it must exit 0. The two set-up commands at the top are what CI runs, so this test
checks that .ci/run runs them (running the test suite from inside the test suite would recurse).
Fenced ```python blocks (not marked no-run) are run as scripts from the repository root.
Commands and snippets run through tests/script_runs.py: queued when this file is imported, run in the background,
and a command that is a run of its table (scripts/06_evaluation.py --seed 1) is not run twice; a --help command is
answered in process.
"""
import re
import shlex
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # for script_runs, however the tests are started

import script_runs  # noqa: E402

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


SNIPPET_ENV = script_runs.ENV | {"PYTHONPATH": str(ROOT)}


def run(command: str) -> script_runs.Result:
    """Run one README command line from the repository root, without an API key; (exit code, stdout, stderr)."""
    argv = shlex.split(command)[1:]
    if "--help" in argv:
        return script_runs.in_process(ROOT / argv[0], *argv[1:])
    return script_runs.command(*argv)


for _command in commands()[2:]:  # queued now, while the other test files are imported and run
    if "--help" not in shlex.split(_command):
        script_runs.queue_command(*shlex.split(_command)[1:])
script_runs.prefetch("01_why_tools.py", "02_toolformer.py", "05_many_tools.py")  # HandoutDifferences reads them
_SNIPPETS = tempfile.TemporaryDirectory(prefix="readme-snippets-")
for _n, _snippet in enumerate(blocks("python")):  # one interpreter runs them all, each in a namespace of its own
    Path(_SNIPPETS.name, f"snippet_{_n}.py").write_text(_snippet, encoding="utf-8")
script_runs.queue_batch("README snippets", [(f"snippet {n}", str(Path(_SNIPPETS.name, f"snippet_{n}.py")), ())
                                            for n in range(len(blocks("python")))], ROOT, SNIPPET_ENV)


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
        for command in rest:
            self.assertEqual(shlex.split(command)[0], "python3", "README commands are python3 commands")
        for command in rest:
            with self.subTest(command=command):
                code, out, err = run(command)
                self.assertEqual(code, 0, err[-1500:])
                self.assertTrue(out.strip())


class HandoutDifferences(unittest.TestCase):
    """The table of where a run differs from handout 001 quotes what the demos print (default seeds)."""

    @classmethod
    def setUpClass(cls):
        section = README.split("## Where a run differs from handout 001")[1].split("\n## ")[0]
        cls.rows = {cells[0]: cells[1:] for cells in (
            [c.strip() for c in line.strip("|").split("|")] for line in section.splitlines() if line.startswith("| "))}
        cls.compute = cls.demo("01_why_tools.py", 1)
        cls.sweep = cls.demo("02_toolformer.py", 2)
        cls.retrieval = cls.demo("05_many_tools.py", 3)

    @staticmethod
    def demo(script: str, number: int) -> str:
        """Demo <number> as the script prints it (a run of tests/script_runs.py's table)."""
        out = script_runs.result(script).stdout
        return next(body for title, body in script_runs.sections(out).items() if title.startswith(f"Demo {number}."))

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
                result = script_runs.batch_result("README snippets", f"snippet {n}")
                self.assertEqual(result.returncode, 0, result.stderr[-1500:])

    def test_no_run_blocks_are_few_and_say_why(self):
        marked = [info for info, _ in FENCE.findall(README) if "no-run" in info]
        self.assertLessEqual(len(marked), 2)
        self.assertIn("is only shown", README)


if __name__ == "__main__":
    unittest.main()
