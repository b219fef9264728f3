"""The ten exercises of handout 001 (section 12), each with a worked answer computed by the lab's code: the key.

Each exercise prints its question in one line (the handout's, shortened; README.md's "Exercises" section says
where to try it), then an answer that calls the lab: exercise 1 toolformer_lab.usefulness, 3 both parsers, 5 a
sandboxed copy of the Cardinal API with a new parameter, 7 pass_at_k and pass_hat_k, 8 service_env.classify, and
so on. No figure in an answer is typed in by hand: change the lab and the key changes with it.

  python3 scripts/exercises.py        all ten
  python3 scripts/exercises.py 7      only exercise 7

Offline and deterministic (no seed to choose: every simulated model the answers use is scripted); all ten take
about half a second, imports included. Exercise 5 starts the Cardinal API on 127.0.0.1 (an ephemeral port,
stopped before it returns).

Seven coding exercises, numbered on their own (listed below), come with starter code and an autograder that runs
the lab's own test table for the idea (tests/exercise_tables.py) on a student's file:

  python3 scripts/exercises.py --start 5 my_answers                  write my_answers/exercise_5.py (TODOs)
  python3 scripts/exercises.py --check 5 my_answers/exercise_5.py    every row: ok, or expected and actual
  python3 scripts/exercises.py --check 5 --lab                       the same rows on the lab's own code
"""
import argparse
import copy
import dataclasses
import importlib.util
import math
import numbers
import sys
import textwrap
import traceback
import types
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # exercise_tables: the rows the checks share

import exercise_tables  # noqa: E402

import interfaces  # noqa: E402
import service_env  # noqa: E402
import tool_catalog  # noqa: E402
import tool_core  # noqa: E402
import toolformer_lab  # noqa: E402
from tool_core import ScriptedLM, call_text, format_table, run_agent  # noqa: E402

WIDTH = 116  # the prose of every answer wraps here, as the demos' text does


def say(*parts: str) -> str:
    """Join sentences into one paragraph wrapped at WIDTH (tables and transcripts are printed as they are)."""
    return textwrap.fill(" ".join(parts), WIDTH)


# --- 1-2. Toolformer's filter -------------------------------------------------------------------


def exercise_1() -> str:
    """L(eps) = 4.0, L(e(c, eps)) = 3.0, L(e(c, r)) = 2.6 at tau = 1.0, with the paper's L- and with L(eps) alone."""
    L_eps, L_call, L_result, tau = 4.0, 3.0, 2.6, 1.0
    candidate = toolformer_lab.Candidate(0, 0, "Calculator", {}, False, "r", L_eps, L_call, L_result)
    kept = bool(toolformer_lab.keep([candidate], tau))
    alone = toolformer_lab.usefulness(L_eps, L_call, L_result, with_call_alone=False)
    return "\n".join([
        f"The paper: L- = min(L(eps), L(e(c, eps))) = min({L_eps}, {L_call}) = {min(L_eps, L_call)}, L+ = L(e(c, r)) = "
        f"{L_result}.",
        f"  usefulness({L_eps}, {L_call}, {L_result}) = {candidate.gain:.1f} {'>=' if kept else '<'} tau = {tau}: "
        f"{'kept' if kept else 'dropped'} (toolformer_lab.keep).",
        f"L- = L(eps) alone: usefulness({L_eps}, {L_call}, {L_result}, with_call_alone=False) = {L_eps} - {L_result} = "
        f"{alone:.1f} {'>=' if alone >= tau else '<'} tau: {'kept' if alone >= tau else 'dropped'}.",
        say(f"What the difference says: writing the call without its result already lowers the loss by "
            f"{L_eps - L_call:.1f} nats (the question itself helps predict the text); the result adds only "
            f"{L_call - L_result:.1f}. L(eps) alone would credit the call with what merely writing it did; the min "
            "keeps only what the result contributes.")])


class PerTokenCandidate(toolformer_lab.Candidate):
    """A candidate whose gain is L- - L+ per token of its result: the exercise's fairer criterion."""

    @property
    def gain(self) -> float:
        """Return usefulness divided by the number of tokens in the result."""
        return super().gain / max(1, len(toolformer_lab.tokenize(self.result or "")))


def _gains(candidates: list, tool: str) -> tuple[float, float, int]:
    """(lowest gain, highest gain, result tokens) of a tool's right candidates."""
    right = [c for c in candidates if c.gold and c.tool == tool]
    sizes = {len(toolformer_lab.tokenize(c.result)) for c in right}
    return min(c.gain for c in right), max(c.gain for c in right), max(sizes)


def exercise_2() -> str:
    """Why tau = 2.0 drops the calculator first, and a gain per result token rerun through the same sweep."""
    run = toolformer_lab.toolformer_pipeline(0)
    fields = [f.name for f in dataclasses.fields(toolformer_lab.Candidate)]
    per_token = [PerTokenCandidate(**{f: getattr(c, f) for f in fields}) for c in run.candidates]
    tools = ("Calculator", "QA", "Calendar")
    rows = []
    for tool in tools:
        low, high, size = _gains(run.candidates, tool)
        p_low, p_high, _ = _gains(per_token, tool)
        rows.append([tool, size, f"{low:.2f}-{high:.2f}", f"{p_low:.2f}-{p_high:.2f}"])
    header = ["tau", "kept", "Calculator", "QA", "Calendar", "useless"]
    at_2 = next(r for r in toolformer_lab.sweep_rows(run.candidates) if r[0] == "2")
    calc, qa, calendar = (_gains(per_token, tool) for tool in tools)
    overlap = calc[0] <= qa[1] and qa[0] <= calc[1]
    return "\n".join([
        "The right calls of script 02's corpus, their result lengths and gains (nats):",
        format_table(["tool", "result tokens", "L- - L+", "per result token"], rows), "",
        say(f"At tau = 2.0 the sweep keeps Calculator {at_2[2]}, QA {at_2[3]}, Calendar {at_2[4]}: the loss is summed "
            "over the five weighted tokens after the call, and a one-token number can lower only the first of them, "
            "while a two-token name or a date lowers several. A loss-based filter favours long, informative results."),
        "",
        say("A fairer criterion: divide the gain by the result's length (PerTokenCandidate overrides Candidate.gain), "
            "and rerun the sweep:"),
        format_table(header, toolformer_lab.sweep_rows(per_token)), "",
        say(f"Per token, the calculator ({calc[0]:.2f}-{calc[1]:.2f}) and QA ({qa[0]:.2f}-{qa[1]:.2f})",
            "overlap: no threshold drops one before the other." if overlap else "still do not overlap.",
            f"Its cost: the right Calendar calls now gain at most {calendar[1]:.2f} per token, so any tau above that "
            f"and up to {min(calc[0], qa[0]):.2f} drops them all and keeps the others: {calendar[2]} tokens, of which "
            "the commas and the year are easy to predict, dilute the gain. The fix moved the bias; it did not remove "
            "it.")])


# --- 3-4. The harness: parsing and error messages -------------------------------------------------


def exercise_3() -> str:
    """The call with no closing tag, through the regex parser, the robust parser and the loop."""
    text = tool_core.PARSER_CASES[1][1]  # script 03's case 2, the handout's string
    regex = tool_core.parse_tool_calls_regex(text)
    parsed = tool_core.parse_tool_calls(text)
    error = parsed.errors[0]
    registry, _ = tool_core.orrin_grid_registry()
    fixed = call_text("get_incident", {"code": "E-1474"})
    lm = ScriptedLM([text, fixed, "E-1474 was caused by a tree branch across the 11 kV feeder."])
    t = run_agent(lm, registry, "What caused E-1474?")
    return "\n".join([
        f"The reply: {text!r}",
        f"parse_tool_calls_regex -> {regex!r}: no call and no error, so a harness would take \"I'll check.\" as the "
        "final answer.",
        f"parse_tool_calls -> {len(parsed.calls)} calls, 1 ParseError of kind {error.kind!r}, outside text "
        f"{parsed.text!r}:",
        f"  {error.message}",
        say("What the harness should do: neither guess the missing tag nor run the call, but send the error back as a "
            "result and let the model write the call again (run_agent does; the model here rewrites it whole):"),
        t.render()])


def _last_sentence(message: str) -> str:
    sentences = [s for s in message.replace("? ", "?|").replace(". ", ".|").split("|") if s]
    return sentences[-1]


def exercise_4() -> str:
    """The three error messages, and the handout's create_ticket without priority next to the lab's without summary."""
    registry, grid = tool_core.orrin_grid_registry()
    cases = [("(a) a tool that does not exist", "get_weather", {"city": "Stanford"}),
             ("(b) the handout's: no priority", "create_ticket", {"substation_id": "SS-218", "summary": "relay trips"}),
             ("(b) the lab's: no summary", "create_ticket", {"substation_id": "SS-218", "priority": "high"}),
             ("(c) a valid call, the back end times out", "get_incident", {"code": "E-0931"})]
    out = []
    for label, name, arguments in cases:
        result = registry.call(name, arguments)
        kind = "ok" if result.ok else result.error_kind + (" (retryable)" if result.retryable else "")
        out += [f"{label}: {name}({tool_core.show(arguments, 80)}) -> {kind}",
                f"  {result.message if not result.ok else tool_core.show(result.content, 100)}"]
        if not result.ok:
            out.append(f"  what it asks of the model: {_last_sentence(result.message)}")
    tickets = ", ".join(t["ticket"] + " priority " + t["priority"] for t in grid.tickets)
    return "\n".join(out + [
        say(f"Tickets written: {len(grid.tickets)} ({tickets}): priority has a default, so (b) as the handout writes "
            "it succeeds; the call without summary never ran."),
        say("Their purposes: (a) lists the real tools and the closest name, so the model picks one or answers "
            "directly; (b) names the missing field and says nothing ran, so the model fixes the call; (c) says the "
            "failure is temporary (retryable), so a retry may work, and a harness may retry it itself.")])


# --- 5-6. Interfaces and retrieval ---------------------------------------------------------------

OFFICES = {"P-101": "Oslo", "P-102": "Lisbon", "P-103": "Oslo", "P-104": "Lisbon", "P-105": "Lisbon"}


class OfficeAPI(interfaces.CardinalAPI):
    """A sandboxed copy of the Cardinal API whose backend has gained an optional `office` filter on GET /people.

    The change is made on this instance only (its people and its own OpenAPI document), as exercise 5 asks:
    list_people honours ?office=, and the document it serves declares the parameter.
    """

    def __init__(self) -> None:
        super().__init__(token="exercise-5")
        for person in self.people:
            person["office"] = OFFICES[person["id"]]
        self.spec["paths"]["/people"]["get"]["parameters"].append(
            {"name": "office", "in": "query", "description": "only people of this office", "schema": {"type": "string"}})

    def list_people(self, query: dict, body: object) -> tuple[int, object]:
        """GET /people?team=&limit=&office=: the original handler, then the office filter."""
        status, found = super().list_people({k: v for k, v in query.items() if k != "office"}, body)
        if status == 200 and "office" in query:
            found = [p for p in found if p["office"] == query["office"]]
        return status, found


def _names(content: object) -> str:
    return ", ".join(p["name"] for p in content) if isinstance(content, list) else tool_core.show(content)


def exercise_5() -> str:
    """A new optional office parameter on the REST side, the MCP tools not regenerated."""
    api = OfficeAPI()
    keys = {"ApiKeyAuth": api.token}
    ask = {"team": "platform", "office": "Oslo"}
    with interfaces.CardinalServer(api) as server:
        stale = tool_core.ToolRegistry(interfaces.openapi_to_tools(interfaces.cardinal_openapi(), server.url,
                                                                   credentials=keys))
        before = len(api.requests)
        refused = stale.call("list_people", ask)
        sent = len(api.requests) - before
        fresh = tool_core.ToolRegistry(interfaces.openapi_to_tools(interfaces.fetch_openapi(server.url), server.url,
                                                                   credentials=keys))
        answered = fresh.call("list_people", ask)
    old = interfaces.CardinalAPI(token="old")
    _, ignored = old.handle("GET", "/people?team=platform&office=Oslo", {interfaces.API_KEY_HEADER: "old"}, b"")
    return "\n".join([
        f"The backend now filters GET /people by ?office= (people in {sorted(set(OFFICES.values()))}); the tools were "
        "generated from the old document.",
        f"Stale tools, list_people({tool_core.show(ask)}): {refused.error_kind}, {sent} requests sent:",
        f"  {refused.message}",
        f"Regenerated from /openapi.json, parameters {sorted(fresh.get('list_people').parameters['properties'])}: "
        f"{_names(answered.content)}.",
        say(f"Without the schema's check, the old tolerant backend would have answered the same query with "
            f"{_names(ignored)}: the filter silently ignored."),
        say("Good or bad? Both. Good: additionalProperties false makes the stale contract fail loudly, before any "
            "request, with a message the model can act on, instead of a silently wrong answer. Bad: the new feature is "
            "invisible to the model until the server regenerates its tools (and an MCP server announces "
            "notifications/tools/list_changed).")])


def _operation_synonyms() -> dict[str, list[str]]:
    """Map each synonym the catalog's naming habit uses (tool_catalog.INVENTED) to the operation's own words.

    Example: 'retire' -> ['archive'] (archive_X is the tool; retire_X the name a model invents)
    """
    synonyms = {}
    for operation, invented in tool_catalog.INVENTED.items():
        made_up = tool_catalog.tokenize(invented.format(o="obj"))  # e.g. get_obj_state: get, obj, state
        real = tool_catalog.tokenize(tool_catalog.OPERATIONS[operation][0].format(o="obj"))  # get, obj, status
        only_real = [w for w in real if w not in made_up]
        synonyms |= {word: only_real for word in made_up if word not in real and only_real}
    return synonyms


def _stem(words: list[str]) -> list[str]:
    """Strip a plural s (the simplest stemmer). Example: ['meters', 'status'] -> ['meter', 'status']"""
    return [w[:-1] if w.endswith("s") and not w.endswith("ss") and not w.endswith("us") and len(w) > 3 else w
            for w in words]


def _recall(tools: list, requests: list, words, k: int, paraphrased: bool) -> float:
    """Share of requests whose gold tool is in BM25's top k, both sides tokenized with words(tokens)."""
    index = tool_catalog.BM25Index([words(tool_catalog.tool_document(t)) for t in tools])
    chosen = [r for r in requests if r.paraphrased == paraphrased]
    hits = sum(any(tools[d].name == r.tool for d, _ in index.top_k(words(tool_catalog.tokenize(r.text)), k))
               for r in chosen)
    return hits / len(chosen)


def exercise_6() -> str:
    """Two improvements to BM25 tool retrieval on the paraphrased requests, and what each costs."""
    catalog = tool_catalog.orrin_catalog()
    tools = [c.tool for c in catalog]
    requests = tool_catalog.catalog_requests(catalog, 0)
    synonyms = _operation_synonyms()
    variants = [("BM25 as in script 05", lambda w: w),
                ("+ synonyms (INVENTED's words)", lambda w: w + [s for x in w for s in synonyms.get(x, ())]),
                ("+ plural stemming", _stem)]
    counts = tool_catalog.tool_token_counts(tools)
    retriever = tool_catalog.ToolRetriever(tools)
    tokens = {k: sum(tool_catalog.prompt_tokens(retriever.search(r.text, k), r.text, counts) for r in requests)
              / len(requests) for k in (3, 10)}
    rows = [[label, f"{_recall(tools, requests, words, 3, True):.0%}", f"{_recall(tools, requests, words, 3, False):.0%}",
             f"{_recall(tools, requests, words, 10, True):.0%}"] for label, words in variants]
    plural = [t.name for t in tools if "meters" in tool_catalog.tool_document(t)]
    singular = sum("meter" in _stem(tool_catalog.tool_document(t)) for t in tools)
    return "\n".join([
        f"{len(requests)} requests, {sum(r.paraphrased for r in requests)} paraphrased; recall = the gold tool is among "
        "the top k.",
        format_table(["retriever", "top 3, paraphrased", "top 3, original", "top 10, paraphrased"], rows), "",
        say("1. Synonyms, added to the tokens of both the request and the tool:",
            ", ".join(f"{a} -> {' '.join(b)}" for a, b in synonyms.items()) + ".",
            "Cost: a list to write and keep for every operation, and it helps only with the words it lists: the "
            "paraphrases mostly say others ('doing', 'happened', 'where')."),
        say(f"2. A larger k: top 10 instead of top 3. Cost: about {tokens[10]:.0f} tokens per request instead of "
            f"{tokens[3]:.0f}, and ten near-duplicates for the model to choose among (script 05, demo 2: accuracy "
            "falls as tools share the context)."),
        say(f"Stemming, the obvious third, hurts at top 3: 'meters' is in {len(plural)} tool documents "
            f"({', '.join(plural)}), 'meter' in {singular} after stemming, so the plural that told those two apart "
            "stops counting. Embeddings would learn that 'doing' is close to 'status'; their cost is a model and a "
            "vector index to run.")])


# --- 7-8. Evaluation: pass@k, pass^k, failure modes ------------------------------------------------


def _formula(name: str, n: int, c: int, k: int) -> str:
    if name == "pass@k":
        value = service_env.pass_at_k(n, c, k)
        return (f"pass@{k} = 1 - C({n - c}, {k})/C({n}, {k}) = 1 - {math.comb(n - c, k)}/{math.comb(n, k)} = "
                f"{value} = {float(value):.3f}")
    value = service_env.pass_hat_k(n, c, k)
    return f"pass^{k} = C({c}, {k})/C({n}, {k}) = {math.comb(c, k)}/{math.comb(n, k)} = {value} = {float(value):.3f}"


def exercise_7() -> str:
    """pass@1, pass@3, pass^1, pass^3 for n = 10, c = 8; then pass^3 from 3 trials, all successful."""
    n, c = 10, 8
    lines = [f"n = {n} trials, c = {c} successes (service_env.pass_at_k and pass_hat_k, exact fractions):"]
    lines += [f"  {_formula(name, n, c, k)}" for name in ("pass@k", "pass^k") for k in (1, 3)]
    p = Fraction(c, n)  # suppose the task's true success rate is what the 10 trials measured
    weight = {s: math.comb(3, s) * p ** s * (1 - p) ** (3 - s) for s in range(4)}  # s successes of 3: Binomial(3, p)
    estimate = {s: service_env.pass_hat_k(3, s, 3) for s in range(4)}
    mean = sum(weight[s] * estimate[s] for s in weight)
    sd = math.sqrt(sum(weight[s] * estimate[s] ** 2 for s in weight) - mean ** 2)
    all_three = weight[3]
    return "\n".join(lines + [
        f"3 trials, all 3 successful: {_formula('pass^k', 3, 3, 3)}.",
        say(f"Trust it? No. With n = k the estimate can only be 0 or 1. A task that succeeds {p} of the time "
            f"(pass^3 = ({p})^3 = {float(p ** 3):.3f}) shows 3 of 3 with probability {float(all_three):.3f}: the "
            f"estimate is unbiased (mean {float(mean):.3f}) but its standard deviation is {sd:.2f}. pass^3 from the "
            f"10 trials ({float(service_env.pass_hat_k(n, c, 3)):.3f}) averages over C(10, 3) = {math.comb(10, 3)} "
            "triples instead of one.")])


_UNIT = {mode: unit for unit, mode, _ in service_env.FAILURE_MODES}


def _classified(task_id: str, turns: list[list[str]], user_says: list[str]) -> tuple[list[str], bool, str, object]:
    """Play a scripted agent through service_env's tools, one run_agent per user message; classify the trajectory.

    turns: the agent's replies for each user message (the task's opening, then each of user_says).
    Returns (the modes, whether the state is the expected one, the state's difference, the transcript).
    """
    task = next(t for t in service_env.TASKS if t.id == task_id)
    db = service_env.ServiceDB()
    registry = service_env.service_registry(db)
    lm = ScriptedLM([reply for turn in turns for reply in turn])
    system = service_env.POLICY + "\n\n" + tool_core.render_tool_prompt(registry)
    transcript = None
    for message in [task.opening, *user_says]:
        transcript = run_agent(lm, registry, message, system=system, transcript=transcript)
    final = db.snapshot()
    ok = service_env.comparable(final) == task.expected_state()
    return (service_env.classify(task, transcript, final), ok,
            "; ".join(service_env.state_diff(final, task.expected_state())), transcript)


def exercise_8() -> str:
    """The handout's four failures as this lab's customer service sees them, classified by service_env.classify."""
    done = "Done! Your request has been completed."
    find = {"T2": call_text("find_customer", {"name": "Ana Reyes"}), "T3": call_text("find_customer", {"name": "Maren Holt"})}
    cancel_a9 = call_text("cancel_appointment", {"appointment_id": "A-9"})
    cases = [  # (label, the mode it was written to exercise, task, the agent's replies per user turn, user turns)
        ("(a) a credit asked, list_appointments called (the handout: get_meter_history for a bill)",
         "wrong tool selection", "T3",
         [[find["T3"], call_text("list_appointments", {"customer_id": "C-118"}),
           call_text("get_account", {"customer_id": "C-118"}),
           call_text("issue_credit", {"customer_id": "C-118", "amount": 40, "reason": "outage"}), done]], []),
        ("(b) issue_credit(amount=4000) for the customer's $40: cents where the schema says dollars",
         "none: the table has no row for an argument's units", "T3",
         [[find["T3"], call_text("get_account", {"customer_id": "C-118"}),
           call_text("issue_credit", {"customer_id": "C-118", "amount": 4000, "reason": "outage"}), done]], []),
        ("(c) cancel_appointment A-9 fails ('no appointment'), and is called again unchanged",
         "repeated failing call", "T2",
         [[find["T2"], call_text("list_appointments", {"customer_id": "C-212"}),
           "Please confirm: shall I cancel appointment A-9?"], [cancel_a9, cancel_a9, cancel_a9, done]],
         ["Yes, please cancel it."]),
        ("(d) 'cancel it', and the agent cancels without the confirmation the policy requires",
         "policy violation", "T2",
         [[find["T2"], call_text("list_appointments", {"customer_id": "C-212"}),
           call_text("cancel_appointment", {"appointment_id": "A-2001"}), done]], []),
    ]
    rows, notes = [], []
    for label, written_for, task_id, turns, user_says in cases:
        modes, ok, diff, transcript = _classified(task_id, turns, user_says)
        cells = "; ".join(f"{m} ({_UNIT[m]})" for m in modes) or "nothing"
        rows.append([label, written_for, cells, "passes" if ok else "fails"])
        if diff:
            notes.append(f"{label[:3]} final state: {diff}")
        if transcript.stop_reason != "final_answer":
            scripted = sum(reply.startswith(tool_core.OPEN) for turn in turns for reply in turn)
            notes.append(f"{label[:3]} the loop stopped the run itself ({transcript.stop_reason}): "
                         f"{len(transcript.calls)} of the {scripted} scripted calls were sent.")
    return "\n".join([
        say("Each case is a scripted agent (tool_core.ScriptedLM) run with tool_core.run_agent over service_env's "
            "tools; service_env.classify reads the trajectory, FAILURE_MODES gives each mode's unit:"),
        format_table(["case", "written to exercise", "classify names (unit)", "state"], rows, [44, 26, 48, 6]), "",
        *notes,
        say("A trajectory can show several rows: (c)'s A-9 was never shown by a result (invented argument) as well as "
            f"retried. (b) is caught only as a policy violation because 4000 > ${service_env.MAX_CREDIT}; the slides would file a units slip "
            "under the single call, and one under the limit would show in the state alone. (d) ends in the right "
            "state: the state-based grade passes it, and only the conversation check sees the missing "
            "confirmation.")])


# --- 9-10. Trust, and the harness protocol --------------------------------------------------------


def exercise_9() -> str:
    """Three layers of defence for read_file + send_email when a retrieved text says to mail a secret file."""
    base = next(a for a in interfaces.ATTACKS if a.name == "prompt injection")  # its tell: the attacker's domain
    attack = interfaces.Attack("read_file + send_email", f"Summarize paper {interfaces.INJECTED_PAPER} and email the "
                               "summary to Anna.", "clean", None,
                               {"papers": interfaces.READ_SCOPE, "mail": interfaces.WRITE_SCOPE}, base.tell,
                               ("papers", "files", "mail"))
    paper = next(p for p in interfaces.NAMED_PAPERS if p.id == interfaces.INJECTED_PAPER)
    runs = [("no defence", (), attack), ("scan descriptions", ("scan",), attack),
            ("results marked as data", ("data",), attack), ("least privilege", ("least",), attack),
            ("confirm side effects", ("confirm",), attack),
            ("no private data (files left out)", (), dataclasses.replace(attack, servers=("papers", "mail")))]
    rows = []
    for label, defences, variant in runs:
        outcome = interfaces.run_attack(variant, defences)
        anna = any(m["to"] == interfaces.CONTACTS["Anna"] for m in outcome.workspace.outbox)
        rows.append([label, outcome.verdict, "; ".join(outcome.leaks) or "nothing", "yes" if anna else "no"])
    stopped = [r[0] for r in rows[1:] if r[1] == "blocked"]
    return "\n".join([
        say(f"User: {attack.request!r} The paper's abstract, which anyone could upload, says: "
            f"{paper.abstract.split('. ', 1)[1]!r} The files server holds {', '.join(sorted(interfaces.PRIVATE_FILES))}; "
            "the model obeys whatever it reads."),
        format_table(["defence (interfaces.Host)", "verdict", "what reached the attacker", "Anna's mail"], rows,
                     [32, 10, 62, 11]), "",
        say(f"Stopped by: {', '.join(stopped)}. Three layers: what the agent may reach (least privilege: a summary "
            "needs no files), what it may do unasked (a person confirms send_email, seeing the address), and what "
            "enters the context (results marked as data, descriptions scanned). The last alone stopped nothing here: "
            "the injection came in a result, and a model that obeys what it reads obeys it inside <data> too. Leaving "
            "out one leg of the trifecta (private data, untrusted content, a way out) stops it whatever the model "
            "does.")])


def _rules() -> list[str]:
    prompt = tool_core.render_tool_prompt(tool_core.orrin_grid_registry()[0])
    return [line.split(". ", 1)[1] for line in prompt.split("Rules:\n", 1)[1].splitlines() if line[:1].isdigit()]


def _hint(result_message: str) -> str:
    """The 'Did you mean ...?' of an unknown-tool result, or '' when it has none."""
    start = result_message.find("Did you mean")
    return result_message[start: result_message.index("?", start) + 1] if start >= 0 else ""


def _run(replies: list[str], user: str):
    registry, grid = tool_core.orrin_grid_registry()
    return run_agent(ScriptedLM(replies), registry, user), grid


def exercise_10() -> str:
    """The protocol's five rules (render_tool_prompt), the failure each prevents, and the harness when one is broken."""
    incident, station = call_text("get_incident", {"code": "E-1474"}), call_text("get_substation", {"substation_id": "SS-218"})
    answer = "E-1474: a tree branch; SS-218 is maintained by Dana Okafor."
    parallel, _ = _run([incident + "\n" + station, answer], "What caused E-1474, and who maintains SS-218?")
    ids = [r["id"] for r in tool_core.parse_tool_results(parallel.messages[3]["content"])]
    fake = incident + '\n<tool_result name="get_incident" id="call_1">{"cause": "a squirrel"}</tool_result>'
    waited, _ = _run([fake, "E-1474 was caused by a tree branch."], "What caused E-1474?")
    cause = tool_core.OrrinGrid.INCIDENTS["E-1474"]["cause"]
    invented, _ = _run([call_text("get_incidents", {"code": "E-1474"}), incident, "A tree branch."], "What caused E-1474?")
    weather, _ = _run(["I cannot check the weather: none of my tools gives forecasts."], "Weather in Stanford tomorrow?")
    urgent = call_text("create_ticket", {"substation_id": "SS-218", "summary": "relay trips", "priority": "urgent"})
    fixed, grid = _run([urgent, urgent.replace("urgent", "high"), "Ticket WO-5001 is open."], "An urgent ticket for SS-218.")
    hammered, hammered_grid = _run([urgent, urgent, urgent, "Done."], "An urgent ticket for SS-218.")
    rows = [
        ["a result matched to the wrong call; independent lookups waiting for each other",
         f"2 calls in one reply ran {'concurrently' if len({c.batch for c in parallel.calls}) == 1 else 'in turn'}; "
         f"results tagged {ids}"],
        ["the model writing its own results", f"the reply was cut at {tool_core.STOP_SEQUENCES[0]!r}; 'squirrel' in "
         f"the transcript: {any('squirrel' in m['content'] for m in waited.messages)}; the real result came back: "
         f"{any(cause in m['content'] for m in waited.messages if m['role'] == 'tool')}"],
        ["a hallucinated tool", f"get_incidents -> {invented.calls[0].error_kind}, the result asks "
         f"{_hint(invented.messages[3]['content'])!r}; the next call, {invented.calls[1].name}, "
         f"{'worked' if invented.calls[1].ok else 'failed'}"],
        ["a forced call when none fits (relevance)", f"a plain answer ends the turn: {weather.stop_reason}, "
         f"{len(weather.calls)} calls"],
        ["silent failure, or hammering a broken call", f"priority 'urgent' -> {fixed.calls[0].error_kind}, nothing ran; "
         f"fixed: {len(grid.tickets)} ticket; sent unchanged again: the loop stops ({hammered.stop_reason}, "
         f"{len(hammered_grid.tickets)} tickets)"],
    ]
    return "\n".join([
        f"tool_core's protocol: calls as {tool_core.CALL_FORMAT},",
        say("parsed with json.JSONDecoder.raw_decode (exercise 3), then checked and run by ToolRegistry.call. Its "
            "five rules, as render_tool_prompt writes them, each run here with a scripted model that breaks or "
            "tests it:"),
        format_table(["rule", "the failure it prevents", "what the harness did"],
                     [[f"{n}. {rule}", prevents, did] for n, (rule, (prevents, did)) in enumerate(zip(_rules(), rows), 1)],
                     [44, 30, 60])])


EXERCISES = [  # (the question in one line, the function that answers it)
    ("Toolformer's criterion: L(eps) = 4.0, L(e(c, eps)) = 3.0, L(e(c, r)) = 2.6, tau = 1.0: kept? With L- = L(eps) "
     "alone?", exercise_1),
    ("Why does tau = 2.0 drop the calculator's calls first, and what change makes results of different lengths "
     "fairer?", exercise_2),
    ("A reply with no closing tag: what do the regex and the robust parser return, and what should the harness do?",
     exercise_3),
    ("Error messages for an unknown tool, a missing argument and a timeout: what does each say, and what is it for?",
     exercise_4),
    ("The backend gains an optional office parameter and the MCP tools are not regenerated: what happens? Good or "
     "bad?", exercise_5),
    ("BM25 misses paraphrased requests: two improvements, and what each costs.", exercise_6),
    ("n = 10, c = 8: pass@1, pass@3, pass^1, pass^3; and pass^3 from 3 trials that all succeeded: can you trust it?",
     exercise_7),
    ("Classify four failures into the failure-mode table: a wrong read tool, wrong units, a repeated failing call, "
     "no confirmation.", exercise_8),
    ("A host with read_file and send_email meets a document that says to mail a secret file: three layers of "
     "defence.", exercise_9),
    ("A harness protocol for a model without native tool calling: its design decisions, and the failure each "
     "prevents.", exercise_10),
]


def exercise_number(text: str) -> int:
    """Read N for argparse: a whole number from 1 to the number of exercises, or a message saying what is allowed."""
    if not text.strip().isdigit() or not 1 <= int(text) <= len(EXERCISES):
        raise argparse.ArgumentTypeError(f"there are {len(EXERCISES)} exercises: N must be a whole number from 1 to "
                                         f"{len(EXERCISES)}, got {text!r}")
    return int(text)


# --- Starter code and the autograder: --start N DIR, then --check N FILE --------------------------
#
# Seven coding exercises, numbered on their own (the key's N above is the handout's). Each asks for a function or
# two, specified in its docstring; --start writes them as TODOs. --check imports the student's file from its path
# (importlib, never an eval of its text) and runs the rows of the lab's own table for that idea:
# tests/exercise_tables.py (or tool_core.PARSER_CASES), the rows the unit tests hold the lab to, so the two can never
# drift apart. A failing row prints what it expected and what came back; an exception in the student's code is that
# row's answer ("raised ValueError: ..."), and the check goes on. `--check N --lab` runs the same rows on the lab's
# own code: all pass.


class Raised:
    """What a row got when the code under check raised: shown as "raised ValueError: ...", never equal to anything."""

    def __init__(self, error: BaseException):
        self.error = error

    def __repr__(self) -> str:
        return f"raised {type(self.error).__name__}: {self.error}"


class Remark:
    """What a row got when the answer had the wrong shape to compare (e.g. a tuple where a ToolResult was asked)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


class ProtocolError:
    """A JSON-RPC error a tools/call handler raised (interfaces.RPCError): two are the same when their codes are."""

    def __init__(self, code: object, message: str = ""):
        self.code, self.message = code, message

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProtocolError) and type(other.code) is int and other.code == self.code

    __hash__ = None

    def __repr__(self) -> str:
        said = f": {self.message}" if self.message else " (raise interfaces.RPCError)"
        return f"the protocol error {self.code}{said}"


def shown(value: object, limit: int = 400) -> str:
    """Write a value as a row shows it: fractions as 7/15, decimals as 1.3, anything else as Python writes it.

    Example: Fraction(7, 15) -> '7/15'; [Decimal('1.3')] -> '[1.3]'
    """
    if isinstance(value, (Fraction, Decimal)):
        text = str(value)
    elif isinstance(value, (list, tuple)) and any(isinstance(v, (Fraction, Decimal)) for v in value):
        text = "[" + ", ".join(shown(v) for v in value) + "]"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def written(function: str, *args: object, **kwargs: object) -> str:
    """Write a call as a row's label. Example: ('keep', Decimal('4.0'), None) -> 'keep(4.0, None)'"""
    return f"{function}({', '.join([shown(a) for a in args] + [f'{k}={shown(v)}' for k, v in kwargs.items()])})"


def same(expected: object, actual: object) -> bool:
    """Whether actual is expected: numbers within 1e-9 (a float may stand for an exact Fraction or Decimal), lists and
    tuples alike, dicts key by key, anything else by ==. A bool is not a number here: True is not 1."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, numbers.Number) and isinstance(actual, numbers.Number):
        return math.isclose(expected, actual, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(expected, (list, tuple)):
        return (isinstance(actual, (list, tuple)) and len(actual) == len(expected)
                and all(map(same, expected, actual)))
    if isinstance(expected, dict):
        return (isinstance(actual, dict) and actual.keys() == expected.keys()
                and all(same(v, actual[k]) for k, v in expected.items()))
    return expected == actual


def first_difference(expected: object, actual: object, where: str = "") -> str | None:
    """Say where two nested values first differ, with both values there; None when they are the same.

    Example: ({'a': [1, 2]}, {'a': [1, 3]}) -> "['a'][1]: expected 2, actual 3"
    """
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in [*expected, *(k for k in actual if k not in expected)]:
            if key not in actual or key not in expected:
                missing = "missing" if key not in actual else f"not expected (actual {shown(actual[key], 100)})"
                return f"{where}[{key!r}]: {missing}"
            found = first_difference(expected[key], actual[key], f"{where}[{key!r}]")
            if found:
                return found
        return None
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)) and len(expected) == len(actual):
        found = (first_difference(e, a, f"{where}[{i}]") for i, (e, a) in enumerate(zip(expected, actual)))
        return next((f for f in found if f), None)
    if same(expected, actual):
        return None
    return f"{where}: expected {shown(expected, 100)}, actual {shown(actual, 100)}"


@dataclasses.dataclass
class Row:
    """One row of a check: its label, how to run it on an answer, what it must return, and its input when the label
    does not show it."""

    label: str
    run: Callable[[object], object]  # run(answer) -> the value to compare; answer: the student's module, or the lab's
    expected: object
    given: str = ""


def call(function: str, *args: object, **kwargs: object) -> Callable[[object], object]:
    """Return run(answer): call answer's function with a fresh copy of these arguments (so no row can change the
    table for the rows after it)."""
    def run(answer: object) -> object:
        a, k = copy.deepcopy((args, kwargs))
        return getattr(answer, function)(*a, **k)
    return run


@dataclasses.dataclass
class Coding:
    """One coding exercise: the functions to write, the table that checks them, the lab's code behind the same
    functions, and the skeleton."""

    title: str
    functions: tuple[str, ...]
    table: str  # where the rows live
    lab_code: str  # the lab's code the unit tests run on the same rows
    rows: Callable[[], list[Row]]
    lab: Callable[[], dict[str, Callable]]  # the functions, written with the lab's code: `--check N --lab`
    starter: str  # the skeleton's code, after its docstring
    same: Callable[[object, object], bool] = same
    note: str = ""  # what every row is given, printed above the rows


# Exercise 1. Toolformer's filter ------------------------------------------------------------------

def _filter_rows() -> list[Row]:
    """The rows of USEFULNESS, then of KEEP."""
    rows = [Row(written("usefulness", *losses, **({} if alone else {"with_call_alone": False})),
                call("usefulness", *losses, **({} if alone else {"with_call_alone": False})), gain)
            for losses, alone, gain in exercise_tables.USEFULNESS]
    return rows + [Row(written("keep", *losses, tau), call("keep", *losses, tau), kept)
                   for losses, tau, kept in exercise_tables.KEEP]


def lab_keep(L_empty, L_call, L_result, tau) -> bool:
    """Whether toolformer_lab.keep keeps a candidate call with these three losses at tau."""
    candidate = toolformer_lab.Candidate(0, 0, "Calculator", {}, False, "r", L_empty, L_call, L_result)
    return bool(toolformer_lab.keep([candidate], tau))


FILTER_STARTER = '''

def usefulness(L_empty, L_call, L_result, with_call_alone=True):
    """Return the usefulness L- - L+ of one candidate call (Toolformer, Schick et al. 2023, eq. 2).

    The three weighted losses of the text after the call's position:
      L_empty   L(eps): with no call
      L_call    L(e(c, eps)): with the call written, but no result
      L_result  L(e(c, r)): with the call and its result
    L+ = L(e(c, r)). L- = min(L(eps), L(e(c, eps))): the better of no call and a call without its result;
    with with_call_alone=False, L- = L(eps) alone.
    Use only min and subtraction, so that floats, Fractions and Decimals all work (the check passes Decimals).
    Example: usefulness(2.5, 2.1, 0.8) -> 1.3
    """
    raise NotImplementedError("TODO: L- - L+")


def keep(L_empty, L_call, L_result, tau):
    """Say whether the filter keeps the call: True when L- - L+ >= tau, with the paper's L- (the min).

    tau None means no filter: every call is kept.
    Example: keep(4.0, 3.0, 2.6, 1.0) -> False (its usefulness is 0.4)
    """
    raise NotImplementedError("TODO: compare the usefulness with tau")
'''


# Exercise 2. The robust parser --------------------------------------------------------------------

def _parser_rows() -> list[Row]:
    """The lecture's twelve odd outputs, each with what a correct parser reports."""
    return [Row(label, call("parse_calls", text), truth, given=repr(text))
            for label, text, truth in tool_core.PARSER_CASES]


def lab_parse_calls(text: str) -> list[tuple]:
    """tool_core.parse_tool_calls, its items written as the lecture's truth: ("call", name, arguments) or
    ("error", kind)."""
    return [("call", item.name, item.arguments) if isinstance(item, tool_core.ToolCall) else ("error", item.kind)
            for item in tool_core.parse_tool_calls(text).items]


PARSER_STARTER = r'''import json

OPEN, CLOSE = "<tool_call>", "</tool_call>"


def parse_calls(text):
    """Find every <tool_call> in a model's reply and judge it: one item per opening tag, in the order of the text.

    A call is written <tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>. Each item is either
      ("call", name, arguments)  the JSON is an object with a non-empty string "name" and an object "arguments"
      ("error", kind)            the call cannot be run, and kind says why:
        "truncated"      the reply ends before the call is complete (no </tool_call>, or JSON cut off)
        "invalid_json"   between the tags is not exactly one valid JSON value; nothing is repaired (single
                         quotes and a trailing comma are invalid, and so is an empty call)
        "not_an_object"  valid JSON, but not an object
        "bad_name"       no "name", or one that is not a non-empty string
        "bad_arguments"  no "arguments", or arguments that are not an object (an object encoded as a JSON
                         string is not an object)
    A reply without <tool_call> gives [].
    Hints: json.JSONDecoder().raw_decode(text, i) reads one JSON value starting at text[i] and returns it with
    the index where it ended, so a "</tool_call>" inside a string cannot cut a call short. A model may wrap
    the JSON in a code fence (```json ... ```) inside the tags.
    Example: 'Hi <tool_call>{"name": "f", "arguments": {}}</tool_call>' -> [("call", "f", {})]
    """
    raise NotImplementedError("TODO: find each tag, decode its JSON, expect </tool_call>, check the shape")
'''


# Exercise 3. Validate, then execute ---------------------------------------------------------------

def _registry_run(name: object, arguments: object) -> Callable[[object], object]:
    """Return run(answer): call answer.call_tool on fresh tools; what came back, and how often list_members ran."""
    def run(answer: object) -> object:
        tools, body = exercise_tables.call_tools()
        result = answer.call_tool(tools, *copy.deepcopy((name, arguments)))
        if not isinstance(result, tool_core.ToolResult):
            return Remark(f"{shown(result)}: not a tool_core.ToolResult")
        return _registry_outcome(result.ok, result.error_kind, result.content if result.ok else bool(result.message),
                                 body.runs)
    return run


def _registry_outcome(ok: bool, kind: object, content_or_message: object, runs: int) -> dict:
    """A call's outcome as a row compares it: a success's content, or a failure's kind and whether it says why."""
    said = {"content": content_or_message} if ok else {"has a message": content_or_message}
    return {"ok": ok, "error_kind": kind} | said | {"runs of list_members": runs}


def _registry_rows() -> list[Row]:
    """The rows of CALLS, each on fresh tools: its verdict, and whether list_members ran."""
    return [Row(what, _registry_run(name, arguments),
                _registry_outcome(kind is None, kind, content if kind is None else True,
                                  int(kind is None and name == "list_members")),  # nothing runs after a refusal
                given=written("call_tool", Remark("tools"), name, arguments))
            for what, name, arguments, kind, content in exercise_tables.CALLS]


def lab_call_tool(tools: dict, name: object, arguments: object) -> tool_core.ToolResult:
    """tool_core.ToolRegistry.call over these tools."""
    return tool_core.ToolRegistry(tools.values()).call(name, arguments)


REGISTRY_STARTER = '''from tool_core import Tool, ToolResult, validate


def call_tool(tools, name, arguments):
    """Check one call a model wrote, then run it. Never raise: every failure is a ToolResult the model reads.

    tools maps each tool's name to its tool_core.Tool (tool.parameters: its JSON Schema; tool.fn: the function).
    name and arguments come from the model, so either may be of any type. The checks, in this order; the
    first that fails decides, and the tool never runs after a failed check:
      1. a tool has that name         else ToolResult(False, error_kind="unknown_tool", message=...)
      2. arguments is an object       else ToolResult(False, error_kind="invalid_arguments", message=...)
      3. validate(tool.parameters, arguments) returns no error
                                      else ToolResult(False, error_kind="invalid_arguments", message=...)
      4. tool.fn(**arguments) returns a value: ToolResult(True, content=value); if it raises,
         ToolResult(False, error_kind="execution_error", message=...)
    Every failure needs a message written for the model: what was wrong, and what to do instead.
    Example: call_tool(tools, "get_weather", {}) -> ToolResult(ok=False, error_kind="unknown_tool", message=...)
    """
    raise NotImplementedError("TODO: exists -> is an object -> matches the schema -> execute")
'''


# Exercise 4. One OpenAPI operation -> one tool ----------------------------------------------------

def _openapi_rows() -> list[Row]:
    """The rows of ONE_OPERATION: a document, and the tool made of it."""
    return [Row(what, call("openapi_tool", spec), expected,
                given=shown({key: spec[key] for key in ("paths", "components") if spec.get(key)}, 600))
            for what, spec, expected in exercise_tables.ONE_OPERATION]


def lab_openapi_tool(document: dict) -> dict:
    """interfaces.openapi_to_tools on a one-operation document: its one tool's name, description and parameters."""
    [tool] = interfaces.openapi_to_tools(document, "http://127.0.0.1:9")
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


OPENAPI_STARTER = '''import re


def openapi_tool(document):
    """Turn the one operation of an OpenAPI 3.1 document into a tool: {"name", "description", "parameters"}.

    document["paths"] has one path; its path item has one operation under its method ("get", "post", ...), and
    maybe "parameters" that every operation of the path shares.
      name         the operationId, when it matches [A-Za-z0-9_-]{1,64} (what the vendors accept); otherwise the
                   operationId, or without one method + "_" + path with each {x} written by_x, made valid: each
                   run of other characters becomes "_", each run of "_" becomes one, and "_" at either end goes.
                   Example: GET /visits/{visitId} -> "get_visits_by_visitId"
      description  the summary and the description, joined by a blank line ("\\n\\n"), whichever exist; with
                   neither, the method in capitals and the path ("GET /ping")
      parameters   a JSON Schema: {"type": "object", "properties": {...}, "required": [...],
                   "additionalProperties": False}, with a property for each parameter of the path item, then
                   of the operation, then each field of a JSON request body (the properties of the schema under
                   requestBody.content["application/json"]). Each property is the parameter's schema, with the
                   parameter's own "description" added when it has one.
        required   in that order: a path parameter always; another parameter when it says "required": true; a
                   body field when the body schema's "required" lists it and the requestBody says
                   "required": true (OpenAPI's default is false: a body the caller may leave out)
        left out   headers named Accept, Content-Type or Authorization (the client sets them), and an API key
                   that components.securitySchemes declares (type apiKey, the same "in" and "name"): the model
                   must never see or write a credential
        $ref       a {"$ref": "#/components/schemas/X"} is replaced by a copy of that schema
    Leave the document as it is: the check gives a copy, but a real host reuses it.
    Example: {"openapi": "3.1.0", "paths": {"/teams": {"get": {"operationId": "list_teams", "summary":
    "List the teams."}}}} -> {"name": "list_teams", "description": "List the teams.", "parameters":
    {"type": "object", "properties": {}, "required": [], "additionalProperties": False}}
    """
    raise NotImplementedError("TODO: name, description, then one property per parameter and body field")
'''


# Exercise 5. pass^k and pass@k --------------------------------------------------------------------

ESTIMATOR = {"pass^k": "pass_hat_k", "pass@k": "pass_at_k"}


def _estimate_rows() -> list[Row]:
    """The rows of ESTIMATES, each to pass_hat_k or pass_at_k."""
    return [Row(written(ESTIMATOR[name], n, c, k), call(ESTIMATOR[name], n, c, k), expected)
            for name, n, c, k, expected in exercise_tables.ESTIMATES]


ESTIMATES_STARTER = '''from fractions import Fraction
from math import comb


def pass_hat_k(n, c, k):
    """Return pass^k from n trials of a task, c of which succeeded: the chance that k trials drawn from the n
    without replacement all succeed (tau-bench's reliability: does the agent succeed every time?).

    Count the ways to draw k trials, and the ways to draw k successful ones (math.comb); return an exact
    Fraction. 1 <= k <= n and 0 <= c <= n.
    Example: pass_hat_k(8, 4, 4) -> Fraction(1, 70)
    """
    raise NotImplementedError("TODO: all k drawn trials succeed")


def pass_at_k(n, c, k):
    """Return pass@k from n trials with c successes: the chance that at least one of k trials drawn from the n
    without replacement succeeds (Chen et al. 2021's unbiased estimator). An exact Fraction.

    Example: pass_at_k(10, 8, 3) -> Fraction(1, 1): three draws cannot all land on the two failures
    """
    raise NotImplementedError("TODO: not all k drawn trials fail")
'''


# Exercise 6. BM25 ---------------------------------------------------------------------------------

def _bm25_rows() -> list[Row]:
    """The rows of IDF, DEFAULT_CASES and EDGE_CASES, all over CORPUS."""
    corpus = Remark("CORPUS")
    rows = [Row(written("idf", corpus, term), call("idf", exercise_tables.CORPUS, term), expected)
            for term, expected in exercise_tables.IDF]
    rows += [Row(written("bm25_scores", corpus, query), call("bm25_scores", exercise_tables.CORPUS, query), expected)
             for query, expected in exercise_tables.DEFAULT_CASES]
    return rows + [Row(written("bm25_scores", corpus, query, k1=k1, b=b),
                       call("bm25_scores", exercise_tables.CORPUS, query, k1=k1, b=b), expected)
                   for k1, b, query, expected in exercise_tables.EDGE_CASES]


def lab_idf(documents: list[list[str]], term: str) -> float:
    """tool_catalog.BM25Index's idf of a term over these documents."""
    return tool_catalog.BM25Index(documents).idf(term)


def lab_bm25_scores(documents: list[list[str]], query: list[str], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """tool_catalog.BM25Index's score of every document for the query (its full scan, `scores`)."""
    return tool_catalog.BM25Index(documents, k1, b).scores(query)


BM25_STARTER = '''import math
from collections import Counter


def idf(documents, term):
    """Return BM25's idf of a term, in Lucene's form: ln(1 + (N - n + 0.5) / (n + 0.5)).

    documents: a list of documents, each a list of tokens; N: how many documents; n: how many hold the term.
    A term no document holds gets the highest idf, ln(1 + (N + 0.5) / 0.5).
    Example: idf([["a", "b"], ["b"]], "a") -> ln(1 + 1.5 / 1.5) = ln 2 ~ 0.693
    """
    raise NotImplementedError("TODO: the inverse document frequency")


def bm25_scores(documents, query, k1=1.2, b=0.75):
    """Score every document for a query (a list of tokens) with Okapi BM25: one score per document, in order.

        score(d) = sum over the query's terms t of  idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl))

    tf: how often t occurs in d (a term d lacks adds 0); |d|: d's length in tokens; avgdl: the mean length of
    the documents. A term the query repeats counts each time (Robertson & Zaragoza 2009, "The Probabilistic
    Relevance Framework: BM25 and Beyond", with Lucene's idf).
    Example: bm25_scores([["a", "b"], ["b"]], ["a"]) -> [0.6099..., 0.0]: avgdl = 1.5, so the first document's
    length factor is 1 - 0.75 + 0.75 * 2 / 1.5 = 1.25, and its score ln 2 * 1 * 2.2 / (1 + 1.2 * 1.25)
    """
    raise NotImplementedError("TODO: the sum over the query's terms, for each document")
'''


# Exercise 7. MCP's tools/call on the core ---------------------------------------------------------

def _mcp_run(params: dict, version: str) -> Callable[[object], object]:
    """Return run(answer): answer.handle_tools_call on a fresh registry; its result, or the protocol error raised."""
    def run(answer: object) -> object:
        try:
            return answer.handle_tools_call(exercise_tables.mcp_registry(), copy.deepcopy(params), version)
        except interfaces.RPCError as exc:
            return ProtocolError(exc.code, exc.message)
    return run


def _mcp_rows() -> list[Row]:
    """The rows of TOOLS_CALLS, each on a fresh registry: a result, or the code of a protocol error."""
    return [Row(what, _mcp_run(params, version), ProtocolError(expected) if isinstance(expected, int) else expected,
                given=written("handle_tools_call", Remark("registry"), params, version))
            for what, version, params, expected in exercise_tables.TOOLS_CALLS]


def _mcp_same(expected: object, actual: object) -> bool:
    """A protocol error by its code; a result as a subset: every key the row names, with its value and type."""
    return expected == actual if isinstance(expected, ProtocolError) else exercise_tables.subset(expected, actual)


def lab_handle_tools_call(registry: tool_core.ToolRegistry, params: dict, version: str = "2025-11-25") -> dict:
    """Ask interfaces.MCPCoreServer: a session that initialized with this version, then one tools/call request.
    Returns the result, or raises the error as interfaces.RPCError."""
    server = interfaces.MCPCoreServer(registry)
    session = server.session()
    session.handle({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "check", "version": "0"}}})
    session.handle({"jsonrpc": "2.0", "method": "notifications/initialized"})
    reply = session.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    server.close()
    if "error" in reply:
        raise interfaces.RPCError(reply["error"]["code"], reply["error"]["message"])
    return reply["result"]


MCP_STARTER = '''from interfaces import INVALID_PARAMS, RPCError


def handle_tools_call(registry, params, version="2025-11-25"):
    """Answer the params of an MCP tools/call request: return its CallToolResult, or raise the protocol's error.

    registry: a tool_core.ToolRegistry (registry.get(name) -> its Tool or None; registry.call(name, arguments)
    validates, then runs, and returns a ToolResult). params: {"name": ..., "arguments": {...}}, where
    "arguments" may be left out (then it is {}). version: the protocol revision the client negotiated,
    a date "YYYY-MM-DD" (dates in that form compare as strings).
    A request that is wrong is the protocol's error, for the host: raise RPCError(INVALID_PARAMS, message)
    (JSON-RPC's -32602) when
      - the name is not a string, or no tool has it ("Unknown tool: <name>")
      - the arguments are not an object
      - the arguments fail the tool's schema and version is before "2025-11-25"; from 2025-11-25 on
        that failure is a result with isError, which the model can read and correct
    Otherwise the result, for the model: {"content": [{"type": "text", "text": result.text}],
    "isError": not result.ok}, so a tool that ran and failed is a result with "isError": True.
    Example: handle_tools_call(registry, {"name": "add", "arguments": {"a": 2, "b": 3}})
             -> {"content": [{"type": "text", "text": "5"}], "isError": False}
    """
    raise NotImplementedError("TODO: the request's errors, then registry.call, then the CallToolResult")
'''


CODING = [
    Coding("Toolformer's filter: keep a call when L- - L+ >= tau", ("usefulness", "keep"),
           "USEFULNESS and KEEP in tests/exercise_tables.py", "toolformer_lab.usefulness and keep", _filter_rows,
           lambda: {"usefulness": toolformer_lab.usefulness, "keep": lab_keep}, FILTER_STARTER),
    Coding("the robust parser of tool calls, on the lecture's twelve odd outputs", ("parse_calls",),
           "tool_core.PARSER_CASES (script 03's demo 2)", "tool_core.parse_tool_calls", _parser_rows,
           lambda: {"parse_calls": lab_parse_calls}, PARSER_STARTER),
    Coding("validate, then execute: unknown tool, invalid arguments, execution error", ("call_tool",),
           "CALLS in tests/exercise_tables.py", "tool_core.ToolRegistry.call", _registry_rows,
           lambda: {"call_tool": lab_call_tool}, REGISTRY_STARTER,
           note="tools: list_members(team: str, limit: int = 5) -> ['ana', 'bo'][:limit], and explode(x: int), which "
                "always raises RuntimeError (exercise_tables.call_tools)"),
    Coding("one OpenAPI operation to a tool schema", ("openapi_tool",),
           "ONE_OPERATION in tests/exercise_tables.py", "interfaces.openapi_to_tools", _openapi_rows,
           lambda: {"openapi_tool": lab_openapi_tool}, OPENAPI_STARTER),
    Coding("pass^k and pass@k from n trials with c successes", ("pass_hat_k", "pass_at_k"),
           "ESTIMATES in tests/exercise_tables.py", "service_env.pass_hat_k and pass_at_k", _estimate_rows,
           lambda: {"pass_hat_k": service_env.pass_hat_k, "pass_at_k": service_env.pass_at_k}, ESTIMATES_STARTER),
    Coding("the BM25 score", ("idf", "bm25_scores"),
           "IDF, DEFAULT_CASES and EDGE_CASES in tests/exercise_tables.py", "tool_catalog.BM25Index", _bm25_rows,
           lambda: {"idf": lab_idf, "bm25_scores": lab_bm25_scores}, BM25_STARTER,
           note=f"CORPUS = {exercise_tables.CORPUS}"),
    Coding("an MCP tools/call handler: the protocol's errors and isError", ("handle_tools_call",),
           "TOOLS_CALLS in tests/exercise_tables.py", "interfaces.MCPCoreServer (tools/call)", _mcp_rows,
           lambda: {"handle_tools_call": lab_handle_tools_call}, MCP_STARTER, same=_mcp_same,
           note="registry: add(a: int, b: int) -> a + b, and fuse(), which always fails "
                "(exercise_tables.mcp_registry)"),
]


def skeleton(n: int, path: Path) -> str:
    """Write coding exercise n's starter file: a docstring saying how to check it, then the functions as TODOs."""
    coding = CODING[n - 1]
    head = textwrap.fill(f"Write {' and '.join(coding.functions)} from the docstrings below (each body is a TODO "
                         "that raises NotImplementedError), then check your file from the lab's folder:", WIDTH)
    tail = textwrap.fill(f"The check imports this file with the lab's folder on sys.path (so `import tool_core` "
                         f"works here) and runs the {len(coding.rows())} rows of {coding.table}: the rows the "
                         f"lab's own unit tests hold {coding.lab_code} to. A row that fails shows what it expected "
                         "and what your code returned.", WIDTH)
    return (f'"""Coding exercise {n} of the tool-use lab: {coding.title}.\n\n{head}\n\n'
            f"    python3 scripts/exercises.py --check {n} {path}\n\n{tail}\n\"\"\"\n{coding.starter}")


def start(n: int, folder: Path, force: bool) -> int:
    """Write exercise n's skeleton into folder as exercise_<n>.py; refuse to overwrite a file unless force. 0 or 1."""
    path = folder / f"exercise_{n}.py"
    if path.exists() and not force:
        print(f"{path} exists: not overwritten (add --force to replace it with a fresh skeleton)", file=sys.stderr)
        return 1
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(skeleton(n, path), encoding="utf-8")
    print(f"wrote {path}: write {' and '.join(CODING[n - 1].functions)}, then run "
          f"python3 scripts/exercises.py --check {n} {path}")
    return 0


class CannotCheck(Exception):
    """The student's file cannot be checked at all (it does not import, or lacks a function): one line says why."""


def where_in(path: Path, error: BaseException) -> str:
    """Say at which line of the student's file an error arose, when it arose there. Example: ' (line 12)'"""
    if isinstance(error, SyntaxError) and error.lineno:
        return f" (line {error.lineno})"
    lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__)
             if Path(frame.filename).resolve() == path.resolve()]
    return f" (line {lines[-1]})" if lines else ""


def load(path: Path, functions: tuple[str, ...]) -> object:
    """Import the student's file as a module from its path (importlib, as `import` would; its text is never eval'ed).

    Raises CannotCheck when it does not import or lacks one of the functions."""
    name = f"student_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    saved = sys.modules.get(name)
    sys.modules[name] = module  # while it runs, as for any import (a dataclass in it looks itself up there)
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        error = exc.msg if isinstance(exc, SyntaxError) else str(exc).splitlines()[0] if str(exc) else ""
        raise CannotCheck(f"{path} cannot be imported: {type(exc).__name__}: {error}{where_in(path, exc)}") from None
    finally:
        if saved is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = saved
    missing = [f for f in functions if not callable(getattr(module, f, None))]
    if missing:
        raise CannotCheck(f"{path} has no function {' or '.join(missing)}: the exercise asks for "
                          f"{' and '.join(functions)} (--start writes them as TODOs)")
    return module


def check(coding: Coding, answer: object) -> list[tuple[Row, object, bool]]:
    """Run every row of the exercise's table on answer: (row, what came back, whether it is what the row expects)."""
    results = []
    for row in coding.rows():
        try:
            got = row.run(answer)
        except Exception as exc:  # the code under check raised: that is this row's answer, and the check goes on
            got = Raised(exc)
        try:
            passed = not isinstance(got, (Raised, Remark)) and bool(coding.same(row.expected, got))
        except Exception:  # noqa: BLE001 - an answer so odd that comparing it raises is not the expected one
            passed = False
        results.append((row, got, passed))
    return results


def report(n: int, coding: Coding, results: list[tuple[Row, object, bool]], checked: str) -> str:
    """The check's text: every row, ok or FAIL, a failing row with what it was given, expected and got; a total."""
    lines = [f"Coding exercise {n}. {coding.title}: {', '.join(coding.functions)}",
             f"{checked}, on the {len(results)} rows of {coding.table}:"]
    lines += [f"  ({coding.note})"] if coding.note else []
    for row, got, passed in results:
        lines.append(f"  {'ok  ' if passed else 'FAIL'}  {row.label}")
        if not passed:
            lines += [f"          given:    {row.given}"] if row.given else []
            lines += [f"          expected: {shown(row.expected)}", f"          actual:   {shown(got)}"]
            nested = isinstance(row.expected, dict) and isinstance(got, dict) and coding.same is same  # not a subset
            where = first_difference(row.expected, got) if nested else None
            lines += [f"          where:    {where}"] if where else []
    good = sum(passed for _, _, passed in results)
    lines.append(f"All {good} rows pass." if good == len(results) else
                 f"{good} of {len(results)} rows pass; {len(results) - good} fail.")
    return "\n".join(lines)


def run_check(n: int, path: Path | None) -> int:
    """Check coding exercise n: the file at path, or the lab's own code when path is None. 0 if every row passes."""
    coding = CODING[n - 1]
    if path is None:
        answer, checked = types.SimpleNamespace(**coding.lab()), f"The lab's own code ({coding.lab_code})"
    else:
        try:
            answer, checked = load(path, coding.functions), f"{path}"
        except CannotCheck as exc:
            print(exc, file=sys.stderr)
            return 1
    results = check(coding, answer)
    print(report(n, coding, results, checked))
    return 0 if all(passed for _, _, passed in results) else 1


def coding_list() -> str:
    """The coding exercises for --help: N, what to write, the functions."""
    rows = "\n".join(f"  {n}  {c.title} ({', '.join(c.functions)})" for n, c in enumerate(CODING, 1))
    return (f"coding exercises, numbered on their own (--start N DIR writes DIR/exercise_N.py, --check N FILE "
            f"runs the lab's own\ntest table on it):\n{rows}")


def coding_number(text: str) -> int | None:
    """Read N of --start or --check: a whole number from 1 to the number of coding exercises, else None."""
    return int(text) if text.strip().isdigit() and 1 <= int(text) <= len(CODING) else None


def main() -> int:
    """Print every exercise, or exercise N, under print_demos's banners (1 when stdout's reader went away); or write a
    coding exercise's skeleton (--start), or check a file against its table (--check): 0 if every row passes."""
    usage = "%(prog)s [-h] [N] [--start N DIR [--force]] [--check N FILE | --check N --lab]"
    parser = argparse.ArgumentParser(description=__doc__, epilog=coding_list(), usage=usage,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("N", nargs="?", type=exercise_number,
                        help=f"print only exercise N (1-{len(EXERCISES)}); all of them when left out")
    parser.add_argument("--start", nargs=2, metavar=("N", "DIR"),
                        help=f"write coding exercise N's skeleton (1-{len(CODING)}) into DIR, as DIR/exercise_N.py")
    parser.add_argument("--force", action="store_true", help="with --start: replace the file if it is already there")
    parser.add_argument("--check", nargs="+", metavar=("N", "FILE"),
                        help="--check N FILE: run coding exercise N's table on FILE (a .py file, imported); exit 0 "
                             "when every row passes, 1 when one fails")
    parser.add_argument("--lab", action="store_true", help="--check N --lab: run the table on the lab's own code")
    args = parser.parse_args()
    if args.start or args.check:
        return coding_command(parser, args)
    if args.force or args.lab:
        parser.error("--force goes with --start, --lab with --check")
    chosen = [(n, q, fn) for n, (q, fn) in enumerate(EXERCISES, 1) if args.N in (None, n)]
    tool_core.print_demos([(f"Exercise {n}. {question}", fn) for n, question, fn in chosen])  # quiet at | head
    return 0


def coding_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Carry out --start or --check, after the usage checks (a usage error exits 2 with argparse's message)."""
    if args.N is not None or (args.start and args.check):
        parser.error("give N (the key), --start or --check, one at a time")
    option, values = ("--start", args.start) if args.start else ("--check", args.check)
    n = coding_number(values[0])
    if n is None:
        parser.error(f"argument {option}: there are {len(CODING)} coding exercises: N must be a whole number from 1 "
                     f"to {len(CODING)}, got {values[0]!r}")
    if args.start:
        if args.lab:
            parser.error("--lab goes with --check")
        folder = Path(args.start[1])
        if folder.exists() and not folder.is_dir():
            parser.error(f"argument --start: {folder} is not a directory")
        return start(n, folder, args.force)
    if args.force:
        parser.error("--force goes with --start")
    if len(values) != (1 if args.lab else 2):
        parser.error("--check takes N and FILE, or N and --lab")
    path = None if args.lab else Path(values[1])
    if path is not None and not path.is_file():
        parser.error(f"argument --check: {path} " + ("is not a file" if path.exists() else "does not exist"))
    return run_check(n, path)

if __name__ == "__main__":
    sys.exit(main())
