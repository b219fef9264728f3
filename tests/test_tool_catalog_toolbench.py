"""ToolBench's way of grading (tool_catalog section 6, scripts/06_evaluation.py demo 5): a greedy chain against
DFSDT on a hand-worked decision tree, every call of a search in order with each step back (written out by hand), the
budget, ToolEval's pass rate and win rate recomputed from the outcomes, the rule-based judge on hand-built pairs, the
demo's example (its planted stale id and every call of its search), and bad input answered with a clear error."""
import json
import re
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tool_catalog  # noqa: E402
from tool_catalog import (Attempt, PathNode, ToolBenchInstruction, failure_reason, judge, pass_rate,  # noqa: E402
                          path_steps, render_steps, solve_chain, solve_dfsdt, win_rate)


CATALOG = tool_catalog.orrin_catalog()


class Counting:
    """A registry that counts the calls it executes (what the budget limits)."""

    def __init__(self, registry):
        self.registry, self.calls = registry, 0

    def names(self):
        return self.registry.names()

    def call(self, name, arguments):
        self.calls += 1
        return self.registry.call(name, arguments)


def world():
    """Only meter MT-123 exists; get_meter_status is down."""
    return Counting(tool_catalog._world_registry(CATALOG, {"MT-123"}, {"get_meter_status"}))


def hand_tree():
    """A: 404 | B ok -> (C ok -> E 503) | (D ok -> F ok, done). By hand: greedy 1 call, fails; DFSDT A B C E D F."""
    e = PathNode("get_meter_status", {"meter_id": "MT-123"})  # down: 503
    f = PathNode("assign_meter", {"meter_id": "MT-123", "crew_id": "CR-7"}, finish=True)
    c = PathNode("get_meter_location", {"meter_id": "MT-123"}, [e])
    d = PathNode("get_meter_details", {"meter_id": "MT-123"}, [f])
    b = PathNode("search_meters", {"query": "MT-999"}, [c, d])
    a = PathNode("get_meter_details", {"meter_id": "MT-999"}, [d])  # no such meter: 404
    return [a, b]


class TestHandTree(unittest.TestCase):
    def test_greedy_gives_up_at_the_first_failure(self):
        reg = world()
        got = solve_chain(hand_tree(), reg, 10)
        self.assertEqual((got.solved, got.calls, reg.calls), (False, 1, 1))
        self.assertEqual([n for n, _ in got.path], ["get_meter_details"])

    def test_greedy_follows_the_first_candidate_down(self):
        a, b = hand_tree()
        got = solve_chain([b, a], world(), 10)  # B, C, then E fails
        self.assertEqual((got.solved, got.calls), (False, 3))
        self.assertEqual([n for n, _ in got.path], ["search_meters", "get_meter_location", "get_meter_status"])

    def test_dfsdt_backtracks_two_levels_to_the_known_path(self):
        reg = world()
        got = solve_dfsdt(hand_tree(), reg, 10)
        self.assertEqual((got.solved, got.calls, reg.calls), (True, 6, 6))
        self.assertEqual([n for n, _ in got.path], ["search_meters", "get_meter_details", "assign_meter"])

    def test_dead_end_is_a_failure(self):
        node = PathNode("get_meter_location", {"meter_id": "MT-123"})  # ok, but no next step and not done
        self.assertFalse(solve_chain([node], world(), 5).solved)
        self.assertFalse(solve_dfsdt([node], world(), 5).solved)

    def test_budget_respected(self):
        for budget in range(1, 8):
            with self.subTest(budget=budget):
                reg = world()
                got = solve_dfsdt(hand_tree(), reg, budget)
                self.assertEqual(got.solved, budget >= 6)
                self.assertEqual((got.calls, reg.calls), (min(budget, 6),) * 2)
        chain = [PathNode("search_meters", {"query": "x"}, [PathNode("get_meter_details", {"meter_id": "MT-123"}, [
            PathNode("assign_meter", {"meter_id": "MT-123", "crew_id": "CR-7"}, finish=True)])])]
        for budget, solved in ((2, False), (3, True)):
            with self.subTest(chain_budget=budget):
                reg = world()
                got = solve_chain(chain, reg, budget)
                self.assertEqual((got.solved, got.calls, reg.calls), (solved, budget, budget))


class TestJudgeAndRates(unittest.TestCase):
    def att(self, solved, n):
        return Attempt(solved, n, [("search_meters", {})] * n)

    def test_judge_rule(self):
        table = [((True, 3), (False, 2), "a"), ((False, 2), (True, 3), "b"), ((True, 3), (True, 5), "a"),
                 ((True, 5), (True, 3), "b"), ((True, 3), (True, 3), "tie"), ((False, 1), (False, 4), "tie")]
        mirror = {"a": "b", "b": "a", "tie": "tie"}
        for a, b, expected in table:
            with self.subTest(a=a, b=b):
                self.assertEqual(judge(self.att(*a), self.att(*b)), expected)
                self.assertEqual(judge(self.att(*b), self.att(*a)), mirror[expected])  # no order bias

    def test_judge_reads_the_path_not_the_calls_spent(self):
        self.assertEqual(judge(Attempt(True, 9, [("x", {})] * 2), Attempt(True, 2, [("x", {})] * 2)), "tie")

    def test_rates_by_hand(self):
        mine = [self.att(True, 2), self.att(True, 3), self.att(False, 1), self.att(True, 2)]
        refs = [self.att(False, 1), self.att(True, 3), self.att(True, 2), self.att(True, 4)]
        self.assertEqual(pass_rate(mine), 0.75)
        self.assertEqual(win_rate(mine, refs), (2 + 0.5) / 4)  # win, tie, loss, win

    def test_generated_set_recomputed(self):
        instructions, registry = tool_catalog.toolbench_instructions(0)
        chain = [solve_chain(i.roots, registry, 8) for i in instructions]
        dfs = [solve_dfsdt(i.roots, registry, 8) for i in instructions]
        self.assertEqual(pass_rate(dfs), sum(a.solved for a in dfs) / len(dfs))
        wins = sum(d.solved and not c.solved for c, d in zip(chain, dfs))
        ties = sum(d.solved == c.solved for c, d in zip(chain, dfs))
        self.assertEqual(win_rate(dfs, chain), (wins + ties / 2) / len(dfs))
        self.assertGreater(pass_rate(dfs), pass_rate(chain))
        for c, d in zip(chain, dfs):  # where the chain succeeds, DFSDT takes the same path at the same cost
            if c.solved:
                self.assertEqual((d.path, d.calls), (c.path, c.calls))
        text = str(tool_catalog.demo_toolbench(0))
        self.assertIn(f"DFSDT                 {pass_rate(dfs):.0%}", text)


class EveryCallInOrder(unittest.TestCase):
    """The hand tree's search, call by call: A fails (404), B, C, E fails (503), C has nothing left so back to B's
    next candidate D, then F finishes. Numbers in the order made; parent: the call whose candidates it was among."""

    def test_dfsdt_steps_by_hand(self):
        got = solve_dfsdt(hand_tree(), world(), 10)
        self.assertEqual([(s.number, s.parent, s.depth, s.node.name, s.outcome) for s in got.steps], [
            (1, 0, 0, "get_meter_details", "failed"), (2, 0, 0, "search_meters", "ok"),
            (3, 2, 1, "get_meter_location", "ok"), (4, 3, 2, "get_meter_status", "failed"),
            (5, 2, 1, "get_meter_details", "ok"), (6, 5, 2, "assign_meter", "done")])
        self.assertEqual(path_steps(got), [2, 5, 6])
        self.assertEqual([(got.steps[n - 1].node.name, got.steps[n - 1].node.arguments) for n in path_steps(got)],
                         got.path)

    def test_written_out_by_hand(self):
        self.assertEqual(render_steps(solve_dfsdt(hand_tree(), world(), 10)), [
            "  1  get_meter_details(meter_id='MT-999')",
            "       failed: no meter MT-999",
            "       backtrack: to the choice of a first call, its next candidate",
            "  2  search_meters(query='MT-999')  ok",
            "  3    get_meter_location(meter_id='MT-123')  ok",
            "  4      get_meter_status(meter_id='MT-123')",
            "           failed: get_meter_status is unavailable",
            "           backtrack: no candidate left after call 3; back up to the choice after call 2, its next "
            "candidate",
            "  5    get_meter_details(meter_id='MT-123')  ok",
            "  6      assign_meter(meter_id='MT-123', crew_id='CR-7')  ok: the instruction is done"])

    def test_siblings_that_fail_one_after_another(self):
        # three first calls: the first two fail (404, then 503), the third finishes; each step back is to the same choice
        roots = [PathNode("get_meter_details", {"meter_id": "MT-999"}),
                 PathNode("get_meter_status", {"meter_id": "MT-123"}),
                 PathNode("assign_meter", {"meter_id": "MT-123", "crew_id": "CR-7"}, finish=True)]
        self.assertEqual(render_steps(solve_dfsdt(roots, world(), 5)), [
            "  1  get_meter_details(meter_id='MT-999')", "       failed: no meter MT-999",
            "       backtrack: to the choice of a first call, its next candidate",
            "  2  get_meter_status(meter_id='MT-123')", "       failed: get_meter_status is unavailable",
            "       backtrack: to the choice of a first call, its next candidate",
            "  3  assign_meter(meter_id='MT-123', crew_id='CR-7')  ok: the instruction is done"])

    def test_how_a_search_ends_unsolved(self):
        dead = [PathNode("get_meter_location", {"meter_id": "MT-123"}, note="a note")]  # ok, but nothing follows
        for label, attempt, lines in (
                ("chain", solve_chain(hand_tree(), world(), 10), [
                    "  1  get_meter_details(meter_id='MT-999')", "       failed: no meter MT-999",
                    "       no call after it: the search ends unsolved"]),
                ("budget", solve_dfsdt(hand_tree(), world(), 3), [
                    "  1  get_meter_details(meter_id='MT-999')", "       failed: no meter MT-999",
                    "       backtrack: to the choice of a first call, its next candidate",
                    "  2  search_meters(query='MT-999')  ok", "  3    get_meter_location(meter_id='MT-123')  ok",
                    "         (no call after it: the budget of calls is spent)"]),
                ("dead end", solve_dfsdt(dead, world(), 5), [
                    "  1  get_meter_location(meter_id='MT-123')",
                    "       ok (a note), but a dead end: no next call follows from it",
                    "       no call after it: the search ends unsolved"])):
            with self.subTest(label):
                self.assertFalse(attempt.solved)
                self.assertEqual(render_steps(attempt), lines)
                self.assertEqual(path_steps(attempt), [])

    def test_chain_steps(self):
        a, b = hand_tree()
        got = solve_chain([b, a], world(), 10)  # B, C, then E fails
        self.assertEqual([(s.number, s.parent, s.depth, s.outcome) for s in got.steps],
                         [(1, 0, 0, "ok"), (2, 1, 1, "ok"), (3, 2, 2, "failed")])

    def test_failure_reason(self):
        reg = world()
        for name, arguments, reason in (
                ("get_meter_details", {"meter_id": "MT-999"}, "no meter MT-999"),
                ("get_meter_status", {"meter_id": "MT-123"}, "get_meter_status is unavailable"),
                ("assign_invoice", {"meter_id": "MT-123", "crew_id": "CR-7"}, "its schema refuses these arguments"),
                ("get_meter_mood", {}, "unknown_tool")):
            with self.subTest(name=name):
                self.assertEqual(failure_reason(reg.call(name, arguments)), reason)


EXAMPLE = re.compile(r"^Example: '(.+)'$", re.M)


class DemoExample(unittest.TestCase):
    """Demo 5's example at seed 0: the planted stale id said, every call of DFSDT's search shown, each step back."""

    @classmethod
    def setUpClass(cls):
        cls.text = str(tool_catalog.demo_toolbench(0))
        cls.instructions, registry = tool_catalog.toolbench_instructions(0)
        cls.chain = [solve_chain(i.roots, registry, 8) for i in cls.instructions]
        cls.dfs = [solve_dfsdt(i.roots, registry, 8) for i in cls.instructions]
        cls.k = next(k for k, i in enumerate(cls.instructions) if i.text == EXAMPLE.search(cls.text)[1])

    def test_the_example_is_the_first_whose_stale_id_is_what_fails(self):
        def clean(k):  # a call that quotes the stale id fails for good (a 404), not as a tool that is down (503)
            return any(not s.result.ok and not s.result.retryable and self.instructions[k].stale in
                       json.dumps(s.node.arguments) for s in self.dfs[k].steps)
        shown = [k for k, i in enumerate(self.instructions)
                 if i.trap == "stale id" and not self.chain[k].solved and self.dfs[k].solved]
        self.assertEqual(self.k, [k for k in shown if clean(k)][0])

    def test_it_says_which_id_is_stale(self):
        ins = self.instructions[self.k]
        self.assertIn(ins.stale, ins.text)
        self.assertEqual(ins.current, ins.stale[:-1])  # a stale id is the record's with a 7 after it
        self.assertIn(f"\n  {ins.stale} is a stale id, planted on purpose (the trap above): no record has it (the "
                      f"record is {ins.current} now),\n  and only a search for {ins.stale} leads there.\n", self.text)
        first = next(s for s in self.dfs[self.k].steps if not s.result.ok)
        self.assertIn(f"failed: {failure_reason(first.result)} (it quotes the stale id)", self.text)
        self.assertTrue(failure_reason(first.result).startswith("no ") and ins.stale in failure_reason(first.result))
        self.assertIn(f"\n    it failed: {failure_reason(self.chain[self.k].steps[0].result)}; a chain follows one path, "
                      "so there is nothing to go back to\n", self.text)

    def test_every_call_in_order_with_each_step_back(self):
        dfs = self.dfs[self.k]
        trace = self.text.split("indented by its depth in the tree of candidate calls:\n")[1].split("\n  DFSDT: ")[0]
        self.assertEqual(trace.splitlines(), ["  " + line for line in render_steps(dfs)])
        numbered = [(int(m[1]), m[2]) for m in re.finditer(r"^ +(\d+)  +(\S.*?\))(?:  ok.*)?$", trace, re.M)]
        self.assertEqual([n for n, _ in numbered], list(range(1, dfs.calls + 1)))  # every call, none left out
        self.assertEqual([c for _, c in numbered], [tool_catalog.call_source(s.node.name, s.node.arguments)
                                                    for s in dfs.steps])
        failed = [s.number for s in dfs.steps if s.outcome in ("failed", "dead end")]
        self.assertEqual(trace.count("backtrack: "), len(failed))
        self.assertGreaterEqual(len(failed), 1)
        self.assertIn(f"\n  DFSDT: {dfs.calls} calls, path found: ", self.text)

    def test_the_path_is_the_calls_not_abandoned(self):
        dfs = self.dfs[self.k]
        m = re.search(r"the path is calls ([\d, and]+); calls? ([\d, and]+) (?:were|was) on "
                      r"(?:abandoned branches|an abandoned branch)", self.text)
        on_path, dropped = ([int(x) for x in re.findall(r"\d+", g)] for g in m.groups())
        self.assertEqual([(dfs.steps[n - 1].node.name, dfs.steps[n - 1].node.arguments) for n in on_path], dfs.path)
        self.assertEqual(sorted(on_path + dropped), list(range(1, dfs.calls + 1)))
        for n in on_path[:-1]:  # each call on the path is the parent of the next
            self.assertEqual(dfs.steps[on_path[on_path.index(n) + 1] - 1].parent, n)

    def test_a_tool_that_is_down_is_shown_as_such_when_no_stale_id_fails_for_good(self):
        # fallback: get_meter_status is down, so the call that quotes the stale id fails for now (503), not for good
        root = [PathNode("get_meter_status", {"meter_id": "MT-1237"}, note="it quotes the stale id"),
                PathNode("search_meters", {"query": "MT-1237"}, [PathNode(
                    "assign_meter", {"meter_id": "MT-123", "crew_id": "CR-7"}, finish=True)])]
        ins = ToolBenchInstruction("Check meter MT-1237 and send crew CR-7.", "intra", root, [], "stale id", "MT-1237",
                                   "MT-123")
        chain, dfs = solve_chain(root, world(), 8), solve_dfsdt(root, world(), 8)
        self.assertEqual(tool_catalog._example([ins], [chain], [dfs]), 0)
        self.assertIn("         failed: get_meter_status is unavailable (it quotes the stale id)",
                      tool_catalog._example_lines(ins, chain, dfs))


class TheDemosWords(unittest.TestCase):
    """Demo 5 explains every term it prints, for a reader who knows only the handout."""

    def test_terms(self):
        text = " ".join(str(tool_catalog.demo_toolbench(0)).split())
        for words in ("Intra-category: every call is about one kind of object", "cross-category: two kinds",
                      "distraction 0.3 is the chance that it ranks a near duplicate of the right tool",
                      "invent and recall apply only when the right tool is out of view, never here",
                      "A greedy chain (ReAct, as in lecture 1's loop) takes the first candidate at every step",
                      "DFSDT (ToolLLM's depth-first search over the tree of candidates) goes back to the last choice",
                      "Pass rate: the share of instructions solved within the budget",
                      "calls spent: every call made, failed ones too", "win rate: the share where the judge below",
                      "the reference is the shortest working path",
                      "Stale id: the instruction quotes an old id that no record has",
                      "tool down: the natural tool answers that it is unavailable"):
            with self.subTest(words=words[:30]):
                self.assertIn(words, text)

    def test_invent_and_recall_play_no_part(self):
        def tree(nodes):
            return [(n.name, n.arguments, n.finish, n.note, tree(n.children)) for n in nodes]
        default, _ = tool_catalog.toolbench_instructions(0)
        other, _ = tool_catalog.toolbench_instructions(0, caller=tool_catalog.ToyCaller(invent=1.0, recall=0.0))
        self.assertEqual([tree(i.roots) for i in default], [tree(i.roots) for i in other])
        distracted, _ = tool_catalog.toolbench_instructions(0, caller=tool_catalog.ToyCaller(distraction=0.0))
        self.assertNotEqual([tree(i.roots) for i in default], [tree(i.roots) for i in distracted])  # this knob does


class TestInstructions(unittest.TestCase):
    def test_shape(self):
        instructions, registry = tool_catalog.toolbench_instructions(0)
        by_name = {c.tool.name: c for c in CATALOG}
        self.assertEqual(len(instructions), 20)
        self.assertEqual(sum(i.kind == "intra" for i in instructions), 10)
        for i in instructions:
            with self.subTest(text=i.text):
                objects = {by_name[n].object for n, _ in i.reference}
                self.assertEqual(len(objects), 1 if i.kind == "intra" else 2)
                self.assertTrue(2 <= len(i.reference) - (i.trap == "stale id") <= 4)
                dfs = solve_dfsdt(i.roots, registry, 100)
                self.assertEqual(dfs.path, i.reference)  # the reference is the path search finds
                if i.trap:  # the first natural call fails, so the one chain cannot succeed
                    self.assertFalse(solve_chain(i.roots, registry, 100).solved)
        self.assertTrue({"stale id", "tool down"} <= {i.trap for i in instructions})

    def test_the_planted_stale_id_and_the_record(self):
        for seed in (0, 17):
            instructions, _ = tool_catalog.toolbench_instructions(seed)
            for i in instructions:
                with self.subTest(seed=seed, text=i.text):
                    if i.trap != "stale id":
                        self.assertEqual((i.stale, i.current), ("", ""))
                        continue
                    self.assertIn(i.stale, i.text)
                    self.assertEqual(i.current, i.stale[:-1])
                    # every first call quotes the id the instruction gave (the picker knows no other), the distracted
                    # pick too; only the calls after a search use the record's id
                    for root in i.roots:
                        self.assertIn(i.stale, json.dumps(root.arguments))
                        self.assertTrue(root.note)
        self.assertTrue(any(len(i.roots) == 3 for i in instructions if i.trap == "stale id"))  # a distracted first pick

    def test_deterministic_in_the_seed(self):
        texts = [[i.text for i in tool_catalog.toolbench_instructions(s)[0]] for s in (0, 0, 1)]
        self.assertEqual(texts[0], texts[1])
        self.assertNotEqual(texts[0], texts[2])

    def test_demo_says_the_judge_is_a_rule(self):
        text = str(tool_catalog.demo_toolbench(0))
        for words in ("not ToolEval's LLM judge", "order bias", "length bias", "Budget: 8 tool calls"):
            self.assertIn(words, text)
        self.assertEqual(text, str(tool_catalog.demo_toolbench(0)))


class TestBadInput(unittest.TestCase):
    def test_value_errors(self):
        cases = [("empty instruction set", lambda: pass_rate([]), "empty"),
                 ("no pairs", lambda: win_rate([], []), "at least one"),
                 ("unpaired", lambda: win_rate([Attempt(True, 1, [])], []), "one reference per attempt"),
                 ("budget 0, chain", lambda: solve_chain(hand_tree(), world(), 0), "budget"),
                 ("budget 0, DFSDT", lambda: solve_dfsdt(hand_tree(), world(), 0), "budget"),
                 ("budget True", lambda: solve_dfsdt(hand_tree(), world(), True), "budget"),
                 ("unknown tool", lambda: solve_dfsdt([PathNode("get_meter_mood", {})], world(), 5), "get_meter_mood"),
                 ("unknown tool deep", lambda: solve_chain([PathNode("search_meters", {}, [
                     PathNode("get_meter_mood", {})])], world(), 5), "catalog lacks"),
                 ("no instructions", lambda: tool_catalog.toolbench_instructions(0, n=0), "at least 1")]
        for label, fn, words in cases:
            with self.subTest(label):
                with self.assertRaises(ValueError) as caught:
                    fn()
                self.assertIn(words, str(caught.exception))

    def test_clear_errors_of_the_trace(self):
        ok = world().call("get_meter_details", {"meter_id": "MT-123"})
        for label, fn, error, words in (("an ok result", lambda: failure_reason(ok), ValueError, "this one is ok"),
                                        ("not an attempt", lambda: render_steps([]), TypeError, "takes an Attempt"),
                                        ("a path", lambda: path_steps(None), TypeError, "takes an Attempt")):
            with self.subTest(label):
                with self.assertRaises(error) as caught:
                    fn()
                self.assertIn(words, str(caught.exception))


if __name__ == "__main__":
    unittest.main()
