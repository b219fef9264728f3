"""scripts/exercises.py, the key to handout 001's ten exercises: each answer pinned by its mechanism.

Where the expected values come from: the fractions of exercises 1 and 7 by hand in the comments; the gains of
exercise 2 recomputed here from the three losses by the paper's formula; the recalls of exercise 6 by a BM25 index
this file builds with its own synonym table and stemmer; the verdicts of exercises 3-5 and 8-10 from what the
lab's specification says must happen (a missing </tool_call> is `truncated`; additionalProperties false refuses
`office`; a call that fails the same way twice ends the run; the user approves mail only to people they named...),
never from a run of the script. A second group checks that the answers are computed: the lab's function replaced,
the printed answer follows it.

The script runs in this process (tests/script_runs.in_process): once for all ten, and once per N. One subprocess
run (queued when this file is imported) starts it by its absolute path from an empty folder, in a fresh interpreter
with another hash seed: it must print the same bytes.
"""
import io
import math
import os
import re
import sys
import tempfile
import unittest
from fractions import Fraction
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # for script_runs, however the tests are started

import interfaces  # noqa: E402
import lab_results  # noqa: E402
import script_runs  # noqa: E402
import service_env  # noqa: E402
import tool_catalog  # noqa: E402
import tool_core  # noqa: E402
import toolformer_lab  # noqa: E402
from script_runs import in_process, sections  # noqa: E402

SCRIPT = script_runs.SCRIPTS / "exercises.py"
_ELSEWHERE = tempfile.TemporaryDirectory(prefix="exercises-elsewhere-")
script_runs.queue_command(str(SCRIPT), cwd=Path(_ELSEWHERE.name))  # the subprocess runs, started now
for _args in (("7",), ()):  # into a pipe whose reader has gone
    script_runs.queue_command(str(SCRIPT), *_args, closed_stdout=True)


def tearDownModule():
    _ELSEWHERE.cleanup()


def flat(text: str) -> str:
    """The text with every run of whitespace as one space: wrapped prose compares as one line."""
    return " ".join(text.split())


def table(body: str, first_header: str, row_start: str) -> list[list[str]]:
    """Read a format_table out of printed text: the cells of each row, wrapped lines joined; the table ends at a blank
    line. A line whose first cell matches row_start begins a row; any other line continues the row above."""
    lines = body.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith(first_header))
    starts = [m.start() for m in re.finditer(r"-+", lines[top + 1])]
    rows = []
    for line in lines[top + 2:]:
        if not line.strip():
            break
        cells = [line[a:b].strip() for a, b in zip(starts, starts[1:] + [None])]
        if re.match(row_start, cells[0]):
            rows.append(cells)
        else:
            rows[-1] = [f"{old} {new}".strip() for old, new in zip(rows[-1], cells)]
    return rows


class Run:
    """The script's output, run in this process once."""
    _out = None

    @classmethod
    def out(cls) -> script_runs.Result:
        if cls._out is None:
            cls._out = in_process(SCRIPT)
        return cls._out

    @classmethod
    def answer(cls, n: int) -> str:
        return next(body for title, body in sections(cls.out().stdout).items() if title.startswith(f"Exercise {n}. "))


# --- The script: ten sections, N, --help, a bad N, a closed pipe, any directory ------------------------

class Script(unittest.TestCase):
    def test_ten_exercises_each_a_one_line_question_and_an_answer(self):
        code, out, err = Run.out()
        self.assertEqual((code, err), (0, ""))
        titles = list(sections(out))
        self.assertEqual([t.split(". ")[0] for t in titles], [f"Exercise {n}" for n in range(1, 11)])
        for title, body in sections(out).items():
            with self.subTest(title=title[:12]):
                self.assertNotIn("\n", title)
                self.assertTrue(title.endswith(("?", ".")), title)
                self.assertGreater(len(body.splitlines()), 3)

    def test_n_prints_that_exercise_alone(self):
        whole = sections(Run.out().stdout)
        for n in (1, 10):  # the first and the last: the same selection picks any N
            with self.subTest(n=n):
                code, out, err = in_process(SCRIPT, str(n))
                self.assertEqual((code, err), (0, ""))
                self.assertEqual(list(sections(out).items()), [item for item in whole.items()
                                                               if item[0].startswith(f"Exercise {n}. ")])

    def test_help(self):
        code, out, err = in_process(SCRIPT, "--help")
        self.assertEqual((code, err), (0, ""))
        self.assertTrue(out.startswith("usage: exercises.py [-h] [N]"), out[:80])
        self.assertIn("print only exercise N (1-10)", flat(out))
        self.assertIn("handout 001", out)

    def test_a_bad_n_is_a_usage_error_that_says_what_is_allowed(self):
        for bad in ("0", "11", "x", "-1", "3.5", ""):
            with self.subTest(n=bad):
                code, out, err = in_process(SCRIPT, bad)
                self.assertEqual((code, out), (2, ""))
                self.assertTrue(err.startswith("usage: exercises.py [-h] [N]"), err)
                self.assertTrue(err.endswith(f"exercises.py: error: argument N: there are 10 exercises: N must be a "
                                             f"whole number from 1 to 10, got {bad!r}\n"), err)
        code, _, err = in_process(SCRIPT, "3", "4")
        self.assertEqual(code, 2)
        self.assertIn("unrecognized arguments: 4", err)

    def test_a_closed_pipe_ends_it_quietly(self):
        # `exercises.py | head`: the reader goes away, a write or the last flush raises BrokenPipeError; the script
        # points stdout at os.devnull (so the interpreter's last flush raises nothing) and exits 1, nothing on stderr.
        # One exercise fits in stdout's buffer (the error comes at a flush); all ten do not (it comes at a write).
        for args in (("7",), ()):
            with self.subTest(args=args):
                self.assertEqual(script_runs.command(str(SCRIPT), *args, closed_stdout=True), (1, "", ""))

    def test_the_same_bytes_from_a_fresh_interpreter_anywhere(self):
        there = script_runs.command(str(SCRIPT), cwd=Path(_ELSEWHERE.name))
        self.assertEqual((there.returncode, there.stderr), (0, ""))
        self.assertEqual(there.stdout, Run.out().stdout)


# --- Each answer, by its mechanism ---------------------------------------------------------------------

class Answers(unittest.TestCase):
    def test_1_the_criterion(self):
        text = Run.answer(1)
        # the paper: L- = min(4.0, 3.0) = 3.0, L+ = 2.6, gain 0.4 < 1.0: dropped; L(eps) alone: 4.0 - 2.6 = 1.4: kept
        self.assertIn("min(4.0, 3.0) = 3.0, L+ = L(e(c, r)) = 2.6.", text)
        self.assertIn("usefulness(4.0, 3.0, 2.6) = 0.4 < tau = 1.0: dropped", text)
        self.assertIn("with_call_alone=False) = 4.0 - 2.6 = 1.4 >= tau: kept.", text)
        # the call alone is worth 4.0 - 3.0 = 1.0 nats, the result 3.0 - 2.6 = 0.4
        self.assertIn("lowers the loss by 1.0 nats", flat(text))
        self.assertIn("the result adds only 0.4", flat(text))

    def test_2_the_calculator_first_and_the_gain_per_token(self):
        text = Run.answer(2)
        run = lab_results.toolformer_pipeline(0)
        # the paper's gain, from the three losses; per token, over the result's tokens
        gain = {id(c): min(c.L_empty, c.L_call) - c.L_result for c in run.candidates}
        size = {id(c): len(toolformer_lab.tokenize(c.result)) for c in run.candidates}
        per = {k: gain[k] / size[k] for k in gain}
        rows = {row[0]: row for row in table(text, "tool ", r"\w")}
        for tool in ("Calculator", "QA", "Calendar"):
            with self.subTest(tool=tool):
                right = [c for c in run.candidates if c.gold and c.tool == tool]
                lo, hi = min(gain[id(c)] for c in right), max(gain[id(c)] for c in right)
                p_lo, p_hi = min(per[id(c)] for c in right), max(per[id(c)] for c in right)
                self.assertEqual(rows[tool][1:], [str(max(size[id(c)] for c in right)), f"{lo:.2f}-{hi:.2f}",
                                                  f"{p_lo:.2f}-{p_hi:.2f}"])
        self.assertEqual(rows["Calculator"][1], "1")  # a number is one token: it can lower one of the five losses

        def kept(gains, tau, tool):
            mine = [c for c in run.candidates if c.tool == tool and (tau is None or gains[id(c)] >= tau)]
            return f"{len(mine)} ({sum(c.gold for c in mine)} right)"

        self.assertIn(f"At tau = 2.0 the sweep keeps Calculator {kept(gain, 2.0, 'Calculator')}, QA "
                      f"{kept(gain, 2.0, 'QA')}, Calendar {kept(gain, 2.0, 'Calendar')}:", flat(text))
        self.assertEqual(kept(gain, 2.0, "Calculator"), "0 (0 right)")
        sweep = {row[0]: row for row in table(text, "tau  ", r"\S")}
        for label, tau in (("no filter", None), ("0", 0.0), ("0.5", 0.5), ("1", 1.0), ("1.5", 1.5), ("2", 2.0),
                           ("3", 3.0)):
            with self.subTest(tau=label):
                cells = [kept(per, tau, tool) for tool in ("Calculator", "QA", "Calendar")]
                self.assertEqual(sweep[label][2:5], cells)
        # per token the calculator and QA overlap: one threshold keeps or drops both
        calc = [per[id(c)] for c in run.candidates if c.gold and c.tool == "Calculator"]
        qa = [per[id(c)] for c in run.candidates if c.gold and c.tool == "QA"]
        self.assertTrue(min(calc) <= max(qa) and min(qa) <= max(calc))
        self.assertIn("overlap: no threshold drops one before the other.", flat(text))

    def test_3_no_closing_tag(self):
        text = Run.answer(3)
        reply = "I'll check.<tool_call>" + '{"name": "get_incident", "arguments": {"code": "E-1474"}}'  # the handout's
        self.assertIn(f"The reply: {reply!r}", text)
        # the regex needs both tags: it finds nothing, and has no way to report a broken call
        self.assertIn("parse_tool_calls_regex -> []", text)
        # the JSON is complete and </tool_call> never comes: the robust parser's `truncated`, the prose kept outside
        self.assertIn("parse_tool_calls -> 0 calls, 1 ParseError of kind 'truncated', outside text \"I'll check.\":",
                      text)
        transcript = text.split("rewrites it whole):\n")[1]
        tool_lines = [line for line in transcript.splitlines() if line.startswith("[tool ]")]
        self.assertIn('error="truncated"', tool_lines[0])  # fed back as a result, nothing run
        self.assertIn(tool_core.OrrinGrid.INCIDENTS["E-1474"]["cause"], tool_lines[1])  # the rewritten call ran
        self.assertTrue(transcript.endswith("-- stop: final_answer after 3 model turn(s), 2 call(s)"))

    def test_4_three_messages(self):
        text = Run.answer(4)
        lines = text.splitlines()
        # (a) no such tool: the four real ones listed in order, and what to do when none fits
        self.assertIn('get_weather({"city": "Stanford"}) -> unknown_tool', text)
        self.assertIn("Available tools: create_ticket, get_incident, get_substation, search_incidents.", text)
        # (b) priority has the default "normal" in create_ticket's signature: the handout's call succeeds
        self.assertIn('"summary": "relay trips"}) -> ok', text)
        self.assertIn('"priority": "normal"', text)
        # (b) without summary, which is required: refused before it ran
        self.assertIn('"priority": "high"}) -> invalid_arguments', text)
        self.assertIn("missing required properties ['summary']", text)
        self.assertIn("  what it asks of the model: Fix the arguments and call create_ticket again.", lines)
        # (c) E-0931 lives on the archive back end, which raises TimeoutError: retryable (is_retryable)
        self.assertIn('get_incident({"code": "E-0931"}) -> execution_error (retryable)', text)
        self.assertIn("TimeoutError", text)
        self.assertIn("Tickets written: 1 (WO-5001 priority normal)", flat(text))

    def test_5_the_stale_schema_refuses_office(self):
        text = Run.answer(5)
        # the tools were made from the old document: additionalProperties false, properties team and limit only
        self.assertIn('list_people({"team": "platform", "office": "Oslo"}): invalid_arguments, 0 requests sent:', text)
        self.assertIn("unexpected properties ['office'] (allowed: ['limit', 'team'])", text)
        # regenerated from the sandbox's document: office declared; platform is Cyra Mendez (Oslo) and Dev Okoro
        platform = [p["name"] for p in interfaces.PEOPLE if p["team"] == "platform"]
        self.assertEqual(platform, ["Cyra Mendez", "Dev Okoro"])
        self.assertIn("parameters ['limit', 'office', 'team']: Cyra Mendez.", text)
        # the old tolerant backend ignores ?office=: the whole team
        self.assertIn(f"would have answered the same query with {', '.join(platform)}: the filter silently ignored.",
                      flat(text))
        # the sandbox stayed a sandbox: the module's API and document have no office
        params = [p["name"] for p in interfaces.cardinal_openapi()["paths"]["/people"]["get"]["parameters"]]
        self.assertEqual(params, ["team", "limit"])
        self.assertFalse(any("office" in p for p in interfaces.PEOPLE))
        fresh = interfaces.CardinalAPI(token="t").spec["paths"]["/people"]["get"]["parameters"]
        self.assertEqual([p["name"] for p in fresh], ["team", "limit"])

    def test_6_retrieval(self):
        text = Run.answer(6)
        catalog = tool_catalog.orrin_catalog()
        tools = [c.tool for c in catalog]
        requests = tool_catalog.catalog_requests(catalog, 0)
        # the synonyms of tool_catalog.INVENTED, read off by hand: get_X_state for get_X_status, and so on
        synonyms = {"state": "status", "log": "history", "info": "details", "position": "location", "find": "search",
                    "add": "create", "modify": "update", "dispatch": "assign", "retire": "archive"}

        def recall(words, k, paraphrased):
            index = tool_catalog.BM25Index([words(tool_catalog.tool_document(t)) for t in tools])
            chosen = [r for r in requests if r.paraphrased == paraphrased]
            hit = sum(any(tools[d].name == r.tool for d, _ in index.top_k(words(tool_catalog.tokenize(r.text)), k))
                      for r in chosen)
            return f"{hit / len(chosen):.0%}"

        variants = {"BM25 as in script 05": lambda w: w,
                    "+ synonyms (INVENTED's words)": lambda w: w + [synonyms[x] for x in w if x in synonyms],
                    "+ plural stemming": lambda w: [x[:-1] if len(x) > 3 and x.endswith("s") and x[-2:] not in ("ss", "us")
                                                    else x for x in w]}
        rows = {row[0]: row[1:] for row in table(text, "retriever", r"\S")}
        for label, words in variants.items():
            with self.subTest(label):
                self.assertEqual(rows[label], [recall(words, 3, True), recall(words, 3, False), recall(words, 10, True)])
        self.assertEqual(rows["BM25 as in script 05"], ["43%", "100%", "90%"])  # the README's figures for demo 3
        self.assertIn(", ".join(f"{a} -> {b}" for a, b in synonyms.items()) + ".", flat(text))
        # tokens per request: the tools block and rules (render_tool_prompt) and the request, averaged
        retriever = tool_catalog.ToolRetriever(tools)
        for k in (3, 10):
            mean = sum(tool_core.count_tokens(tool_core.render_tool_prompt(retriever.search(r.text, k)))
                       + tool_core.count_tokens(r.text) for r in requests) / len(requests)
            with self.subTest(k=k):
                self.assertIn(f"{mean:.0f} tokens per request" if k == 10 else f"instead of {mean:.0f},", flat(text))
        # the plural: only list_meters and search_meters say "meters"; all ten meter tools say "meter"
        self.assertIn("'meters' is in 2 tool documents (list_meters, search_meters), 'meter' in 10 after stemming",
                      flat(text))

    def test_7_pass_at_k_and_pass_hat_k(self):
        lines = Run.answer(7).splitlines()
        # C(2,1) = 2, C(10,1) = 10; C(2,3) = 0, C(10,3) = 120; C(8,1) = 8; C(8,3) = 56
        for line in ("  pass@1 = 1 - C(2, 1)/C(10, 1) = 1 - 2/10 = 4/5 = 0.800",
                     "  pass@3 = 1 - C(2, 3)/C(10, 3) = 1 - 0/120 = 1 = 1.000",
                     "  pass^1 = C(8, 1)/C(10, 1) = 8/10 = 4/5 = 0.800",
                     "  pass^3 = C(8, 3)/C(10, 3) = 56/120 = 7/15 = 0.467",
                     "3 trials, all 3 successful: pass^3 = C(3, 3)/C(3, 3) = 1/1 = 1 = 1.000."):
            self.assertIn(line, lines)
        text = flat(Run.answer(7))
        # with p = 4/5: P(3 of 3) = 64/125 = 0.512 = the mean of the estimate (it is 1 then, else 0);
        # sd = sqrt(0.512 * 0.488) = 0.49986
        self.assertIn("(pass^3 = (4/5)^3 = 0.512) shows 3 of 3 with probability 0.512", text)
        self.assertIn(f"(mean 0.512) but its standard deviation is {math.sqrt(0.512 * 0.488):.2f}.", text)
        self.assertIn("C(10, 3) = 120 triples", text)

    def test_8_the_four_failures(self):
        text = Run.answer(8)
        rows = {row[0][:3]: row for row in table(text, "case", r"\([a-d]\) ")}
        # by the table's definitions: (a) list_appointments cannot answer a credit; the rest of the trial is right
        # (b) 4000 > $50 breaks rule 4, "Done" on a wrong state; no row reads units
        # (c) A-9 never appeared in a result, the same failing call twice in a row, no cancel succeeded; the
        #     confirmation was asked first, so no policy violation; the loop stopped it, so no "Done"
        # (d) rule 3, a cancel before any confirmation; the state is the expected one
        expected = {"(a)": ("wrong tool selection (single call)", "passes"),
                    "(b)": ("policy violation (conversation); false success claim (conversation)", "fails"),
                    "(c)": ("invented argument (single call); repeated failing call (multi-step); task left undone "
                            "(multi-step)", "fails"),
                    "(d)": ("policy violation (conversation)", "passes")}
        self.assertEqual(list(rows), list(expected))
        for case, (modes, state) in expected.items():
            with self.subTest(case=case):
                self.assertEqual(rows[case][2:], [modes, state])
        self.assertIn("(b) final state: credits [('C-118', 4000)] where [('C-118', 40)] was expected", text)
        # run_agent ends a run when the same call fails twice: find, list, then two of the three cancels
        self.assertIn("(c) the loop stopped the run itself (repeated_failure): 4 of the 5 scripted calls were sent.", text)

    def test_9_the_layers(self):
        text = Run.answer(9)
        rows = {row[0]: row[1:] for row in table(text, "defence", r"\S")}
        leak = f'to stats@paper-stats.example got "API_KEY={interfaces.SECRET_API_KEY}"'  # .env, as the abstract asks
        # the model obeys what it reads: nothing that only looks (scan sees descriptions, not results) or only marks
        # stops it; least privilege gives files no token for a summary; the user approves mail only to Anna, whom
        # they named; without the files server there is nothing to read
        self.assertEqual(interfaces.least_privilege_token({"papers": "tools:read", "mail": "tools:write"}, "files"),
                         "token-none")
        self.assertFalse(interfaces.user_approves("Summarize ... and email the summary to Anna.",
                                                  {"to": "stats@paper-stats.example"}))
        expected = {"no defence": ["not caught", leak], "scan descriptions": ["not caught", leak],
                    "results marked as data": ["not caught", leak], "least privilege": ["blocked", "nothing"],
                    "confirm side effects": ["blocked", "nothing"],
                    "no private data (files left out)": ["blocked", "nothing"]}
        self.assertEqual({label: cells[:2] for label, cells in rows.items()}, expected)
        self.assertTrue(all(cells[2] == "yes" for cells in rows.values()))  # Anna got her summary every time
        self.assertIn("Stopped by: least privilege, confirm side effects, no private data (files left out).", flat(text))

    def test_10_the_protocol(self):
        text = Run.answer(10)
        rows = table(text, "rule", r"\d\. ")
        prompt = tool_core.render_tool_prompt([])
        rules = re.findall(r"^(\d\. .*)$", prompt.split("Rules:\n")[1], re.M)
        self.assertEqual([r[0] for r in rows], rules)  # the five rules, in the prompt's words
        did = [r[2] for r in rows]
        # 1: two read-only calls in a row run concurrently; results carry the ids call_1, call_2
        self.assertIn("2 calls in one reply ran concurrently; results tagged ['call_1', 'call_2']", did[0])
        # 2: ScriptedLM honours the stop sequence <tool_result, so the invented result never enters
        self.assertIn("'squirrel' in the transcript: False; the real result came back: True", did[1])
        # 3: get_incidents is one letter from get_incident: difflib's close match
        self.assertIn("unknown_tool, the result asks \"Did you mean 'get_incident'?\"; the next call, get_incident, "
                      "worked", did[2])
        # 4: a reply without a call is the final answer
        self.assertIn("final_answer, 0 calls", did[3])
        # 5: 'urgent' is not in the enum: refused, nothing written; fixed, one ticket; unchanged twice, the loop stops
        self.assertIn("invalid_arguments, nothing ran; fixed: 1 ticket; sent unchanged again: the loop stops "
                      "(repeated_failure, 0 tickets)", did[4])


# --- The answers are computed: replace the lab's function, the answer follows ---------------------------

class Computed(unittest.TestCase):
    CASES = [  # (exercise, the lab function replaced, its replacement, what the answer must then say)
        (1, (toolformer_lab, "usefulness"), lambda *a, **k: 7.7, "usefulness(4.0, 3.0, 2.6) = 7.7 >= tau = 1.0: kept"),
        (3, (tool_core, "parse_tool_calls_regex"), lambda text: ["sentinel"], "parse_tool_calls_regex -> ['sentinel']"),
        (7, (service_env, "pass_hat_k"), lambda n, c, k: Fraction(1, 3), "pass^3 = C(8, 3)/C(10, 3) = 56/120 = 1/3"),
        (8, (service_env, "classify"), lambda task, t, final: ["unknown tool"], "unknown tool (single call)"),
        (9, (interfaces, "user_approves"), lambda request, arguments: True, "confirm side effects flagged"),  # the user saw it
    ]

    def test_the_answer_follows_the_lab(self):
        for n, (module, name), replacement, says in self.CASES:
            with self.subTest(exercise=n, replaced=name):
                with mock.patch.object(module, name, replacement):
                    code, out, err = in_process(SCRIPT, str(n))
                self.assertEqual((code, err), (0, ""))
                self.assertIn(says, flat(out))
                self.assertNotEqual(out, in_process(SCRIPT, str(n)).stdout)


if __name__ == "__main__":
    unittest.main()
