"""service_env section 5, tau2-bench's dual control (scripts/06_evaluation.py demo 6): each side's tools act on their
own side only, the customer acts only when told what to do, both sides are graded, and the demo's figures.

Where the expected values come from: the tools' verdicts, the screens and the final states are worked out by hand
from the task's story (the meter's radio is off, its pairing code is 481306, a 10-second press is a factory reset that
wipes the $60 budget alert); the knobs at 0 or 1 make one mistake each, whose trajectory is written out here. The
demo's figures are recounted from the trials with this file's own grader (HAND_GRID, HAND_HOME), never from
grade_dual; which knob fired in which trial is recomputed from the trial's random.Random, in the order the agent and
the customer draw them.
"""
import random
import re
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # for script_runs, however the tests are started

import script_runs  # noqa: E402
import service_env  # noqa: E402
from service_env import DUAL_TASK, DualKnobs, DualWorld, dual_registries, run_dual_trial  # noqa: E402

SCRIPT = "06_evaluation.py"
script_runs.prefetch(SCRIPT)  # the table's runs of script 06 start now, in the background
ZERO = DualKnobs(0, 0, 0)
HAND_GRID = {"MT-123": {"customer_id": "C-107", "link": "online", "last_reading": "2026-10-12"}}  # paired again
HAND_HOME = {"radio": "on", "budget_alert": 60}  # radio switched on, the owner's $60 alert kept


def one(**knobs) -> DualKnobs:
    """The knobs with the named rates set and the others 0."""
    return DualKnobs(**({"own_side_only": 0, "misapply": 0, "misread": 0} | knobs))


def my_sides(trial) -> tuple[bool, bool]:
    """(Orrin Grid's side right, the customer's side right), by this file's own reading of the final state."""
    grid = trial.final["grid"]
    return (grid["meters"] == HAND_GRID and grid["customers"] == service_env.CUSTOMERS,
            trial.final["home"] == HAND_HOME)


def my_said_done(trial) -> bool:
    return any("done" in m["content"].lower() for m in trial.transcript.messages
               if m["role"] == "assistant" and "<tool_call>" not in m["content"])


def presses(trial) -> list[int]:
    return [args["seconds"] for turn in trial.actions for name, args, _ in turn if name == "press_radio_button"]


def fired(seed: int, n: int) -> tuple[bool, bool, bool]:
    """Which knob fired in trial n: the agent draws own_side_only first, then the customer misapply and misread."""
    rng = random.Random(f"{seed}:D1:{n}")
    return tuple(rng.random() < p for p in (0.2, 0.2, 0.3))


class Tools(unittest.TestCase):
    def world(self):
        world = DualWorld()
        agent, home = dual_registries(world)
        return world, agent, home

    def test_the_meter_by_hand(self):
        world, agent, home = self.world()
        self.assertEqual(home.call("read_screen", {}).content, {"screen": "RADIO OFF"})
        refused = agent.call("pair_meter", {"meter_id": "MT-123", "code": "481306"})
        self.assertEqual((refused.ok, refused.error_kind), (False, "execution_error"))
        self.assertIn("its radio is off, and only someone at the house can switch it on", refused.message)
        self.assertEqual(agent.call("get_meter", {"customer_id": "C-107"}).content,
                         {"meter_id": "MT-123", "link": "offline", "last_reading": "2026-10-12",
                          "radio": "no answer from its radio"})
        self.assertEqual(home.call("press_radio_button", {"seconds": 1}).content,
                         {"radio": "on", "screen": "PAIR 481306"})
        wrong = agent.call("pair_meter", {"meter_id": "MT-123", "code": "418306"})
        self.assertFalse(wrong.ok)
        self.assertIn("is not the one MT-123 shows", wrong.message)
        self.assertEqual(world.grid.meters["MT-123"]["link"], "offline")  # a refused pairing changes nothing
        self.assertEqual(agent.call("pair_meter", {"meter_id": "MT-123", "code": "481306"}).content,
                         {"meter_id": "MT-123", "link": "online"})
        self.assertEqual(home.call("read_screen", {}).content, {"screen": "LINKED"})
        self.assertEqual(world.snapshot(), {"grid": {"customers": service_env.CUSTOMERS, "meters": HAND_GRID},
                                            "home": HAND_HOME})

    def test_a_short_press_toggles_a_long_one_resets(self):
        for presses_, radio, alert in (([1], "on", 60), ([1, 2], "off", 60), ([9], "on", 60), ([10], "on", None),
                                       ([1, 30], "on", None), ([10, 1], "off", None)):
            with self.subTest(presses=presses_):
                world, _, home = self.world()
                for seconds in presses_:
                    self.assertTrue(home.call("press_radio_button", {"seconds": seconds}).ok)
                self.assertEqual(world.home, {"radio": radio, "budget_alert": alert})

    def test_each_side_acts_on_its_own_side_only(self):
        world, agent, home = self.world()
        home.call("press_radio_button", {"seconds": 1})  # the radio on, so every agent call can do its work
        calls = {"find_customer": {"name": "Gil Varga"}, "get_meter": {"customer_id": "C-107"},
                 "refresh_link": {"meter_id": "MT-123"}, "pair_meter": {"meter_id": "MT-123", "code": "481306"}}
        self.assertEqual(agent.names(), sorted(calls))
        self.assertEqual(home.names(), ["press_radio_button", "read_screen"])
        for name, arguments in calls.items():
            with self.subTest(agent=name):
                before = world.snapshot()["home"]
                self.assertTrue(agent.call(name, arguments).ok)
                self.assertEqual(world.snapshot()["home"], before)
        for name, arguments in (("press_radio_button", {"seconds": 10}), ("read_screen", {})):
            with self.subTest(customer=name):
                before = world.snapshot()["grid"]
                self.assertTrue(home.call(name, arguments).ok)
                self.assertEqual(world.snapshot()["grid"], before)
        for registry, other in ((agent, "press_radio_button"), (home, "pair_meter")):
            with self.subTest(missing=other):
                self.assertEqual(registry.call(other, {}).error_kind, "unknown_tool")

    def test_refresh_link_succeeds_and_changes_nothing(self):
        world, agent, _ = self.world()
        before = world.snapshot()
        self.assertEqual(agent.call("refresh_link", {"meter_id": "MT-123"}).content,
                         {"meter_id": "MT-123", "status": "queued"})
        self.assertEqual(world.snapshot(), before)

    def test_model_mistakes_are_results(self):
        world, agent, home = self.world()
        for registry, name, arguments, kind, words in (
                (home, "press_radio_button", {"seconds": 0}, "execution_error", "from 1 to 30, got 0"),
                (home, "press_radio_button", {"seconds": 31}, "execution_error", "from 1 to 30, got 31"),
                (home, "press_radio_button", {"seconds": "1"}, "invalid_arguments", "seconds"),
                (agent, "pair_meter", {"meter_id": "MT-999", "code": "481306"}, "execution_error", "no meter 'MT-999'"),
                (agent, "get_meter", {"customer_id": "C-212"}, "execution_error", "has no smart meter")):
            with self.subTest(name=name, arguments=arguments):
                result = registry.call(name, arguments)
                self.assertEqual((result.ok, result.error_kind), (False, kind))
                self.assertIn(words, result.message)
        self.assertEqual(world.snapshot(), DualWorld().snapshot())


class Grading(unittest.TestCase):
    def test_both_sides_by_hand(self):
        untouched = DualWorld().snapshot()
        reset = DualWorld().snapshot()
        reset["grid"]["meters"]["MT-123"]["link"] = "online"
        reset["home"] = {"radio": "on", "budget_alert": None}
        solved = {"grid": {"customers": service_env.CUSTOMERS, "meters": HAND_GRID}, "home": HAND_HOME}
        for label, final, expected in (
                ("nothing done", untouched, {"grid": ["MT-123 link: offline where online was expected"],
                                             "home": ["radio: off where on was expected"]}),
                ("factory reset", reset, {"grid": [], "home": ["budget_alert: None where 60 was expected"]}),
                ("solved", solved, {"grid": [], "home": []})):
            with self.subTest(label):
                self.assertEqual(service_env.grade_dual(DUAL_TASK, final), expected)

    def test_misread(self):
        for code, read in (("481306", "418306"), ("123456", "132456"), ("000000", "000000")):
            with self.subTest(code=code):
                self.assertEqual(service_env.misread(code), read)


class KnobsAtZeroOrOne(unittest.TestCase):
    def test_each_mistake_shows_in_the_trajectory_and_the_state(self):
        # (knobs, agent calls in order, ok of each, customer's presses, Orrin Grid's side right, customer's side right)
        table = [
            (ZERO, ["find_customer", "get_meter", "pair_meter"], [True] * 3, [1], True, True),
            (one(own_side_only=1), ["find_customer", "get_meter", "refresh_link"], [True] * 3, [], False, False),
            (one(misapply=1), ["find_customer", "get_meter", "pair_meter"], [True] * 3, [10], True, False),
            (one(misread=1), ["find_customer", "get_meter", "pair_meter", "pair_meter"], [True, True, False, True], [1],
             True, True),
            (one(misapply=1, misread=1), ["find_customer", "get_meter", "pair_meter", "pair_meter"],
             [True, True, False, True], [10], True, False),
            (DualKnobs(1, 1, 1), ["find_customer", "get_meter", "refresh_link"], [True] * 3, [], False, False),
        ]
        for knobs, names, oks, pressed, grid_ok, home_ok in table:
            with self.subTest(knobs=knobs):
                trial = run_dual_trial(knobs, 0, 0)
                self.assertEqual([c.name for c in trial.transcript.calls], names)
                self.assertEqual([c.ok for c in trial.transcript.calls], oks)
                self.assertEqual(presses(trial), pressed)
                self.assertEqual(my_sides(trial), (grid_ok, home_ok))
                self.assertEqual(trial.success, grid_ok and home_ok)
                self.assertTrue(my_said_done(trial) and trial.said_done)  # 'Done' every time, right or wrong

    def test_a_misread_code_is_the_one_swapped(self):
        trial = run_dual_trial(one(misread=1), 0, 0)
        codes = [c.arguments["code"] for c in trial.transcript.calls if c.name == "pair_meter"]
        self.assertEqual(codes, ["418306", "481306"])
        users = [m["content"] for m in trial.transcript.messages if m["role"] == "user"]
        self.assertEqual(users[1:], ["OK, I pressed the RADIO button. The screen says: PAIR 418306.",
                                     "The screen says: PAIR 481306."])

    def test_the_customer_acts_only_when_told_what_to_do(self):
        _, home = dual_registries(DualWorld())
        user = service_env.DualUser(DUAL_TASK, home, ZERO, random.Random(0))
        for said, answer, actions in (
                ("I have refreshed your meter's link from our side. Done!", None, []),
                ("Is there anything else?", "As I said: " + DUAL_TASK.opening, []),
                ("", "Hello? Did that work?", []),
                ("Please press the RADIO button once.", "OK, I pressed the RADIO button.", ["press_radio_button"]),
                ("What code does its screen show?", "The screen says: PAIR 481306.", ["read_screen"])):
            with self.subTest(said=said):
                self.assertEqual(user.reply(said), answer)
                if answer is not None:
                    self.assertEqual([name for name, _, _ in user.actions[-1]], actions)
        self.assertEqual(len(user.actions), 5)  # the opening's, then one per answer: a None adds no turn

    def test_the_home_lines_stand_before_what_the_customer_said(self):
        lines = run_dual_trial(ZERO, 0, 0).render().splitlines()
        users = [n for n, line in enumerate(lines) if line.startswith("[user ]")]
        self.assertEqual(lines[users[1] - 2:users[1] + 1], [
            '[home ] press_radio_button(seconds=1) -> {"radio": "on", "screen": "PAIR 481306"}',
            '[home ] read_screen() -> {"screen": "PAIR 481306"}',
            "[user ] OK, I pressed the RADIO button. The screen says: PAIR 481306."])
        self.assertEqual(sum(line.startswith("[home ]") for line in lines), 2)


ROW = re.compile(r"^(\d+)\s{2,}(.+?)\s{2,}(\d+) \+ (\d+)\s+(right|wrong)\s+(right|wrong)\s+(yes|no)\s+(pass|FAIL)$", re.M)


class Demo(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.text = service_env.demo_dual_control(0)
        cls.runs = [run_dual_trial(DualKnobs(), 0, n) for n in range(8)]

    def test_what_it_says_before_the_trials(self):
        for line in (
                "  the agent's 4 tools act on Orrin Grid's side:      find_customer, get_meter, refresh_link, pair_meter",
                "  the customer's 2 tools act on the meter at home:  press_radio_button, read_screen",
                "The agent cannot press the button itself: its call to press_radio_button comes back unknown_tool (it "
                "has no such tool).",
                "  Orrin Grid's side:    meter MT-123's link is online (pair_meter succeeded, with the code on the "
                "meter's screen)",
                "  the customer's side:  the meter's radio is on, and the $60 budget alert its owner set is still there",
                "                        (holding the RADIO button 10 seconds resets the meter to factory settings and "
                "wipes it)",
                '  "Gil Varga here. My smart meter has sent no readings since Monday\'s outage."',
                "  2. You act on Orrin Grid's side only; only the customer can act on the meter at their home. Tell "
                "them exactly"):
            with self.subTest(line=line[:40]):
                self.assertIn("\n" + line + "\n", self.text)
        knobs = " ".join(self.text.split("8 trials. Knobs, ")[1].split("\ntrial ")[0].split())
        self.assertEqual(knobs, "the chance per trial of each mistake: the agent's own side only 0.2 (it works on Orrin "
                                "Grid's side alone); the customer's misapply 0.2 (holds the button 10 seconds) and "
                                "misread 0.3 (reads the code with two digits swapped, the first time).")

    def test_rows_recounted(self):
        rows = ROW.findall(self.text)
        self.assertEqual([int(r[0]) for r in rows], list(range(1, 9)))
        for row, trial, n in zip(rows, self.runs, range(8)):
            with self.subTest(trial=n + 1):
                grid_ok, home_ok = my_sides(trial)
                acted = sum(len(turn) for turn in trial.actions)
                self.assertEqual(row[2:], (str(len(trial.transcript.calls)), str(acted), "right" if grid_ok else "wrong",
                                           "right" if home_ok else "wrong", "yes" if my_said_done(trial) else "no",
                                           "pass" if grid_ok and home_ok else "FAIL"))

    def test_what_happened_is_read_off_the_trajectory_and_follows_the_knobs(self):
        stories = [service_env.dual_story(t) for t in self.runs]
        for n, (trial, story) in enumerate(zip(self.runs, stories)):
            own, misapplied, misread = fired(0, n)
            with self.subTest(trial=n + 1):
                self.assertEqual("never told the customer" in story, not any(trial.actions))
                self.assertEqual("never told the customer" in story, own)
                self.assertEqual("factory reset" in story, any(s >= 10 for s in presses(trial)))
                self.assertEqual("factory reset" in story, misapplied and not own)
                self.assertEqual("read out wrong" in story, misread and not own)
                refused = [c.arguments["code"] for c in trial.transcript.calls if c.name == "pair_meter" and not c.ok]
                if refused:  # the code as the customer read it out: the screen's 481306 with two digits swapped
                    self.assertEqual(refused, ["418306"])
                    self.assertIn("code 418306 read out wrong; the agent asked again, and it matched", story)
                self.assertEqual(story == "as it should go", not (own or misapplied or misread))
                # the story as the table wraps it
                cell = " ".join(line[7:49].strip() for line in self.row_lines(n + 1))
                self.assertEqual(" ".join(cell.split()), story)
        self.assertTrue(any(fired(0, n)[1] and not fired(0, n)[0] for n in range(8)))  # a reset at the default seed

    def row_lines(self, number: int) -> list[str]:
        lines = self.text.splitlines()
        start = next(k for k, line in enumerate(lines) if re.match(rf"{number}\s{{2,}}", line) and ROW.match(line))
        end = start + 1
        while end < len(lines) and lines[end].startswith("       "):
            end += 1
        return lines[start:end]

    def test_the_three_grades(self):
        both = sum(all(my_sides(t)) for t in self.runs)
        grid = sum(my_sides(t)[0] for t in self.runs)
        done = sum(map(my_said_done, self.runs))
        self.assertIn(f"\nSuccess with both sides checked: {both}/8; with Orrin Grid's side alone (the agent's database, "
                      f"as tau-bench grades): {grid}/8;\nby the agent saying 'Done': {done}/8.\n", self.text)
        self.assertLess(both, grid)  # the customer's side catches what the agent's database cannot
        self.assertLess(grid, done)
        self.assertIn(f"\nWhy a 'Done' alone is not success: the agent said it in {done} of 8 trials, and {both} "
                      "succeeded.\n", self.text)

    def test_the_trials_named_in_the_why(self):
        unguided = [n + 1 for n, t in enumerate(self.runs) if not any(turn for turn in t.actions)]
        paired = [n + 1 for n, t in enumerate(self.runs) if my_sides(t) == (True, False)]
        self.assertTrue(unguided and paired)
        self.assertIn(f"\n  trial{'s' * (len(unguided) > 1)} {', '.join(map(str, unguided))}: the agent never told the "
                      "customer what to do;", self.text)
        self.assertIn(f"\n  trial{'s' * (len(paired) > 1)} {', '.join(map(str, paired))}: the meter was paired, so "
                      "Orrin Grid's side is right", self.text)

    def test_the_trial_in_full_is_the_first_whose_agent_side_alone_passes(self):
        shown = next(n for n, t in enumerate(self.runs) if my_sides(t) == (True, False) and my_said_done(t))
        trial = self.runs[shown]
        head = f"\nTrial {shown + 1} in full; [home ] lines are the customer's own tool calls"
        self.assertIn(head, self.text)
        body = self.text.split(head)[1].split("\n", 1)[1]
        self.assertTrue(body.startswith(trial.render() + "\n"))
        self.assertIn("press_radio_button(seconds=10)", trial.render())
        self.assertIn("\nfinal state, Orrin Grid's side: as expected\n"
                      "final state, the customer's side: budget_alert: None where 60 was expected\n", body)

    def test_the_trial_in_full_at_other_seeds(self):
        # the first trial that a grader of the agent's side alone would pass, where there is one; else the first
        # failing one whose agent said 'Done'
        firsts = []
        for seed in (1, 2, 3, 17):
            with self.subTest(seed=seed):
                runs = [run_dual_trial(DualKnobs(), seed, n) for n in range(8)]
                wanted = [n for n, t in enumerate(runs) if my_sides(t) == (True, False) and my_said_done(t)] or \
                         [n for n, t in enumerate(runs) if not all(my_sides(t)) and my_said_done(t)]
                self.assertIn(f"\nTrial {wanted[0] + 1} in full;", service_env.demo_dual_control(seed))
                firsts.append(my_sides(next(t for t in runs if not all(my_sides(t)))))
        self.assertIn((False, False), firsts)  # a seed whose first failure is not the one shown

    def test_the_seed_reaches_the_demo(self):
        code, out, err = script_runs.result(SCRIPT, "seed 1")
        self.assertEqual((code, err), (0, ""))
        section = script_runs.sections(out)["Demo 6. tau2-bench's dual control: the customer acts too, and both sides "
                                            "are graded"]
        self.assertEqual(section, service_env.demo_dual_control(1))
        self.assertNotEqual(section, self.text)
        self.assertEqual(self.text, service_env.demo_dual_control(0))  # the same bytes each run


class BadInput(unittest.TestCase):
    def test_clear_errors(self):
        task = service_env.DualTask("DX", "x", "hi", {"name": "Gil Varga"}, {"MT-999": {"link": "online"}}, HAND_HOME)
        cases = [
            ("knob below 0", lambda: DualKnobs(own_side_only=-0.1), ValueError, "own_side_only"),
            ("knob above 1", lambda: DualKnobs(misapply=1.5), ValueError, "from 0 to 1"),
            ("knob a bool", lambda: DualKnobs(misread=True), ValueError, "misread"),
            ("knob a string", lambda: DualKnobs(misread="0.3"), ValueError, "misread"),
            ("a 5-digit code", lambda: service_env.misread("12345"), ValueError, "6 ASCII digits"),
            ("full-width digits", lambda: service_env.misread("１２３４５６"), ValueError, "6 ASCII digits"),
            ("a number", lambda: service_env.misread(481306), ValueError, "6 ASCII digits"),
            ("a side missing", lambda: service_env.grade_dual(DUAL_TASK, {"grid": {}}), ValueError, "sides"),
            ("no state", lambda: service_env.grade_dual(DUAL_TASK, None), ValueError, "sides"),
            ("unknown meter", task.expected_state, ValueError, "unknown meter 'MT-999'"),
            ("home fields", service_env.DualTask("DY", "y", "hi", {}, {}, {"radio": "on"}).expected_state, ValueError,
             "budget_alert"),
            ("tau-bench knobs", lambda: run_dual_trial(service_env.Knobs(), 0, 0), TypeError, "DualKnobs"),
            ("seed a string", lambda: run_dual_trial(ZERO, "0", 0), ValueError, "seed"),
            ("no trials", lambda: service_env.demo_dual_control(0, trials=0), ValueError, "at least 1"),
            ("knobs not DualKnobs", lambda: service_env.demo_dual_control(0, knobs={}), TypeError, "DualKnobs"),
            ("seed a float", lambda: service_env.demo_dual_control(1.5), ValueError, "seed"),
            ("not a world", lambda: dual_registries(service_env.ServiceDB()), TypeError, "DualWorld"),
            ("screen of nothing", lambda: service_env.screen(None), TypeError, "DualWorld"),
            ("story of a tau-bench trial", lambda: service_env.dual_story("T1"), TypeError, "DualTrial"),
        ]
        for label, fn, error, words in cases:
            with self.subTest(label):
                with self.assertRaises(error) as caught:
                    fn()
                self.assertIn(words, str(caught.exception))


if __name__ == "__main__":
    unittest.main()
