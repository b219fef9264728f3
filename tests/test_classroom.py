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
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # for script_runs, however the tests are started

import bfcl_lab  # noqa: E402
import interfaces  # noqa: E402
import lab_results  # noqa: E402
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
                    differ = [f for f in mine if f.reason and f.find(text) != " ".join(f.handout.split())]
                    self.assertEqual(sorted(printed), sorted(f.note() for f in differ))
                    for f in differ:
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
    return script_runs.load_script("run_all.py")


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

    def test_a_run_whose_figure_matches_the_handouts_gets_no_note(self):
        # as script 06 with --seed 17, where the crosswalk's reason (the seed) no longer applies
        self.assertEqual(with_notes("apples: 3", self.FIGURES), "apples: 3")
        self.assertIn("^ handout 001 §1: 3 (apples)", with_notes("apples: 5", self.FIGURES))

    def test_this_seeds_details_stay_out_of_the_note(self):
        f = HandoutFigure(1, "§7.3", "share", "78.1%", r"share ([\d.]+%)", "the seed (53/64 here, 50/64 there); more")
        self.assertIn("Why: the seed.", f.note())


def cells(text: str, header: str) -> list[list[str]]:
    """The rows of the format_table in text whose header line contains `header`, read by the columns of its dashed
    rule (each row's first line; the table ends at the first line that does not fit the columns)."""
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if header in line)
    rule = next(i for i in range(at + 1, len(lines)) if tool_core.re.fullmatch(r"-+( +-+)*", lines[i]))
    starts = [m.start() for m in tool_core.re.finditer(r"-+", lines[rule])]
    rows = []
    for line in lines[rule + 1:]:
        if not line.strip() or any(line[i - 2:i].strip() for i in starts[1:] if i <= len(line)):
            break  # a blank line, or text that runs across a column gap: the table has ended
        row = [line[a:b].strip() for a, b in zip(starts, starts[1:] + [len(line)])]
        if row[0]:  # a wrapped cell's next line has no first cell
            rows.append(row)
    return rows


def plotted(chart: tool_core.Chart) -> dict[str, dict[str, float]]:
    """Read a chart's SVG back: {series: {category: value}} from its bars or points."""
    root = ElementTree.fromstring(chart.svg())
    found: dict[str, dict[str, float]] = {}
    for element in root.iter():
        if "data-value" in element.attrib:
            found.setdefault(element.get("data-series"), {})[element.get("data-category")] = float(element.get("data-value"))
    return found


def percent(value: float) -> str:
    return f"{value / 100:.0%}"


def chart_demos() -> dict[str, tuple]:
    """{chart name: (the chart, the text its demo printed)} for every chart of the numbered scripts."""
    demos = [lab_results.demo_cant_compute(0), lab_results.demo_threshold_sweep(0),
             toolformer_lab.demo_free_vs_masked(toolformer_lab.constrained_lab(0)),
             tool_catalog.demo_all_in_context(0), tool_catalog.demo_retrieval(0), lab_results.demo_tau(0),
             lab_results.demo_halved(0), interfaces.demo_tool_results(), lab_results.demo_parallel_turns(),
             lab_results.demo_four_ways()]
    return {chart.name: (chart, text) for text in demos for chart in text.charts}


class Charts(unittest.TestCase):
    """Every chart's plotted values, read back from its SVG, are the figures its demo prints."""

    @classmethod
    def setUpClass(cls):
        cls.charts = chart_demos()

    def test_twelve_charts_each_labelled_and_read_back_exactly(self):
        self.assertGreaterEqual(len(self.charts), 12)
        for name, (chart, _) in self.charts.items():
            with self.subTest(name):
                root = ElementTree.fromstring(chart.svg())
                texts = [t.text for t in root.iter(SVG + "text")]
                for label in (chart.title, chart.x_label, chart.y_label, f"Source: {chart.source}"):
                    self.assertIn(label, texts)
                self.assertEqual(plotted(chart), {label: dict(zip(chart.categories, values))
                                                  for label, values in chart.series})
                self.assertTrue(name.startswith(chart.source.split("scripts/")[1][:2]))  # named after its script

    def expect(self, name: str, header: str, columns: dict[str, tuple[int, callable]], key=lambda row: row[0]):
        """Check chart `name` against its demo's table: series -> (column, how the demo prints the value)."""
        chart, text = self.charts[name]
        rows = {key(row): row for row in cells(text, header)}
        for series, (column, shown) in columns.items():
            for category, value in plotted(chart)[series].items():
                with self.subTest(name, series=series, category=category):
                    self.assertEqual(shown(value), rows[category][column])

    def test_each_chart_plots_its_demos_figures(self):
        self.expect("01_accuracy_by_digits", "fresh test problems",
                    {"5-gram model": (3, percent), "calculate": (4, percent)})
        sweep = {row[0]: row for row in cells(self.charts["02_threshold_sweep"][1], "tau  ")}
        right = {tau: sum(int(c.split("(")[1].split()[0]) for c in row[2:5]) for tau, row in sweep.items()}
        values = plotted(self.charts["02_threshold_sweep"][0])
        self.assertEqual({tau: int(v) for tau, v in values["right calls"].items()}, right)
        self.assertEqual({tau: int(v) for tau, v in values["useless calls"].items()},
                         {tau: int(row[1]) - right[tau] for tau, row in sweep.items()})
        self.expect("05_accuracy_by_tools", "tools in context", {"accuracy": (1, percent)})
        self.expect("05_tokens_by_tools", "tools in context", {"tokens per request": (3, lambda v: f"{v:,.0f}")})
        self.expect("05_recall_at_k", "tools in view", {"original wording": (1, percent), "paraphrased": (2, percent)},
                    key=lambda row: row[0].removeprefix("BM25 top "))
        bars = {line.split()[0]: line.split() for line in self.charts["06_pass_k"][1].split("\n")
                if tool_core.re.match(r"\d+\s+#", line)}
        for series, column in (("pass^k: all k trials succeed", 2), ("pass@k: at least one succeeds", 4)):
            for k, value in plotted(self.charts["06_pass_k"][0])[series].items():
                self.assertEqual(f"{value:.2f}", bars[k][column], (series, k))
        self.assertEqual(sorted(plotted(self.charts["06_halved_failures"][0])), ["as before", "every rate halved"])
        halved = {row[0]: row for row in cells(self.charts["06_halved_failures"][1], "pass@1  ")}
        for series, values in plotted(self.charts["06_halved_failures"][0]).items():
            self.assertEqual([f"{v:.2f}" for v in values.values()], halved[series][1:4])
        self.expect("08_free_vs_masked", "free: valid JSON", {"free: valid JSON": (2, percent), "free: schema-valid": (3, percent),
                                                   "masked: valid JSON": (4, percent),
                                                   "masked: schema-valid": (5, percent)})
        results = [int(row[-1]) for row in cells(self.charts["09_result_tokens"][1], "fields per paper")]
        self.assertEqual(list(plotted(self.charts["09_result_tokens"][0])["tokens"].values()), results)
        self.expect("10_requests", "model requests", {"model requests": (1, lambda v: str(int(v)))})
        self.expect("10_time", "model requests", {"tools, summed": (4, lambda v: f"{v:.1f} s"),
                                     "tools, waited": (5, lambda v: f"{v:.1f} s")})
        ways = cells(self.charts["11_four_ways_tokens"][1], "who holds the API key")
        values = plotted(self.charts["11_four_ways_tokens"][0])
        self.assertEqual([int(v) for v in values["before use"].values()], [int(row[1]) for row in ways])
        self.assertEqual([int(v) for v in values["after one use"].values()], [int(row[2]) for row in ways])

    def test_a_demo_shows_its_charts_in_a_notebook(self):
        chart, text = self.charts["06_pass_k"]
        html = text._repr_html_()
        self.assertIn(chart.svg(), html)
        self.assertEqual(chart._repr_svg_(), chart.svg())


class ChartWriter(unittest.TestCase):
    """The SVG writer refuses what it cannot draw, and picks an axis that holds every value."""

    def chart(self, **change) -> tool_core.Chart:
        fields = dict(name="x_test", title="t", x_label="x", y_label="y", categories=["a", "b"],
                      series=[("s", [1.0, 2.0])], source="here")
        return tool_core.Chart(**(fields | change))

    def test_bad_input_is_refused_with_the_reason(self):
        for change, words in [({"name": "a/b"}, "file name"), ({"series": [("s", [1.0])]}, "1 values for 2"),
                              ({"series": [("s", [1.0, float("nan")])]}, "finite"),
                              ({"series": [("s", [1.0, -2.0])]}, ">= 0"), ({"series": [("s", [1, "2"])]}, "number")]:
            with self.subTest(change=change), self.assertRaises(ValueError) as caught:
                self.chart(**change)
            self.assertIn(words, str(caught.exception))

    def test_the_axis_top_holds_the_largest_value_on_a_round_number(self):
        for top, expected in [(0.83, 1.0), (100, 100), (325, 400), (16727, 20000), (0, 1.0)]:
            with self.subTest(top=top):
                axis, ticks = tool_core._ticks(top)
                self.assertEqual(axis, expected)
                self.assertEqual(len(ticks), 6)
                self.assertGreaterEqual(axis, top)

    def test_text_is_escaped(self):
        chart = self.chart(title="a < b & 'c'", categories=["<x>", "y"])
        root = ElementTree.fromstring(chart.svg())  # well-formed XML
        self.assertIn("a < b & 'c'", [t.text for t in root.iter(SVG + "text")])


class CsvFiles(unittest.TestCase):
    """--csv writes each printed table with its header row; --svg each chart (write_outputs, as print_demos calls
    it)."""

    def test_print_demos_writes_the_charts_and_tables_and_prints_the_same(self):
        sections = [("Demo 3. One turn or four", tool_core.demo_parallel_turns)]
        with tempfile.TemporaryDirectory() as folder:
            svg, table_dir = os.path.join(folder, "svg"), os.path.join(folder, "csv")
            plain, written, err = io.StringIO(), io.StringIO(), io.StringIO()
            tool_core.print_demos(sections, tool_core.Run("10", []), out=plain)
            tool_core.print_demos(sections, tool_core.Run("10", [], svg=svg, csv=table_dir), out=written, err=err)
            self.assertEqual(written.getvalue(), plain.getvalue())  # stdout does not change
            self.assertEqual(sorted(os.listdir(svg)), ["10_requests.svg", "10_time.svg"])
            self.assertIn("10_demo3_table1.csv", os.listdir(table_dir))
            with open(os.path.join(table_dir, "10_demo3_table1.csv"), encoding="utf-8", newline="") as f:
                rows = list(csv.reader(f))
            self.assertIn("4 file(s) written", err.getvalue())
        self.assertEqual(rows[0], ["", "model requests", "messages", "result messages", "tools, summed",
                                   "tools, waited", "input tokens"])
        self.assertEqual([row[0] for row in rows[1:]], ["one call per turn", "all four in one reply"])

    def test_every_script_takes_the_flags(self):
        for script in script_runs.NUMBERED:
            source = (ROOT / "scripts" / script).read_text(encoding="utf-8")
            with self.subTest(script):  # add_vs_handout gives the flags; vs_handout(args, ...) hands them on
                self.assertIn("tool_core.add_vs_handout(parser)", source)
                self.assertIn("tool_core.vs_handout(args,", source)

    def test_tables_and_charts_written_as_files(self):
        table = format_table(["tool", "calls"], [["add", 3], ["note, with a comma", 1]])
        chart = ChartWriter.chart(ChartWriter())
        with tempfile.TemporaryDirectory() as folder:
            written = tool_core.write_outputs([table, chart], "99", "demo2", folder, folder)
            self.assertEqual(sorted(os.path.basename(p) for p in written), ["99_demo2_table1.csv", "x_test.svg"])
            with open(os.path.join(folder, "99_demo2_table1.csv"), encoding="utf-8", newline="") as f:
                self.assertEqual(list(csv.reader(f)), [["tool", "calls"], ["add", "3"], ["note, with a comma", "1"]])
            with open(os.path.join(folder, "x_test.svg"), encoding="utf-8") as f:
                self.assertEqual(f.read(), chart.svg())


if __name__ == "__main__":
    unittest.main()
