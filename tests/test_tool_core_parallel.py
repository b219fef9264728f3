"""Parallel calls: the simulated clock, the dependent-call check, and demo_parallel_turns (scripts/10, demo 3).

Each figure is pinned by its mechanism, worked out by hand here: model requests and messages from the rules of
run_agent (one request per model turn; after the system prompt and the question, each turn adds its reply and, if it
called, one message with all its results), tool time from the declared latencies and the loop's schedule (consecutive
read-only calls of a turn at once on a pool of max_workers threads; a call with side effects alone, in order), and the
invented-argument verdicts from hand-built transcripts. None is copied from a run of the demo.
"""
import re
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # for lab_results, however the tests are started

import lab_results  # noqa: E402
import tool_core  # noqa: E402
from tool_core import (CallRecord, DemoText, ScriptedLM, SimulatedClock, ToolRegistry, Transcript,  # noqa: E402
                       call_text, count_tokens, invented_ids, pool_ms, run_agent, tool_from_function)

ROOT = Path(__file__).resolve().parent.parent


def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: what to look up
    """
    return f"value of {key}"


def write(key: str) -> str:
    """Write a key.

    Args:
        key: what to write
    """
    return f"wrote {key}"


def timed_registry(clock: SimulatedClock, ms: int = 200) -> ToolRegistry:
    """A read-only lookup and a write with side effects, each declared at `ms` on the clock."""
    return ToolRegistry([clock.timed(tool_from_function(lookup, read_only=True), ms),
                         clock.timed(tool_from_function(write), ms)])


def one_reply(calls: list[tuple[str, dict]]) -> ScriptedLM:
    return ScriptedLM(["\n".join(call_text(n, a) for n, a in calls), "Done."])


class PoolTime(unittest.TestCase):
    def test_pool_ms_table(self):
        cases = [  # (latencies in call order, workers, ms): each call on the first free worker, the batch ends last
            ([], 4, 0), ([200], 4, 200), ([200] * 4, 4, 200), ([200] * 5, 4, 400), ([200] * 5, 5, 200),
            ([200] * 4, 2, 400), ([200] * 4, 1, 800), ([100, 300, 200], 2, 300),  # 100 then 200 on one worker
            ([300, 100, 100, 100], 2, 300), ([300, 100, 100, 100, 100], 2, 400)]
        for latencies, workers, ms in cases:
            with self.subTest(latencies=latencies, workers=workers):
                self.assertEqual(pool_ms(latencies, workers), ms)


class Clock(unittest.TestCase):
    def run_reply(self, calls, max_workers=4):
        clock = SimulatedClock()
        registry = timed_registry(clock)
        t = run_agent(one_reply(calls), registry, "q", max_workers=max_workers)
        return t, clock, clock.wall_ms(t, max_workers)

    def test_schedule_follows_run_agent(self):
        r, w = ("lookup", {"key": "a"}), ("write", {"key": "b"})
        cases = [  # (calls of one reply, max_workers, ms waited, ms of work)
            ([r] * 4, 4, 200, 800),      # one batch of four read-only calls
            ([r] * 4, 2, 400, 800),      # two at a time
            ([w] * 4, 4, 800, 800),      # side effects: one by one
            ([r, r, w, r], 4, 600, 800),  # batches {r, r}, {w}, {r}
            ([r] * 5, 4, 400, 1000), ([r] * 5, 5, 200, 1000),
            ([r], 4, 200, 200), ([], 4, 0, 0)]
        for calls, workers, waited, work in cases:
            with self.subTest(calls=[n for n, _ in calls], workers=workers):
                _, clock, wall = self.run_reply(calls, workers)
                self.assertEqual((wall, clock.busy_ms), (waited, work))

    def test_a_refused_call_costs_nothing(self):
        # a write with side effects runs in a batch of its own even when refused: a cost there would show
        t, clock, wall = self.run_reply([("write", {"key": 5}), ("write", {"key": "b"}), ("nope", {}),
                                         ("lookup", {})])
        self.assertEqual([c.error_kind for c in t.calls], ["invalid_arguments", None, "unknown_tool",
                                                           "invalid_arguments"])
        self.assertEqual((wall, clock.busy_ms), (200, 200))

    def test_a_call_that_fails_while_running_costs_its_time(self):
        # the tool ran, then raised: the registry reports execution_error, and the clock counts its 200 ms all the
        # same. Two failing writes and a good one, each in a batch of its own: 3 x 200 waited, 3 x 200 of work.
        clock = SimulatedClock()

        def explode(key: str) -> str:
            """Write a key, and fail.

            Args:
                key: what to write
            """
            raise OSError(f"disk full writing {key}")

        registry = ToolRegistry([clock.timed(tool_from_function(write), 200),
                                 clock.timed(tool_from_function(explode), 200)])
        t = run_agent(one_reply([("explode", {"key": "a"}), ("write", {"key": "b"}), ("explode", {"key": "c"})]),
                      registry, "q")
        self.assertEqual([c.error_kind for c in t.calls], ["execution_error", None, "execution_error"])
        self.assertEqual((clock.wall_ms(t, 4), clock.busy_ms), (600, 600))

    def test_timed_tool_keeps_its_result_and_kind(self):
        clock = SimulatedClock()
        t, _, wall = self.run_reply([("lookup", {"key": "a"})] * 4 + [("write", {"key": "b"})] * 4, 4)
        self.assertEqual(wall, 200 + 4 * 200)
        self.assertIn("value of a", t.messages[3]["content"])
        plain = tool_from_function(write)
        self.assertFalse(clock.timed(plain, 5).read_only)
        self.assertTrue(clock.timed(plain, 5, read_only=True).read_only)
        self.assertIsNot(clock.timed(plain, 5), plain)  # a copy: the original still runs untimed
        self.assertEqual((plain.fn(key="x"), clock.busy_ms), ("wrote x", 0))

    def test_turns_add_up(self):
        clock = SimulatedClock()
        lm = ScriptedLM([call_text("lookup", {"key": "a"}), call_text("lookup", {"key": "b"}) * 3, "Done."])
        t = run_agent(lm, timed_registry(clock), "q")
        self.assertEqual(clock.wall_ms(t, 4), 200 + 200)
        self.assertEqual(clock.busy_ms, 800)


def transcript(*messages: tuple[str, str], calls: list[tuple[int, str, dict]] = ()) -> Transcript:
    """A hand-built transcript: (role, content) messages, and (step, tool, arguments) calls numbered call_1..."""
    t = Transcript([{"role": "system", "content": "tools: get_account(customer_id), e.g. C-212"}]
                   + [{"role": r, "content": c} for r, c in messages])
    t.calls = [CallRecord(f"call_{n}", name, args, True, None, 0.0, step, 0) for n, (step, name, args) in enumerate(calls, 1)]
    return t


class InventedIds(unittest.TestCase):
    def test_table(self):
        find = ("assistant", "<tool_call>find</tool_call>")
        found = ("tool", '<tool_result name="find_customer" id="call_1">{"customer_id": "C-107"}</tool_result>')
        cases = [  # (label, transcript, the flagged call ids)
            ("guessed in the same reply", transcript(("user", "Gil Varga?"), find, found, ("assistant", "ok"),
                                                     calls=[(1, "find_customer", {"name": "Gil Varga"}),
                                                            (1, "get_account", {"customer_id": "C-212"})]), ["call_2"]),
            ("read from the result", transcript(("user", "Gil Varga?"), find, found, find, found, ("assistant", "ok"),
                                                calls=[(1, "find_customer", {"name": "Gil Varga"}),
                                                       (2, "get_account", {"customer_id": "C-107"})]), []),
            ("the user gave it", transcript(("user", "Account C-107, please."), find,
                                            calls=[(1, "get_account", {"customer_id": "C-107"})]), []),
            ("only the system prompt's example", transcript(("user", "Gil Varga?"), find,
                                                            calls=[(1, "get_account", {"customer_id": "C-212"})]),
             ["call_1"]),
            ("a longer id is not this one", transcript(("user", "Is it C-1070?"), find,
                                                       calls=[(1, "get_account", {"customer_id": "C-107"})]), ["call_1"]),
            ("shown only after the call", transcript(("user", "Gil?"), find, found,
                                                     calls=[(1, "get_account", {"customer_id": "C-107"})]), ["call_1"]),
            ("only the model's own earlier reply", transcript(("user", "Gil?"), ("assistant", "Maybe C-212?"),
                                                             ("user", "Go on."), find,
                                                             calls=[(2, "get_account", {"customer_id": "C-212"})]),
             ["call_1"]),
            ("a key named id, an int", transcript(("user", "ticket 5001"), find, calls=[(1, "get", {"id": 5001})]), []),
            ("not an id argument", transcript(("user", "hi"), find, calls=[(1, "find_customer", {"name": "Ana"})]), []),
            ("arguments not an object", transcript(("user", "hi"), find, calls=[(1, "x", None)]), []),
        ]
        for label, t, flagged in cases:
            with self.subTest(label):
                found_ids = [line.split()[0] for line in invented_ids(t)]
                self.assertEqual(found_ids, flagged)

    def test_message_says_which_argument(self):
        t = transcript(("user", "Gil?"), ("assistant", "x"), calls=[(1, "get_account", {"customer_id": "C-212"})])
        (line,) = invented_ids(t)
        self.assertIn('get_account: customer_id="C-212"', line)


def table_rows(text: str, first: str) -> dict[str, list[str]]:
    """Cut the plain-text table whose header holds `first` into {row label: its cells}, by the dash rule under it."""
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines[:-1]) if first in line and set(lines[i + 1]) == {"-", " "})
    rule = lines[head + 1]
    spans = [m.span() for m in re.finditer(r"-+", rule)]
    rows = {}
    for line in lines[head + 2:]:
        if not line.strip():
            break
        cells = [line[a:b + 1].strip() if k < len(spans) - 1 else line[a:].strip() for k, (a, b) in enumerate(spans)]
        rows[cells[0]] = cells[1:]
    return rows


class Demo(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = lab_results.demo_parallel_turns()

    def test_one_turn_or_four(self):
        rows = table_rows(self.out, "model requests")
        n = len(tool_core.LOOKUPS)
        self.assertEqual(n, 4)
        # one per turn: n calling turns + the answer; messages: system, user, n x (reply, results), the answer
        self.assertEqual(rows["one call per turn"][:5], [str(n + 1), str(2 + 2 * n + 1), str(n), "0.8 s", "0.8 s"])
        # one reply: a calling turn + the answer; system, user, the reply, one results message, the answer
        self.assertEqual(rows["all four in one reply"][:5], ["2", "5", "1", "0.8 s", "0.2 s"])

    def test_input_tokens_are_every_request_resent(self):
        rows = table_rows(self.out, "model requests")
        for label, per_turn in (("one call per turn", 1), ("all four in one reply", 4)):
            with self.subTest(label):
                t = run_agent(tool_core.lookup_model(per_turn), tool_core.orrin_grid_registry()[0],
                              tool_core.LOOKUP_QUESTION)
                replies = [i for i, m in enumerate(t.messages) if m["role"] == "assistant"]
                sent = sum(count_tokens(m["content"]) for i in replies for m in t.messages[:i])  # request k: all before reply k
                self.assertEqual(rows[label][5], str(sent))
        self.assertGreater(int(rows["one call per turn"][5]), int(rows["all four in one reply"][5]))

    def test_both_runs_answer_from_the_grid(self):
        self.assertIn("E-1474 is resolved; E-1502 is open; SS-218 is maintained by Dana Okafor; SS-031 is maintained "
                      "by Ivo Brandt.", self.out)
        self.assertNotIn(" | ", self.out.split("both runs give the same answer:")[1].splitlines()[1])

    def test_schedule_table(self):
        rows = list(table_rows(self.out, "reply and settings").items())[:4]
        expected = [("side effects", "0.8 s"), ("max_workers=2", "0.4 s"),  # 4 x 200 one by one; 2 batches of 2 x 200
                    ("default max_workers=4", "0.4 s"),  # 4 at once, then the fifth
                    ("max_workers=5", "1.0 s / 0.2 s")]  # 5 x 200 one by one; all five at once
        for (label, cells), (setting, waited) in zip(rows, expected):
            with self.subTest(setting):
                self.assertIn(setting, label)
                self.assertEqual(cells[0], waited)

    def test_benchmark_figure_is_quoted_as_measured(self):
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        row = next(line for line in readme.splitlines() if line.startswith("| five 200 ms tools in one reply |"))
        self.assertEqual(row.split("|")[2].strip(), tool_core.BENCHMARK_PARALLEL)
        self.assertIn(f"(parallel_speedup, real 200 ms sleeps): {tool_core.BENCHMARK_PARALLEL}", self.out)
        source = (ROOT / "scripts" / "benchmark.py").read_text(encoding="utf-8")
        body = source[source.index("def parallel_speedup"):source.index("def children_cpu")]
        for piece in ("time.sleep(0.2)", "range(5)", "max_workers=5"):  # the case the simulated row reproduces
            self.assertIn(piece, body)

    def test_dependent_calls(self):
        one, two = self.out.split("both in one reply: the model must guess the id:")[1].split(
            "two turns: the second call takes the id from the first result:")
        self.assertIn('"customer_id": "C-212"', one)  # the guess, written beside find_customer
        self.assertIn("registry: call_1 ok, call_2 ok", one)  # nothing the registry checks is wrong
        self.assertIn("2 model requests, 0.2 s waited", one)  # two 200 ms calls at once
        self.assertIn('invented_ids: call_2 get_account: customer_id="C-212"', one)
        self.assertIn("Gil Varga has no outage logged.", one)  # Ana Reyes's account, reported as Gil Varga's
        self.assertIn('{"customer_id": "C-107"}}</tool_call>', two)  # the id read from the first result
        self.assertIn("3 model requests, 0.4 s waited", two)  # two turns of one 200 ms call, then the answer
        self.assertIn("invented_ids: none", two)
        self.assertIn("Gil Varga has an outage logged.", two)

    def test_guessing_reply_runs_both_calls_in_one_batch(self):
        clock = SimulatedClock()
        t = run_agent(tool_core.guessing_model(), tool_core.customer_registry(clock), tool_core.CUSTOMER_QUESTION)
        self.assertEqual({(c.step, c.batch) for c in t.calls}, {(1, 0)})  # concurrent: neither saw the other's result

    def test_layout(self):
        self.assertIsInstance(self.out, DemoText)
        lines = self.out.splitlines()
        self.assertLessEqual(len(lines), 60)
        self.assertLessEqual(max(map(len, lines)), 118)
        self.assertEqual(tool_core.demo_parallel_turns(), self.out)  # the same bytes every run


if __name__ == "__main__":
    unittest.main()
