"""The classroom (issue 33): handout 001's value under every figure that differs from it, charts for slides, tables
as CSV.

The notes under the figures come from the crosswalk data (tool_core.HandoutFigure): a figure whose crosswalk row gives a
reason for the difference is followed in the script's own output by a note with the handout's value; a figure the
crosswalk calls the same gets none. The scripts' outputs are the runs of tests/script_runs.py's table (default seeds).
"""
import csv
import io
import os
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # for script_runs, however the tests are started

import bfcl_lab  # noqa: E402
import interfaces  # noqa: E402
import script_runs  # noqa: E402
import service_env  # noqa: E402
import tool_catalog  # noqa: E402
import tool_core  # noqa: E402
import toolformer_lab  # noqa: E402
from tool_core import HandoutFigure, format_table, with_notes, without_notes  # noqa: E402

script_runs.prefetch(*script_runs.NUMBERED[:7])

FIGURES = {"01": toolformer_lab.HANDOUT_01, "02": toolformer_lab.HANDOUT_02, "03": tool_core.HANDOUT_03,
           "04": interfaces.HANDOUT_04, "05": tool_catalog.HANDOUT_05,
           "06": bfcl_lab.HANDOUT_06 + service_env.HANDOUT_06, "07": bfcl_lab.HANDOUT_07}
SVG = "{http://www.w3.org/2000/svg}"


def demo_sections(script: str) -> dict[int, str]:
    """{demo number: its text with the notes}, as the script printed it."""
    out = script_runs.result(next(s for s in script_runs.NUMBERED if s.startswith(script))).stdout
    return {tool_core.banner_number(title): body for title, body in script_runs.sections(out, notes=True).items()}


def figure_line(lines: list[str], figure: HandoutFigure) -> int:
    """The index in `lines` of the line where the figure is printed (the notes skipped when searching)."""
    own = [i for i, line in enumerate(lines) if not line.startswith(tool_core.NOTE_MARK)]
    plain = "\n".join(lines[i] for i in own)
    return own[plain.count("\n", 0, tool_core.re.search(figure.run, plain, tool_core.re.M).start())]


class NotesInTheScripts(unittest.TestCase):
    """The strict crosswalk check: no differing figure is printed without its note, and no note stands alone."""

    def test_every_differing_figure_is_followed_by_its_note_and_no_other_note_is_printed(self):
        differing = 0
        for script, figures in FIGURES.items():
            for demo, text in demo_sections(script).items():
                mine = [f for f in figures if f.demo == demo]
                lines = text.split("\n")
                printed = [line for line in lines if line.startswith(tool_core.NOTE_MARK)]
                with self.subTest(script=script, demo=demo):
                    self.assertEqual(sorted(printed), sorted(f.note() for f in mine if f.reason))
                    for f in (f for f in mine if f.reason):
                        differing += 1
                        self.assertGreater(lines.index(f.note()), figure_line(lines, f), f"{f.what}: note first")
        self.assertGreaterEqual(differing, 25)  # the issue counted 25 differing figures; the crosswalk has more

    def test_a_note_says_the_handouts_value_why_and_the_knob(self):
        f = next(f for f in service_env.HANDOUT_06 if f.what == "success by final database state")
        note = f.note()
        self.assertTrue(note.startswith("  ^ handout 001 §7.3: 78.1% (success by final database state). Why: the seed"))
        self.assertTrue(note.endswith("Closer: --seed 17: 50/64 = 78.1%."))


def load_run_all():
    """scripts/run_all.py as a module (its main() is not run)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("run_all", ROOT / "scripts" / "run_all.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class RunAllCrosswalk(unittest.TestCase):
    """run_all.py --vs-handout: a readable text table of the figures that differ (--all: every one), or README's
    Markdown; the rows are each script's crosswalk, here computed from the table's runs."""

    @classmethod
    def setUpClass(cls):
        cls.run_all = load_run_all()
        rows = {}
        for script, figures in FIGURES.items():
            outputs = demo_sections(script)
            rows[script] = [tool_core.readme_row(tool_core.HANDOUT_HEADERS), tool_core.readme_row(["---"] * 7)] + [
                tool_core.readme_row(row) for row in tool_core.handout_rows(script, figures, outputs)]
        cls.rows = staticmethod(lambda script: (0, rows.get(script.name[:2], [])))

    def test_text_lists_only_the_differing_figures_unless_all(self):
        differing = sum(bool(f.reason) for figures in FIGURES.values() for f in figures)
        code, text = self.run_all.crosswalk("text", False, self.rows)
        self.assertEqual(code, 0)
        self.assertIn(f"\n{differing} figures of handout 001 that this run prints differently", text)
        self.assertNotRegex(text, r"(?m)  the same$")  # a figure that agrees: its only "why"
        self.assertLessEqual(max(len(line) for line in text.split("\n")[:-1]), 125)  # readable in a terminal
        code, text = self.run_all.crosswalk("text", True, self.rows)
        self.assertIn(f"\n{sum(map(len, FIGURES.values()))} figures of handout 001 in all", text)

    def test_markdown_all_is_readmes_table(self):
        code, text = self.run_all.crosswalk("markdown", True, self.rows)
        section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Where a run differs from handout 001")[1]
        self.assertEqual(text.split("\n"), [line for line in section.split("\n## ")[0].splitlines()
                                            if line.startswith("| ")])

    def test_a_cell_with_a_bar_reads_back(self):
        self.assertEqual(tool_core.markdown_cells(tool_core.readme_row(["a | b", "<c>", "d"])), ["a | b", "<c>", "d"])


class WithNotes(unittest.TestCase):
    """with_notes puts each note under its figure's line, or under the whole table that holds the figure."""

    FIGURES = [HandoutFigure(1, "§1", "apples", "3", r"apples: (\d+)", "the seed draws the basket"),
               HandoutFigure(1, "§1", "pears", "2", r"pears: (\d+)", ""),  # the same as the handout: no note
               HandoutFigure(1, "§2", "plums in the table", "9", r"(?m)^plums\s+(\d+)$",
                             "the lab's orchard is smaller (a very long reason that goes on " + "and on " * 20 + ")",
                             "--seed 4")]

    def test_a_note_under_a_line_and_one_under_a_table(self):
        table = format_table(["fruit", "count"], [["plums", 7], ["figs", 1]])
        output = f"apples: 4, pears: 2\n\n{table}\nThe end."
        noted = with_notes(output, self.FIGURES, [table])
        lines = noted.split("\n")
        self.assertEqual(lines[1], self.FIGURES[0].note())
        self.assertEqual(lines[lines.index("figs   1") + 1], self.FIGURES[2].note())  # after the table's last row
        self.assertEqual(sum(line.startswith(tool_core.NOTE_MARK) for line in lines), 2)
        self.assertEqual(without_notes(noted), output)

    def test_the_reason_is_shortened_to_its_first_clause(self):
        self.assertIn("Why: the seed draws the basket.", self.FIGURES[0].note())
        note = self.FIGURES[2].note()
        self.assertIn("Why: the lab's orchard is smaller. Closer: --seed 4.", note)
        self.assertNotIn("and on", note)

    def test_a_figure_the_output_does_not_show_gets_no_note(self):
        self.assertEqual(with_notes("nothing here", self.FIGURES), "nothing here")


if __name__ == "__main__":
    unittest.main()
