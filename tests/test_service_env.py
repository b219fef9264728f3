"""service_env: the mini tau-bench's estimators, tools, grading, failure modes and demos; run_agent(transcript=).

Where the expected values come from: pass^k and pass@k are worked out by hand from binomial
coefficients in the comments; the tool verdicts and dates from the calendar (2026-10-15 is a
Thursday, so the 17th, 18th, 24th and 25th are weekend days); the modes of each scripted
trajectory from the mistake the script makes on purpose. The demos' figures are recounted from
the trials with this file's own grader (HAND_EXPECTED, written from the task stories, not from
Task.changes) and its own comb-based formulas, never from the module's estimators.
A disagreement with what the module's docstrings and demo text said was an expectedFailure marked "# BUG:"
until the module was fixed; those tests now pass and say "Was a bug (fixed)".
"""
import dataclasses
import functools
import math
import random
import re
import sys
import unittest
from fractions import Fraction
from math import comb
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # for script_runs, however the tests are started

import lab_results  # noqa: E402
import service_env  # noqa: E402
import tool_catalog  # noqa: E402
import tool_core  # noqa: E402
import script_runs  # noqa: E402
from exercise_tables import ESTIMATES  # noqa: E402
from service_env import TASKS, Knobs, ServiceDB, Task  # noqa: E402

SCRIPT = "06_evaluation.py"
script_runs.prefetch(SCRIPT)  # the table's runs of script 06 start now, in the background
TASK = {t.id: t for t in TASKS}
KNOB_NAMES = [f.name for f in dataclasses.fields(Knobs)]
ZERO = Knobs(**{name: 0.0 for name in KNOB_NAMES})


def only(name: str, value: float = 1.0) -> Knobs:
    """The knobs with one failure rate set and the others 0."""
    return dataclasses.replace(ZERO, **{name: value})


def call(tool: str, **arguments) -> str:
    return tool_core.call_text(tool, arguments)


# --- This file's own grader and estimators ---

# The final state each task asks for, read off its story (not off Task.changes): appointment fields
# that change, and the credits as (customer, amount). T5's right answer is a refusal ("cannot").
HAND_EXPECTED = {
    "T1": ({"A-1007": {"date": "2026-10-21"}}, []),  # Gil Varga's A-1007 to Wednesday the 21st
    "T2": ({"A-2001": {"status": "cancelled"}}, []),  # Ana Reyes's appointment on the 20th is A-2001
    "T3": ({}, [("C-118", 40)]),  # Maren Holt has an outage logged; $40 is within $50
    "T4": ({"A-1440": {"date": "2026-10-26"}}, []),  # Saturday refused; the user then picks Monday the 26th
    "T5": ({}, []),  # Tomas Lind has no outage logged: no credit
    "T6": ({}, [("C-131", 50)]),  # $80 asked, $50 is the limit and the user accepts it
    "T7": ({"A-1007": {"date": "2026-10-28"}}, []),  # the user, when asked, picks Wednesday the 28th
    "T8": ({"A-1501": {"date": "2026-10-23"}}, []),  # the meter inspection, not the solar survey
}


def my_state_ok(trial) -> bool:
    """Say whether a trial's final state is the one HAND_EXPECTED describes."""
    changes, credits = HAND_EXPECTED[trial.task.id]
    want = {aid: dict(row) | changes.get(aid, {}) for aid, row in service_env.APPOINTMENTS.items()}
    got_credits = sorted((c["customer_id"], c["amount"]) for c in trial.final["credits"])
    return trial.final["appointments"] == want and got_credits == sorted(credits)


def my_success(trial) -> bool:
    """Grade a trial by its final state (and T5's refusal)."""
    if trial.task.id == "T5" and not any(re.search(r"\b(cannot|can't)\b", r.lower()) for r in replies(trial)):
        return False
    return my_state_ok(trial)


def replies(trial) -> list[str]:
    """The agent's words to the user: assistant messages without a tool call."""
    return [m["content"] for m in trial.transcript.messages if m["role"] == "assistant" and "<tool_call>" not in m["content"]]


def my_said_done(trial) -> bool:
    return any("done" in r.lower() for r in replies(trial))


def my_hat(n: int, c: int, k: int) -> Fraction:
    """pass^k = C(c, k) / C(n, k): all k trials drawn without replacement succeed."""
    return Fraction(comb(c, k), comb(n, k))


def my_at(n: int, c: int, k: int) -> Fraction:
    """pass@k = 1 - C(n - c, k) / C(n, k): not all k drawn trials fail."""
    return 1 - Fraction(comb(n - c, k), comb(n, k))


def my_mean(runs: dict, k: int, estimator) -> Fraction:
    values = [estimator(len(ts), sum(my_success(t) for t in ts), k) for ts in runs.values()]
    return sum(values, Fraction(0)) / len(values)


@functools.cache
def runs8() -> dict:
    """Fresh trials, run by this file (not the module's cache): 8 tasks x 8, seed 0, the default knobs."""
    return service_env.run_all(Knobs(), 8, 0)


def trial_key(trial) -> tuple:
    """Everything that must repeat with the seed (not the calls' timings)."""
    calls = [(c.id, c.name, c.arguments, c.ok, c.error_kind, c.step) for c in trial.transcript.calls]
    return (trial.task.id, trial.success, trial.said_done, trial.modes, trial.reason, trial.final,
            trial.transcript.messages, trial.transcript.stop_reason, trial.transcript.steps, calls)


def scripted_trial(task_id: str, replies_or_fn, knobs: Knobs = ZERO):
    """Run a task's conversation with a ScriptedLM in the agent's place; graded by run_trial as usual."""
    with mock.patch.object(service_env, "ToyAgent", lambda task, knobs, rng: tool_core.ScriptedLM(replies_or_fn)):
        return service_env.run_trial(TASK[task_id], knobs, seed=0, trial=0)


# --- 1. pass^k and pass@k -------------------------------------------------------------------------

# ESTIMATES: (estimator, n, c, k, expected), each from binomial coefficients by hand in tests/exercise_tables.py,
# where `scripts/exercises.py --check 5` reads the same rows.
ESTIMATORS = {"pass^k": service_env.pass_hat_k, "pass@k": service_env.pass_at_k}

BAD_ESTIMATES = [  # (n, c, k, words the message must contain: the parameter, the bound, the value given)
    (8, 4, 0, "k must be from 1 to n = 8"), (8, 4, -1, "got -1"), (8, 4, 9, "k must be from 1 to n = 8"),
    (8, 9, 1, "c (successes) must be from 0 to n = 8, got 9"), (8, -1, 1, "c (successes) must be from 0 to n = 8, got -1"),
    (0, 0, 1, "n (trials) must be at least 1, got 0"), (0, 0, 0, "n (trials) must be at least 1"),
    (2.0, 1, 1, "n must be a whole number, got 2.0"), (8, "3", 1, "c must be a whole number, got '3'"),
    (8, 4, True, "k must be a whole number, got True"),  # bool is an int subclass: refused on purpose
    (True, 1, 1, "n must be a whole number, got True"), (8, 4, 2.0, "k must be a whole number, got 2.0"),
    (8, Fraction(4), 1, "c must be a whole number"), (8, None, 1, "c must be a whole number, got None"),
]


class Estimators(unittest.TestCase):
    def test_exact_values(self):
        for name, n, c, k, expected in ESTIMATES:
            with self.subTest(estimator=name, n=n, c=c, k=k):
                got = ESTIMATORS[name](n, c, k)
                self.assertIsInstance(got, Fraction)  # exact, not a float
                self.assertEqual(got, expected)
                self.assertEqual(my_hat(n, c, k) if name == "pass^k" else my_at(n, c, k), expected)  # the test's own

    def test_pass_at_1_is_pass_hat_1_is_c_over_n(self):
        for n in range(1, 7):
            for c in range(n + 1):
                with self.subTest(n=n, c=c):
                    self.assertEqual(service_env.pass_at_k(n, c, 1), Fraction(c, n))
                    self.assertEqual(service_env.pass_hat_k(n, c, 1), Fraction(c, n))

    def test_bad_input_is_a_value_error_with_a_clear_message(self):
        for n, c, k, words in BAD_ESTIMATES:
            for name, estimator in ESTIMATORS.items():
                with self.subTest(estimator=name, n=n, c=c, k=k):
                    with self.assertRaisesRegex(ValueError, re.escape(words)):
                        estimator(n, c, k)


# --- 2. The tools enforce integrity, never policy ----------------------------------------------

TOOL_CALLS = [  # (tool, arguments, ok, words in the error, the change to the database when ok)
    # 2026-10-24 is a Saturday and 2026-10-18 a Sunday: the policy forbids them, the tool does not
    ("reschedule_appointment", {"appointment_id": "A-1440", "new_date": "2026-10-24"}, True, "",
     {"appointments": {"A-1440": {"date": "2026-10-24"}}}),
    ("reschedule_appointment", {"appointment_id": "A-1007", "new_date": "2026-10-18"}, True, "",
     {"appointments": {"A-1007": {"date": "2026-10-18"}}}),
    ("reschedule_appointment", {"appointment_id": "A-1007", "new_date": "2026-10-16"}, True, "",  # the day after today
     {"appointments": {"A-1007": {"date": "2026-10-16"}}}),
    ("reschedule_appointment", {"appointment_id": "A-1007", "new_date": "2026-10-15"}, False, "after today (2026-10-15)", None),
    ("reschedule_appointment", {"appointment_id": "A-1007", "new_date": "2026-10-01"}, False, "after today", None),
    ("reschedule_appointment", {"appointment_id": "A-1007", "new_date": "October 21"}, False, "YYYY-MM-DD", None),
    ("reschedule_appointment", {"appointment_id": "A-1007", "new_date": "21/10/2026"}, False, "YYYY-MM-DD", None),
    ("reschedule_appointment", {"appointment_id": "A-1007", "new_date": "2026-02-30"}, False, "not a calendar date", None),
    ("reschedule_appointment", {"appointment_id": "A-9999", "new_date": "2026-10-21"}, False, "no appointment 'A-9999'", None),
    ("cancel_appointment", {"appointment_id": "A-2001"}, True, "",  # unconfirmed: the policy's rule, not the tool's
     {"appointments": {"A-2001": {"status": "cancelled"}}}),
    ("cancel_appointment", {"appointment_id": "A-9999"}, False, "no appointment 'A-9999'", None),
    # $80 is over the $50 limit and C-305 has no outage logged: policy again, so both go through
    ("issue_credit", {"customer_id": "C-131", "amount": 80, "reason": "outage"}, True, "", {"credits": [("C-131", 80)]}),
    ("issue_credit", {"customer_id": "C-305", "amount": 30, "reason": "flicker"}, True, "", {"credits": [("C-305", 30)]}),
    ("issue_credit", {"customer_id": "C-999", "amount": 10, "reason": "outage"}, False, "no customer 'C-999'", None),
    ("issue_credit", {"customer_id": "C-118", "amount": 0, "reason": "outage"}, False, "more than 0", None),
    # found by fuzzing: these were stored, and a 400-digit amount made every later get_account an OverflowError
    ("issue_credit", {"customer_id": "C-118", "amount": float("nan"), "reason": "x"}, False, "at most 10,000 dollars", None),
    ("issue_credit", {"customer_id": "C-118", "amount": float("inf"), "reason": "x"}, False, "at most 10,000 dollars", None),
    ("issue_credit", {"customer_id": "C-118", "amount": 10 ** 400, "reason": "x"}, False, "at most 10,000 dollars", None),
    ("reschedule_appointment", {"appointment_id": "A-1007", "new_date": "\uff12\uff10\uff12\uff16-11-02"}, False,
     "YYYY-MM-DD in ASCII digits", None),
    ("get_account", {"customer_id": "C-999"}, False, "no customer 'C-999'", None),
    ("list_appointments", {"customer_id": "C-999"}, False, "no customer 'C-999'", None),
    ("find_customer", {"name": "Nobody Here"}, False, "no customer named 'Nobody Here'", None),
    ("find_customer", {"name": " gil VARGA "}, True, "", {}),
]


class Tools(unittest.TestCase):
    def test_integrity_not_policy(self):
        start = ServiceDB().snapshot()
        for name, arguments, ok, words, change in TOOL_CALLS:
            with self.subTest(tool=name, arguments=arguments):
                db = ServiceDB()
                result = service_env.service_registry(db).call(name, arguments)
                self.assertEqual(result.ok, ok, result.message)
                if ok:
                    want = ServiceDB().snapshot()
                    for aid, fields in change.get("appointments", {}).items():
                        want["appointments"][aid].update(fields)
                    got = db.snapshot()
                    self.assertEqual(sorted((c["customer_id"], c["amount"]) for c in got["credits"]),
                                     change.get("credits", []))
                    self.assertEqual(got | {"credits": []}, want)
                else:
                    self.assertEqual(result.error_kind, "execution_error")
                    self.assertIn(words, result.message)
                    self.assertEqual(db.snapshot(), start)  # a refused write changes nothing

    def test_reads_show_what_the_agent_needs(self):
        db = ServiceDB()
        registry = service_env.service_registry(db)
        self.assertEqual(registry.call("find_customer", {"name": "Gil Varga"}).content, {"customer_id": "C-107"})
        registry.call("issue_credit", {"customer_id": "C-118", "amount": 15, "reason": "outage"})
        registry.call("issue_credit", {"customer_id": "C-118", "amount": 20.5, "reason": "again"})
        self.assertEqual(registry.call("get_account", {"customer_id": "C-118"}).content,
                         {"customer_id": "C-118", "name": "Maren Holt", "outage_logged": True, "credits": 35.5})
        listed = registry.call("list_appointments", {"customer_id": "C-150"}).content
        self.assertEqual([(a["appointment_id"], a["date"], a["kind"]) for a in listed],
                         [("A-1501", "2026-10-21", "meter inspection"), ("A-1502", "2026-10-27", "solar survey")])

    def test_a_cancelled_appointment_cannot_be_moved_or_cancelled_again(self):
        db = ServiceDB()
        registry = service_env.service_registry(db)
        self.assertTrue(registry.call("cancel_appointment", {"appointment_id": "A-2001"}).ok)
        for name, arguments, words in (("cancel_appointment", {"appointment_id": "A-2001"}, "already cancelled"),
                                       ("reschedule_appointment", {"appointment_id": "A-2001", "new_date": "2026-10-21"},
                                        "is cancelled and cannot be moved")):
            with self.subTest(tool=name):
                result = registry.call(name, arguments)
                self.assertFalse(result.ok)
                self.assertIn(words, result.message)
        self.assertEqual(db.appointments["A-2001"]["date"], "2026-10-20")

    def test_each_registry_acts_on_the_database_it_was_handed(self):
        first, second = ServiceDB(), ServiceDB()
        one, two = service_env.service_registry(first), service_env.service_registry(second)
        self.assertTrue(two.call("issue_credit", {"customer_id": "C-118", "amount": 5, "reason": "x"}).ok)
        self.assertEqual((first.credits, [c["amount"] for c in second.credits]), ([], [5]))
        self.assertEqual(one.call("get_account", {"customer_id": "C-118"}).content["credits"], 0)
        for tool in one:  # the database is the harness's argument: the model's schema never shows it
            with self.subTest(tool=tool.name):
                self.assertNotIn("db", tool.parameters["properties"])
                self.assertNotIn("db", tool.parameters["required"])

    def test_no_schema_outlives_the_function_it_was_read_from(self):
        # an outside check: a process-wide cache keyed by function name gave a new find_customer the old schema
        service_env.service_registry(ServiceDB())
        registries = {name: kind for name, kind in vars(service_env).items()
                      if isinstance(kind, type) and issubclass(kind, tool_core.ToolRegistry)}
        self.assertIn("ToolRegistry", registries)
        for name, kind in registries.items():  # every registry the module builds its tools with
            with self.subTest(registry=name):
                registry = kind()

                @registry.tool(name="find_customer", description="Find a customer by phone number.")
                def lookup(phone: str) -> dict:
                    """Look a customer up."""
                    return {"customer_id": "C-107"}

                tool = registry.get("find_customer")
                self.assertEqual((tool.description, sorted(tool.parameters["properties"])),
                                 ("Find a customer by phone number.", ["phone"]))
                self.assertEqual(registry.call("find_customer", {"phone": "555"}).content, {"customer_id": "C-107"})
                self.assertFalse(registry.call("find_customer", {"name": "Gil Varga"}).ok)

    def test_databases_do_not_share_rows(self):
        first, second = ServiceDB(), ServiceDB()
        service_env.service_registry(first).call("cancel_appointment", {"appointment_id": "A-1007"})
        self.assertEqual(second.appointments["A-1007"]["status"], "scheduled")
        self.assertEqual(service_env.APPOINTMENTS["A-1007"]["status"], "scheduled")
        snap = first.snapshot()
        snap["appointments"]["A-1440"]["date"] = "2030-01-01"
        self.assertEqual(first.appointments["A-1440"]["date"], "2026-10-19")  # a snapshot is a copy

    def test_weekend_dates(self):
        # 2026-10-15 is a Thursday (1 Jan 2026 was a Thursday and 287 days = 41 weeks later)
        for date, weekend in (("2026-10-15", False), ("2026-10-16", False), ("2026-10-17", True), ("2026-10-18", True),
                              ("2026-10-19", False), ("2026-10-24", True), ("2026-10-25", True), ("2026-10-26", False)):
            with self.subTest(date=date):
                self.assertEqual(service_env.is_weekend(date), weekend)


# --- 3. Tasks: the expected state, and a task that names what does not exist -----------------------

class Tasks(unittest.TestCase):
    def test_expected_states_are_the_stories(self):
        for task in TASKS:
            with self.subTest(task=task.id):
                changes, credits = HAND_EXPECTED[task.id]
                want = {aid: dict(row) | changes.get(aid, {}) for aid, row in service_env.APPOINTMENTS.items()}
                expected = task.expected_state()
                self.assertEqual(expected["appointments"], want)
                self.assertEqual(expected["credits"], sorted(credits))
                self.assertEqual(expected["customers"], service_env.CUSTOMERS)

    def test_unknown_ids_in_a_task_are_a_value_error(self):
        cases = [({"appointments": {"A-0000": {"date": "2026-10-21"}}}, "unknown appointment 'A-0000'"),
                 ({"credits": [{"customer_id": "C-000", "amount": 10, "reason": "outage"}]}, "unknown customer 'C-000'")]
        for changes, words in cases:
            with self.subTest(changes=changes):
                task = Task("TX", "broken", "Hello.", {"action": "reschedule", "name": "X", "date": None}, changes)
                with self.assertRaisesRegex(ValueError, "task TX: .*" + re.escape(words)):
                    task.expected_state()


# --- 4. The simulated user --------------------------------------------------------------------------

USER_REPLIES = [  # (task, what the agent said, what the user answers; None ends the conversation)
    ("T1", "Done! Your request has been completed.", None),
    ("T5", "I'm sorry, I cannot issue a credit.", None),
    ("T5", "Sorry, I can't do that.", None),
    ("T1", "", "Hello? Did that work?"),  # a turn that ended without a word
    ("T1", "   ", "Hello? Did that work?"),
    ("T1", "I am looking into it.", None),  # neither finishes nor asks: the user gives up
    ("T2", "Please confirm: shall I cancel appointment A-2001 on 2026-10-20?", "Yes, please cancel it."),
    ("T2", "I will cancel it now.", None),  # not asked: no confirmation
    ("T2", "Which day would suit you?", "As I said: Ana Reyes here. Please cancel my appointment on October 20."),
    ("T1", "Shall I cancel it?", "As I said: " + TASK["T1"].opening),  # nothing to confirm in T1's story
    ("T4", "That is a weekend. Which weekday would you like instead?", "Then Monday, October 26, please."),
    ("T6", "I can credit at most $50. Shall I issue a $50 credit?", "Yes, $50 then."),
    ("T7", "Which day next week would suit you?", "Wednesday the 28th works: 2026-10-28."),
    ("T7", "What is your account number?", "As I said: " + TASK["T7"].opening),
]


class User(unittest.TestCase):
    def test_replies(self):
        for task_id, said, expected in USER_REPLIES:
            with self.subTest(task=task_id, said=said):
                self.assertEqual(service_env.SimulatedUser(TASK[task_id]).reply(said), expected)

    def test_read_date(self):
        for text, expected in (("Then Monday, October 26, please.", "2026-10-26"), ("works: 2026-10-28.", "2026-10-28"),
                               ("on october 3", "2026-10-03"), ("sometime next week", None)):
            with self.subTest(text=text):
                self.assertEqual(service_env.read_date(text), expected)


# --- 5. Each knob at 1.0 makes its failure, and the trajectory names it ----------------------------

RESCHEDULES = {"T1", "T4", "T7", "T8"}
KNOB_FAILURES = [  # (knob, the tasks where it applies, the modes its trajectory shows, worked out by hand)
    # "October 21" fails the date format twice in a row: run_agent stops; the agent then says Done
    ("retry_failing", RESCHEDULES, ["repeated failing call", "task left undone", "false success claim"]),
    # a cancel where a reschedule was asked, and nobody asked the customer to confirm it
    ("cancel_instead", RESCHEDULES, ["wrong action", "task left undone", "policy violation", "false success claim"]),
    ("ignore_weekday", {"T4"}, ["policy violation", "false success claim"]),  # Saturday the 24th booked
    ("bad_credit", {"T5", "T6"}, ["policy violation", "false success claim"]),  # $30 without an outage; $80 > $50
    ("guess_date", {"T7"}, ["guessed instead of asking", "false success claim"]),  # Monday the 19th, unasked
]


class KnobsAtOne(unittest.TestCase):
    def test_all_knobs_at_zero_every_task_passes(self):
        for task in TASKS:
            with self.subTest(task=task.id):
                trial = service_env.run_trial(task, ZERO, seed=0, trial=0)
                self.assertTrue(trial.success, trial.reason)
                self.assertTrue(my_success(trial))
                self.assertEqual(trial.modes, [])
                self.assertEqual(trial.said_done, task.id != "T5")  # T5 ends with a refusal, not a "Done"

    def test_each_knob_makes_its_failure_where_it_applies(self):
        for knob, applies, modes in KNOB_FAILURES:
            for task in TASKS:
                with self.subTest(knob=knob, task=task.id):
                    trial = service_env.run_trial(task, only(knob), seed=0, trial=0)
                    if task.id in applies:
                        self.assertFalse(trial.success)
                        self.assertFalse(my_success(trial))
                        self.assertTrue(trial.said_done)
                        self.assertEqual(trial.modes, modes)
                    else:
                        self.assertTrue(trial.success, trial.reason)
                        self.assertEqual(trial.modes, [])

    def test_wrong_read_on_every_task(self):
        # a credit task lists the appointments first (they cannot say whether an outage is logged), then reads the
        # account and goes on as usual: one wasted call, the trial graded as before; an appointment task has no
        # wrong read tool to pick, so the knob changes nothing there
        credits = {"T3": ["issue_credit"], "T5": [], "T6": ["issue_credit"]}  # T5 refuses, T6 after the $50 offer
        for task in TASKS:
            with self.subTest(task=task.id):
                trial = service_env.run_trial(task, only("wrong_read"), seed=0, trial=0)
                plain = service_env.run_trial(task, ZERO, seed=0, trial=0)
                self.assertTrue(trial.success, trial.reason)
                names = [c.name for c in trial.transcript.calls]
                if task.id in credits:
                    self.assertEqual(trial.modes, ["wrong tool selection"])
                    self.assertEqual(names, ["find_customer", "list_appointments", "get_account", *credits[task.id]])
                else:
                    self.assertEqual(trial.modes, [])
                    self.assertEqual(names, [c.name for c in plain.transcript.calls])

    def test_the_late_knob_leaves_the_other_draws_alone(self):
        # the six up-front knobs are the trial's first six random() draws, whatever wrong_read is
        for task in TASKS:
            for n in range(4):
                with self.subTest(task=task.id, trial=n):
                    rng = random.Random(f"0:{task.id}:{n}")
                    expected = {name: rng.random() < getattr(Knobs(), name) for name in KNOB_NAMES[:6]}
                    agent = service_env.ToyAgent(task, Knobs(), random.Random(f"0:{task.id}:{n}"))
                    self.assertEqual(agent.fires, expected)
                    same = service_env.ToyAgent(task, dataclasses.replace(Knobs(), wrong_read=0.0),
                                                random.Random(f"0:{task.id}:{n}"))
                    self.assertEqual(same.fires, expected)

    def test_invent_id_on_every_task(self):
        for task in TASKS:
            with self.subTest(task=task.id):
                trial = service_env.run_trial(task, only("invent_id"), seed=0, trial=0)
                self.assertIn("invented argument", trial.modes)
                first = trial.transcript.calls[0]
                ids = [v for k, v in first.arguments.items() if k.endswith("_id")]
                self.assertTrue(ids and all(v not in task.opening for v in ids), first)
                made_up = ids[0]
                if made_up not in service_env.CUSTOMERS and made_up not in service_env.APPOINTMENTS:
                    self.assertFalse(first.ok)  # the id does not exist: the tool says so
                    self.assertFalse(trial.success)

    def test_knobs_outside_zero_to_one_are_a_value_error(self):
        rng = random.Random(0)
        for knob, value in (("guess_date", 1.5), ("invent_id", -0.1), ("bad_credit", float("nan")), ("wrong_read", 2.0)):
            with self.subTest(knob=knob, value=value):
                with self.assertRaisesRegex(ValueError, f"knob {knob} must be from 0 to 1"):
                    service_env.ToyAgent(TASK["T1"], only(knob, value), rng)
                with self.assertRaisesRegex(ValueError, f"knob {knob}"):
                    service_env.run_trial(TASK["T1"], only(knob, value), seed=0, trial=0)
        with self.assertRaisesRegex(ValueError, r"knob \w+ must be from 0 to 1, got 1\.\d+"):
            service_env.run_trial(TASK["T7"], Knobs().scaled(3), seed=0, trial=0)  # 0.35 x 3 = 1.05, 0.5 x 3 = 1.5


# --- 6. Classification reads the trajectory: scripted agents, no knobs ------------------------------

FIND = {"T1": call("find_customer", name="Gil Varga"), "T2": call("find_customer", name="Ana Reyes"),
        "T3": call("find_customer", name="Maren Holt"), "T4": call("find_customer", name="Ivo Sand"),
        "T5": call("find_customer", name="Tomas Lind"), "T6": call("find_customer", name="Petra Ostby"),
        "T7": call("find_customer", name="Gil Varga"), "T8": call("find_customer", name="Elin Park")}
DONE = "Done! Your request has been completed."
SCRIPTED = [  # (what it shows, task, replies, success, said_done, modes)
    ("asks for the day first", "T7",
     [FIND["T7"], call("list_appointments", customer_id="C-107"), "Which day next week would suit you?",
      call("reschedule_appointment", appointment_id="A-1007", new_date="2026-10-28"), DONE], True, True, []),
    ("books next Monday unasked", "T7",
     [FIND["T7"], call("list_appointments", customer_id="C-107"),
      call("reschedule_appointment", appointment_id="A-1007", new_date="2026-10-19"), DONE],
     False, True, ["guessed instead of asking", "false success claim"]),
    ("an id never shown, that happens to be right", "T3",
     [call("issue_credit", customer_id="C-118", amount=40, reason="outage"), DONE], True, True, ["invented argument"]),
    ("an id never shown, that does not exist", "T1",
     [call("reschedule_appointment", appointment_id="A-1003", new_date="2026-10-21"), DONE],
     False, True, ["invented argument", "task left undone", "false success claim"]),
    ("the same failing call twice", "T8",
     [FIND["T8"], call("list_appointments", customer_id="C-150"),
      call("reschedule_appointment", appointment_id="A-1501", new_date="Oct 23"),
      call("reschedule_appointment", appointment_id="A-1501", new_date="Oct 23"), DONE],
     False, True, ["repeated failing call", "task left undone", "false success claim"]),
    ("a failing call corrected", "T8",
     [FIND["T8"], call("list_appointments", customer_id="C-150"),
      call("reschedule_appointment", appointment_id="A-1501", new_date="Oct 23"),
      call("reschedule_appointment", appointment_id="A-1501", new_date="2026-10-23"), DONE], True, True, []),
    ("cancels what should move", "T1", [FIND["T1"], call("cancel_appointment", appointment_id="A-1007"), DONE],
     False, True, ["wrong action", "task left undone", "policy violation", "false success claim"]),
    ("books the Saturday", "T4",
     [FIND["T4"], call("list_appointments", customer_id="C-144"),
      call("reschedule_appointment", appointment_id="A-1440", new_date="2026-10-24"), DONE],
     False, True, ["policy violation", "false success claim"]),
    ("offers a weekday first", "T4",
     [FIND["T4"], call("list_appointments", customer_id="C-144"), "That is a Saturday. Which weekday would you like instead?",
      call("reschedule_appointment", appointment_id="A-1440", new_date="2026-10-26"), DONE], True, True, []),
    ("credits $80", "T6", [FIND["T6"], call("issue_credit", customer_id="C-131", amount=80, reason="outage"), DONE],
     False, True, ["policy violation", "false success claim"]),
    ("credits exactly $50", "T6",  # at the limit is allowed: "at most $50"
     [FIND["T6"], call("issue_credit", customer_id="C-131", amount=50, reason="outage"), DONE], True, True, []),
    ("credits without an outage", "T5",
     [FIND["T5"], call("issue_credit", customer_id="C-305", amount=30, reason="outage"), DONE],
     False, True, ["policy violation", "false success claim"]),
    ("refuses", "T5", [FIND["T5"], call("get_account", customer_id="C-305"), "I'm sorry, I cannot issue a credit."],
     True, False, []),
    ("cancels without confirming, the right state", "T2",
     [FIND["T2"], call("list_appointments", customer_id="C-212"), call("cancel_appointment", appointment_id="A-2001"), DONE],
     True, True, ["policy violation"]),
    ("cancels after confirming", "T2",
     [FIND["T2"], call("list_appointments", customer_id="C-212"),
      "Please confirm: shall I cancel appointment A-2001 on 2026-10-20?",
      call("cancel_appointment", appointment_id="A-2001"), DONE], True, True, []),
    # the state-based grade catches a "Done" that changed the wrong thing
    ("credits the wrong customer", "T3",  # C-107 was shown by find_customer, has an outage, $40 <= $50
     [FIND["T1"], call("issue_credit", customer_id="C-107", amount=40, reason="outage"), DONE],
     False, True, ["false success claim"]),
    ("moves the wrong appointment", "T8",  # A-1502 is the solar survey, shown by list_appointments
     [FIND["T8"], call("list_appointments", customer_id="C-150"),
      call("reschedule_appointment", appointment_id="A-1502", new_date="2026-10-23"), DONE],
     False, True, ["false success claim"]),
    ("a call the parser cannot read", "T1", ['<tool_call>{"name": "find_customer", "arguments": {"name": "Gil"</tool_call>', DONE],
     False, True, ["malformed call", "task left undone", "false success claim"]),
    ("a tool that does not exist", "T1", [call("lookup_customer", name="Gil Varga"), DONE],
     False, True, ["unknown tool", "task left undone", "false success claim"]),
    # a read tool that cannot answer the task: appointments say nothing about an outage or a credit
    ("lists the appointments for a credit, then reads the account", "T3",
     [FIND["T3"], call("list_appointments", customer_id="C-118"), call("get_account", customer_id="C-118"),
      call("issue_credit", customer_id="C-118", amount=40, reason="outage"), DONE], True, True, ["wrong tool selection"]),
    ("lists the appointments for a credit, and credits without the account", "T5",
     [FIND["T5"], call("list_appointments", customer_id="C-305"),
      call("issue_credit", customer_id="C-305", amount=30, reason="outage"), DONE],
     False, True, ["wrong tool selection", "policy violation", "false success claim"]),
    ("a wrong read that failed is still a wrong read", "T6",  # C-131 has no appointments: [] is a success anyway,
     [FIND["T6"], call("list_appointments", customer_id="C-13"), DONE],  # so use an id cut short: the call fails
     False, True, ["wrong tool selection", "invented argument", "task left undone", "false success claim"]),
    ("reads the account before moving an appointment", "T8",  # every read can help an appointment task
     [FIND["T8"], call("get_account", customer_id="C-150"), call("list_appointments", customer_id="C-150"),
      call("reschedule_appointment", appointment_id="A-1501", new_date="2026-10-23"), DONE], True, True, []),
]


class ScriptedClassification(unittest.TestCase):
    def test_each_mistake_is_named_from_the_trajectory(self):
        for shows, task_id, script_replies, success, said_done, modes in SCRIPTED:
            with self.subTest(shows, task=task_id):
                trial = scripted_trial(task_id, script_replies)
                self.assertEqual(trial.success, success, trial.reason)
                self.assertEqual(my_success(trial), success)
                self.assertEqual(trial.said_done, said_done)
                self.assertEqual(trial.modes, modes)
                # classify itself, called on the trajectory alone, says the same
                self.assertEqual(service_env.classify(TASK[task_id], trial.transcript, trial.final), modes)

    def test_a_wrong_done_has_a_reason(self):
        wrong = next(script_replies for shows, _, script_replies, *_ in SCRIPTED if shows == "moves the wrong appointment")
        trial = scripted_trial("T8", wrong)
        self.assertEqual(trial.reason, "A-1501: {'date': '2026-10-21'} where {'date': '2026-10-23'} was expected; "
                                       "A-1502: {'date': '2026-10-23'} where {'date': '2026-10-27'} was expected")

    def test_an_id_that_is_part_of_a_shown_id_is_invented(self):
        # Was a bug (fixed): the invented-id check (now tool_core.invented_ids) checked `v not in shown` as a substring of all the text shown so far, so "C-11"
        # (never shown; a truncated "C-118") counts as shown, and so would "" or "C-1".
        trial = scripted_trial("T3", [FIND["T3"], call("get_account", customer_id="C-11"), DONE])
        self.assertIn("invented argument", trial.modes)

    def test_a_non_string_id_is_graded_not_a_crash(self):
        # Was a bug (fixed): the registry refuses {"customer_id": 118} (invalid_arguments, as it should), but then
        # the check evaluated `118 not in shown` and raises TypeError, so a model's mistake crashes run_trial.
        trial = scripted_trial("T3", [FIND["T3"], call("get_account", customer_id=118), DONE])
        self.assertFalse(trial.success)

    def test_non_determinism_is_read_off_a_tasks_trials(self):
        # (successes of one task's trials, whether they disagree); only .success is read
        for outcomes, expected in (([], False), ([True], False), ([False], False), ([True] * 8, False),
                                   ([False] * 8, False), ([True, False], True), ([False, True, True], True)):
            with self.subTest(outcomes=outcomes):
                trials = [mock.Mock(success=s) for s in outcomes]
                self.assertIs(service_env.non_deterministic(trials), expected)
        # the same scripted agent on every trial is deterministic: its two trials agree
        twice = [scripted_trial("T1", [FIND["T1"], DONE]) for _ in range(2)]
        self.assertEqual([t.success for t in twice], [False, False])
        self.assertFalse(service_env.non_deterministic(twice))


# --- 7. Bad input to a trial: an agent that never stops, a tool that raises ------------------------

class TrialRobustness(unittest.TestCase):
    def test_an_agent_that_never_ends_its_turn(self):
        for label, reply in (("a successful call", FIND["T1"]),
                             ("a failing call", call("get_account", customer_id="C-999"))):
            with self.subTest(label):
                trial = scripted_trial("T1", lambda messages: reply)
                self.assertFalse(trial.success)
                self.assertFalse(trial.said_done)
                self.assertEqual(trial.reason, f"the conversation hit the limit of {service_env.MAX_USER_TURNS} user turns")
                users = [m for m in trial.transcript.messages if m["role"] == "user"]
                self.assertEqual(len(users), service_env.MAX_USER_TURNS)  # the opening, then "Hello? Did that work?"
                self.assertEqual(users[1]["content"], "Hello? Did that work?")

    def test_a_tool_that_raises_becomes_a_result(self):
        replies_ = [FIND["T1"], call("reschedule_appointment", appointment_id="A-1007", new_date="October 21"),
                    call("reschedule_appointment", appointment_id="A-1007", new_date="2026-10-21"), DONE]
        trial = scripted_trial("T1", replies_)
        self.assertEqual([(c.name, c.ok, c.error_kind) for c in trial.transcript.calls],
                         [("find_customer", True, None), ("reschedule_appointment", False, "execution_error"),
                          ("reschedule_appointment", True, None)])
        self.assertIn("YYYY-MM-DD", trial.transcript.messages[5]["content"])  # the result told the agent the format
        self.assertTrue(trial.success)
        self.assertEqual(trial.modes, [])

    def test_a_tool_with_a_bug_does_not_crash_the_trial(self):
        def broken(text):
            raise RuntimeError("the calendar service is down")
        with mock.patch.object(service_env, "_parse_date", broken):
            trial = scripted_trial("T1", [call("reschedule_appointment", appointment_id="A-1007", new_date="2026-10-21"),
                                          "I could not move it, sorry: the calendar is down."])
        self.assertEqual(trial.transcript.calls[0].error_kind, "execution_error")
        self.assertIn("RuntimeError: the calendar service is down", trial.transcript.messages[3]["content"])
        self.assertFalse(trial.success)
        self.assertEqual(trial.modes, ["task left undone"])


# --- 8. run_agent continuing a transcript --------------------------------------------------------

class ContinueTranscript(unittest.TestCase):
    def setUp(self):
        self.registry = service_env.service_registry(ServiceDB())

    def test_a_second_turn_continues_the_first(self):
        lm = tool_core.ScriptedLM([FIND["T1"], "You are C-107.", call("get_account", customer_id="C-107"), "No credits."])
        t = tool_core.run_agent(lm, self.registry, "Who am I?", system="SYSTEM")
        self.assertEqual((t.stop_reason, t.final_answer, t.steps), ("final_answer", "You are C-107.", 2))
        again = tool_core.run_agent(lm, self.registry, "Any credits?", transcript=t, system="ignored")
        self.assertIs(again, t)
        self.assertEqual([m["role"] for m in t.messages],
                         ["system", "user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"])
        self.assertEqual(t.messages[0], {"role": "system", "content": "SYSTEM"})
        self.assertEqual(t.messages[5], {"role": "user", "content": "Any credits?"})
        self.assertEqual([c.id for c in t.calls], ["call_1", "call_2"])
        self.assertEqual(re.findall(r'id="(call_\d+)"', t.messages[3]["content"] + t.messages[7]["content"]),
                         ["call_1", "call_2"])
        self.assertEqual((t.stop_reason, t.final_answer, t.steps), ("final_answer", "No credits.", 4))
        self.assertEqual(lm.prompts[2], t.messages[:6])  # the model saw the whole first turn, then the new message

    def test_max_steps_counts_this_turn_and_the_outcome_resets(self):
        lm = tool_core.ScriptedLM([FIND["T1"], FIND["T1"], "first", FIND["T1"], FIND["T1"], "third"])
        t = tool_core.run_agent(lm, self.registry, "one", max_steps=3)
        self.assertEqual((t.stop_reason, t.final_answer, t.steps), ("final_answer", "first", 3))
        # 3 steps already taken; a limit of 2 still allows 2 more model calls
        tool_core.run_agent(lm, self.registry, "two", max_steps=2, transcript=t)
        self.assertEqual((t.stop_reason, t.final_answer, t.steps), ("max_steps", None, 5))
        tool_core.run_agent(lm, self.registry, "three", max_steps=1, transcript=t)
        self.assertEqual((t.stop_reason, t.final_answer, t.steps), ("final_answer", "third", 6))
        self.assertEqual([c.id for c in t.calls], ["call_1", "call_2", "call_3", "call_4"])
        self.assertEqual([c.step for c in t.calls], [1, 2, 4, 5])

    def test_a_transcript_without_its_system_message_is_a_value_error(self):
        no_system = tool_core.Transcript()
        no_system.add("user", "hello")
        for label, transcript in (("empty", tool_core.Transcript()), ("user first", no_system)):
            with self.subTest(label):
                lm = tool_core.ScriptedLM(["hi"])
                with self.assertRaisesRegex(ValueError, "must start with its system message"):
                    tool_core.run_agent(lm, self.registry, "next", transcript=transcript)
                self.assertEqual(lm.prompts, [])  # refused before the model was asked


# --- 9. Determinism per seed -----------------------------------------------------------------------

class Determinism(unittest.TestCase):
    def test_same_seed_same_trials(self):
        fresh = runs8()
        cached = service_env._runs(0, 8)  # what the demos print from
        for task in TASKS:
            for n in range(8):
                with self.subTest(task=task.id, trial=n):
                    self.assertEqual(trial_key(fresh[task.id][n]), trial_key(cached[task.id][n]))

    def test_another_seed_differs_somewhere(self):
        here = runs8()
        pairs = ((task, n) for task in TASKS for n in range(8))  # lazily: stop at the first difference
        differ = next(((task.id, n) for task, n in pairs
                       if trial_key(service_env.run_trial(task, Knobs(), 1, n)) != trial_key(here[task.id][n])), None)
        self.assertIsNotNone(differ)

    def test_the_demos_16_trial_runs_repeat(self):
        # demo 4 prints from the module's cached runs of 16: spot-check them against fresh trials
        for factor in (1.0, 0.5):
            cached = service_env._runs(0, 16, factor)
            for task in TASKS:
                for n in (0, 15):
                    with self.subTest(factor=factor, task=task.id, trial=n):
                        fresh = service_env.run_trial(task, Knobs().scaled(factor), 0, n)
                        self.assertEqual(trial_key(fresh), trial_key(cached[task.id][n]))


# --- 10. The demos' figures, recounted ------------------------------------------------------------

ROW = re.compile(r"^(T\d)\s{2,}(.+?)\s{2,}(\d+)/(\d+)\s+(\d+)/(\d+)\s+(\d\.\d\d)\s+(\d\.\d\d)\s+(\d\.\d\d)$", re.M)
CHART_LINE = re.compile(r"^(\d+)\s+(#*)\s+(\d\.\d\d)\s+(#*)\s+(\d\.\d\d)$", re.M)


def f2(x) -> str:
    return f"{float(x):.2f}"


def chart_rows(text: str) -> list[tuple[int, int, str, int, str]]:
    return [(int(k), len(a), b, len(c), d) for k, a, b, c, d in CHART_LINE.findall(text)]


@functools.cache
def t5_seed_9() -> list:
    return service_env.run_all(Knobs(), 8, seed=9, tasks=[TASK["T5"]])["T5"]


class DemoTau(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.text = lab_results.demo_tau(0)
        cls.runs = runs8()

    def test_rows(self):
        rows = {m[0]: m for m in ROW.findall(self.text)}
        self.assertEqual(list(rows), [t.id for t in TASKS])
        for task in TASKS:
            with self.subTest(task=task.id):
                ts = self.runs[task.id]
                c, done = sum(my_success(t) for t in ts), sum(my_said_done(t) for t in ts)
                _, title, c_got, n1, d_got, n2, hat1, hat8, at4 = rows[task.id]
                self.assertEqual((title, int(c_got), int(n1), int(d_got), int(n2)), (task.title, c, 8, done, 8))
                self.assertEqual((hat1, hat8, at4), (f2(my_hat(8, c, 1)), f2(my_hat(8, c, 8)), f2(my_at(8, c, 4))))

    def test_state_based_and_done_based_totals(self):
        every = [t for ts in self.runs.values() for t in ts]
        by_state, by_done = sum(map(my_success, every)), sum(map(my_said_done, every))
        m = re.search(r"Success by final database state: (\d+)/(\d+) = ([\d.]+)%; by the agent saying 'Done': "
                      r"(\d+)/(\d+) = ([\d.]+)%\.", self.text)
        self.assertIsNotNone(m, self.text)
        self.assertEqual([int(m[i]) for i in (1, 2, 4, 5)], [by_state, 64, by_done, 64])
        self.assertLessEqual(abs(Fraction(m[3]) - Fraction(100 * by_state, 64)), Fraction(5, 100))
        self.assertLessEqual(abs(Fraction(m[6]) - Fraction(100 * by_done, 64)), Fraction(5, 100))
        self.assertGreater(by_done, by_state)  # the lecture's point: "Done" overstates success

    def test_means(self):
        m = re.search(r"Mean over tasks: pass\^1 = ([\d.]+), pass\^8 = ([\d.]+), pass@4 = ([\d.]+):", self.text)
        self.assertEqual(m.groups(), (f2(my_mean(self.runs, 1, my_hat)), f2(my_mean(self.runs, 8, my_hat)),
                                      f2(my_mean(self.runs, 4, my_at))))

    def test_the_t5_sentence(self):
        self.assert_t5_sentence(self.text, self.runs["T5"])
        # the case the next test needs is there: at seed 9 a T5 trial says Done after a credit that failed
        self.assertTrue(any(my_said_done(t) and not t.final["credits"] for t in t5_seed_9()))

    def test_the_t5_sentence_when_an_invented_id_fails(self):
        # Was a bug (fixed): demo_tau counts T5's "Done"s that "came with a credit the policy forbids" as
        # said_done and not success. At seed 9 one T5 trial invents C-112, the credit fails, and the
        # agent says Done with no credit issued: the sentence counts it anyway ("of its 3, 3" for 2).
        runs = dict(self.runs, T5=t5_seed_9())
        with mock.patch.object(service_env, "_runs", lambda seed, trials, factor=1.0: runs):
            self.assert_t5_sentence(service_env.demo_tau(9), runs["T5"])

    def assert_t5_sentence(self, text, t5):
        dones = sum(my_said_done(t) for t in t5)
        # T5 (Tomas Lind, no outage logged) forbids any credit: count the Done trials that issued one
        with_credit = sum(my_said_done(t) and any(c["customer_id"] == "C-305" for c in t.final["credits"]) for t in t5)
        m = re.search(r"of its (\d+) 'Done's, (\d+) came with a credit the policy forbids", text)
        self.assertEqual((int(m[1]), int(m[2])), (dones, with_credit))

    def test_the_chart(self):
        rows = chart_rows(self.text)
        self.assertEqual([r[0] for r in rows], list(range(1, 9)))
        hats = [my_mean(self.runs, k, my_hat) for k in range(1, 9)]
        ats = [my_mean(self.runs, k, my_at) for k in range(1, 9)]
        for (k, _, hat_text, _, at_text), hat, at in zip(rows, hats, ats):
            with self.subTest(k=k):
                self.assertEqual((hat_text, at_text), (f2(hat), f2(at)))
        self.assertTrue(all(a >= b for a, b in zip(hats, hats[1:])), hats)  # pass^k never rises with k
        self.assertTrue(all(a <= b for a, b in zip(ats, ats[1:])), ats)  # pass@k never falls
        self.assertEqual(hats[0], ats[0])  # both are c/n at k = 1

    def test_the_chart_bars_are_the_values_rounded(self):
        # Was a bug (fixed): chart() draws the pass@k bar as round(at * width // 2), i.e. floor(at * 40) // 2 inside a
        # no-op round, not round(at * 20): at seed 0, k = 1's pass@k 0.83 gets 16 #s (16.6 -> 17), and
        # k = 4's 1 - 1/560 = 0.998 gets 19 #s while k = 5's 1.00 gets 20: two bars for the same printed "1.00".
        # Was a bug too (fixed, issue 31): pass@k was drawn at half pass^k's scale (pass^1 = 0.83 as 33 #s, pass@1 =
        # 0.83 as 17). One scale now: 1.00 is 30 #s in both series.
        for k, hat_bar, hat_text, at_bar, at_text in chart_rows(self.text):
            with self.subTest(k=k):
                hat, at = float(my_mean(self.runs, k, my_hat)), float(my_mean(self.runs, k, my_at))
                self.assertEqual(hat_bar, round(hat * 30))
                self.assertEqual(at_bar, round(at * 30))

    def test_the_same_value_draws_the_same_bar_in_both_series(self):
        # at k = 1 pass^1 and pass@1 are the same number, c/n: on one scale they are the same bar, at any width
        for width in (10, 30, 40, 57):
            with self.subTest(width=width):
                (k, hat_bar, hat_text, at_bar, at_text), *_ = chart_rows(service_env.chart(self.runs, width))
                self.assertEqual((k, hat_text), (1, at_text))
                self.assertEqual(hat_bar, at_bar)
                self.assertEqual(hat_bar, round(float(my_mean(self.runs, 1, my_hat)) * width))

    def test_the_knobs_line(self):
        line = next(line for line in self.text.splitlines() if line.startswith("8 tasks x"))
        knobs = ", ".join(f"{name.replace('_', ' ')} {getattr(Knobs(), name):g}" for name in KNOB_NAMES)
        self.assertEqual(line, f"8 tasks x 8 trials; the toy agent's knobs: {knobs}.")

    def test_each_knob_said_in_words(self):
        # what each knob makes the agent do, one clause per knob, in the order the knobs line names them
        said = " ".join(self.text.split("Each knob is the chance per trial that the agent makes one mistake: ")[1]
                        .split("\ntask ")[0].split())
        self.assertEqual(said, "invent id: skip the lookups and use a made-up id; retry failing: repeat a failing call "
                               "unchanged; cancel instead: cancel when asked to reschedule; ignore weekday: book the "
                               "weekend the customer asked for; bad credit: credit over $50 or without a logged outage; "
                               "guess date: pick a day for 'next week' itself; wrong read: read the appointments where "
                               "the account is needed.")
        self.assertEqual(list(service_env.KNOB_WORDS), KNOB_NAMES)
        self.assertIn("\n(C(n, k), the handout's binomial coefficient, is the number of ways to choose k of n things.)\n",
                      self.text)

    def test_the_policy_the_grader_holds_the_agent_to_comes_first(self):
        lines = self.text.splitlines()
        self.assertIn("policy", lines[0])
        rules = [line.strip() for line in lines[1:6]]
        self.assertEqual([r[:3] for r in rules], ["1. ", "2. ", "3. ", "4. ", "5. "])
        prompt = service_env.run_trial(TASKS[0], Knobs(), seed=0, trial=0).transcript.messages[0]
        self.assertEqual(prompt["role"], "system")
        for rule in rules:  # each rule as the agent's system prompt states it
            with self.subTest(rule=rule[:20]):
                self.assertIn("\n" + rule + "\n", prompt["content"])
        self.assertEqual(lines[6], "")

    def test_the_estimators_defined_with_the_handouts_example(self):
        # C(4, 4) = 1 and C(8, 4) = 8*7*6*5 / 4! = 70: pass^4 = 1/70 = 0.0143; pass@4 = 1 - C(4, 4)/C(8, 4) = 69/70
        self.assertIn("pass^k = C(c, k)/C(n, k)", self.text)
        self.assertIn("pass@k = 1 - C(n-c, k)/C(n, k)", self.text)
        self.assertIn("Lecture 000's worked example, c = 4 of n = 8: pass^4 = C(4, 4)/C(8, 4) = 1/70 = 0.014, while pass@4 = 1 - C(4, 4)/C(8, 4) = "
                      "69/70 = 0.986.", self.text)


class DemoFailureModes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.text = service_env.demo_failure_modes(0)
        cls.runs = runs8()

    def table(self) -> dict[str, list[str]]:
        """Demo 3's table as {mode: [unit, count, how it shows]}."""
        lines = self.text.split("\n\n")[0].splitlines()[3:]
        return {cells[1]: [cells[0], *cells[2:]] for cells in (re.split(r"\s{2,}", line) for line in lines)}

    def test_counts(self):
        every = [t for ts in self.runs.values() for t in ts]
        self.assertTrue(self.text.startswith(f"{len(every)} trials of 8 tasks; "))
        table = self.table()
        self.assertEqual(list(table), [mode for _, mode, _ in service_env.FAILURE_MODES])
        for mode, (unit, count, _) in table.items():
            if unit == "across trials":
                continue
            with self.subTest(mode=mode):
                n = sum(mode in t.modes for t in every)
                self.assertEqual(count, f"{n} trial" + ("" if n == 1 else "s"))
        # a "Done" on a wrong final state, recounted with this file's grader
        done_wrong = sum(my_said_done(t) and not my_state_ok(t) for t in every)
        self.assertEqual(table["false success claim"][1], f"{done_wrong} trials")

    def test_wrong_tool_selection_recounted_by_hand_and_by_the_knob(self):
        # by hand: list_appointments called in a credit task (T3, T5, T6), where only the account can say whether an
        # outage is logged; no other task has a read tool that cannot answer it
        by_hand = sum(any(c.name == "list_appointments" for c in t.transcript.calls)
                      for task in ("T3", "T5", "T6") for t in self.runs[task])
        # by the knob: a trial's random.Random(f"{seed}:{task}:{n}") draws the six up-front knobs first (invent_id
        # is the first), and wrong_read is its 7th random() when the agent reaches the account check: unless
        # invent_id fired (then it issues the credit at once and never gets there)
        by_knob = 0
        for task in ("T3", "T5", "T6"):
            for n in range(8):
                rng = random.Random(f"0:{task}:{n}")
                draws = [rng.random() for _ in range(7)]
                by_knob += draws[0] >= 0.02 and draws[6] < 0.10
        self.assertEqual(by_hand, by_knob)
        self.assertGreater(by_knob, 0)  # the row is not empty at the default seed (p = 0.1 over 24 credit trials)
        self.assertEqual(self.table()["wrong tool selection"][:2], ["single call", f"{by_knob} trials"])

    def test_non_determinism_is_counted_per_task(self):
        # a task is non-deterministic when this file's grader passes some of its 8 trials and fails others
        flaky = [task for task, ts in self.runs.items() if 0 < sum(map(my_success, ts)) < len(ts)]
        self.assertEqual(self.table()["non-determinism"][:2], ["across trials", f"{len(flaky)} of 8 tasks"])
        self.assertIn("per task", self.table()["non-determinism"][2])
        self.assertTrue(flaky)
        # and no trajectory alone shows it: classify never names it
        self.assertFalse(any("non-determinism" in t.modes for ts in self.runs.values() for t in ts))

    def test_the_trajectory_is_a_failing_t7_whose_calls_all_succeeded(self):
        m = re.search(r"A failing trial of (T\d) \(([^)]+)\), every call (.+):\n(.*?)\nfinal state: (.*)\n", self.text, re.S)
        self.assertIsNotNone(m, self.text)
        self.assertEqual(m.group(1, 2, 3), ("T7", "ambiguous date", "valid and successful"))
        printed = m[4]
        matches = [t for t in self.runs["T7"] if t.transcript.render() == printed]
        self.assertTrue(matches)
        trial = matches[0]
        self.assertFalse(my_success(trial))
        self.assertTrue(trial.transcript.calls and all(c.ok for c in trial.transcript.calls))
        self.assertNotIn('error="', printed)
        booked = [c for c in trial.transcript.calls if c.name == "reschedule_appointment"]
        self.assertEqual(len(booked), 1)
        self.assertNotEqual(booked[0].arguments["new_date"], "2026-10-28")
        model_lines = [line for line in printed.splitlines() if line.startswith("[model]")]
        self.assertFalse(any(line.rstrip().endswith("?") for line in model_lines))  # it never asked
        self.assertIn(f"A-1007: {{'date': '{booked[0].arguments['new_date']}'}} where {{'date': '2026-10-28'}}", m[5])


class DemoHalved(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.text = lab_results.demo_halved(0)

    def test_it_says_why_as_before_differs_from_demo_2(self):
        # demo 2's agent on 16 trials a task, not 8; demo 2's pass@1 (its mean pass^1: the two are equal at k = 1)
        demo2 = re.search(r"pass\^1 = (\d\.\d\d)", lab_results.demo_tau(0)).group(1)
        self.assertIn("8 tasks x 16 trials each: twice demo 2's 8", self.text)
        self.assertIn(f"its pass@1 differs from demo 2's ({demo2}) by the 8 extra trials alone", self.text)
        runs = service_env._runs(0, 16)
        first8 = {task: ts[:8] for task, ts in runs.items()}
        self.assertEqual({t: [x.success for x in ts] for t, ts in first8.items()},
                         {t: [x.success for x in ts] for t, ts in service_env._runs(0, 8).items()})

    def test_rows(self):
        rows = {}
        for label in ("as before", "every rate halved"):
            m = re.search(rf"^{label}\s+(\d\.\d\d)\s+(\d\.\d\d)\s+(\d\.\d\d)$", self.text, re.M)
            self.assertIsNotNone(m, label)
            rows[label] = m.groups()
        for label, factor in (("as before", 1.0), ("every rate halved", 0.5)):
            with self.subTest(label):
                runs = service_env._runs(0, 16, factor)  # the trials demo 4 counted; spot-checked in Determinism
                self.assertEqual(rows[label], (f2(my_mean(runs, 1, my_at)), f2(my_mean(runs, 8, my_hat)),
                                               f2(my_mean(runs, 4, my_at))))
        self.assertGreater(float(rows["every rate halved"][1]), float(rows["as before"][1]))
        self.assertGreater(my_mean(service_env._runs(0, 16, 0.5), 8, my_hat), my_mean(service_env._runs(0, 16), 8, my_hat))
        self.assertIn("8 tasks x 16 trials each:", self.text)

    def test_sd_column(self):
        # Var = E[est^2] - (p^8)^2, the expectation over c ~ Binomial(n, p); the estimate C(c,8)/C(n,8) is
        # unbiased, so its mean is p^8 exactly. n = 8: est is 1 only when c = 8, so
        # sd = sqrt(p^8 (1 - p^8)) = sqrt(0.43046721 * 0.56953279) = 0.495.
        p = Fraction(9, 10)
        self.assertIn(f"pass^8 = 0.9^8 = {float(p ** 8):.2f}", self.text)
        for n in (8, 16, 32, 64):
            with self.subTest(n=n):
                weights = [comb(n, c) * p ** c * (1 - p) ** (n - c) for c in range(n + 1)]
                estimates = [my_hat(n, c, 8) for c in range(n + 1)]
                self.assertEqual(sum(w * e for w, e in zip(weights, estimates)), p ** 8)  # unbiased, exactly
                variance = sum(w * e * e for w, e in zip(weights, estimates)) - p ** 16
                m = re.search(rf"^{n}\s+(\d\.\d\d)$", self.text, re.M)
                self.assertEqual(m[1], f2(math.sqrt(variance)))
        self.assertEqual(f2(math.sqrt(p ** 8 * (1 - p ** 8))), "0.50")


# --- 11. scripts/06_evaluation.py -----------------------------------------------------------------

def sections(out: str) -> dict[str, str]:
    parts = re.split(r"(?m)^=== (Demo \d)\. .* ===$", tool_core.without_notes(out))
    return dict(zip(parts[1::2], parts[2::2]))


class Script(unittest.TestCase):
    """What script 06 prints, from the table's runs (tests/test_scripts.py: the same bytes from any directory, --help,
    and that --seed changes demos 2 to 5 only)."""

    def test_runs_and_prints_the_same_bytes_in_this_process(self):
        # after this file's tests have filled the module's caches, the script prints what a fresh process printed
        code, out, err = script_runs.result(SCRIPT)
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(script_runs.in_process(script_runs.SCRIPTS / SCRIPT), (0, out, ""))
        self.assertEqual(list(sections(out)), ["Demo 1", "Demo 2", "Demo 3", "Demo 4", "Demo 5", "Demo 6", "Demo 7"])

    def test_the_demos_are_the_modules(self):
        _, out, _ = script_runs.result(SCRIPT)
        parts = sections(out)
        for name, text in (("Demo 2", lab_results.demo_tau(0)), ("Demo 3", service_env.demo_failure_modes(0)),
                           ("Demo 4", lab_results.demo_halved(0)), ("Demo 5", tool_catalog.demo_toolbench(0)),
                           ("Demo 6", service_env.demo_dual_control(0))):
            with self.subTest(name):
                self.assertEqual(parts[name].strip("\n"), text)


if __name__ == "__main__":
    unittest.main()
