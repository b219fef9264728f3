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
"""
import argparse
import dataclasses
import math
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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


def main() -> int:
    """Print every exercise, or exercise N, under print_demos's banners; 1 when stdout's reader went away."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("N", nargs="?", type=exercise_number,
                        help=f"print only exercise N (1-{len(EXERCISES)}); all of them when left out")
    number = parser.parse_args().N
    chosen = [(n, q, fn) for n, (q, fn) in enumerate(EXERCISES, 1) if number in (None, n)]
    tool_core.print_demos([(f"Exercise {n}. {question}", fn) for n, question, fn in chosen])  # quiet at | head
    return 0


if __name__ == "__main__":
    sys.exit(main())
