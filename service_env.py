"""service_env: a mini tau-bench: an agent, a simulated user and a real database; graded by the final state; pass^k.

Contents (lecture 001 sections 7.3 and 8, handout code 06; lecture 000 on pass^k, pass@k and the
failure modes in three units), each chapter with the demo of scripts/06_evaluation.py that shows it:
  1-2. The environment and its eight tasks                    demo 2
     Orrin Grid customer service: a small in-memory database (customers with an
     outage_logged flag, appointments, credits) whose state can be snapshotted and compared;
     six tools in a tool_core registry that enforce data integrity only, never policy; a
     written five-rule policy; eight tasks, each with the user's goal, what the user reveals
     only when asked, and the expected final state.
  3. The simulated user and the toy agent                     demos 2-4
     A scripted user, and a toy agent that does the right thing unless one of seven seeded
     failure knobs fires; each agent turn is tool_core's loop (run_agent continuing the
     conversation's Transcript), so the harness is the one the lecture built.
  4. Trials, scoring, pass@k and pass^k, failure modes        demos 2 (pass^k), 3 (failure modes), 4 (halved)
     Scoring by final database state (and a required reply where the right answer is to
     refuse), next to the naive score (the agent said it was done); pass@k and pass^k,
     exact; the failure modes read off each trajectory, never off the knob that caused them,
     and non-determinism read off each task's trials (it is no property of one trajectory).
  5. Dual control (tau2-bench)                                demo 6
     One task the customer must finish on their side: a smart meter whose radio only they
     can switch on. The agent's tools act on Orrin Grid's systems, the customer's on the
     meter at home; a scripted customer acts only on the agent's instructions (and can
     misapply or misread them, by knob); both sides' final states are graded.
  6. The demos behind scripts/06_evaluation.py (demos 2-4 and 6; demo 1 is bfcl_lab's, demo 5 tool_catalog's).

Reference: Yao et al. (2024), "tau-bench: A Benchmark for Tool-Agent-User Interaction in
Real-World Domains": state-based reward and pass^k = E[C(c, k) / C(n, k)]; Chen et al. (2021)
for the unbiased pass@k = E[1 - C(n - c, k) / C(n, k)]; Barres et al. (2025), "tau2-bench:
Evaluating Conversational Agents in a Dual-Control Environment": the user's own tools and
grading by both sides' final state.

What it leaves out: an LLM playing the user (ours follows a script, so trials differ only by
the knobs), tau-bench's retail and airline domains, and tau2-bench's telecom domain and task
generator (dual control here is one task).
"""
from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import random
import re
import textwrap
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb

import tool_core
from tool_core import JSON, HandoutFigure, ToolRegistry, format_table

# ---------------------------------------------------------------------------------------------
# --- 1. The environment: database, tools, policy ---
# ---------------------------------------------------------------------------------------------

TODAY = datetime.date(2026, 10, 15)  # a Thursday, as in toolformer_lab's calendar

CUSTOMERS = {
    "C-107": {"name": "Gil Varga", "outage_logged": True},
    "C-212": {"name": "Ana Reyes", "outage_logged": False},
    "C-118": {"name": "Maren Holt", "outage_logged": True},
    "C-144": {"name": "Ivo Sand", "outage_logged": False},
    "C-305": {"name": "Tomas Lind", "outage_logged": False},
    "C-131": {"name": "Petra Ostby", "outage_logged": True},
    "C-150": {"name": "Elin Park", "outage_logged": False},
}
APPOINTMENTS = {
    "A-1007": {"customer_id": "C-107", "date": "2026-10-20", "kind": "meter check", "status": "scheduled"},
    "A-2001": {"customer_id": "C-212", "date": "2026-10-20", "kind": "panel inspection", "status": "scheduled"},
    "A-1180": {"customer_id": "C-118", "date": "2026-10-22", "kind": "meter swap", "status": "scheduled"},
    "A-1440": {"customer_id": "C-144", "date": "2026-10-19", "kind": "site visit", "status": "scheduled"},
    "A-1501": {"customer_id": "C-150", "date": "2026-10-21", "kind": "meter inspection", "status": "scheduled"},
    "A-1502": {"customer_id": "C-150", "date": "2026-10-27", "kind": "solar survey", "status": "scheduled"},
}
MAX_CREDIT = 50

POLICY = """Orrin Grid customer service policy:
1. Look the customer up (find_customer) before anything else; never use an id you have not seen.
2. Reschedule only to weekdays (Monday to Friday); offer a weekday instead of a weekend.
3. Confirm with the customer before cancelling an appointment.
4. A credit is at most $50 and only for an account with a logged outage; otherwise say you cannot.
5. If a date is ambiguous ("next week"), ask the customer which day; never pick one yourself."""


class ServiceDB:
    """The in-memory database: customers, appointments, credits; snapshot() is what grading compares."""

    def __init__(self) -> None:
        self.customers = _copy_rows(CUSTOMERS)
        self.appointments = _copy_rows(APPOINTMENTS)
        self.credits: list[dict] = []

    def snapshot(self) -> dict:
        """Return the whole state as plain data (a copy)."""
        return {"customers": _copy_rows(self.customers), "appointments": _copy_rows(self.appointments),
                "credits": [dict(c) for c in self.credits]}


def _copy_rows(rows: dict[str, dict]) -> dict[str, dict]:
    return {key: dict(row) for key, row in rows.items()}  # rows hold only strings and flags: one level is a copy


def _parse_date(text: str) -> datetime.date:
    if not isinstance(text, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):  # ASCII digits: \d takes "２"
        raise ValueError(f"new_date must be written YYYY-MM-DD in ASCII digits, e.g. 2026-10-21; got {text!r}")
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a calendar date") from None


MAX_AMOUNT = 10_000  # what the credit tool accepts at all; the policy's limit (MAX_CREDIT) is the agent's to keep


# The six tools. Each takes the database it acts on first, as tau-bench's tools take `data`: they are
# described once, below, and handed a database per trial (service_registry); the model never sees `db`.

def _customer(db: ServiceDB, customer_id: str) -> dict:
    if customer_id not in db.customers:
        raise LookupError(f"no customer {customer_id!r}; look customers up by name with find_customer")
    return db.customers[customer_id]


def _appointment(db: ServiceDB, appointment_id: str) -> dict:
    if appointment_id not in db.appointments:
        raise LookupError(f"no appointment {appointment_id!r}; list a customer's with list_appointments")
    return db.appointments[appointment_id]


def find_customer(db: ServiceDB, name: str) -> dict:
    """Find a customer by full name; returns the customer id.

    Args:
        name: the customer's full name, e.g. "Gil Varga"
    """
    found = [cid for cid, c in db.customers.items() if c["name"].lower() == name.strip().lower()]
    if not found:
        raise LookupError(f"no customer named {name!r}")
    return {"customer_id": found[0]}


def get_account(db: ServiceDB, customer_id: str) -> dict:
    """Get a customer's account: name, whether an outage is logged, credits so far.

    Args:
        customer_id: e.g. "C-107"
    """
    c = _customer(db, customer_id)
    credited = sum(x["amount"] for x in db.credits if x["customer_id"] == customer_id)
    return {"customer_id": customer_id, "name": c["name"], "outage_logged": c["outage_logged"], "credits": credited}


def list_appointments(db: ServiceDB, customer_id: str) -> list:
    """List a customer's appointments with their ids, dates, kinds and status.

    Args:
        customer_id: e.g. "C-107"
    """
    _customer(db, customer_id)
    return [{"appointment_id": aid} | {k: v for k, v in a.items() if k != "customer_id"}
            for aid, a in db.appointments.items() if a["customer_id"] == customer_id]


def reschedule_appointment(db: ServiceDB, appointment_id: str, new_date: str) -> dict:
    """Move an appointment to a new date (YYYY-MM-DD, after today).

    Args:
        appointment_id: e.g. "A-1007"
        new_date: the new date, YYYY-MM-DD
    """
    a = _appointment(db, appointment_id)
    if a["status"] != "scheduled":
        raise ValueError(f"appointment {appointment_id} is {a['status']} and cannot be moved")
    if _parse_date(new_date) <= TODAY:
        raise ValueError(f"the new date must be after today ({TODAY.isoformat()})")
    a["date"] = new_date
    return {"appointment_id": appointment_id, "date": new_date, "status": "rescheduled"}


def cancel_appointment(db: ServiceDB, appointment_id: str) -> dict:
    """Cancel an appointment.

    Args:
        appointment_id: e.g. "A-1007"
    """
    a = _appointment(db, appointment_id)
    if a["status"] != "scheduled":
        raise ValueError(f"appointment {appointment_id} is already {a['status']}")
    a["status"] = "cancelled"
    return {"appointment_id": appointment_id, "status": "cancelled"}


def issue_credit(db: ServiceDB, customer_id: str, amount: float, reason: str) -> dict:
    """Credit a customer's account in dollars.

    Args:
        customer_id: e.g. "C-107"
        amount: dollars, more than 0
        reason: one line, e.g. "outage on 2026-10-12"
    """
    _customer(db, customer_id)
    if not 0 < amount <= MAX_AMOUNT:  # NaN fails both comparisons; a 400-digit int fails the second
        raise ValueError(f"amount must be more than 0 and at most {MAX_AMOUNT:,} dollars, got {tool_core.show(amount)}")
    db.credits.append({"customer_id": customer_id, "amount": amount, "reason": reason})
    return {"customer_id": customer_id, "credited": amount}


SERVICE_TOOLS = tuple(tool_core.tool_from_function(fn, read_only=read_only, context=("db",)) for fn, read_only in (
    (find_customer, True), (get_account, True), (list_appointments, True),
    (reschedule_appointment, False), (cancel_appointment, False), (issue_credit, False)))


def service_registry(db: ServiceDB) -> ToolRegistry:
    """Hand the six tools the database they act on. They check data integrity (ids exist, dates parse), never policy."""
    return ToolRegistry(dataclasses.replace(t, fn=functools.partial(t.fn, db)) for t in SERVICE_TOOLS)


# ---------------------------------------------------------------------------------------------
# --- 2. Eight tasks ---
# ---------------------------------------------------------------------------------------------

@dataclass
class Task:
    """One task: what the user says first, what they reveal when asked, and the expected final state.

    intent: what the request means (the toy agent 'understands' it, as a model would read it).
    changes: the expected state as changes to the starting database.
    """

    id: str
    title: str
    opening: str
    intent: dict
    changes: dict
    answers: dict = field(default_factory=dict)  # hidden information, given only when asked
    required_reply: str | None = None  # a reply the agent must give (a refusal), as a regular expression

    def expected_state(self) -> dict:
        """Return the expected final state, comparable (credits as (customer, amount)); unknown ids are a ValueError."""
        key = json.dumps([self.id, self.changes], sort_keys=True)
        if key not in _EXPECTED:
            _EXPECTED[key] = comparable(self._apply_changes())
        return _EXPECTED[key]

    def _apply_changes(self) -> dict:
        state = ServiceDB().snapshot()
        for aid, fields in self.changes.get("appointments", {}).items():
            if aid not in state["appointments"]:
                raise ValueError(f"task {self.id}: the expected state names an unknown appointment {aid!r}")
            state["appointments"][aid].update(fields)
        for credit in self.changes.get("credits", []):
            if credit["customer_id"] not in state["customers"]:
                raise ValueError(f"task {self.id}: the expected state names an unknown customer {credit['customer_id']!r}")
            state["credits"].append(credit)
        return state


_EXPECTED: dict[str, dict] = {}

TASKS = [
    Task("T1", "reschedule", "Hi, this is Gil Varga. Please move my appointment A-1007 to Wednesday, October 21.",
         {"action": "reschedule", "name": "Gil Varga", "appointment": "A-1007", "date": "2026-10-21"},
         {"appointments": {"A-1007": {"date": "2026-10-21"}}}),
    Task("T2", "cancel, confirmed", "Ana Reyes here. Please cancel my appointment on October 20.",
         {"action": "cancel", "name": "Ana Reyes", "date": "2026-10-20"},
         {"appointments": {"A-2001": {"status": "cancelled"}}}, {"confirm": "Yes, please cancel it."}),
    Task("T3", "outage credit", "I'm Maren Holt. Monday's outage spoiled my freezer; I'd like a $40 credit.",
         {"action": "credit", "name": "Maren Holt", "amount": 40},
         {"credits": [{"customer_id": "C-118", "amount": 40, "reason": "outage"}]}),
    Task("T4", "weekend requested", "Ivo Sand. Please move my site visit to Saturday, October 24.",
         {"action": "reschedule", "name": "Ivo Sand", "kind": "site visit", "date": "2026-10-24"},
         {"appointments": {"A-1440": {"date": "2026-10-26"}}}, {"weekday": "Then Monday, October 26, please."}),
    Task("T5", "credit to refuse", "Tomas Lind. My lights flickered last night; give me a $30 credit.",
         {"action": "credit", "name": "Tomas Lind", "amount": 30}, {},
         required_reply=r"\b(cannot|can't)\b"),
    Task("T6", "credit over the limit", "Petra Ostby. The outage cost me a lot; I want an $80 credit.",
         {"action": "credit", "name": "Petra Ostby", "amount": 80},
         {"credits": [{"customer_id": "C-131", "amount": 50, "reason": "outage"}]}, {"offer": "Yes, $50 then."}),
    Task("T7", "ambiguous date", "Gil Varga. Move my appointment to sometime next week.",
         {"action": "reschedule", "name": "Gil Varga", "date": None},
         {"appointments": {"A-1007": {"date": "2026-10-28"}}}, {"date": "Wednesday the 28th works: 2026-10-28."}),
    Task("T8", "which appointment", "Elin Park. Please move my meter inspection to Friday, October 23.",
         {"action": "reschedule", "name": "Elin Park", "kind": "meter inspection", "date": "2026-10-23"},
         {"appointments": {"A-1501": {"date": "2026-10-23"}}}),
]


def comparable(state: dict) -> dict:
    """Return the part of a state that grading compares: credits by customer and amount (the reason is free text)."""
    return state | {"credits": sorted((c["customer_id"], c["amount"]) if isinstance(c, dict) else tuple(c)
                                      for c in state["credits"])}  # idempotent: a comparable state stays as it is


def state_diff(got: dict, want: dict) -> list[str]:
    """List how a final state differs from the expected one, one line per difference."""
    got, want = comparable(got), comparable(want)
    lines = []
    for aid in sorted(set(got["appointments"]) | set(want["appointments"])):
        g, w = got["appointments"].get(aid), want["appointments"].get(aid)
        if g != w:
            changed = {k: (g or {}).get(k) for k in (w or {}) if (g or {}).get(k) != (w or {}).get(k)}
            lines.append(f"{aid}: {changed} where {({k: w[k] for k in changed} if w else 'nothing')} was expected")
    if got["credits"] != want["credits"]:
        lines.append(f"credits {got['credits']} where {want['credits']} was expected")
    return lines


# ---------------------------------------------------------------------------------------------
# --- 3. The simulated user and the toy agent ---
# ---------------------------------------------------------------------------------------------

_MONTHS = {m: i for i, m in enumerate(["january", "february", "march", "april", "may", "june", "july", "august",
                                         "september", "october", "november", "december"], 1)}


def read_date(text: str) -> str | None:
    """Find a date in a reply: ISO, or 'October 26'. Example: 'Then Monday, October 26, please.' -> '2026-10-26'"""
    iso = re.search(r"\b(\d{4}-\d{2}-\d{2})\b", text)
    if iso:
        return iso.group(1)
    spoken = re.search(r"\b(" + "|".join(_MONTHS) + r")\s+(\d{1,2})\b", text.lower())
    return f"{TODAY.year}-{_MONTHS[spoken.group(1)]:02d}-{int(spoken.group(2)):02d}" if spoken else None


def is_weekend(date: str) -> bool:
    """Say whether a YYYY-MM-DD date falls on a Saturday or Sunday."""
    return datetime.date.fromisoformat(date).weekday() >= 5


class SimulatedUser:
    """A scripted customer: states the goal, answers what is asked from the hidden information, confirms,
    and ends the conversation when told it is done or refused. Unknown questions get a repeat of the goal."""

    def __init__(self, task: Task):
        self.task = task

    def reply(self, agent_said: str) -> str | None:
        """Answer the agent's words; None ends the conversation."""
        text = agent_said.lower()
        if not agent_said.strip():
            return "Hello? Did that work?"  # the agent's turn ended without a word to the user
        if "done" in text or "cannot" in text or "can't" in text:
            return None
        if not agent_said.rstrip().endswith("?"):
            return None  # a statement that neither finishes nor asks: the user gives up
        answers = self.task.answers
        for cue, key in (("cancel", "confirm"), ("weekday", "weekday"), ("$50", "offer"), ("which day", "date")):
            if cue in text and key in answers:
                return answers[key]
        return "As I said: " + self.task.opening


@dataclass
class Knobs:
    """The toy agent's seven failure rates, each drawn at most once per trial with the trial's random.Random."""

    invent_id: float = 0.02  # skip the lookups and use an id it made up
    retry_failing: float = 0.03  # write the date as the user said it, then repeat the failing call unchanged
    cancel_instead: float = 0.03  # cancel when asked to reschedule
    ignore_weekday: float = 0.35  # book the weekend the user asked for
    bad_credit: float = 0.40  # credit over the limit, or without a logged outage
    guess_date: float = 0.50  # pick a day for "next week" instead of asking
    wrong_read: float = 0.10  # in a credit task, list the appointments where the account was needed, then read it

    def scaled(self, factor: float) -> "Knobs":
        """Return the knobs multiplied by factor (0.5: every failure half as likely)."""
        return Knobs(**{k: v * factor for k, v in self.__dict__.items()})


KNOB_WORDS = {  # what each knob makes the agent do, for demo 2's readers (the comments above, in short)
    "invent_id": "skip the lookups and use a made-up id", "retry_failing": "repeat a failing call unchanged",
    "cancel_instead": "cancel when asked to reschedule", "ignore_weekday": "book the weekend the customer asked for",
    "bad_credit": f"credit over ${MAX_CREDIT} or without a logged outage",
    "guess_date": "pick a day for 'next week' itself",
    "wrong_read": "read the appointments where the account is needed"}


class ToyAgent:
    """A scripted agent that follows the policy unless a knob fires; called as lm(messages) by run_agent.

    It reads the tool results and the user's replies from the conversation, and says "Done!"
    at the end whatever happened, as agents often do.
    """

    DONE = "Done! Your request has been completed."
    LATE = ("wrong_read",)  # knobs drawn when the agent reaches the step they spoil (fires_now), not up front

    def __init__(self, task: Task, knobs: Knobs, rng: random.Random):
        for name, p in knobs.__dict__.items():
            if not 0 <= p <= 1:
                raise ValueError(f"knob {name} must be from 0 to 1, got {p}")
        self.intent = task.intent
        self.rates = dict(knobs.__dict__)
        # subtle: wrong_read is drawn late (fires_now), where a credit task reaches its account check, after every
        # other draw of the trial; drawn here it would shift the made-up ids of invent_id and every figure with them
        self.fires = {name: rng.random() < p for name, p in self.rates.items() if name not in self.LATE}
        self.rng = rng
        self.seen: dict = {}  # what the conversation has revealed
        self.last_call: str | None = None

    def __call__(self, messages: list[dict]) -> str:
        last = messages[-1]
        if last["role"] == "tool":
            result = tool_core.parse_tool_results(last["content"])[-1]
            if "error" in result:
                return self.last_call if self.fires["retry_failing"] and self.seen.get("bad_date") else self.DONE
            self._remember(result)
            if result["name"] in ("reschedule_appointment", "cancel_appointment", "issue_credit"):
                return self.DONE
        elif last["role"] == "user":
            if self.seen.get("bad_date"):
                return self.DONE  # after the failed retries it claims success anyway
            self._listen(last["content"])
        return self._next()

    def fires_now(self, name: str) -> bool:
        """Say whether a LATE knob fires in this trial, drawing it the first time it is asked."""
        if name not in self.fires:
            self.fires[name] = self.rng.random() < self.rates[name]
        return self.fires[name]

    def _call(self, name: str, arguments: dict) -> str:
        self.last_call = tool_core.call_text(name, arguments)
        return self.last_call

    def _remember(self, result: dict) -> None:
        data = json.loads(result["content"])
        if result["name"] == "find_customer":
            self.seen["customer_id"] = data["customer_id"]
        elif result["name"] == "get_account":
            self.seen["account"] = data
        elif result["name"] == "list_appointments":
            self.seen["appointments"] = data

    def _listen(self, text: str) -> None:
        if "date" in self.seen.get("asked", "") or "weekday" in self.seen.get("asked", ""):
            self.seen["date"] = read_date(text) or self.seen.get("date")
        if self.seen.get("asked") in ("confirm", "offer") and re.search(r"\byes\b", text.lower()):
            self.seen[self.seen["asked"] + "ed"] = True

    def _next(self) -> str:
        intent, seen = self.intent, self.seen
        if self.fires["invent_id"] and "invented" not in seen:
            return self._invent()
        if "customer_id" not in seen:
            return self._call("find_customer", {"name": intent["name"]})
        if "account" not in seen:
            if intent["action"] == "credit" and "appointments" not in seen and self.fires_now("wrong_read"):
                # the wrong read tool: appointments cannot say whether an outage is logged; the next turn reads the
                # account, so the trial can still succeed, one wasted call later
                return self._call("list_appointments", {"customer_id": seen["customer_id"]})
            return self._call("get_account", {"customer_id": seen["customer_id"]})
        if intent["action"] == "credit":
            return self._credit()
        if "appointments" not in seen:
            return self._call("list_appointments", {"customer_id": seen["customer_id"]})
        appointment = self._which()
        return self._cancel(appointment) if intent["action"] == "cancel" else self._reschedule(appointment)

    def _invent(self) -> str:
        self.seen["invented"] = True
        if self.intent["action"] == "credit":
            self.seen["customer_id"] = made_up = f"C-{self.rng.randrange(100, 120)}"
            return self._call("issue_credit", {"customer_id": made_up, "amount": self.intent["amount"], "reason": "outage"})
        made_up = f"A-{self.rng.randrange(1000, 1010)}"
        if self.intent["action"] == "cancel":
            return self._call("cancel_appointment", {"appointment_id": made_up})
        return self._call("reschedule_appointment", {"appointment_id": made_up,
                                                     "new_date": self.intent["date"] or "2026-10-19"})

    def _which(self) -> str:
        scheduled = [a for a in self.seen["appointments"] if a["status"] == "scheduled"]
        for key in ("appointment", "kind", "date"):
            wanted = self.intent.get(key)
            match = [a for a in scheduled if wanted and wanted in (a["appointment_id"], a["kind"], a["date"])]
            if wanted and key != "date" or (key == "date" and self.intent["action"] == "cancel" and match):
                if match:
                    return match[0]["appointment_id"]
        return scheduled[0]["appointment_id"]

    def _ask(self, topic: str, question: str) -> str:
        self.seen["asked"] = topic
        return question

    def _reschedule(self, appointment: str) -> str:
        date = self.seen.get("date") or self.intent["date"]
        if date is None:
            if self.fires["guess_date"]:
                date = "2026-10-19"  # "next week": it picks the Monday itself
            else:
                return self._ask("date", "Happy to move it. Which day next week would suit you?")
        if is_weekend(date) and not self.fires["ignore_weekday"] and "weekday" not in self.seen.get("asked", ""):
            return self._ask("weekday", f"We can only reschedule to weekdays, and {date} is a weekend. "
                                        "Which weekday would you like instead, e.g. Monday, October 26?")
        if self.fires["cancel_instead"]:
            return self._call("cancel_appointment", {"appointment_id": appointment})
        if self.fires["retry_failing"]:
            self.seen["bad_date"] = True
            spoken = datetime.date.fromisoformat(date).strftime("%B %d")
            return self._call("reschedule_appointment", {"appointment_id": appointment, "new_date": spoken})
        return self._call("reschedule_appointment", {"appointment_id": appointment, "new_date": date})

    def _cancel(self, appointment: str) -> str:
        if not self.seen.get("confirmed"):
            when = next(a["date"] for a in self.seen["appointments"] if a["appointment_id"] == appointment)
            return self._ask("confirm", f"Please confirm: shall I cancel appointment {appointment} on {when}?")
        return self._call("cancel_appointment", {"appointment_id": appointment})

    def _credit(self) -> str:
        account, amount = self.seen["account"], self.intent["amount"]
        if not account["outage_logged"] and not self.fires["bad_credit"]:
            return "I'm sorry, I cannot issue a credit: no outage is logged on your account."
        if amount > MAX_CREDIT and not self.fires["bad_credit"]:
            if not self.seen.get("offered"):
                return self._ask("offer", f"I can credit at most ${MAX_CREDIT}. Shall I issue a ${MAX_CREDIT} credit?")
            amount = MAX_CREDIT
        return self._call("issue_credit", {"customer_id": self.seen["customer_id"], "amount": amount, "reason": "outage"})


# ---------------------------------------------------------------------------------------------
# --- 4. Trials, scoring, pass@k and pass^k, failure modes ---
# ---------------------------------------------------------------------------------------------

MAX_USER_TURNS = 6


@dataclass
class Trial:
    """One conversation: the transcript, the final state, and how it was graded."""

    task: Task
    transcript: tool_core.Transcript
    final: dict
    success: bool  # the final state is the expected one (and any required reply was given)
    said_done: bool  # the naive grade: the agent said it was done
    modes: list[str]
    reason: str = ""

    def __repr__(self) -> str:
        """Say the task, both grades, the failure modes and how long the conversation was."""
        return (f"Trial({self.task.id} {self.task.title!r}: success={self.success}, said_done={self.said_done}, "
                f"modes: {tool_core.name_list(self.modes, 60) if self.modes else 'none'}; "
                f"{len(self.transcript.messages)} messages, {len(self.transcript.calls)} calls)")

    def _repr_markdown_(self) -> str:
        """Show both grades and the reason above the conversation, every character as written ($80 stays $80)."""
        cell = tool_core.markdown_cell
        head = (f"**{cell(self.task.id)}** {cell(self.task.title)}: **{'pass' if self.success else 'fail'}** "
                f"(graded by the final state and any required reply); said 'Done': {self.said_done}; "
                f"failure modes: {cell(', '.join(self.modes) or 'none')}")
        why = [f"why it failed: {cell(self.reason)}"] if self.reason else []
        return tool_core.markdown_block(head, *why, self.transcript._repr_markdown_())


def run_trial(task: Task, knobs: Knobs, seed: int, trial: int, model=None) -> Trial:
    """Run one conversation of a task: user turn, agent turn (tool_core.run_agent), ... then grade the state.

    model: the agent; None is the toy agent with these knobs (seeded by seed and trial). Any model of
    tool_core's loop fits: a text one (the tools in its system prompt after the policy) or a native one
    (bfcl_lab.APIModel on a real API: the policy alone, the tools in the vendor's field).
    """
    db = ServiceDB()
    registry = service_registry(db)
    rng = random.Random(f"{seed}:{task.id}:{trial}")  # str seeds are stable across runs and machines
    lm = model if model is not None else tool_core.ScriptedLM(ToyAgent(task, knobs, rng))
    user = SimulatedUser(task)
    system = POLICY if getattr(lm, "native", False) else _system_prompt()
    transcript, said, reason = None, task.opening, ""
    for _ in range(MAX_USER_TURNS):
        transcript = tool_core.run_agent(lm, registry, said, system=system, transcript=transcript, max_steps=8)
        if transcript.stop_reason in ("refused", "truncated"):
            reason = f"the agent's turn ended without an answer ({transcript.stop_reason})"
            break
        if transcript.stop_reason == "model_error":  # the API failed: the trial is lost, and says why
            reason = f"the agent's turn failed: {transcript.error}"
            break
        said = user.reply(transcript.final_answer or "")
        if said is None:
            break
    else:
        reason = f"the conversation hit the limit of {MAX_USER_TURNS} user turns"
    final = db.snapshot()
    replies = [m["content"] or "" for m in transcript.messages if m["role"] == "assistant" and not m.get("calls")
               and "<tool_call>" not in (m["content"] or "")]
    state_ok = comparable(final) == task.expected_state()
    reply_ok = task.required_reply is None or any(re.search(task.required_reply, r.lower()) for r in replies)
    said_done = any("done" in r.lower() for r in replies)
    modes = classify(task, transcript, final)
    if not reason and not state_ok:
        reason = "; ".join(state_diff(final, task.expected_state()))
    return Trial(task, transcript, final, state_ok and reply_ok, said_done, modes, reason)


@functools.lru_cache(maxsize=1)
def _system_prompt() -> str:
    """Return what the agent is told: the policy, then the tools block (the same for every trial)."""
    return POLICY + "\n\n" + tool_core.render_tool_prompt(service_registry(ServiceDB()))


def _check(n: JSON, c: JSON, k: JSON) -> None:
    for name, value in (("n", n), ("c", c), ("k", k)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"{name} must be a whole number, got {value!r}")
    if n < 1:
        raise ValueError(f"n (trials) must be at least 1, got {n}")
    if not 0 <= c <= n:
        raise ValueError(f"c (successes) must be from 0 to n = {n}, got {c}")
    if not 1 <= k <= n:
        raise ValueError(f"k must be from 1 to n = {n} (k trials are drawn from the n run), got {k}")


def pass_at_k(n: int, c: int, k: int) -> Fraction:
    """Return the unbiased pass@k estimate 1 - C(n-c, k)/C(n, k), exactly: at least one of k draws succeeds.

    Example: pass_at_k(10, 8, 3) -> Fraction(1, 1)
    """
    _check(n, c, k)
    return 1 - Fraction(comb(n - c, k), comb(n, k))


def pass_hat_k(n: int, c: int, k: int) -> Fraction:
    """Return the unbiased pass^k estimate C(c, k)/C(n, k), exactly: all k draws succeed (tau-bench).

    Example: pass_hat_k(8, 4, 4) -> Fraction(1, 70)
    """
    _check(n, c, k)
    return Fraction(comb(c, k), comb(n, k))


FAILURE_MODES = [  # (unit, mode, how it shows: in one trajectory, or for "across trials" in a task's trials)
    ("single call", "malformed call", "a call the parser could not read"),
    ("single call", "unknown tool", "a call to a tool that does not exist"),
    ("single call", "wrong tool selection", "a read tool that cannot answer the task (appointments for a credit)"),
    ("single call", "invented argument", "an id that no result or user message had shown"),
    ("multi-step", "repeated failing call", "the same failing call made again unchanged"),
    ("multi-step", "wrong action", "a change other than the one asked for (cancel instead of reschedule)"),
    ("multi-step", "task left undone", "no change of the kind asked for (reschedule, cancel, credit) succeeded"),
    ("conversation", "policy violation", "a weekend booking, a credit over $50 or without an outage, a cancel unconfirmed"),
    ("conversation", "guessed instead of asking", "an ambiguous date booked without a question to the user"),
    ("conversation", "false success claim", "'Done' said while the trial failed (wrong state, or no refusal)"),
    ("across trials", "non-determinism", "counted per task: the same task and agent pass some trials and fail others"),
]
_WRITES = {"reschedule": "reschedule_appointment", "cancel": "cancel_appointment", "credit": "issue_credit"}
# The read tools that can answer each kind of task. get_account is every conversation's account check; appointments
# say nothing about an outage or a credit, so list_appointments is the wrong read for a credit. (A wrong write tool
# changes the state: that is "wrong action", a step of the chain, not a selection of one call.)
_READS = {"reschedule": {"find_customer", "get_account", "list_appointments"},
          "cancel": {"find_customer", "get_account", "list_appointments"},
          "credit": {"find_customer", "get_account"}}


def classify(task: Task, transcript: tool_core.Transcript, final: dict) -> list[str]:
    """Name the failure modes a trajectory shows (read off the calls, replies and final state only).

    Every mode of FAILURE_MODES but non-determinism, which no single trajectory can show: see non_deterministic.
    """
    modes = []
    calls = transcript.calls
    turns = _turns(transcript)
    if any(c.error_kind in tool_core.PARSE_ERROR_KINDS for c in calls):
        modes.append("malformed call")
    if any(c.error_kind == "unknown_tool" for c in calls):
        modes.append("unknown tool")
    if _wrong_read(task, calls):
        modes.append("wrong tool selection")
    if tool_core.invented_ids(transcript):  # an id no user message or tool result had shown
        modes.append("invented argument")
    if any(a.name == b.name and a.arguments == b.arguments and not a.ok and not b.ok for a, b in zip(calls, calls[1:])):
        modes.append("repeated failing call")
    written = [c for c in calls if c.ok and c.name in _WRITES.values()]
    wanted = _WRITES[task.intent["action"]]
    if any(c.name != wanted for c in written):
        modes.append("wrong action")
    if task.changes and not any(c.name == wanted for c in written):
        modes.append("task left undone")
    if _policy_broken(turns, transcript, final):
        modes.append("policy violation")
    if _guessed(turns):
        modes.append("guessed instead of asking")
    replies = [text.lower() for role, text, found in turns if role == "assistant" and not found]
    refused = task.required_reply is None or any(re.search(task.required_reply, r) for r in replies)
    if any("done" in r for r in replies) and (comparable(final) != task.expected_state() or not refused):
        modes.append("false success claim")
    return modes


def _turns(transcript: tool_core.Transcript) -> list[tuple[str, str, list]]:
    """Return (role, text, calls written in it) for each message after the system prompt, parsing each once."""
    return [(m["role"], m["content"] or "", [c for c in m["calls"] if isinstance(c, tool_core.ToolCall)] if m.get("calls")
             else tool_core.parse_tool_calls(m["content"]).calls
             if m["role"] == "assistant" and tool_core.OPEN in (m["content"] or "") else [])
            for m in transcript.messages[1:]]


_READ_TOOLS = frozenset(t.name for t in SERVICE_TOOLS if t.read_only)


def _wrong_read(task: Task, calls: list[tool_core.CallRecord]) -> bool:
    """Say whether the agent called a read tool that cannot answer this kind of task (whether or not it worked)."""
    return any(c.name in _READ_TOOLS and c.name not in _READS[task.intent["action"]] for c in calls)


def non_deterministic(trials: list[Trial]) -> bool:
    """Say whether one task's trials disagree: some succeeded and some failed, the same task and agent each time.

    A property of a task over its trials, never of one trajectory (lecture 000: it "only shows up across repeated
    trials"), which is why pass^k exists. Example: successes [True, False, True] -> True; [True, True] -> False
    """
    outcomes = {t.success for t in trials}
    return len(outcomes) == 2


def _policy_broken(turns: list[tuple[str, str, list]], transcript: tool_core.Transcript, final: dict) -> bool:
    asked_to_confirm = False
    for role, text, calls in turns:
        if role == "assistant" and not calls and "confirm" in text.lower():
            asked_to_confirm = True
        if any(c.name == "cancel_appointment" for c in calls) and not asked_to_confirm:
            return True
    for c in transcript.calls:
        if c.ok and c.name == "reschedule_appointment" and is_weekend(c.arguments["new_date"]):
            return True
        if c.ok and c.name == "issue_credit":
            customer = final["customers"].get(c.arguments["customer_id"], {})
            if c.arguments["amount"] > MAX_CREDIT or not customer.get("outage_logged"):
                return True
    return False


def _guessed(turns: list[tuple[str, str, list]]) -> bool:
    opening = turns[0][1]
    if read_date(opening) or any(day in opening for day in ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")):
        return False
    for role, text, calls in turns[1:]:
        if role == "assistant" and not calls and text.rstrip().endswith("?"):
            return False  # it asked before booking
        if any(c.name == "reschedule_appointment" for c in calls):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# --- 5. Dual control (tau2-bench): the customer acts on the world too ---
# ---------------------------------------------------------------------------------------------
# Barres et al. (2025), "tau2-bench: Evaluating Conversational Agents in a Dual-Control Environment": in its
# telecom domain the agent's tools act on the company's systems and the user's tools on the user's own phone; the
# user must do what only they can (toggle a setting, restart the device), guided by the agent, and a trial is graded
# by the final state of both the agent's database and the user's. Here that is one task, D1: a smart meter whose
# radio is off, which only someone at the house can switch on. Left out: tau2-bench's LLM user (ours follows the
# agent's words by rule), its task generator and its telecom domain.

METERS = {"MT-123": {"customer_id": "C-107", "link": "offline", "last_reading": "2026-10-12"}}
HOME = {"radio": "off", "budget_alert": 60}  # the meter at Gil Varga's house, as the customer left it
HOME_METER = "MT-123"  # which of METERS hangs in that house
PAIRING_CODE = "481306"  # what the meter's screen shows while its radio is on and it is not linked
RESET_SECONDS = 10  # holding the RADIO button this long resets the meter to factory settings

DUAL_POLICY = """Orrin Grid meter support policy:
1. Look the customer up (find_customer) before anything else.
2. You act on Orrin Grid's side only; only the customer can act on the meter at their home. Tell them exactly
   what to do, and what it is for.
3. Link a meter again (pair_meter) only with the code the customer reads from its screen; never guess a code.
4. Say the problem is solved only once pair_meter has succeeded."""


class GridDB(ServiceDB):
    """Orrin Grid's side of a dual-control trial: the customers of section 1 and the smart meters' link records
    (appointments and credits are there too, and play no part)."""

    def __init__(self) -> None:
        super().__init__()
        self.meters = _copy_rows(METERS)


class DualWorld:
    """The shared world of a dual-control trial: Orrin Grid's systems (the agent's side) and the customer's home.

    `grid` holds the customers and the meters' link records; `home` the meter at the house (its radio and the
    budget alert its owner set). The agent's tools write only `grid`, the customer's only `home`; both may read
    what the meter itself would show (a linked meter's screen says so).
    """

    def __init__(self) -> None:
        self.grid = GridDB()
        self.home = dict(HOME)

    def snapshot(self) -> dict:
        """Return both sides' state as plain data (a copy): what grading compares."""
        return {"grid": {"customers": _copy_rows(self.grid.customers), "meters": _copy_rows(self.grid.meters)},
                "home": dict(self.home)}


def _meter(world: DualWorld, meter_id: str) -> dict:
    if meter_id not in world.grid.meters:
        raise LookupError(f"no meter {meter_id!r}; get a customer's meter with get_meter")
    return world.grid.meters[meter_id]


def screen(world: DualWorld) -> str:
    """Say what the meter's screen shows: RADIO OFF, the pairing code, or LINKED once Orrin Grid has paired it."""
    _check_world(world)
    if world.home["radio"] != "on":
        return "RADIO OFF"
    return "LINKED" if world.grid.meters[HOME_METER]["link"] == "online" else f"PAIR {PAIRING_CODE}"


def _check_world(world: object) -> None:
    if not isinstance(world, DualWorld):
        raise TypeError(f"expected a DualWorld (both sides of a dual-control trial), got {type(world).__name__}")


# The agent's tools (Orrin Grid's side), beside find_customer from section 1.

def get_meter(world: DualWorld, customer_id: str) -> dict:
    """Get a customer's smart meter: its id, whether Orrin Grid can reach it (link), and the date of its last reading.

    Args:
        customer_id: e.g. "C-107"
    """
    _customer(world.grid, customer_id)
    found = [mid for mid, m in world.grid.meters.items() if m["customer_id"] == customer_id]
    if not found:
        raise LookupError(f"customer {customer_id} has no smart meter")
    meter = world.grid.meters[found[0]]
    reachable = "its radio answers" if world.home["radio"] == "on" else "no answer from its radio"
    return {"meter_id": found[0], "link": meter["link"], "last_reading": meter["last_reading"], "radio": reachable}


def refresh_link(world: DualWorld, meter_id: str) -> dict:
    """Resend a meter's link settings from Orrin Grid's side; the meter takes them when it next answers.

    Args:
        meter_id: e.g. "MT-123"
    """
    _meter(world, meter_id)
    return {"meter_id": meter_id, "status": "queued"}  # succeeds, and changes nothing: the meter is not listening


def pair_meter(world: DualWorld, meter_id: str, code: str) -> dict:
    """Link a meter to Orrin Grid again with the 6-digit code its screen shows (only the customer can read it).

    Args:
        meter_id: e.g. "MT-123"
        code: the 6 digits on the meter's screen, e.g. "123456"
    """
    meter = _meter(world, meter_id)
    if world.home["radio"] != "on":
        raise ValueError(f"{meter_id} does not answer: its radio is off, and only someone at the house can switch it on")
    if code != PAIRING_CODE:
        raise ValueError(f"code {code!r} is not the one {meter_id} shows; ask the customer to read its screen again")
    meter["link"] = "online"
    return {"meter_id": meter_id, "link": "online"}


# The customer's tools (the home side): the agent's registry does not have them.

def press_radio_button(world: DualWorld, seconds: int) -> dict:
    """Press the RADIO button on the meter: a short press switches the radio on or off; 10 seconds resets the meter.

    Args:
        seconds: how long the button is held down, 1 to 30
    """
    if not 1 <= seconds <= 30:
        raise ValueError(f"seconds must be from 1 to 30, got {seconds}")
    if seconds >= RESET_SECONDS:  # factory settings: the radio comes back on, what the owner set is gone
        world.home.update(radio="on", budget_alert=None)
    else:
        world.home["radio"] = "off" if world.home["radio"] == "on" else "on"
    return {"radio": world.home["radio"], "screen": screen(world)}


def read_screen(world: DualWorld) -> dict:
    """Read what the meter's screen shows."""
    return {"screen": screen(world)}


AGENT_METER_TOOLS = tuple(tool_core.tool_from_function(fn, read_only=read_only, context=("world",))
                          for fn, read_only in ((get_meter, True), (refresh_link, False), (pair_meter, False)))
HOME_TOOLS = tuple(tool_core.tool_from_function(fn, read_only=read_only, context=("world",))
                   for fn, read_only in ((press_radio_button, False), (read_screen, True)))


def dual_registries(world: DualWorld) -> tuple[ToolRegistry, ToolRegistry]:
    """Hand each side its own tools on this world: (the agent's registry, the customer's registry)."""
    _check_world(world)
    lookup = next(t for t in SERVICE_TOOLS if t.name == "find_customer")
    agent = ToolRegistry([dataclasses.replace(lookup, fn=functools.partial(lookup.fn, world.grid))]
                         + [dataclasses.replace(t, fn=functools.partial(t.fn, world)) for t in AGENT_METER_TOOLS])
    home = ToolRegistry(dataclasses.replace(t, fn=functools.partial(t.fn, world)) for t in HOME_TOOLS)
    return agent, home


@dataclass
class DualTask:
    """A dual-control task: the opening, what the agent must understand, and the expected final state of each side."""

    id: str
    title: str
    opening: str
    intent: dict
    grid_changes: dict  # {meter id: {field: value}} on Orrin Grid's side
    home: dict  # the whole expected state of the home side

    def expected_state(self) -> dict:
        """Return the expected final state of both sides; an unknown meter or home field is a ValueError."""
        state = DualWorld().snapshot()
        for mid, fields in self.grid_changes.items():
            if mid not in state["grid"]["meters"]:
                raise ValueError(f"task {self.id}: the expected state names an unknown meter {mid!r}")
            state["grid"]["meters"][mid].update(fields)
        if set(self.home) != set(HOME):
            raise ValueError(f"task {self.id}: the home side has the fields {sorted(HOME)}, got {sorted(self.home)}")
        return state | {"home": dict(self.home)}


DUAL_TASK = DualTask("D1", "meter offline", "Gil Varga here. My smart meter has sent no readings since Monday's outage.",
                     {"name": "Gil Varga"}, {"MT-123": {"link": "online"}}, {"radio": "on", "budget_alert": 60})
SIDES = {"grid": "Orrin Grid's side", "home": "the customer's side"}


def grade_dual(task: DualTask, final: dict) -> dict[str, list[str]]:
    """Compare each side's final state with the expected one; return the differences per side ([]: that side is right).

    Example: radio left off -> {'grid': ['MT-123 link: offline where online was expected'],
                                'home': ['radio: off where on was expected']}
    """
    if not isinstance(final, dict) or set(final) != set(SIDES):
        raise ValueError(f"a final state has the sides {sorted(SIDES)}, got {final!r}")
    want = task.expected_state()
    grid = [f"{mid} {key}: {got.get(key)} where {value} was expected"
            for mid, row in want["grid"]["meters"].items() for key, value in row.items()
            if (got := final["grid"]["meters"].get(mid, {})).get(key) != value]
    grid += ["customers changed"] * (final["grid"]["customers"] != want["grid"]["customers"])
    home = [f"{key}: {final['home'].get(key)} where {value} was expected"
            for key, value in want["home"].items() if final["home"].get(key) != value]
    return {"grid": grid, "home": home}


@dataclass
class DualKnobs:
    """The dual-control trial's failure rates: one for the agent, two for the customer, each drawn once per trial."""

    own_side_only: float = 0.2  # the agent: fix it from Orrin Grid's side alone and never tell the customer what to do
    misapply: float = 0.2  # the customer: hold the RADIO button 10 seconds (a factory reset) instead of a short press
    misread: float = 0.3  # the customer: read the code with two digits swapped, the first time

    def __post_init__(self) -> None:
        for name, p in self.__dict__.items():
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
                raise ValueError(f"knob {name} must be a number from 0 to 1, got {p!r}")


def misread(code: str) -> str:
    """Swap the second and third digits of a 6-digit code, as a customer reading it in a hurry might.

    Example: '481306' -> '418306'
    """
    if not isinstance(code, str) or not re.fullmatch(r"[0-9]{6}", code):
        raise ValueError(f"a pairing code is 6 ASCII digits, got {code!r}")
    return code[0] + code[2] + code[1] + code[3:]


class DualUser:
    """A scripted customer with tools of their own: acts on the meter only when the agent says what to do.

    A short press of the RADIO button when told to press it (held 10 seconds when misapply fires), the screen
    read out when asked for the code (the first reading with two digits swapped when misread fires). Every
    action goes through the home registry and is kept, per user turn, in `actions`.
    """

    def __init__(self, task: DualTask, home: ToolRegistry, knobs: DualKnobs, rng: random.Random):
        self.task, self.home = task, home
        self.misapplies, self.misreads = rng.random() < knobs.misapply, rng.random() < knobs.misread
        self.actions: list[list[tuple[str, dict, tool_core.ToolResult]]] = [[]]  # turn 0: the opening, no action
        self.readings = 0

    def reply(self, agent_said: str) -> str | None:
        """Act on the agent's instructions, if any, and answer; None ends the conversation."""
        text, done, said = agent_said.lower(), [], []
        if "radio button" in text:  # an instruction: the only way the customer learns what to press
            done.append(self._do("press_radio_button", {"seconds": RESET_SECONDS if self.misapplies else 1}))
            said.append("OK, I pressed the RADIO button.")
        if "code" in text and "screen" in text:
            done.append(self._do("read_screen", {}))
            shown = json.loads(done[-1][2].text)["screen"]
            self.readings += 1
            if self.misreads and self.readings == 1:
                shown = re.sub(r"[0-9]{6}", lambda m: misread(m.group()), shown)
            said.append(f"The screen says: {shown}.")
        if said:
            answer = " ".join(said)
        elif not agent_said.strip():
            answer = "Hello? Did that work?"
        elif "done" in text or "cannot" in text or not agent_said.rstrip().endswith("?"):
            return None
        else:
            answer = "As I said: " + self.task.opening
        self.actions.append(done)
        return answer

    def _do(self, name: str, arguments: dict) -> tuple[str, dict, tool_core.ToolResult]:
        return name, arguments, self.home.call(name, arguments)


class DualAgent:
    """A scripted agent for D1 that guides the customer, unless own_side_only fires; called as lm(messages)."""

    DONE = "Done! Your meter is linked again, and its readings will come in from today."
    OWN_SIDE = "I have refreshed your meter's link from our side; it will reconnect on its own shortly. Done!"
    INSTRUCTION = ("Your meter {meter} does not answer us: its radio is off, and only you can switch it on. Please "
                   f"press the RADIO button on the meter once, briefly (holding it for {RESET_SECONDS} seconds resets "
                   "the meter to factory settings). Then read me the 6-digit code on its screen: what does it say?")
    AGAIN = "That code did not match. Could you read the code on the screen again, digit by digit?"

    def __init__(self, task: DualTask, knobs: DualKnobs, rng: random.Random):
        self.name = task.intent["name"]
        self.own_side_only = rng.random() < knobs.own_side_only
        self.seen: dict = {}

    def __call__(self, messages: list[dict]) -> str:
        last = messages[-1]
        if last["role"] == "tool":
            result = tool_core.parse_tool_results(last["content"])[-1]
            if "error" in result:
                if result["name"] == "pair_meter" and "is not the one" in result["content"]:
                    self.seen.pop("code", None)
                    return self.AGAIN
                return "I'm sorry, I cannot link the meter from here; a technician will call you."
            if result["name"] == "refresh_link":
                return self.OWN_SIDE
            if result["name"] == "pair_meter":
                return self.DONE
            key = {"find_customer": "customer_id", "get_meter": "meter_id"}[result["name"]]
            self.seen[key] = json.loads(result["content"])[key]
        elif last["role"] == "user":
            code = re.search(r"\b([0-9]{6})\b", last["content"])
            if code:
                self.seen["code"] = code.group(1)
        return self._next()

    def _next(self) -> str:
        seen = self.seen
        if "customer_id" not in seen:
            return tool_core.call_text("find_customer", {"name": self.name})
        if "meter_id" not in seen:
            return tool_core.call_text("get_meter", {"customer_id": seen["customer_id"]})
        if self.own_side_only:
            return tool_core.call_text("refresh_link", {"meter_id": seen["meter_id"]})
        if "code" not in seen:
            return self.INSTRUCTION.format(meter=seen["meter_id"])
        return tool_core.call_text("pair_meter", {"meter_id": seen["meter_id"], "code": seen["code"]})


@dataclass
class DualTrial:
    """One dual-control conversation: the agent's transcript, the customer's actions per turn, both sides graded."""

    transcript: tool_core.Transcript
    actions: list[list[tuple[str, dict, tool_core.ToolResult]]]  # the customer's tool calls, one list per user turn
    final: dict
    differences: dict[str, list[str]]  # per side, how the final state differs from the expected one
    said_done: bool

    @property
    def success(self) -> bool:
        """Both sides are in the expected state."""
        return not any(self.differences.values())

    def __repr__(self) -> str:
        """Say both sides' grades, the naive one, and how long the conversation was."""
        sides = ", ".join(f"{side}={'right' if not diff else 'wrong'}" for side, diff in self.differences.items())
        return (f"DualTrial({sides}, said_done={self.said_done}; {len(self.transcript.calls)} agent calls, "
                f"{sum(map(len, self.actions))} customer actions)")

    def render(self) -> str:
        """Show the conversation with the customer's own tool calls as [home ] lines before what they said."""
        lines, turn = [], 0
        for line in self.transcript.render().splitlines():
            if line.startswith("[user ]"):
                lines += _home_lines(self.actions[turn])
                turn += 1
            lines.append(line)
        return "\n".join(lines + [line for acts in self.actions[turn:] for line in _home_lines(acts)])


def _home_lines(actions: list[tuple[str, dict, tool_core.ToolResult]]) -> list[str]:
    """Write the customer's tool calls of one turn. Example: [home ] press_radio_button(seconds=1) -> {"radio": "on"}"""
    return [f"[home ] {name}({', '.join(f'{k}={v!r}' for k, v in args.items())}) -> {result.text}"
            for name, args, result in actions]


def run_dual_trial(knobs: DualKnobs, seed: int, trial: int, task: DualTask = DUAL_TASK) -> DualTrial:
    """Run one dual-control conversation: agent turn (run_agent), customer acts and answers, ...; grade both sides."""
    if not isinstance(knobs, DualKnobs) or not isinstance(task, DualTask):
        raise TypeError(f"run_dual_trial takes DualKnobs and a DualTask, got {type(knobs).__name__} and "
                        f"{type(task).__name__}")
    for name, value in (("seed", seed), ("trial", trial)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"{name} must be a whole number, got {value!r}")
    world = DualWorld()
    agent_tools, home_tools = dual_registries(world)
    rng = random.Random(f"{seed}:{task.id}:{trial}")  # the agent's knob first, then the customer's two
    lm = tool_core.ScriptedLM(DualAgent(task, knobs, rng))
    user = DualUser(task, home_tools, knobs, rng)
    system = DUAL_POLICY + "\n\n" + tool_core.render_tool_prompt(agent_tools)
    transcript, said = None, task.opening
    for _ in range(MAX_USER_TURNS):
        transcript = tool_core.run_agent(lm, agent_tools, said, system=system, transcript=transcript, max_steps=8)
        said = user.reply(transcript.final_answer or "")
        if said is None:
            break
    final = world.snapshot()
    replies = [m["content"].lower() for m in transcript.messages
               if m["role"] == "assistant" and tool_core.OPEN not in m["content"]]
    return DualTrial(transcript, user.actions, final, grade_dual(task, final), any("done" in r for r in replies))


# ---------------------------------------------------------------------------------------------
# --- 6. Demos (scripts/06_evaluation.py prints these, after bfcl_lab's demo 1) ---
# ---------------------------------------------------------------------------------------------

def run_all(knobs: Knobs, trials: int, seed: int = 0, tasks: list[Task] = TASKS) -> dict[str, list[Trial]]:
    """Run every task `trials` times; return the trials per task id."""
    return {t.id: [run_trial(t, knobs, seed, n) for n in range(trials)] for t in tasks}


@functools.lru_cache(maxsize=8)
def _run_once(seed: int, trials: int, factor: float) -> dict[str, list[Trial]]:
    return run_all(Knobs().scaled(factor), trials, seed)


def _runs(seed: int, trials: int, factor: float = 1.0) -> dict[str, list[Trial]]:
    """Return the first `trials` trials per task, run once per process: trial n of a task is the same
    conversation whoever asks (its seed is seed:task:n), so demo 2's 8 are the first 8 of demo 4's 16."""
    runs = _run_once(seed, max(trials, DEMO4_TRIALS), factor)
    return {task: ts[:trials] for task, ts in runs.items()}


DEMO4_TRIALS = 16


def mean_estimate(runs: dict[str, list[Trial]], k: int, estimator) -> float:
    """Average an estimator (pass_at_k or pass_hat_k) over the tasks, each from its own n and c."""
    values = [estimator(len(ts), sum(t.success for t in ts), k) for ts in runs.values()]
    return float(sum(values) / len(values))


@tool_core.preformatted
def demo_tau(seed: int = 0, trials: int = 8) -> str:
    """Eight tasks x eight trials: successes by final state vs by 'Done', and pass^k next to pass@k."""
    runs = _runs(seed, trials)
    rows = []
    for task in TASKS:
        ts = runs[task.id]
        c = sum(t.success for t in ts)
        rows.append([task.id, task.title, f"{c}/{len(ts)}", f"{sum(t.said_done for t in ts)}/{len(ts)}",
                     f"{float(pass_hat_k(len(ts), c, 1)):.2f}", f"{float(pass_hat_k(len(ts), c, len(ts))):.2f}",
                     f"{float(pass_at_k(len(ts), c, 4)):.2f}"])
    total = sum(len(ts) for ts in runs.values())
    by_state = sum(t.success for ts in runs.values() for t in ts)
    by_done = sum(t.said_done for ts in runs.values() for t in ts)
    refusal = runs["T5"]
    done_wrong = sum(t.said_done and any(c.ok and c.name == "issue_credit" for c in t.transcript.calls)
                     for t in refusal)
    ks = range(1, min(len(ts) for ts in runs.values()) + 1)
    tool_core.record(tool_core.Chart(
        "06_pass_k", "Reliable every time vs capable at least once", "k (trials)",
        f"mean over the {len(TASKS)} tasks (0 to 1)", [str(k) for k in ks],
        [("pass^k: all k trials succeed", [float(mean_estimate(runs, k, pass_hat_k)) for k in ks]),
         ("pass@k: at least one succeeds", [float(mean_estimate(runs, k, pass_at_k)) for k in ks])],
        f"scripts/06_evaluation.py, demo 2 (seed {seed}): service_env.mean_estimate over {trials} trials per task",
        kind="lines", y_max=1))
    return "\n".join([
        f"The agent has {len(service_registry(ServiceDB()).names())} tools; its system prompt opens with the policy "
        f"the grader holds it to, {len(POLICY.splitlines()) - 1} rules (each task tests one):",
        *("  " + line for line in POLICY.splitlines()[1:]),
        "",
        f"{len(TASKS)} tasks x {trials} trials; the toy agent's knobs: {_knob_text(Knobs())}.",
        *textwrap.wrap("Each knob is the chance per trial that the agent makes one mistake: " + "; ".join(
            f"{name.replace('_', ' ')}: {words}" for name, words in KNOB_WORDS.items()) + ".", 116),
        format_table(["task", "what", "state-based", "said 'Done'", "pass^1", f"pass^{trials}", "pass@4"], rows),
        f"Success by final database state: {by_state}/{total} = {by_state / total:.1%}; by the agent saying 'Done': "
        f"{by_done}/{total} = {by_done / total:.1%}.",
        f"T5's right answer is to refuse: of its {sum(t.said_done for t in refusal)} 'Done's, {done_wrong} came with a "
        "credit the policy forbids.",
        f"Mean over tasks: pass^1 = {mean_estimate(runs, 1, pass_hat_k):.2f}, pass^{trials} = "
        f"{mean_estimate(runs, trials, pass_hat_k):.2f}, pass@4 = {mean_estimate(runs, 4, pass_at_k):.2f}: "
        "capable at least once, not reliable every time.",
        _estimator_text(),
        "", chart(runs)])


def _estimator_text() -> str:
    """Write the two estimators' definitions, with lecture 000's worked example computed."""
    n, c, k = 8, 4, 4
    return "\n".join([
        "From n trials with c successes: pass^k = C(c, k)/C(n, k), the chance that k of the n trials, drawn without",
        "replacement, all succeed (tau-bench); pass@k = 1 - C(n-c, k)/C(n, k), the chance that at least one does.",
        f"Lecture 000's worked example, c = {c} of n = {n}: pass^{k} = C({c}, {k})/C({n}, {k}) = "
        f"{pass_hat_k(n, c, k)} = {float(pass_hat_k(n, c, k)):.3f}, while pass@{k} = 1 - C({n - c}, {k})/C({n}, {k}) = "
        f"{pass_at_k(n, c, k)} = {float(pass_at_k(n, c, k)):.3f}.",
        "(C(n, k), the handout's binomial coefficient, is the number of ways to choose k of n things.)"])


def _knob_text(knobs: Knobs) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {v:g}" for k, v in knobs.__dict__.items())


def chart(runs: dict[str, list[Trial]], width: int = 30) -> str:
    """Draw pass^k and pass@k against k as ASCII bars (mean over tasks), both at one scale: 1.00 is `width` #s."""
    n = min(len(ts) for ts in runs.values())
    lines = [f"k   {'pass^k':<{width + 8}}pass@k"]
    for k in range(1, n + 1):
        hat, at = mean_estimate(runs, k, pass_hat_k), mean_estimate(runs, k, pass_at_k)
        # one scale for both: at k = 1 they are the same number (c/n), so they must be the same bar
        lines.append(f"{k:<3} {'#' * round(hat * width):<{width}} {hat:.2f}   {'#' * round(at * width):<{width}} {at:.2f}")
    return "\n".join(lines)


@tool_core.preformatted
def demo_failure_modes(seed: int = 0, trials: int = 8) -> str:
    """Count the failure modes of the trials by unit, and print one failing trajectory in full."""
    runs = _runs(seed, trials)
    every = [t for ts in runs.values() for t in ts]
    rows = [[unit, mode, _mode_count(mode, runs), meaning] for unit, mode, meaning in FAILURE_MODES]
    guessed = next((t for t in every if "guessed instead of asking" in t.modes and not t.success), None)
    out = [f"{len(every)} trials of {len(runs)} tasks; each mode read off each trajectory (a trial may show several), "
           "non-determinism off each task's trials:",
           format_table(["unit", "failure mode", "count", "how it shows"], rows)]
    if guessed:
        calls_ok = all(c.ok for c in guessed.transcript.calls)
        out += ["", f"A failing trial of {guessed.task.id} ({guessed.task.title}), every call "
                    f"{'valid and successful' if calls_ok else 'not all successful'}:",
                guessed.transcript.render(),
                f"final state: {guessed.reason}",
                "Every call was well-formed and passed its schema: an AST grader sees nothing wrong. Only the state, or a",
                "check that the agent asked as the policy says, shows the failure."]
    return "\n".join(out)


def _mode_count(mode: str, runs: dict[str, list[Trial]]) -> str:
    """Count a mode where it belongs: trials that show it, or (non-determinism) tasks whose trials disagree."""
    if mode == "non-determinism":
        n = sum(non_deterministic(ts) for ts in runs.values())
        return f"{n} of {len(runs)} tasks"
    n = sum(mode in t.modes for ts in runs.values() for t in ts)
    return f"{n} trial{'s' * (n != 1)}"


@tool_core.preformatted
def demo_halved(seed: int = 0, trials: int = DEMO4_TRIALS) -> str:
    """Halve every failure rate: pass^k moves, pass@k barely can; and how many trials a pass^8 estimate needs."""
    rows, series = [], []
    for label, factor in (("as before", 1.0), ("every rate halved", 0.5)):
        runs = _runs(seed, trials, factor)
        figures = [mean_estimate(runs, 1, pass_at_k), mean_estimate(runs, 8, pass_hat_k), mean_estimate(runs, 4, pass_at_k)]
        rows.append([label, *(f"{f:.2f}" for f in figures)])
        series.append((label, [float(f) for f in figures]))
    tool_core.record(tool_core.Chart(
        "06_halved_failures", "Every failure rate halved: pass^8 moves, pass@4 cannot", "estimate",
        f"mean over the {len(TASKS)} tasks (0 to 1)", ["pass@1", "pass^8", "pass@4"], series,
        f"scripts/06_evaluation.py, demo 4 (seed {seed}): service_env.demo_halved, {trials} trials per task", y_max=1))
    spread = [[n, f"{_spread(0.9, n, 8):.2f}"] for n in (8, 16, 32, 64)]
    before = mean_estimate(_runs(seed, 8), 1, pass_at_k)
    return "\n".join([
        f"{len(TASKS)} tasks x {trials} trials each: twice demo 2's 8, for steadier estimates. Demo 2's trials are the "
        "first 8 of these,",
        f"so \"as before\" is demo 2's agent measured on {trials}: its pass@1 differs from demo 2's ({before:.2f}) by "
        f"the {trials - 8} extra trials alone.",
        format_table(["agent", "pass@1", "pass^8", "pass@4"], rows),
        "pass@4 was already near 1, so it cannot show the improvement; pass^8 shows it.",
        "",
        f"A task that succeeds 90% of the time has pass^8 = 0.9^8 = {0.9 ** 8:.2f}. The estimate from n trials is unbiased,",
        "but with n = 8 a single failure makes it 0; its standard deviation over repeated experiments:",
        format_table(["trials n", "sd of the pass^8 estimate"], spread)])


def _spread(p: float, n: int, k: int) -> float:
    """Return the exact standard deviation of the pass^k estimate from n trials of a task with success rate p."""
    probs = [comb(n, c) * p ** c * (1 - p) ** (n - c) for c in range(n + 1)]
    values = [float(pass_hat_k(n, c, k)) for c in range(n + 1)]
    mean = sum(q * v for q, v in zip(probs, values))
    return sum(q * (v - mean) ** 2 for q, v in zip(probs, values)) ** 0.5


DUAL_TRIALS = 8


@tool_core.preformatted
def demo_dual_control(seed: int = 0, trials: int = DUAL_TRIALS, knobs: DualKnobs | None = None) -> str:
    """tau2-bench's dual control: a task only the customer can finish, guided by the agent; both sides graded."""
    if not isinstance(trials, int) or isinstance(trials, bool) or trials < 1:
        raise ValueError(f"trials must be a whole number, at least 1, got {trials!r}")
    knobs = DualKnobs() if knobs is None else knobs
    if not isinstance(knobs, DualKnobs):
        raise TypeError(f"knobs must be a DualKnobs, got {type(knobs).__name__}")
    runs = [run_dual_trial(knobs, seed, n) for n in range(trials)]
    agent_tools, home_tools = dual_registries(DualWorld())
    refused = agent_tools.call("press_radio_button", {"seconds": 1})
    want = DUAL_TASK.expected_state()
    (mid, fields), = DUAL_TASK.grid_changes.items()
    rows = [[n + 1, dual_story(t), f"{len(t.transcript.calls)} + {sum(map(len, t.actions))}",
             *("right" if not t.differences[side] else "wrong" for side in SIDES),
             "yes" if t.said_done else "no", "pass" if t.success else "FAIL"] for n, t in enumerate(runs)]
    both, grid_only, done = (sum(map(f, runs)) for f in (lambda t: t.success, lambda t: not t.differences["grid"],
                                                          lambda t: t.said_done))
    out = [
        "tau2-bench, the next version of tau-bench (handout 7.3), adds dual control: the user acts on the world too, "
        "and the",
        f"agent has to guide them. One task here, {DUAL_TASK.id} ({DUAL_TASK.title}), at Orrin Grid, the power company "
        "of demos 2-4; the",
        "customer opens with",
        f'  "{DUAL_TASK.opening}"',
        f"The meter {mid}'s radio has been off since the outage, and only someone at the house can switch it on.",
        f"  the agent's {len(agent_tools)} tools act on Orrin Grid's side:      {', '.join(t.name for t in agent_tools)}",
        f"  the customer's {len(home_tools)} tools act on the meter at home:  {', '.join(t.name for t in home_tools)}",
        f"The agent cannot press the button itself: its call to press_radio_button comes back {refused.error_kind} "
        "(it has no such tool).",
        "The customer does something only when the agent says what to do, and does it as they understood it.",
        "The agent's system prompt opens with its policy:",
        *("  " + line for line in DUAL_POLICY.splitlines()[1:]),
        "The grader compares the final state of both sides with the expected one:",
        f"  Orrin Grid's side:    meter {mid}'s link is {fields['link']} (pair_meter succeeded, with the code on "
        "the meter's screen)",
        f"  the customer's side:  the meter's radio is {want['home']['radio']}, and the ${want['home']['budget_alert']} "
        "budget alert its owner set is still there",
        f"                        (holding the RADIO button {RESET_SECONDS} seconds resets the meter to factory "
        "settings and wipes it)",
        "",
        *textwrap.wrap(f"{trials} trials. Knobs, the chance per trial of each mistake: the agent's own side only "
                       f"{knobs.own_side_only:g} (it works on Orrin Grid's side alone); the customer's misapply "
                       f"{knobs.misapply:g} (holds the button {RESET_SECONDS} seconds) and misread {knobs.misread:g} "
                       "(reads the code with two digits swapped, the first time).", 116),
        format_table(["trial", "what happened (read off the trajectory)", "calls (agent + customer)",
                      "Orrin Grid's side", "customer's side", "said 'Done'", "success"], rows, [0, 40, 0, 0, 0, 0, 0]),
        f"Success with both sides checked: {both}/{trials}; with Orrin Grid's side alone (the agent's database, as "
        f"tau-bench grades): {grid_only}/{trials};",
        f"by the agent saying 'Done': {done}/{trials}.",
    ]
    shown = next((n for n, t in enumerate(runs) if t.said_done and not t.differences["grid"] and t.differences["home"]),
                 next((n for n, t in enumerate(runs) if t.said_done and not t.success), 0))
    t = runs[shown]
    out += ["", f"Trial {shown + 1} in full; [home ] lines are the customer's own tool calls, which the agent never sees "
                "(it sees what they say):",
            t.render(),
            *(f"final state, {SIDES[side]}: {'; '.join(diff) if diff else 'as expected'}"
              for side, diff in t.differences.items()),
            "", *_why_done_is_not_success(runs)]
    return "\n".join(out)


def dual_story(trial: DualTrial) -> str:
    """Say what happened in a dual-control trial, read off its calls and the customer's actions, never off the knobs.

    Example: a trial whose customer held the button 10 seconds -> 'the customer held the button 10 seconds: a
    factory reset'
    """
    if not isinstance(trial, DualTrial):
        raise TypeError(f"dual_story takes a DualTrial (what run_dual_trial returns), got {type(trial).__name__}")
    presses = [args["seconds"] for turn in trial.actions for name, args, _ in turn if name == "press_radio_button"]
    calls = trial.transcript.calls
    parts = []
    if not presses:
        refreshed = any(c.ok and c.name == "refresh_link" for c in calls)
        parts.append("the agent never told the customer what to do" +
                     ("; it refreshed the link from its side" if refreshed else ""))
    parts += [f"the customer held the button {s} seconds: a factory reset" for s in presses if s >= RESET_SECONDS]
    wrong = [c.arguments.get("code") for c in calls if c.name == "pair_meter" and not c.ok]
    if wrong and any(c.ok and c.name == "pair_meter" for c in calls):
        parts.append(f"code {', '.join(map(str, wrong))} read out wrong; the agent asked again, and it matched")
    return "; ".join(parts) or "as it should go"


def _why_done_is_not_success(runs: list[DualTrial]) -> list[str]:
    """Explain, with this run's counts, why an agent's 'Done' (or its own side alone) is not success."""
    unguided = [n + 1 for n, t in enumerate(runs) if t.said_done and not any(turn for turn in t.actions)
                and all(c.ok for c in t.transcript.calls) and any(c.name == "refresh_link" for c in t.transcript.calls)]
    paired = [n + 1 for n, t in enumerate(runs) if t.said_done and not t.differences["grid"] and t.differences["home"]]
    lines = [f"Why a 'Done' alone is not success: the agent said it in {sum(t.said_done for t in runs)} of {len(runs)} "
             f"trials, and {sum(t.success for t in runs)} succeeded."]
    if unguided:
        lines += [f"  {_trials(unguided)}: the agent never told the customer what to do; every call it made succeeded "
                  "and it said 'Done',",
                  "    yet neither side changed: refresh_link only queues settings for a meter that is not listening."]
    if paired:
        lines += [f"  {_trials(paired)}: the meter was paired, so Orrin Grid's side is right and a grader that reads "
                  "only the agent's",
                  f"    database passes {'them' if len(paired) > 1 else 'it'}; the customer's side shows what went wrong "
                  "at the house."]
    lines += ["Only the final state of both sides, the one the agent changed and the one it had to talk the customer "
              "through, says",
              "whether the problem is solved. (tau2-bench's authors report that agents do markedly worse when they "
              "must guide a user",
              "this way than when they may act on everything themselves.)"]
    return lines


def _trials(numbers: list[int]) -> str:
    """Name trials by number. Example: [7] -> 'trial 7'; [2, 4, 6] -> 'trials 2, 4, 6'"""
    return f"trial{'s' * (len(numbers) != 1)} {', '.join(map(str, numbers))}"


# Handout 001, figure by figure: what `scripts/06_evaluation.py --vs-handout` prints for demos 2 to 4
# (bfcl_lab's HANDOUT_06 has demo 1), and README's table
_SEED_MOVES_MEAN = "the seed draws which trials fail, and the mean moves by a few hundredths from seed to seed"
HANDOUT_06: list[HandoutFigure] = [
    HandoutFigure(2, "§7.3", "tools of the mini tau-bench", "5", r"The agent has (\d+) tools",
                  "the lab's environment has six: find_customer, get_account, list_appointments, "
                  "reschedule_appointment, cancel_appointment, issue_credit"),
    HandoutFigure(2, "§7.3", "rules of the policy", "5", r"the policy the grader holds it to, (\d+) rules"),
    HandoutFigure(2, "§7.3", "tasks x trials",
                  "8 tasks, 8 trials each", r"(\d+ tasks x \d+ trials); the toy agent's knobs"),
    HandoutFigure(2, "§7.3", "the toy agent's failure knobs", "six typical failures",
                  r"the toy agent's knobs: (.+)\.$",
                  "a seventh, wrong read, makes handout 000's 'wrong tool selection' (list_appointments where a credit "
                  "needs get_account); it fires after every other draw, so no other figure moves"),
    HandoutFigure(2, "§7.3", "T2 (cancel, confirmed), state-based", "8/8", r"(?m)^T2\s+cancel, confirmed\s+(\d+/\d+)"),
    HandoutFigure(2, "§7.3", "T3 (outage credit), state-based", "8/8", r"(?m)^T3\s+outage credit\s+(\d+/\d+)",
                  "the seed draws which knobs fire in each trial (bad credit 0.4 fired twice in T3 here)",
                  closer="--seed 17: T1, T2, T3, T8 at 8/8 (four tasks, as the handout's pass^8 = 0.50 requires)"),
    HandoutFigure(2, "§7.3", "T8 (which appointment), state-based", "8/8", r"(?m)^T8\s+which appointment\s+(\d+/\d+)"),
    HandoutFigure(2, "§7.3", "success by final database state",
                  "78.1%", r"Success by final database state: \d+/\d+ = ([\d.]+%)",
                  "the seed draws the failures (53/64 here, 50/64 in the handout)",
                  closer="--seed 17: 50/64 = 78.1%"),
    HandoutFigure(2, "§7.3", "success by the agent saying 'Done'",
                  "92.2%", r"by the agent saying 'Done': \d+/\d+ = ([\d.]+%)",
                  "the seed (57/64 here, 59/64 in the handout)",
                  closer="--seed 17: 60/64 = 93.8% (seeds 178, 225, 247, 253, 548, 619, 798 give 78.1% and 92.2% "
                         "exactly, with pass^8 0.50, but T5 with 3 'Done's)"),
    HandoutFigure(2, "§7.3", "T5 (credit to refuse): trials where the agent said 'Done'",
                  "4, every one with a forbidden credit", r"of its (\d+) 'Done's",
                  "the seed: bad credit (0.4) fired once in T5's 8 trials here; that one 'Done' also came with the "
                  "credit",
                  closer="--seed 17: 4 'Done's, 4 with a credit the policy forbids"),
    HandoutFigure(2, "§7.3", "mean pass^1", "0.78", r"Mean over tasks: pass\^1 = ([\d.]+)",
                  "the seed (the same successes as the state-based rate)",
                  closer="--seed 17: 0.78"),
    HandoutFigure(2, "§7.3", "mean pass^8", "0.50", r"pass\^8 = ([\d.]+), pass@4",
                  "the seed: with 8 trials a task's pass^8 is 1 or 0, so the mean is the share of tasks at 8/8 (3 of"
                  " 8 here); the handout's 0.50 needs four tasks at 8/8, though it names three",
                  closer="--seed 17: 0.50"),
    HandoutFigure(2, "§7.3", "mean pass@4", "almost 1", r"pass@4 = ([\d.]+): capable"),
    HandoutFigure(3, "§8", "trials classified", "64", r"(\d+) trials(?: of \d+ tasks)?; (?:each mode|modes) read off"),
    HandoutFigure(3, "§8", "skipped the lookup and invented an id",
                  "3", r"(?m)^single call\s+invented argument\s+(\d+)",
                  "the seed (invent id fires with 0.02 per trial)",
                  closer="--seed 181: 3 (with 1 repeated call, 0 wrong actions)"),
    HandoutFigure(3, "§8", "repeated a failing call unchanged",
                  "1", r"(?m)^multi-step\s+repeated failing call\s+(\d+)",
                  "the seed (retry failing 0.03)",
                  closer="--seed 362 or 544: 1 (with 1 wrong action)"),
    HandoutFigure(3, "§8", "cancelled instead of rescheduling", "1", r"(?m)^multi-step\s+wrong action\s+(\d+)",
                  "the seed (cancel instead 0.03); the lab names the mode 'wrong action'",
                  closer="--seed 362 or 544: 1"),
    HandoutFigure(3, "§8", "policy violations: weekend bookings + bad credits (+ unconfirmed cancels)",
                  "3 weekday + 6 credit = 9", r"(?m)^conversation\s+policy violation\s+(\d+)",
                  "the seed, and a design choice: the lab reads one 'policy violation' mode off the trajectory, "
                  "covering weekend bookings, bad credits and unconfirmed cancels (here 2 weekend bookings and 3 bad"
                  " credits, counted in a scratch script)",
                  closer="--seed 17: 9; --seed 362: 3 weekend bookings and 6 bad credits, the handout's split"),
    HandoutFigure(3, "§8", "guessed an ambiguous date instead of asking",
                  "4", r"(?m)^conversation\s+guessed instead of asking\s+(\d+)"),
    HandoutFigure(3, "§8", "T7 trajectory: the user's turn",
                  "Gil Varga. Move my appointment to sometime next week.", r"\[user \] (Gil Varga\. .+)"),
    HandoutFigure(3, "§8", "T7 trajectory: find_customer's result",
                  "C-107", r'"customer_id": "(C-\d+)"\}</tool_result>'),
    HandoutFigure(3, "§8", "T7 trajectory: get_account's outage_logged", "True", r'"outage_logged": (\w+)'),
    HandoutFigure(3, "§8", "T7 trajectory: list_appointments' result",
                  "['A-1007']", r'\[\{"appointment_id": "(A-\d+)"'),
    HandoutFigure(3, "§8", "T7 trajectory: the date the agent picked", "2026-10-19", r'"new_date": "([\d-]+)"'),
    HandoutFigure(3, "§8", "T7 trajectory: the agent's last words",
                  "Done! Your request has been completed.", r"\[model\] (Done! .+)"),
    HandoutFigure(3, "§8", "T7 expected date (what the user gives when asked)",
                  "2026-10-28", r"where \{'date': '([\d-]+)'\} was expected"),
    HandoutFigure(3, "§8", "T7: every call valid", "every call valid", r"every call (valid and successful):"),
    HandoutFigure(4, "§7.3", "trials per task when the rates are halved", "16", r"\d+ tasks x (\d+) trials each"),
    HandoutFigure(4, "§7.3", "pass@1 as before (16 trials)", "0.79", r"(?m)^as before\s+([\d.]+)", _SEED_MOVES_MEAN,
                  closer="--seed 17: 0.80; --seed 36 or 241: 0.79"),
    HandoutFigure(4, "§7.3", "pass@1 with every rate halved", "0.92", r"(?m)^every rate halved\s+([\d.]+)",
                  _SEED_MOVES_MEAN,
                  closer="--seed 17: 0.91; --seed 36: 0.90 (no seed in 0-299 gives 0.79 -> 0.92 together with 0.47 "
                         "-> 0.55; seed 36 comes closest: 0.79 -> 0.90, 0.45 -> 0.57)"),
    HandoutFigure(4, "§7.3", "pass^8 as before (16 trials)", "0.47", r"(?m)^as before\s+[\d.]+\s+([\d.]+)",
                  "the seed; 16 trials give a task pass^8 = C(c, 8)/C(16, 8), which a single trial moves a lot",
                  closer="--seed 17: 0.45; --seed 36: 0.45"),
    HandoutFigure(4, "§7.3", "pass^8 with every rate halved", "0.55", r"(?m)^every rate halved\s+[\d.]+\s+([\d.]+)",
                  _SEED_MOVES_MEAN,
                  closer="--seed 149: 0.54 (0.44 before); --seed 36: 0.57"),
    HandoutFigure(4, "§7.3", "pass@4 as before (the handout: already near 1)",
                  "near 1", r"(?m)^as before\s+[\d.]+\s+[\d.]+\s+([\d.]+)"),
    HandoutFigure(4, "§7.3", "pass^8 of a task that succeeds 90% of the time",
                  "0.9^8 ≈ 43%", r"pass\^8 = 0\.9\^8 = (\d\.\d+)"),
    HandoutFigure(4, "§7.3", "pass^8 from 8 trials after one failure",
                  "0", r"(with n = 8 a single failure makes it 0)"),
    HandoutFigure(2, "§11", "success by state (the pitfall list repeats it)",
                  "78.1%", r"Success by final database state: \d+/\d+ = ([\d.]+%)",
                  "the seed, as in §7.3",
                  closer="--seed 17: 78.1%"),
    HandoutFigure(2, "§11", "success by the agent's message (the pitfall list repeats it)",
                  "92.2%", r"by the agent saying 'Done': \d+/\d+ = ([\d.]+%)",
                  "the seed, as in §7.3",
                  closer="--seed 17: 93.8%; seeds 178, 225, 247, 253, 548, 619, 798: 92.2%"),
]
