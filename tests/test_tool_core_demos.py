"""Every figure scripts/03_harness.py prints, checked against hand counts or an independent computation.

The script prints exactly the four demos (Script03, from a run of tests/script_runs.py's table; tests/test_scripts.py
checks --help and the same bytes from any directory). The demos (tool_core.demo_error_kinds, demo_parsers, demo_loop,
demo_prompt_cost) run in process;
their tables are cut into cells at the dash rule under the header, and their figures are read with
regular expressions. Expected values are written by hand from the lecture's cases, or counted here
from the inputs (the parser cases, the tool specs) without calling the demo's own arithmetic.
"""
import json
import re
import sys
import io
import os
import tempfile
import textwrap
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # for script_runs, however the tests are started

import script_runs  # noqa: E402
import tool_core  # noqa: E402
from tool_core import (ERROR_CASES, PARSER_CASES, REGISTRY_ERROR_KINDS, ToolCall, count_tokens,  # noqa: E402
                       demo_error_kinds, demo_loop, demo_parsers, demo_prompt_cost, orrin_grid_registry,
                       parse_tool_calls, parse_tool_calls_regex, render_tool_prompt)


script_runs.prefetch("03_harness.py")  # the table's runs of script 03 start now, in the background
_MARKS = tempfile.TemporaryDirectory(prefix="print-demos-")
CLOSED_PIPE = ("-c", "import sys; sys.path.insert(0, sys.argv[1]); import tool_core\n"
                     "tool_core.print_demos([('one', lambda: open(sys.argv[2], 'w').close() or 'first'),"
                     " ('two', lambda: 'second')])", str(ROOT), str(Path(_MARKS.name, "computed")))
script_runs.queue_command(*CLOSED_PIPE, closed_stdout=True)  # print_demos into a pipe whose reader has gone


def tearDownModule():
    _MARKS.cleanup()


def block_after(text: str, first_line: str) -> list[str]:
    """Return the lines from the one starting with first_line up to the next blank line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first_line))
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def split_table(lines: list[str]) -> tuple[list[list[str]], list[list[str]]]:
    """Cut a format_table block into header lines and body lines of cells, at the dash rule's columns."""
    rule = next(i for i, line in enumerate(lines) if line and set(line) <= {"-", " "})
    starts = [m.start() for m in re.finditer(r"-+", lines[rule])]
    bounds = list(zip(starts, starts[1:] + [None]))

    def cut(line: str) -> list[str]:
        return [line[a:b].strip() for a, b in bounds]

    return [cut(line) for line in lines[:rule]], [cut(line) for line in lines[rule + 1:]]


def outcome(items) -> list[tuple]:
    """Reduce parser items to the truth format of PARSER_CASES: ("call", name, args) or ("error", kind)."""
    return [("call", i.name, i.arguments) if isinstance(i, ToolCall) else ("error", i.kind) for i in items]


class ErrorKindsDemo(unittest.TestCase):
    """demo_error_kinds: each row's kind, message and reader, wrapped at the demo's widths; no ticket written."""

    KINDS = ["unknown_tool", "invalid_arguments", "invalid_arguments", "execution_error (retryable)", "execution_error"]
    FRAGMENTS = [  # what each message must say, by hand
        "Available tools: create_ticket, get_incident, get_substation, search_incidents.",
        'expected one of ["low", "normal", "high"], got "urgent". Nothing was executed.',
        "missing required properties ['substation_id']",
        "TimeoutError: the incident archive did not answer within 2.0 s. This is temporary",
        "LookupError: no incident 'E-9999'",
    ]

    def setUp(self):
        self.text = demo_error_kinds()

    def rows(self) -> list[list[list[str]]]:
        header, body = split_table(block_after(self.text, "call "))
        self.assertEqual(header, [["call", "kind", "what the model sees", "who must act"]])
        rows = []
        for cells in body:
            if cells[1].split(" ")[0] in REGISTRY_ERROR_KINDS:  # a row starts where its kind is named
                rows.append([[] for _ in cells])
            for column, piece in zip(rows[-1], cells):
                if piece:
                    column.append(piece)
        return rows

    def test_each_row(self):
        rows = self.rows()
        self.assertEqual(len(rows), 5)
        registry, grid = orrin_grid_registry()
        for (name, arguments, who), kind, fragment, row in zip(ERROR_CASES, self.KINDS, self.FRAGMENTS, rows):
            with self.subTest(call=name, arguments=arguments):
                result = registry.call(name, arguments)
                self.assertIn(fragment, result.message)
                expected = [f"{name}({json.dumps(arguments)})", kind, result.message, who]
                for width, cell, got in zip((34, 17, 50, 24), expected, row):
                    self.assertEqual(got, textwrap.wrap(cell, width))
        self.assertEqual(grid.tickets, [])

    def test_no_ticket_was_written(self):
        self.assertIn("\nTickets in the work-order system after these calls: 0 "
                      "(the invalid create_ticket never reached it).", self.text)
        self.assertIn("\n\nChecks run in order: tool exists -> arguments are an object -> schema -> execute.\n", self.text)


class ParsersDemo(unittest.TestCase):
    """demo_parsers: the twelve rows by hand, and the counts computed here from PARSER_CASES."""

    SILENT, OK = "SILENT: looks like no call", "ok"
    ROWS = [  # (#, case, regex + json.loads, parse_tool_calls, verdict), worked out from the protocol's rules
        ("1", "truncated mid-JSON", SILENT, "error: truncated", OK),
        ("2", "missing closing tag", SILENT, "error: truncated", OK),
        ("3", "nested, over lines", SILENT,
         'search_incidents(filters={"substation_id": "SS-218", "status": "open"}, limit=5)', OK),
        ("4", "code fence", SILENT, 'get_substation(substation_id="SS-218")', OK),
        ("5", "two calls", OK, 'get_incident(code="E-1474"), get_substation(substation_id="SS-218")', OK),
        ("6", "text before and after", OK, 'get_incident(code="E-1474")', OK),
        ("7", "tag inside a string", SILENT, 'create_ticket(substation_id="SS-218", summary="log shows </tool_call> '
                                             'in relay output")', OK),
        ("8", "single quotes", SILENT, "error: invalid_json", OK),
        ("9", "trailing comma", SILENT, "error: invalid_json", OK),
        ("10", "arguments as a string", "WRONG: get_incident with string arguments", "error: bad_arguments", OK),
        ("11", "empty call", SILENT, "error: invalid_json", OK),
        ("12", "no call at all", OK, "no call", OK),
    ]

    def setUp(self):
        self.text = demo_parsers()

    def test_table_rows(self):
        header, body = split_table(block_after(self.text, "#  "))
        self.assertEqual(header, [["#", "case", "regex + json.loads", "parse_tool_calls", "verdict"]])
        rows = []  # a wrapped cell goes on under its column, on lines whose '#' cell is empty
        for cells in body:
            if cells[0]:
                rows.append(cells)
            else:
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
        self.assertEqual([tuple(cells) for cells in rows], self.ROWS)  # a call is shown with its arguments

    def test_counts_match_an_independent_count(self):
        regex_wrong = sum(outcome(parse_tool_calls_regex(text)) != truth for _, text, truth in PARSER_CASES)
        robust_right = sum(outcome(parse_tool_calls(text).items) == truth for _, text, truth in PARSER_CASES)
        self.assertEqual((regex_wrong, robust_right, len(PARSER_CASES)), (9, 12, 12))  # hand counts, see ROWS
        self.assertEqual(sum(row[2] != self.OK for row in self.ROWS), regex_wrong)
        found = re.search(r"regex parser: silently wrong or silent on (\d+) of (\d+);", self.text)
        self.assertEqual(found.groups(), (str(regex_wrong), "12"))
        found = re.search(r"robust parser: (\d+) of (\d+) as expected", self.text)
        self.assertEqual(found.groups(), (str(robust_right), "12"))

    def test_listing_numbers_every_case(self):
        listing = block_after(self.text, " 1. ")
        self.assertEqual(len(listing), 12)
        for n, ((label, text, _), line) in enumerate(zip(PARSER_CASES, listing), 1):
            with self.subTest(n=n):
                self.assertTrue(line.startswith(f"{n:>2}. {label} "), line)
                self.assertTrue(line.endswith(" " + repr(text)), line)

    def test_case_two_as_the_harness_sees_it(self):
        lines = block_after(self.text, "Case 2 ")
        self.assertEqual(lines[0], "Case 2 (missing closing tag), as the harness sees it:")
        self.assertEqual(lines[1], "  outside text: \"I'll check.\"")
        self.assertTrue(lines[2].startswith("  truncated: the JSON is complete but the text ends before </tool_call>"),
                        lines[2])
        self.assertEqual(len(lines), 3)


class LoopDemo(unittest.TestCase):
    """demo_loop: the batch line, every stop line, the results the model saw, and the one ticket."""

    def setUp(self):
        self.text = demo_loop()

    def test_parallel_lookups_ran_in_one_batch(self):
        found = re.search(r"^   execution: (.*?); each result carries", self.text, re.M)
        # both lookups are read-only and came in one reply, so they share one batch
        self.assertEqual(found.group(1), "turn 1: call_1 get_incident + call_2 get_substation (concurrently)")
        self.assertIn("E-1474 was caused by a tree branch across the 11 kV feeder. SS-218 (Kestrel Road) is "
                      "maintained by Dana Okafor.", " ".join(self.text.split()))

    def test_stop_lines_and_sections(self):
        stops = re.findall(r"^-- stop: (.*)$", self.text, re.M)
        self.assertEqual(stops, ["final_answer after 2 model turn(s), 2 call(s)",  # (a): lookups, answer
                                 "final_answer after 1 model turn(s), 0 call(s)",  # (b) good: answers directly
                                 "final_answer after 2 model turn(s), 1 call(s)",  # (b) bad: invents a tool
                                 "final_answer after 3 model turn(s), 2 call(s)"])  # (c): urgent, then high
        heads = [line for line in self.text.splitlines() if re.match(r"\([abc]\) ", line)]
        self.assertEqual([h[:3] for h in heads], ["(a)", "(b)", "(c)"])

    def test_results_the_model_saw(self):
        tags = re.findall(r"<tool_result ([^>]*)>", self.text)
        self.assertEqual(tags, ['name="get_incident" id="call_1"', 'name="get_substation" id="call_2"',
                                'name="get_weather" id="call_1" error="unknown_tool"',
                                'name="create_ticket" id="call_1" error="invalid_arguments"',
                                'name="create_ticket" id="call_2"'])
        self.assertIn('<tool_result name="create_ticket" id="call_2">{"ticket": "WO-5001", "substation_id": "SS-218", '
                      '"summary": "relay trips twice an hour", "priority": "high"}</tool_result>', self.text)

    def test_one_ticket_created(self):
        self.assertEqual(re.findall(r"^   tickets created: (.*)$", self.text, re.M), ["1 (WO-5001 high)"])


class PromptCostDemo(unittest.TestCase):
    """demo_prompt_cost: every token figure equals a count made here from the specs and the prompt."""

    SUMMARY = re.compile(r"(\d+) tools ~ (\d+) tokens in the system prompt: (\d+) for the tool definitions "
                         r"\(~(\d+) per tool\) and (\d+) for the format and rules\.")

    def test_figures(self):
        text = demo_prompt_cost()
        registry, _ = orrin_grid_registry()
        per_tool = [(t.name, count_tokens(json.dumps(t.spec()))) for t in registry]
        definitions = sum(n for _, n in per_tool)
        total = count_tokens(render_tool_prompt(registry))
        # count_tokens adds up over pieces split by whitespace, so the format and rules are the prompt without tools
        rules = count_tokens(render_tool_prompt([]))
        self.assertEqual(total, definitions + rules)

        header, body = split_table(block_after(text, "tool "))
        self.assertEqual(header, [["tool", "tokens"]])
        self.assertEqual([name for name, _ in body],
                         ["get_incident", "get_substation", "search_incidents", "create_ticket"])
        self.assertEqual([(name, int(n)) for name, n in body], per_tool)

        tools, shown_total, shown_definitions, each, shown_rules = map(int, self.SUMMARY.search(text).groups())
        self.assertEqual((tools, shown_total, shown_definitions, shown_rules), (4, total, definitions, rules))
        self.assertEqual(each, round(definitions / 4))
        self.assertLessEqual(abs(each * 4 - definitions), 2)
        found = re.search(r"a 5-turn task pays it 5 times \((\d+) tokens\)", text)
        self.assertEqual(int(found.group(1)), 5 * total)
        # handout 001 §6.1 gives 521 tokens and ~104 per tool, and never says what counted them
        self.assertIn("The handout gives\n521 tokens (~104 per tool) for its four tools and does not say how it counted "
                      "them", text)
        self.assertNotIn("real tokenizer", text)



class Script03(unittest.TestCase):
    def test_prints_the_four_demos_under_their_banners(self):
        code, out, err = script_runs.result("03_harness.py")
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(list(script_runs.sections(out).items()), [
            ("Demo 1. Three kinds of error, three different readers", demo_error_kinds()),
            ("Demo 2. Twelve model outputs, two parsers", demo_parsers()),
            ("Demo 3. The loop: parallel calls, relevance, correction", demo_loop()),
            ("What the tools cost in the prompt", demo_prompt_cost())])



class PipedIntoHead(unittest.TestCase):
    """print_demos, the layout of every numbered script, ends quietly when its reader stops early."""

    def test_a_closed_pipe_ends_the_script_quietly_with_status_1(self):
        code, _, err = script_runs.command(*CLOSED_PIPE, closed_stdout=True)
        self.assertEqual((code, err), (1, ""))  # stdout pointed at os.devnull: no traceback at the last flush
        self.assertFalse(Path(CLOSED_PIPE[-1]).exists())  # the first banner already failed: no demo computed

    def test_an_open_pipe_prints_every_demo(self):
        out = io.StringIO()
        with mock.patch.object(sys, "stdout", out):
            tool_core.print_demos([("one", lambda: "first"), ("two", lambda: "second")])
        self.assertEqual(out.getvalue(), "=== one ===\n\nfirst\n\n=== two ===\n\nsecond\n")


if __name__ == "__main__":
    unittest.main()
