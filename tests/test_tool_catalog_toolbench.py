"""ToolBench's way of grading (tool_catalog section 6, scripts/06_evaluation.py demo 5): a greedy chain against
DFSDT on a hand-worked decision tree, the budget, ToolEval's pass rate and win rate recomputed from the outcomes,
the rule-based judge on hand-built pairs, and bad input answered with a ValueError."""
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tool_catalog  # noqa: E402
from tool_catalog import Attempt, PathNode, judge, pass_rate, solve_chain, solve_dfsdt, win_rate  # noqa: E402


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


if __name__ == "__main__":
    unittest.main()
