"""Packaging, and what the README says about it: the build metadata is current, the console commands exist, the
README's code blocks run as scripts, and its Performance table is what `scripts/benchmark.py --markdown` prints.

pyproject.toml is read with tomllib, which Python 3.11 brought: those checks are skipped on 3.10. Nothing is installed
here and the benchmark is not run: its table's rows are templates (benchmark.PERFORMANCE_ROWS) whose {names} a run
fills, so the README's rows must match them exactly, with a figure wherever a template has a name.
"""
import contextlib
import importlib
import importlib.util
import io
import os
import re
import string
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # for script_runs, however the tests are started

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = None

import script_runs  # noqa: E402

README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.M | re.S)
# An SPDX license expression: identifiers (MIT, Apache-2.0, GPL-3.0-or-later, LicenseRef-x) joined by AND / OR / WITH.
SPDX_ID = r"(?:LicenseRef-)?[A-Za-z0-9][A-Za-z0-9.\-]*\+?"
SPDX = re.compile(rf"\(?{SPDX_ID}\)?(?: (?:AND|OR|WITH) \(?{SPDX_ID}\)?)*")
PEP_639_SETUPTOOLS = 77  # the first setuptools to read `license = "MIT"` and `license-files` (its 77.0.0 changelog)
FIGURE = r"(?:\d[\d,]*(?:\.\d+)?|nan)"  # one figure as the benchmark prints it: 12, 0.44, 57,000 (nan: not measurable)


def pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)


def load_benchmark():
    """Import scripts/benchmark.py as a module (importing it times nothing)."""
    spec = importlib.util.spec_from_file_location("benchmark", ROOT / "scripts" / "benchmark.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def command(target: str):
    """Resolve a console entry point, 'module:function', to the function."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def readme_section(title: str) -> str:
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


@unittest.skipIf(tomllib is None, "reading pyproject.toml takes tomllib (Python 3.11+)")
class BuildMetadata(unittest.TestCase):
    """pyproject.toml in the form setuptools will keep accepting, and a LICENSE that says what it claims."""

    @classmethod
    def setUpClass(cls):
        cls.config = pyproject()
        cls.project = cls.config["project"]

    def test_the_license_is_an_spdx_expression_and_the_license_file_says_mit(self):
        license = self.project["license"]
        self.assertIsInstance(license, str, 'PEP 639: license = "MIT"; the {text = ...} table is deprecated')
        self.assertRegex(license, rf"\A{SPDX.pattern}\Z")
        self.assertEqual(license, "MIT")  # the license the project has always claimed
        self.assertFalse([c for c in self.project.get("classifiers", []) if c.startswith("License ::")],
                         "setuptools refuses license classifiers beside a license expression")
        text = (ROOT / "LICENSE").read_text(encoding="utf-8")
        self.assertTrue(text.startswith("MIT License\n"), text[:80])
        self.assertIn("Permission is hereby granted, free of charge, to any person obtaining a copy", text)
        self.assertRegex(text, r"Copyright \(c\) \d{4} \S")
        for pattern in self.project.get("license-files", []):
            with self.subTest(license_file=pattern):
                self.assertTrue(list(ROOT.glob(pattern)), f"license-files names {pattern!r}, which matches no file")

    def test_the_build_asks_for_a_setuptools_that_reads_the_license_string(self):
        floors = [re.fullmatch(r"setuptools\s*>=\s*(\d+)(?:\.\d+)*", r.split(";")[0].strip())
                  for r in self.config["build-system"]["requires"] if r.lower().startswith("setuptools")]
        self.assertEqual(len(floors), 1, self.config["build-system"]["requires"])
        self.assertIsNotNone(floors[0], "setuptools needs a version floor (>=N)")
        self.assertGreaterEqual(int(floors[0].group(1)), PEP_639_SETUPTOOLS)

    def test_every_module_at_the_top_level_is_packaged(self):
        modules = self.config["tool"]["setuptools"]["py-modules"]
        self.assertEqual(sorted(modules), sorted(p.stem for p in ROOT.glob("*.py")))

    def test_each_console_command_names_a_packaged_function(self):
        scripts = self.project["scripts"]
        self.assertGreaterEqual(len(scripts), 2)
        for name, target in scripts.items():
            with self.subTest(command=name):
                self.assertRegex(target, r"\A\w+:\w+\Z")
                self.assertIn(target.partition(":")[0], self.config["tool"]["setuptools"]["py-modules"])
                self.assertTrue(callable(command(target)), target)
                self.assertNotIn(name, {"bfcl", "mcp"}, "bfcl-eval installs `bfcl`, the MCP SDK `mcp`")

    def test_the_commands_are_the_mcp_server_and_the_bfcl_grader_and_answer_help(self):
        said = {}
        for name, target in self.project["scripts"].items():
            out = io.StringIO()
            with self.subTest(command=name), mock.patch.object(sys, "argv", [name, "--help"]), \
                    contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as exit:
                command(target)()  # as the installed wrapper calls it: no arguments, sys.argv read
            self.assertEqual(exit.exception.code, 0)
            self.assertIn("usage:", out.getvalue())
            said[name] = out.getvalue()
        self.assertTrue(any("MCP server" in text and "--http" in text for text in said.values()), said)
        self.assertTrue(any("BFCL" in text and "grade" in text for text in said.values()), said)

    def test_the_readme_says_how_to_install_and_names_each_command(self):
        section = readme_section("Installing it (optional)")
        self.assertIn("`pip install .`", section)
        for name in self.project["scripts"]:
            with self.subTest(command=name):
                self.assertIn(f"`{name}", section)


class ReadmeBlocks(unittest.TestCase):
    """Every python block, shown-only ones too, is a script: no top-level await (which only a notebook runs)."""

    def test_every_python_block_compiles_as_a_script(self):
        blocks = [(info, body) for info, body in FENCE.findall(README) if info.split()[:1] == ["python"]]
        self.assertGreaterEqual(len(blocks), 5)
        for n, (info, body) in enumerate(blocks):
            with self.subTest(block=n, info=info, first_line=body.splitlines()[0]):
                compile(body, f"README python block {n}", "exec")  # SyntaxError: 'async with' outside async function

    def test_no_comment_stops_mid_sentence_at_its_fence(self):
        dangling = re.compile(r"\s#\s.*(?:[,;:]|\b(?:a|an|the|and|or|of|to))\s*\Z")  # a comment ending on "a" or ","
        for info, body in FENCE.findall(README):
            for line in body.splitlines():
                with self.subTest(line=line):
                    self.assertNotRegex(line, dangling, "a comment that goes on outside its code block")


def row_pattern(benchmark, cells) -> str:
    """Turn a template row into a regex: its text exactly, a FIGURE for each {name}. Example: '{n} s' matches '0.4 s'."""
    parts = []
    for literal, name, _, _ in string.Formatter().parse(benchmark.markdown_row(cells)):
        parts.append(re.escape(literal) + (FIGURE if name is not None else ""))
    return "".join(parts)


class AnyFigure(dict):
    """Figures for every name a template asks for (a stand-in for a run)."""

    def __missing__(self, name: str) -> str:
        return "1,234.5"


class PerformanceTable(unittest.TestCase):
    """The README's Performance table has exactly the rows `scripts/benchmark.py --markdown` prints."""

    @classmethod
    def setUpClass(cls):
        cls.benchmark = load_benchmark()
        cls.section = readme_section("Performance")
        cls.lines = [line for line in cls.section.splitlines() if line.startswith("|")]

    def expected(self) -> list[str]:
        """The table's lines as patterns: the header and rule exactly, then one pattern per template row."""
        b = self.benchmark
        return [re.escape(b.markdown_row(b.PERFORMANCE_HEADERS)), re.escape(b.markdown_row(["---"] * len(b.PERFORMANCE_HEADERS)))] + \
            [row_pattern(b, row) for row in b.PERFORMANCE_ROWS]

    def test_the_readme_table_is_the_benchmarks_rows_in_order(self):
        expected = self.expected()
        self.assertEqual(len(self.lines), len(expected), "the README's table and PERFORMANCE_ROWS differ in rows")
        b = self.benchmark
        templates = [b.PERFORMANCE_HEADERS, ["---"] * len(b.PERFORMANCE_HEADERS)] + b.PERFORMANCE_ROWS
        for line, pattern, template in zip(self.lines, expected, templates):
            with self.subTest(line=line[:70]):
                self.assertRegex(line, rf"\A{pattern}\Z", f"the row that --markdown prints: {b.markdown_row(template)}")

    def test_the_printed_table_fills_every_template_and_matches_the_same_patterns(self):
        printed = self.benchmark.performance_table(AnyFigure()).splitlines()
        self.assertEqual(len(printed), len(self.expected()))
        for line, pattern in zip(printed, self.expected()):
            with self.subTest(line=line[:70]):
                self.assertNotIn("{", line)
                self.assertRegex(line, rf"\A{pattern}\Z")

    def test_every_row_has_three_cells_and_none_holds_a_bar(self):
        for row in self.benchmark.PERFORMANCE_ROWS:
            with self.subTest(row=row[0]):
                self.assertEqual(len(row), len(self.benchmark.PERFORMANCE_HEADERS))
                self.assertFalse([cell for cell in row if "|" in cell], "a | would split the Markdown cell")
                self.assertTrue(row[0] and row[1], "what and figure are never empty")

    def test_the_readme_says_how_to_regenerate_it_and_the_flag_exists(self):
        self.assertIn("`python3 scripts/benchmark.py --markdown`", self.section)
        self.assertTrue(self.benchmark.parse_arguments(["--markdown"]).markdown)
        self.assertFalse(self.benchmark.parse_arguments([]).markdown)  # the plain report stays the default


COMMANDS = [  # (console command, its entry point in pyproject.toml, the same command without installing)
    ("tool-use-lab-mcp", "interfaces:serve", ["interfaces.py", "serve"]),
    ("tool-use-lab-bfcl", "bfcl_lab:main", ["bfcl_lab.py"]),
]


def console_wrapper(folder: str, name: str, target: str) -> Path:
    """Write the script pip installs for a console command (its launcher: sys.argv[0] is the command's path)."""
    module, _, function = target.partition(":")
    path = Path(folder, name)
    path.write_text(f"import re\nimport sys\nfrom {module} import {function}\nif __name__ == '__main__':\n"
                    f"    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
                    f"    sys.exit({function}())\n", encoding="utf-8")
    return path


HELP = {name: ["--help"] for name, _, _ in COMMANDS}
ERRORS = {"tool-use-lab-mcp": ["--http"],  # serving HTTP with no tokens set
          "tool-use-lab-bfcl": ["grade", "questions.json", "results.json"]}  # two files, not three
_WRAPPERS = tempfile.TemporaryDirectory(prefix="console-commands-")
_ENV = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"), "PYTHONPATH": str(ROOT)}  # no tokens


def command_runs(arguments: dict[str, list[str]]) -> list[tuple[str, str, tuple[str, ...]]]:
    """Each command, installed (pip's launcher) and as a plain script, with its arguments: (command, what was typed,
    argv for python3)."""
    runs = []
    for name, target, plain in COMMANDS:
        for typed, argv in ((name, [str(console_wrapper(_WRAPPERS.name, name, target))]),
                            (" ".join(plain), [str(ROOT / plain[0]), *plain[1:]])):
            runs.append((name, typed, (*argv, *arguments[name])))
    return runs


for _, _, _argv in command_runs(HELP) + command_runs(ERRORS):  # run beside the tests from now on
    script_runs.queue_command(*_argv, cwd=Path(_WRAPPERS.name), env=_ENV)


def tearDownModule():
    _WRAPPERS.cleanup()


class ConsoleCommands(unittest.TestCase):
    """Each command names itself as the user typed it, in --help and in its one-line errors (issue 31, item 7)."""

    def run_each(self, arguments: dict[str, list[str]]):
        """Each command's run with these arguments: yield (command, what was typed, run)."""
        for name, target, _ in COMMANDS:
            self.assertRegex((ROOT / "pyproject.toml").read_text(encoding="utf-8"), rf'(?m)^{name} = "{target}"')
        for name, typed, argv in command_runs(arguments):
            yield name, typed, script_runs.command(*argv, cwd=Path(_WRAPPERS.name), env=_ENV)

    def test_help_names_the_command_typed(self):
        for _, typed, run in self.run_each(HELP):
            with self.subTest(typed):
                self.assertEqual((run.returncode, run.stderr), (0, ""))
                self.assertTrue(run.stdout.startswith(f"usage: {typed} [-h]"), run.stdout[:200])

    def test_errors_name_the_command_typed(self):
        said = {"tool-use-lab-mcp": ": set MCP_AGENT_TOKEN", "tool-use-lab-bfcl": " grade: give three files"}
        for name, typed, run in self.run_each(ERRORS):
            with self.subTest(typed):
                self.assertEqual((run.returncode, run.stdout), (2, ""))
                self.assertTrue(run.stderr.startswith(typed + said[name]), run.stderr)
                self.assertEqual(run.stderr.count("\n"), 1, run.stderr)


if __name__ == "__main__":
    unittest.main()
