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

import bfcl_lab  # noqa: E402
import handout_001  # noqa: E402
import interfaces  # noqa: E402
import script_runs  # noqa: E402
import service_env  # noqa: E402
import tool_catalog  # noqa: E402
import tool_core  # noqa: E402
import toolformer_lab  # noqa: E402

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
script_runs.prefetch(*script_runs.NUMBERED[:7])  # HandoutDifferences reads scripts 01 to 07
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
    """README's table beside handout 001 is the crosswalk data next to the demos (HANDOUT_01 ... HANDOUT_07), each
    figure read off what the demo prints now (the runs of tests/script_runs.py's table, default seeds)."""

    @classmethod
    def setUpClass(cls):
        section = README.split("## Where a run differs from handout 001")[1].split("\n## ")[0]
        cls.lines = [line for line in section.splitlines() if line.startswith("| ")]
        cls.figures = {"01": toolformer_lab.HANDOUT_01, "02": toolformer_lab.HANDOUT_02, "03": tool_core.HANDOUT_03,
                       "04": interfaces.HANDOUT_04, "05": tool_catalog.HANDOUT_05,
                       "06": bfcl_lab.HANDOUT_06 + service_env.HANDOUT_06, "07": bfcl_lab.HANDOUT_07}

    @staticmethod
    def outputs(number: str) -> dict[int, str]:
        """{demo number: its text} as script <number> prints it; a section that is not 'Demo N.' is demo 0."""
        script = next(s for s in script_runs.NUMBERED if s.startswith(number))
        return {int(t.split(".")[0].split()[-1]) if t.startswith("Demo ") else 0: body
                for t, body in script_runs.sections(script_runs.result(script).stdout).items()}

    def test_the_table_is_the_data_with_the_figures_the_demos_print(self):
        expected = [tool_core.readme_row(tool_core.HANDOUT_HEADERS), tool_core.readme_row(["---"] * 7)]
        for number, figures in self.figures.items():
            expected += [tool_core.readme_row(row) for row in
                         tool_core.handout_rows(number, figures, self.outputs(number))]
        self.assertEqual(self.lines, expected)  # regenerate: python3 scripts/run_all.py --vs-handout markdown --all

    def test_every_figure_the_handout_states_and_a_demo_computes_is_there(self):
        listed = {(number, f.demo, f.section, f.handout) for number, fs in self.figures.items() for f in fs}
        for figure in handout_001.FIGURES:
            with self.subTest(figure=figure):
                self.assertIn(figure, listed)
        self.assertEqual(len(listed), len(set(handout_001.FIGURES)))  # and nothing that is not a handout figure

    def test_a_difference_says_why_and_a_same_row_shows_the_same(self):
        for number, figures in self.figures.items():
            for figure in figures:
                with self.subTest(script=number, what=figure.what):
                    if figure.reason:
                        self.assertGreater(len(figure.reason.split()), 4)
                    else:
                        self.assertFalse(figure.closer)  # a knob to come closer only where they differ

    def test_the_unseen_product(self):
        answer = re.search(r"'32 times 34 is' -> (\d+)", self.outputs("01")[1]).group(1)
        self.assertEqual(self.row("the model's answer to '32 times 34 is'")[5], answer)
        self.assertNotEqual(answer, "136")  # 136 = 4 x 34: the lab trains on equal-digit pairs only

    def test_the_sweep(self):
        sweep = self.outputs("02")[2]
        rows = {line.split()[0]: line for line in sweep.split("The same sweep")[0].splitlines()
                if re.match(r"(0|0\.5|1|1\.5) ", line)}
        right = {tau: [int(n) for n in re.findall(r"\((\d+) right\)", rows[tau])] for tau in rows}
        self.assertEqual(right["0.5"], [35, 30, 30])  # "only tau = 0.5 keeps exactly the right calls": all 95,
        self.assertIn(" 0%", rows["0.5"])  # and nothing useless
        self.assertLess(right["1"][2], 30)  # at tau = 1 right Calendar calls go,
        self.assertLess(right["1.5"][0], 35)  # at 1.5 a calculator call too

    def test_the_recall_of_paraphrases(self):
        retrieval = self.outputs("05")[3]
        recall = {k: re.search(rf"BM25 top {k} +\d+% +(\d+%)", retrieval).group(1) for k in (3, 10)}
        self.assertEqual(self.row("recall at k = 10, paraphrased requests")[5], recall[10])

    def row(self, what: str) -> list[str]:
        return next([c.strip() for c in line.strip("|").split(" | ")] for line in self.lines
                    if f" | {what} | " in line)


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
