"""scripts/exercises.py's coding exercises: --start writes a skeleton, --check runs the lab's own table on a file.

What they check: each exercise's rows are its shared table's rows (tests/exercise_tables.py, tool_core.PARSER_CASES),
and the lab's own code passes every one of them; every skeleton imports and fails every row with its TODO, and
--start never overwrites a file without --force; answers that are wrong on purpose fail exactly the rows they should,
listed here by hand from the tables (a parser that ignores a code fence, pass^k as (c/n)^k, a tool converter that
forgets required, an MCP handler that ignores the protocol version); an exception is that row's answer and the check
goes on; a file that does not import or lacks a function gets one line and exit 1; usage errors exit 2.
The script runs in this process (tests/script_runs.in_process); the student files go to a temporary folder.
"""
import re
import sys
import tempfile
import types
import unittest
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # for script_runs, however the tests are started

import exercise_tables  # noqa: E402
import script_runs  # noqa: E402
import tool_core  # noqa: E402
from script_runs import in_process  # noqa: E402

SCRIPT = script_runs.SCRIPTS / "exercises.py"
README = (ROOT / "README.md").read_text(encoding="utf-8")
exercises = script_runs.load_script("exercises.py")

TABLES = {  # each exercise's rows, in order: the shared tables, by name
    1: exercise_tables.USEFULNESS + exercise_tables.KEEP, 2: tool_core.PARSER_CASES, 3: exercise_tables.CALLS,
    4: exercise_tables.ONE_OPERATION, 5: exercise_tables.ESTIMATES,
    6: exercise_tables.IDF + exercise_tables.DEFAULT_CASES + exercise_tables.EDGE_CASES, 7: exercise_tables.TOOLS_CALLS}


class Folder(unittest.TestCase):
    """A temporary folder for the student's files."""

    def setUp(self):
        folder = tempfile.TemporaryDirectory(prefix="exercises-check-")
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name)

    def write(self, name: str, text: str) -> str:
        """Write a student's file; return its path."""
        path = self.folder / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    def check(self, n: int, text: str) -> tuple[int, list[str], str]:
        """Check a student's file written from text: (exit code, the labels of the rows that fail, stdout)."""
        code, out, err = in_process(SCRIPT, "--check", str(n), self.write(f"exercise_{n}.py", text))
        self.assertEqual(err, "")
        return code, [line.split("FAIL  ", 1)[1] for line in out.splitlines() if line.startswith("  FAIL  ")], out


# --- The tables and the lab ------------------------------------------------------------------------------------------

class TheLab(unittest.TestCase):
    def test_the_rows_are_the_shared_tables_and_the_lab_passes_them_all(self):
        self.assertEqual(len(exercises.CODING), 7)
        for n, coding in enumerate(exercises.CODING, 1):
            with self.subTest(exercise=n):
                rows = coding.rows()
                self.assertEqual(len(rows), len(TABLES[n]))
                expected = [row[-1] for row in TABLES[n]]  # every table ends its rows with the expected value
                if n == 3:  # CALLS: (..., kind, content) -> the outcome the check compares
                    expected = [row[3] for row in TABLES[n]]
                    self.assertEqual([row.expected["error_kind"] for row in rows], expected)
                elif n == 7:  # TOOLS_CALLS: an int is a protocol error's code
                    self.assertEqual([getattr(row.expected, "code", row.expected) for row in rows], expected)
                else:
                    self.assertEqual([row.expected for row in rows], expected)
                lab = types.SimpleNamespace(**coding.lab())
                failed = [(row.label, got) for row, got, passed in exercises.check(coding, lab) if not passed]
                self.assertEqual(failed, [])

    def test_check_lab_on_the_command_line(self):
        code, out, err = in_process(SCRIPT, "--check", "5", "--lab")
        self.assertEqual((code, err), (0, ""))
        lines = out.splitlines()
        self.assertEqual(lines[:3], [
            "Coding exercise 5. pass^k and pass@k from n trials with c successes: pass_hat_k, pass_at_k",
            "The lab's own code (service_env.pass_hat_k and pass_at_k), on the 18 rows of ESTIMATES in "
            "tests/exercise_tables.py:",
            "  ok    pass_hat_k(8, 4, 1)"])
        self.assertEqual(lines[-1], "All 18 rows pass.")

    def test_same(self):
        cases = [  # (expected, actual, the same?)
            (Fraction(1, 70), 1 / 70, True),  # a float may stand for an exact fraction
            (Fraction(7, 15), 0.512, False), (Decimal("1.3"), Decimal("1.3"), True), (Decimal("1.3"), 1.3, True),
            (True, True, True), (True, 1, False), (0, False, False),  # a bool is not a number here
            ([("call", "f", {})], [["call", "f", {}]], True),  # a list for a tuple
            ([1.0, 0], [1.0], False), ({"a": [1]}, {"a": [1], "b": 2}, False), ({"a": 1.0}, {"a": 1}, True),
            (None, 0, False), ("x", "x", True)]
        for expected, actual, verdict in cases:
            with self.subTest(expected=expected, actual=actual):
                self.assertIs(exercises.same(expected, actual), verdict)

    def test_first_difference(self):
        self.assertEqual(exercises.first_difference({"a": [1, 2]}, {"a": [1, 3]}), "['a'][1]: expected 2, actual 3")
        self.assertEqual(exercises.first_difference({"a": 1}, {}), "['a']: missing")
        self.assertEqual(exercises.first_difference({}, {"b": 2}), "['b']: not expected (actual 2)")
        self.assertIsNone(exercises.first_difference({"a": Fraction(1, 2)}, {"a": 0.5}))


# --- --start: the skeletons ---------------------------------------------------------------------------------------

class Start(Folder):
    def test_every_skeleton_imports_and_fails_every_row_with_its_todo(self):
        for n, coding in enumerate(exercises.CODING, 1):
            with self.subTest(exercise=n):
                code, out, err = in_process(SCRIPT, "--start", str(n), str(self.folder))
                path = self.folder / f"exercise_{n}.py"
                self.assertEqual((code, err), (0, ""))
                self.assertEqual(out, f"wrote {path}: write {' and '.join(coding.functions)}, then run "
                                      f"python3 scripts/exercises.py --check {n} {path}\n")
                text = path.read_text(encoding="utf-8")
                self.assertIn(f"python3 scripts/exercises.py --check {n} {path}", text)
                self.assertEqual(text.count("raise NotImplementedError(\"TODO"), len(coding.functions))
                code, out, err = in_process(SCRIPT, "--check", str(n), str(path))
                self.assertEqual((code, err), (1, ""))
                rows = len(TABLES[n])
                self.assertEqual(out.count("\n  FAIL  "), rows)
                self.assertEqual(out.count("actual:   raised NotImplementedError: TODO"), rows)
                self.assertTrue(out.endswith(f"0 of {rows} rows pass; {rows} fail.\n"))

    def test_an_existing_file_is_kept_unless_force(self):
        path = self.folder / "answers" / "exercise_5.py"  # the folder is made when it is missing
        self.assertEqual(in_process(SCRIPT, "--start", "5", str(path.parent)).returncode, 0)
        path.write_text("# my work\n", encoding="utf-8")
        code, out, err = in_process(SCRIPT, "--start", "5", str(path.parent))
        self.assertEqual((code, out), (1, ""))
        self.assertEqual(err, f"{path} exists: not overwritten (add --force to replace it with a fresh skeleton)\n")
        self.assertEqual(path.read_text(encoding="utf-8"), "# my work\n")
        self.assertEqual(in_process(SCRIPT, "--start", "5", str(path.parent), "--force").returncode, 0)
        self.assertIn("def pass_hat_k(n, c, k):", path.read_text(encoding="utf-8"))


# --- --check: wrong answers fail exactly their rows -------------------------------------------------------------------

PARSER = '''import json

OPEN, CLOSE = "<tool_call>", "</tool_call>"


def parse_calls(text):
    items, start = [], text.find(OPEN)
    while start >= 0:
        end = text.find(OPEN, start + len(OPEN))
        body = text[start + len(OPEN): end if end >= 0 else len(text)].strip()
        items.append(judge(unfence(body)))
        start = end
    return items


def unfence(body):
    if body.startswith("```"):
        body = body.split("\\n", 1)[1].replace("```", "", 1)
    return body.strip()


def judge(body):
    try:
        value, stop = json.JSONDecoder().raw_decode(body)
    except ValueError:
        return ("error", "invalid_json" if CLOSE in body else "truncated")
    rest = body[stop:].strip()
    if not rest.startswith(CLOSE):
        return ("error", "invalid_json" if rest else "truncated")
    if not isinstance(value, dict):
        return ("error", "not_an_object")
    if not isinstance(value.get("name"), str) or not value["name"].strip():
        return ("error", "bad_name")
    if not isinstance(value.get("arguments"), dict):
        return ("error", "bad_arguments")
    return ("call", value["name"], value["arguments"])
'''


class StudentFiles(Folder):
    def test_a_file_wrapping_the_lab_passes(self):
        code, failed, out = self.check(5, "from service_env import pass_at_k, pass_hat_k\n")
        self.assertEqual((code, failed), (0, []))
        self.assertTrue(out.endswith("All 18 rows pass.\n"))

    def test_a_parser_that_ignores_code_fences_fails_only_the_fenced_output(self):
        self.assertEqual(self.check(2, PARSER)[:2], (0, []))  # a student's parser, not the lab's: all twelve
        code, failed, out = self.check(2, PARSER.replace("judge(unfence(body))", "judge(body)"))
        # of the lecture's twelve outputs only "code fence" wraps its JSON in ```json ... ``` inside the tags
        self.assertEqual((code, failed), (1, ["code fence"]))
        self.assertIn("\n".join([
            "  FAIL  code fence",
            "          given:    " + repr(tool_core.PARSER_CASES[3][1]),
            "          expected: [('call', 'get_substation', {'substation_id': 'SS-218'})]",
            "          actual:   [('error', 'invalid_json')]",
            "  ok    two calls"]), out)
        self.assertTrue(out.endswith("11 of 12 rows pass; 1 fail.\n"))

    def test_pass_hat_k_as_c_over_n_to_the_k_fails_where_they_differ_and_an_exception_is_a_row(self):
        code, failed, out = self.check(5, "from math import comb\n\n\ndef pass_hat_k(n, c, k):\n"
                                          "    return (c / n) ** k\n\n\ndef pass_at_k(n, c, k):\n"
                                          "    if c == n:\n        raise ValueError('no failure to draw')\n"
                                          "    return 1 - comb(n - c, k) / comb(n, k)\n")
        # (c/n)^k draws with replacement: it agrees when k = 1 or c is 0 or n, and differs at (8, 4, 4): 1/16 vs
        # 1/70, (10, 8, 3): 0.512 vs 7/15, (5, 2, 2): 0.16 vs 1/10, (5, 4, 5): 0.8^5 vs 0; pass_at_k raises at c = n
        self.assertEqual(code, 1)
        self.assertEqual(failed, ["pass_hat_k(8, 4, 4)", "pass_hat_k(10, 8, 3)", "pass_hat_k(5, 2, 2)",
                                  "pass_hat_k(5, 4, 5)", "pass_at_k(5, 5, 2)", "pass_at_k(1, 1, 1)"])
        self.assertIn("  FAIL  pass_hat_k(8, 4, 4)\n          expected: 1/70\n          actual:   0.0625\n", out)
        self.assertIn("  FAIL  pass_at_k(1, 1, 1)\n          expected: 1\n"
                      "          actual:   raised ValueError: no failure to draw\n", out)
        self.assertTrue(out.endswith("12 of 18 rows pass; 6 fail.\n"))

    def test_the_readme_example_is_what_the_check_prints(self):
        block = next(body for body in re.findall(r"^```text\n(.*?)^```", README, re.M | re.S) if "--check 5" in body)
        commands, printed = block.splitlines()[:2], block.splitlines()[2:]
        self.assertEqual(commands, ["python3 scripts/exercises.py --start 5 my_answers",
                                    "python3 scripts/exercises.py --check 5 my_answers/exercise_5.py"])
        code, failed, out = self.check(5, "from math import comb\n\n\ndef pass_hat_k(n, c, k):\n"
                                          "    return (c / n) ** k\n\n\ndef pass_at_k(n, c, k):\n"
                                          "    return 1 - comb(n - c, k) / comb(n, k)\n")
        self.assertEqual(code, 1)
        lines = out.replace(str(self.folder / "exercise_5.py"), "my_answers/exercise_5.py").splitlines()
        at = [lines.index(line) for line in printed if line != "  ..."]  # every line the README shows, in order
        self.assertEqual(at, sorted(at))
        self.assertEqual(at[-1], len(lines) - 1)

    def test_a_converter_that_forgets_required_fails_the_rows_with_a_required_argument(self):
        code, failed, out = self.check(4, "from interfaces import openapi_to_tools\n\n\ndef openapi_tool(document):\n"
                                          "    [tool] = openapi_to_tools(document, 'http://127.0.0.1:9')\n"
                                          "    return {'name': tool.name, 'description': tool.description,\n"
                                          "            'parameters': tool.parameters | {'required': []}}\n")
        # by hand: the rows whose tool requires q, visitId (twice), team, and ownerId and name
        self.assertEqual((code, failed), (1, [
            "a required query parameter", "a path parameter is required even when the document omits required",
            "no operationId: named after the method and the path", "a JSON body: its fields become arguments",
            "the path item's parameters, then the operation's, then the body's fields"]))
        self.assertIn("          where:    ['parameters']['required']: expected ['ownerId', 'name'], actual []\n", out)

    def test_an_mcp_handler_that_ignores_the_version_fails_the_2025_11_25_schema_rows(self):
        code, failed, out = self.check(7, '''from interfaces import INVALID_PARAMS, RPCError


def handle_tools_call(registry, params, version="2025-11-25"):
    name, arguments = params.get("name"), params.get("arguments", {})
    if not isinstance(name, str) or registry.get(name) is None:
        raise RPCError(INVALID_PARAMS, f"Unknown tool: {name}")
    if not isinstance(arguments, dict):
        raise RPCError(INVALID_PARAMS, "arguments must be an object")
    result = registry.call(name, arguments)
    if result.error_kind == "invalid_arguments":
        raise RPCError(INVALID_PARAMS, "Invalid params")
    return {"content": [{"type": "text", "text": result.text}], "isError": not result.ok}
''')
        self.assertEqual((code, failed), (1, ["arguments that fail the schema (2025-11-25): isError",
                                              "a required argument missing (2025-11-25): isError"]))
        self.assertIn("          expected: {'isError': True}\n"
                      "          actual:   the protocol error -32602: Invalid params\n", out)

    def test_an_unknown_tool_answered_as_a_result_fails_the_protocol_error_rows(self):
        code, failed, out = self.check(7, '''def handle_tools_call(registry, params, version="2025-11-25"):
    result = registry.call(params.get("name"), params.get("arguments", {}))
    return {"content": [{"type": "text", "text": result.text}], "isError": not result.ok}
''')
        # every row that expects -32602 gets an isError result instead; so do the 2025-06-18 schema failure
        expected = [what for what, version, params, reply in exercise_tables.TOOLS_CALLS if isinstance(reply, int)]
        self.assertEqual((code, failed), (1, expected))
        self.assertEqual(len(expected), 7)
        self.assertIn("          expected: the protocol error -32602 (raise interfaces.RPCError)\n", out)


# --- --check: files that cannot be checked, and usage errors ---------------------------------------------------------

class CannotCheck(Folder):
    def test_a_file_that_does_not_import_or_lacks_a_function_gets_one_line(self):
        cases = [  # (the file, what stderr says after its path)
            ("def usefulness(a, b, c,\n", "cannot be imported: SyntaxError: '(' was never closed (line 1)"),
            ("x = 1\nimport no_such_module_here\n",
             "cannot be imported: ModuleNotFoundError: No module named 'no_such_module_here' (line 2)"),
            ("raise SystemExit('bye')\n", "cannot be imported: SystemExit: bye (line 1)"),
            ("def usefulness(a, b, c, with_call_alone=True):\n    return 0\n",
             "has no function keep: the exercise asks for usefulness and keep (--start writes them as TODOs)"),
            ("keep = 3\n", "has no function usefulness or keep: the exercise asks for usefulness and keep (--start "
                           "writes them as TODOs)")]
        for n, (text, says) in enumerate(cases):
            with self.subTest(says=says):
                path = self.write(f"broken_{n}.py", text)
                self.assertEqual(in_process(SCRIPT, "--check", "1", path), (1, "", f"{path} {says}\n"))
        self.assertFalse([name for name in sys.modules if name.startswith("student_broken")])  # imported, then let go

    def test_usage_errors_exit_2_with_a_message(self):
        skeleton = self.write("exercise_5.py", "")
        cases = [  # (arguments, the end of the message)
            (("--check", "8", skeleton), "argument --check: there are 7 coding exercises: N must be a whole number "
                                         "from 1 to 7, got '8'"),
            (("--start", "0", str(self.folder)), "argument --start: there are 7 coding exercises: N must be a whole "
                                                 "number from 1 to 7, got '0'"),
            (("--check", "x", "--lab"), "got 'x'"),
            (("--check", "5", str(self.folder / "missing.py")), f"argument --check: {self.folder / 'missing.py'} "
                                                                "does not exist"),
            (("--check", "5", str(self.folder)), f"argument --check: {self.folder} is not a file"),
            (("--check", "5"), "--check takes N and FILE, or N and --lab"),
            (("--check", "5", skeleton, "--lab"), "--check takes N and FILE, or N and --lab"),
            (("--check", "5", skeleton, "other.py"), "--check takes N and FILE, or N and --lab"),
            (("--check", "5", skeleton, "--force"), "--force goes with --start"),
            (("--start", "5", skeleton), f"argument --start: {skeleton} is not a directory"),
            (("--start", "5", str(self.folder), "--lab"), "--lab goes with --check"),
            (("--force",), "--force goes with --start, --lab with --check"),
            (("3", "--check", "5", "--lab"), "give N (the key), --start or --check, one at a time"),
            (("--start", "5", str(self.folder), "--check", "5", "--lab"), "one at a time"),
        ]
        for args, says in cases:
            with self.subTest(args=args):
                code, out, err = in_process(SCRIPT, *args)
                self.assertEqual((code, out), (2, ""))
                self.assertTrue(err.startswith("usage: exercises.py [-h] [N] [--start N DIR [--force]] [--check N "
                                               "FILE | --check N --lab]\n"), err)
                self.assertTrue(err.endswith(f"{says}\n"), err)
        self.assertEqual(sorted(p.name for p in self.folder.iterdir()), ["exercise_5.py"])  # nothing was written

    def test_help_lists_the_coding_exercises(self):
        code, out, err = in_process(SCRIPT, "--help")
        self.assertEqual((code, err), (0, ""))
        for n, coding in enumerate(exercises.CODING, 1):
            self.assertIn(f"\n  {n}  {coding.title} ({', '.join(coding.functions)})\n", out)
        self.assertIn("--check N --lab: run the table on the lab's own code", " ".join(out.split()))


if __name__ == "__main__":
    unittest.main()
