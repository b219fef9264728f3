"""tool_catalog: choosing among many tools: a 150-tool catalog, BM25 tool retrieval, hallucination, AST matching.

Contents (lecture 001 section 4, handout code 05; lecture 000 on Gorilla's AST matching; lesson 002
on deferred tool loading), each chapter with the demo of scripts/05_many_tools.py that shows it:
  1. The Orrin Grid catalog                                    demo 1
     15 object kinds x 10 operations = 150 tools, built so that the 10
     tools of one object differ by one word and the 15 tools of one operation only by the
     object, the structure on which large catalogs go wrong; 300 requests with their gold tool
     and arguments (190 paraphrased so that they avoid the tool's own words); a generator for
     catalogs of 1,600 and 16,000 tools (ToolBench's scale).
  2. BM25 tool retrieval                                       demos 3 and 5
     `BM25Index`: Okapi BM25 in Lucene's form over an inverted index with the scores of every
     posting computed at indexing time, and MaxScore pruning, so a query skips most postings
     of its common words yet returns exactly the top-k a full scan returns. `ToolRetriever`
     puts it over Tools; `docs_registry` offers the same index as a `search_docs` tool (one
     retriever serves RAG and tool retrieval).
  3. The simulated picker                                      demos 2 and 3
     `ToyCaller`, a simulated tool picker with explicit, seeded knobs: distraction by near
     duplicates, a most-similar wrong pick or an invented name when the right tool is not in
     view, a memory for zero-shot use, and retrieval-aware behaviour (Gorilla's RAT).
  4. Gorilla-style AST matching                                demo 4
     A generated call parsed with `ast` and classified against the
     catalog (correct, wrong arguments, wrong tool, hallucinated, unparseable), and the
     torch.hub sub-tree match: arguments bound through torch.hub.load's documented signature,
     repo_or_dir and model compared as Gorilla's ast_eval_th.py does, a repository tag allowed.
  5. The demos behind scripts/05_many_tools.py: first lecture 000's table of four ways to teach a model its
     tools (quoted) beside the mechanism of each that the lab computes; deferred loading (demo 5) through
     tool_core's loop; with --scale, BM25's timings and where pruning starts to pay (read off them).
  6. ToolBench's way of grading                                scripts/06_evaluation.py demo 5
     Chain instructions (intra- and cross-category), solution paths by a greedy chain
     (ReAct) and by DFSDT's depth-first search with backtracking, every call of a search
     kept in order (Attempt.steps) and written out with each step back marked, ToolEval's
     pass rate and win rate with a rule-based judge in place of its LLM judge.

References: Robertson & Zaragoza (2009), "The Probabilistic Relevance Framework: BM25 and
Beyond"; Lucene's BM25Similarity for the idf; Turtle & Flood (1995), "Query evaluation:
strategies and optimizations" for MaxScore; Qin et al. (2023), ToolLLM; Patil et al. (2023),
Gorilla.

What it leaves out: neural retrievers (ToolLLM's, Gorilla's), stemming and synonyms (BM25 here
does not know that "doing" means "status", which is the lecture's point), and a real model's
choice among tools: ToyCaller's knobs stand in for it and are printed with every figure.
"""
from __future__ import annotations

import ast
import functools
import heapq
import inspect
import json
import math
import random
import re
import textwrap
import time
from collections import Counter
from dataclasses import dataclass, field

import tool_core
from tool_core import JSON, HandoutFigure, Tool, ToolRegistry, count_tokens, format_table

# ---------------------------------------------------------------------------------------------
# --- 1. The Orrin Grid catalog: 15 objects x 10 operations, and 300 requests ---
# ---------------------------------------------------------------------------------------------

# object kind -> (id prefix, an example id); the names match tool_core's and service_env's world
OBJECTS = {
    "substation": ("SS", "SS-218"), "meter": ("MT", "MT-123"), "transformer": ("TR", "TR-204"),
    "feeder": ("FD", "FD-12"), "work_order": ("WO", "WO-5001"), "crew": ("CR", "CR-7"),
    "outage": ("OU", "OU-88"), "customer": ("C", "C-107"), "invoice": ("IV", "IV-3301"),
    "switch": ("SW", "SW-41"), "relay": ("RL", "RL-9"), "line": ("LN", "LN-310"),
    "pole": ("PL", "PL-4412"), "vehicle": ("VH", "VH-21"), "inspection": ("IN", "IN-602"),
}
REGIONS = ["north", "south", "east", "west"]

# operation -> (name pattern, description pattern, parameters besides the id); {o} the object, {O} its words
OPERATIONS = {
    "status": ("get_{o}_status", "Get the current status of a {O}: whether it is in service, its alarms and last reading.",
               {}),
    "history": ("get_{o}_history", "Get the event history of a {O} between two dates.",
                {"start_date": {"type": "string", "description": "first day, YYYY-MM-DD"},
                 "end_date": {"type": "string", "description": "last day, YYYY-MM-DD"}}),
    "details": ("get_{o}_details", "Get the fixed details of a {O}: model, install date and owner.", {}),
    "location": ("get_{o}_location", "Get the address and GPS coordinates of a {O}.", {}),
    "list": ("list_{o}s", "List {O}s, optionally only those of one region.", None),
    "search": ("search_{o}s", "Search {O}s by free text in their names and notes.", None),
    "create": ("create_{o}", "Create a new {O} record.", None),
    "update": ("update_{o}", "Update fields of an existing {O} record.",
               {"fields": {"type": "object", "description": "the fields to change and their new values"}}),
    "assign": ("assign_{o}", "Assign a {O} to a crew for follow-up.",
               {"crew_id": {"type": "string", "description": "the crew, e.g. CR-7"}}),
    "archive": ("archive_{o}", "Archive a {O} record that is no longer in service.",
                {"reason": {"type": "string", "description": "why it is archived"}}),
}
# the naming habit a model follows when it invents a tool: the same pattern, a synonym for the operation
INVENTED = {"status": "get_{o}_state", "history": "get_{o}_log", "details": "get_{o}_info",
            "location": "get_{o}_position", "list": "list_all_{o}s", "search": "find_{o}s", "create": "add_{o}",
            "update": "modify_{o}", "assign": "dispatch_{o}", "archive": "retire_{o}"}


@dataclass
class CatalogTool:
    """A catalog entry: the Tool, and the object and operation it was built from (the picker 'understands' these)."""

    tool: Tool
    object: str
    operation: str


def _words(obj: str) -> str:
    return obj.replace("_", " ")


def _schema(obj: str, operation: str) -> dict:
    """Build the parameters of one catalog tool: the object's id (with its pattern) plus the operation's own."""
    prefix = OBJECTS[obj][0] if obj in OBJECTS else obj[:2].upper()
    id_param = {f"{obj}_id": {"type": "string", "pattern": f"^{prefix}-[0-9]+$",
                              "description": f"the {_words(obj)} id, e.g. {prefix}-{101 + len(obj)}"}}
    extra = OPERATIONS[operation][2]
    if operation == "list":
        props = {"region": {"type": "string", "enum": REGIONS}, "limit": {"type": "integer", "minimum": 1, "maximum": 100}}
        required = []
    elif operation == "search":
        props, required = {"query": {"type": "string", "description": "words to look for"}}, ["query"]
    elif operation == "create":
        props, required = {"name": {"type": "string"}, "region": {"type": "string", "enum": REGIONS}}, ["name", "region"]
    else:
        props, required = id_param | extra, list(id_param) + list(extra)
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def _catalog_tool(obj: str, operation: str) -> CatalogTool:
    name_pattern, description, _ = OPERATIONS[operation]
    name = name_pattern.format(o=obj)

    def run(**arguments: JSON) -> dict:  # a stand-in back end: what a real one would return, in shape
        return {"tool": name, "arguments": arguments, "result": "ok"}

    tool = Tool(name, description.format(O=_words(obj)), _schema(obj, operation), run,
                read_only=operation in ("status", "history", "details", "location", "list", "search"))
    return CatalogTool(tool, obj, operation)


def orrin_catalog(objects: list[str] | None = None) -> list[CatalogTool]:
    """Build the catalog: every operation of every object (150 tools for the 15 objects), object by object."""
    return [_catalog_tool(obj, op) for obj in (list(OBJECTS) if objects is None else objects) for op in OPERATIONS]


# Prefixes for the scaling catalogs: (108 + the bare kind) x 15 kinds = 1,635 objects, 16,350 tools at most.
_PREFIXES = ("backup primary rural urban coastal mountain spare mobile legacy smart remote central local regional "
             "temporary permanent northern southern eastern western upper lower inner outer main auxiliary standby "
             "portable fixed digital analog private public shared leased owned new old heavy light high low medium "
             "underground overhead offshore onshore industrial residential commercial municipal county state federal "
             "test training reserve emergency seasonal night day winter summer spring autumn red blue green yellow "
             "alpha beta gamma delta sigma omega pilot prototype modular compact large small rapid slow north south "
             "east west river lake harbor valley ridge forest desert prairie island canyon bay field park campus "
             "depot yard plant grid canal summit harvest").split()


def scaled_catalog(n_tools: int) -> list[Tool]:
    """Generate a larger catalog of n_tools tools (up to 16,350): prefixed objects x the 10 operations, deterministic.

    Example: scaled_catalog(1600)[150].name -> 'get_backup_substation_status'
    """
    most = (len(_PREFIXES) + 1) * len(OBJECTS) * len(OPERATIONS)
    if not isinstance(n_tools, int) or not 0 < n_tools <= most:
        raise ValueError(f"n_tools must be a whole number from 1 to {most}, got {n_tools!r}")
    objects = list(OBJECTS) + [f"{p}_{o}" for p in _PREFIXES for o in OBJECTS]
    tools: list[Tool] = []
    for obj in objects:
        for op in OPERATIONS:
            if len(tools) == n_tools:
                return tools
            name_pattern, description, _ = OPERATIONS[op]
            tools.append(Tool(name_pattern.format(o=obj), description.format(O=_words(obj)), _schema(obj, op),
                              lambda **a: a))
    return tools


@dataclass
class Request:
    """One user request with its gold tool and arguments; paraphrased requests avoid the tool's own words."""

    text: str
    tool: str
    arguments: dict
    object: str
    operation: str
    paraphrased: bool


# (original wording that uses the tool's words, paraphrases that avoid them), per operation
_TEMPLATES = {
    "status": (["Get the current status of {O} {id}.", "What is the status of {O} {id}?"],
               ["How is {O} {id} doing right now?", "Is {O} {id} working at the moment?", "Anything wrong with {O} {id} today?"]),
    "history": (["Get the event history of {O} {id} from {d1} to {d2}.", "Show the history of {O} {id} between {d1} and {d2}."],
                ["What happened to {O} {id} between {d1} and {d2}?", "Walk me through {O} {id}'s past from {d1} to {d2}."]),
    "details": (["Get the details of {O} {id}.", "Show the fixed details of {O} {id}."],
                ["Which make is {O} {id}, and when did it go in?", "Tell me everything permanent about {O} {id}."]),
    "location": (["Get the location of {O} {id}.", "What are the GPS coordinates of {O} {id}?"],
                 ["Where exactly is {O} {id}?", "How do I find {O} {id} on a map?"]),
    "list": (["List the {O}s in the {region} region.", "List all {O}s of the {region} region."],
             ["Which {O}s are there up {region}?", "Give me every {O} we have out {region}."]),
    "search": (["Search {O}s for '{q}'.", "Search the {O}s whose notes mention '{q}'."],
               ["Find any {O} that mentions '{q}'.", "Look for {O}s with '{q}' written on them."]),
    "create": (["Create a new {O} record named {name} in the {region} region.", "Create {O} {name} in region {region}."],
               ["Add a {O} called {name} out {region}.", "Please register {O} {name}, {region} side."]),
    "update": (["Update {O} {id}: set {key} to {value}.", "Update the record of {O} {id} with {key} {value}."],
               ["Change the {key} of {O} {id} to {value}.", "{O} {id} now has {key} {value}; fix our records."]),
    "assign": (["Assign {O} {id} to crew {crew}.", "Assign crew {crew} to {O} {id}."],
               ["Send crew {crew} to take care of {O} {id}.", "Have {crew} handle {O} {id}."]),
    "archive": (["Archive {O} {id}: {reason}.", "Archive the record of {O} {id} because it was {reason}."],
                ["Take {O} {id} off our books, it was {reason}.", "Retire {O} {id}; it was {reason}."]),
}


def catalog_requests(catalog: list[CatalogTool], seed: int = 0, paraphrased: int = 190) -> list[Request]:
    """Write two requests per tool (300 for the full catalog), `paraphrased` of them from paraphrase templates.

    With at least len(catalog) paraphrases, every tool's first request is a paraphrase and the
    second an original wording, except for paraphrased - len(catalog) tools drawn with
    random.Random(seed), whose second is a paraphrase too; with fewer, only that many tools get a
    paraphrased first request.
    """
    n = len(catalog)
    if not isinstance(paraphrased, int) or not 0 <= paraphrased <= 2 * n:
        raise ValueError(f"paraphrased must be a whole number from 0 to {2 * n} (two requests per tool), got {paraphrased!r}")
    rng = random.Random(seed)
    if paraphrased >= n:
        firsts, seconds = set(range(n)), set(rng.sample(range(n), paraphrased - n))
    else:
        firsts, seconds = set(rng.sample(range(n), paraphrased)), set()
    out = []
    for i, entry in enumerate(catalog):
        for second in (False, True):
            out.append(_request(entry, rng, i in (seconds if second else firsts)))
    return out


def _request(entry: CatalogTool, rng: random.Random, paraphrased: bool) -> Request:
    obj, op = entry.object, entry.operation
    prefix = OBJECTS[obj][0]
    values = {"O": _words(obj), "id": f"{prefix}-{rng.randrange(10, 9999)}", "region": rng.choice(REGIONS),
              "d1": f"2026-0{rng.randrange(1, 5)}-0{rng.randrange(1, 10)}", "d2": f"2026-0{rng.randrange(5, 10)}-1{rng.randrange(0, 10)}",
              "q": rng.choice(["corrosion", "storm damage", "loose bolt", "overheating"]),
              "name": rng.choice(["Kestrel", "Mill Lane", "Harbor 2", "Ridge East"]), "key": "owner",
              "value": rng.choice(["Dana Okafor", "Ivo Brandt"]), "crew": f"CR-{rng.randrange(1, 40)}",
              "reason": rng.choice(["replaced", "damaged beyond repair", "sold"])}
    text = rng.choice(_TEMPLATES[op][1 if paraphrased else 0]).format(**values)
    text = text[0].upper() + text[1:]
    id_key = f"{obj}_id"
    arguments = {"status": {id_key: values["id"]}, "details": {id_key: values["id"]}, "location": {id_key: values["id"]},
                 "history": {id_key: values["id"], "start_date": values["d1"], "end_date": values["d2"]},
                 "list": {"region": values["region"]}, "search": {"query": values["q"]},
                 "create": {"name": values["name"], "region": values["region"]},
                 "update": {id_key: values["id"], "fields": {values["key"]: values["value"]}},
                 "assign": {id_key: values["id"], "crew_id": values["crew"]},
                 "archive": {id_key: values["id"], "reason": values["reason"]}}[op]
    return Request(text, entry.tool.name, arguments, obj, op, paraphrased)


def near_duplicates(entry: CatalogTool, catalog: list[CatalogTool]) -> list[CatalogTool]:
    """Return the tools one word away: same object and another operation, or same operation and another object."""
    return [c for c in catalog if c is not entry and (c.object == entry.object or c.operation == entry.operation)]


# ---------------------------------------------------------------------------------------------
# --- 2. BM25 over an inverted index, with MaxScore pruning ---
# ---------------------------------------------------------------------------------------------

_SPLIT = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Lower-case and split on everything but letters and digits (so snake_case splits); no stemming.

    No stemming on purpose: "meters" and "meter" stay apart as in the simplest BM25, and the
    lecture's point (BM25 does not know that "doing" means "status") stays visible.
    Example: "get_meter_status(MT-123)" -> ['get', 'meter', 'status', 'mt', '123']
    """
    return _SPLIT.findall(text.lower())


MAX_PRUNED_TERMS = 64  # past this many distinct query terms, top_k scores every posting (finding the k-th best
# after each term would cost more than it saves: 20,000 distinct terms over 40,000 tools took 5 s, a full scan 0.04 s)


class BM25Index:
    """Okapi BM25 over token lists, in Lucene's form, with an inverted index and MaxScore top-k.

        score(d, q) = sum over terms t of q:  idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl))
        idf(t) = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))

    tf is t's count in d, |d| its length, n_t how many documents hold t. Every posting's score
    ("impact") is computed once, at indexing time: k1 and b are fixed per index. A query term
    repeated counts once per occurrence, as in Lucene. The lecture's BM25 is `scores` and
    `ranked` (score every document, sort); `top_k` returns the same list by MaxScore pruning,
    which touches a fraction of the postings (section 2b below).
    """

    def __init__(self, documents: list[list[str]], k1: float = 1.2, b: float = 0.75):
        if not (math.isfinite(k1) and k1 >= 0 and 0 <= b <= 1):
            raise ValueError(f"need k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.k1, self.b = k1, b
        self.n_docs = len(documents)
        self.lengths = [len(d) for d in documents]
        self.avgdl = sum(self.lengths) / self.n_docs if self.n_docs and any(self.lengths) else 1.0
        counts: dict[str, dict[int, int]] = {}
        for doc, tokens in enumerate(documents):
            for term, tf in Counter(tokens).items():
                counts.setdefault(term, {})[doc] = tf
        self.postings: dict[str, dict[int, float]] = {t: self._impacts(docs) for t, docs in counts.items()}
        self.upper: dict[str, float] = {t: max(p.values()) for t, p in self.postings.items()}
        self.visited = 0  # postings touched by the last top_k (for the demos' "fraction of the work")

    def __repr__(self) -> str:
        """Say the corpus size, the vocabulary and postings, and the knobs k1 and b."""
        postings = sum(len(p) for p in self.postings.values())
        return (f"BM25Index({self.n_docs:,} documents, {len(self.postings):,} terms, {postings:,} postings, "
                f"avgdl {self.avgdl:.1f}; k1={self.k1}, b={self.b})")

    def idf(self, term: str) -> float:
        """Return Lucene's idf, ln(1 + (N - n + 0.5) / (n + 0.5)); always positive."""
        n = len(self.postings.get(term, ()))
        return math.log(1 + (self.n_docs - n + 0.5) / (n + 0.5))

    def _impacts(self, docs: dict[int, int]) -> dict[int, float]:
        n = len(docs)
        idf = math.log(1 + (self.n_docs - n + 0.5) / (n + 0.5))
        k1, b, avgdl = self.k1, self.b, self.avgdl
        return {d: idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * self.lengths[d] / avgdl)) for d, tf in docs.items()}

    def _terms(self, query: list[str]) -> tuple[list[str], Counter]:
        """Return the query's known terms, highest bound first, and how often each was asked for."""
        weights = Counter(t for t in query if t in self.postings)  # a repeated query term counts each time
        return sorted(weights, key=lambda t: (-self.upper[t] * weights[t], t)), weights

    def scores(self, query: list[str]) -> list[float]:
        """Score every document: the full scan that top_k must agree with (sums taken in the same term order)."""
        out = [0.0] * self.n_docs
        terms, weights = self._terms(query)
        for term in terms:
            for doc, impact in self.postings[term].items():
                out[doc] += weights[term] * impact
        return out

    def ranked(self, query: list[str], k: int) -> list[tuple[int, float]]:
        """Return the k best (document index, score) pairs by scoring every document: BM25 as the lecture tells it.

        Best first, ties by document index; only documents scoring > 0. Example: see top_k, which returns the same.
        """
        _check_k(k)
        best = heapq.nsmallest(k, ((-s, d) for d, s in enumerate(self.scores(query)) if s > 0))
        return [(d, -neg) for neg, d in best]

    # --- 2b. MaxScore pruning: the same top k from a fraction of the postings (the cost at 16,000 tools) ---

    def top_k(self, query: list[str], k: int) -> list[tuple[int, float]]:
        """Return what ranked(query, k) returns, scoring only the documents that can still reach the top k.

        MaxScore: each term knows the largest impact in its postings, an upper bound on what it
        can add to any document. Terms are taken from the highest bound down, adding impacts to
        candidate documents. Once the k-th best score so far beats the sum of the bounds of the
        terms still to come, no document outside the candidates can reach the top k: the
        remaining (common, low-idf) terms only look up the candidates, and a candidate that
        cannot catch up with the k-th best is dropped. Example: BM25Index([["a", "b"], ["b", "c"]]).top_k(["c"], 1)
        -> [(1, 0.69...)]
        """
        _check_k(k)
        terms, weights = self._terms(query)
        remaining = [0.0] * (len(terms) + 1)  # remaining[i]: the most terms i.. can still add
        for i in range(len(terms) - 1, -1, -1):
            remaining[i] = remaining[i + 1] + self.upper[terms[i]] * weights[terms[i]]
        acc: dict[int, float] = {}
        visited = 0
        prune = len(terms) <= MAX_PRUNED_TERMS  # each term pays for a k-th best: worth it for a request, not a book
        for i, term in enumerate(terms):
            postings, w = self.postings[term], weights[term]
            threshold = heapq.nlargest(k, acc.values())[-1] if prune and len(acc) >= k else -1.0
            if remaining[i] < threshold:  # no new document can reach the top k: update the candidates only
                for doc in [d for d, s in acc.items() if s + remaining[i] < threshold]:
                    del acc[doc]  # cannot catch up with the k-th best
                if len(acc) < len(postings):
                    for doc in acc:
                        impact = postings.get(doc)
                        if impact is not None:
                            acc[doc] += w * impact
                    visited += len(acc)
                    continue
                for doc, impact in postings.items():
                    if doc in acc:
                        acc[doc] += w * impact
            else:
                for doc, impact in postings.items():
                    acc[doc] = acc.get(doc, 0.0) + w * impact
            visited += len(postings)
        self.visited = visited
        best = heapq.nsmallest(k, ((-s, d) for d, s in acc.items() if s > 0))  # highest score, then lowest index
        return [(d, -neg) for neg, d in best]


def _check_k(k: JSON) -> None:
    if not isinstance(k, int) or isinstance(k, bool) or k <= 0:
        raise ValueError(f"k must be a whole number of at least 1, got {k!r}")


def tool_document(tool: Tool) -> list[str]:
    """Return what the retriever indexes for a tool: its name, description and parameter names, tokenized."""
    return tokenize(" ".join([tool.name, tool.description, *tool.parameters.get("properties", {})]))


class ToolRetriever:
    """BM25 over tools: index once, then `search(text, k)` returns the k best tools for a request."""

    def __init__(self, tools: list[Tool], k1: float = 1.2, b: float = 0.75):
        if not tools:
            raise ValueError("ToolRetriever needs at least one tool to index")
        self.tools = list(tools)
        self.index = BM25Index([tool_document(t) for t in self.tools], k1, b)

    def __repr__(self) -> str:
        """Say how many tools are indexed (the first names) and the index's size and knobs."""
        return (f"ToolRetriever({len(self.tools):,} tools: {tool_core.name_list((t.name for t in self.tools), 70)}; "
                f"{len(self.index.postings):,} terms, k1={self.index.k1}, b={self.index.b})")

    def search(self, text: str, k: int) -> list[Tool]:
        """Return up to k tools for a request, best first (fewer when fewer share a word with it)."""
        if k > len(self.tools):
            raise ValueError(f"k = {k} is more than the {len(self.tools)} tools indexed")
        return [self.tools[d] for d, _ in self.index.top_k(tokenize(text), k)]


DOCS = {  # a small document set for search_docs: the same index serves RAG and tool retrieval
    "outage-credits": "Customers get a credit of at most 50 dollars when an outage was logged on their account.",
    "reschedule-policy": "Appointments can be moved to weekdays only; confirm with the customer before cancelling.",
    "meter-faults": "A meter that reports no reading for 24 hours is flagged; a crew checks it within 3 days.",
    "transformer-heat": "Transformers above 95 degrees are derated; overheating alarms go to the control room.",
    "storm-kit": "Storm kits hold lamps, batteries and water; crews check them each morning.",
}


def docs_registry(docs: dict[str, str] | None = None) -> ToolRegistry:
    """Offer BM25 over a small document set as a `search_docs` tool (retrieval-augmented generation)."""
    docs = DOCS if docs is None else docs
    ids = list(docs)
    index = BM25Index([tokenize(docs[i]) for i in ids])
    registry = ToolRegistry()

    @registry.tool(read_only=True)
    def search_docs(query: str, k: int = 3) -> list:
        """Search the Orrin Grid policy and field documents; returns the best passages with their ids.

        Args:
            query: words to look for, e.g. "outage credit limit"
            k: how many passages to return, 1 to 5
        """
        if not 1 <= k <= len(ids):
            raise ValueError(f"k must be from 1 to {len(ids)}, got {k}")
        return [{"id": ids[d], "text": docs[ids[d]], "score": round(s, 3)} for d, s in index.top_k(tokenize(query), k)]

    return registry


# ---------------------------------------------------------------------------------------------
# --- 3. ToyCaller: a simulated tool picker with explicit knobs ---
# ---------------------------------------------------------------------------------------------

@dataclass
class Pick:
    """What the picker wrote for one request, and how it is graded."""

    name: str
    arguments: dict
    outcome: str  # correct | wrong_tool | hallucinated (a name not in the catalog)
    source: str  # context | memory


@dataclass
class ToyCaller:
    """A stand-in for a model choosing a tool; every figure it produces depends on these knobs.

    It 'understands' a request's object and operation (it reads them off the Request). Among the
    tools in view it picks the right one, unless distracted: with probability distraction x (the
    share of the right tool's 23 near duplicates that are in view) it picks one of those in view
    instead. When the right tool is not in view, it invents a name in the catalog's habit with
    probability `invent`, else picks the most similar tool in view. Zero-shot (nothing in view)
    it answers from memory: the right name with probability `recall`, else an invented one.
    rat=True (retrieval-aware): when no tool in view fits both object and operation, it
    ignores the view and answers from memory instead of forcing a wrong pick.
    """

    distraction: float = 0.3
    invent: float = 0.5
    recall: float = 0.5
    rat: bool = False
    seed: int = 0
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        for knob in ("distraction", "invent", "recall"):
            if not 0 <= getattr(self, knob) <= 1:
                raise ValueError(f"{knob} must be from 0 to 1, got {getattr(self, knob)}")
        self.rng = random.Random(self.seed)

    def pick(self, request: Request, view: list[CatalogTool], catalog_names: set[str]) -> Pick:
        """Choose a tool for a request among the tools in view (an empty view: zero-shot)."""
        right = next((c for c in view if c.tool.name == request.tool), None)
        fitting = right is not None
        if not view or (self.rat and not fitting):
            name = request.tool if self.rng.random() < self.recall else self._invented(request)
            return self._graded(request, name, catalog_names, "memory")
        if right is not None:
            near = [c for c in view if c is not right and (c.object == right.object or c.operation == right.operation)]
            if near and self.rng.random() < self.distraction * len(near) / 23:
                return self._graded(request, self.rng.choice(near).tool.name, catalog_names, "context")
            return self._graded(request, right.tool.name, catalog_names, "context")
        if self.rng.random() < self.invent:
            return self._graded(request, self._invented(request), catalog_names, "context")
        similar = max(view, key=lambda c: ((c.object == request.object) + (c.operation == request.operation),
                                           -view.index(c)))
        return self._graded(request, similar.tool.name, catalog_names, "context")

    def _invented(self, request: Request) -> str:
        return INVENTED[request.operation].format(o=request.object)

    @staticmethod
    def _graded(request: Request, name: str, catalog_names: set[str], source: str) -> Pick:
        outcome = "correct" if name == request.tool else "wrong_tool" if name in catalog_names else "hallucinated"
        return Pick(name, dict(request.arguments) if outcome == "correct" else {}, outcome, source)


def prompt_tokens(tools: list[Tool], request: str = "", counts: dict[str, int] | None = None) -> int:
    """Count what a request costs with these tools in context: count_tokens of render_tool_prompt plus the request.

    subtle: count_tokens never joins pieces across whitespace, and render_tool_prompt writes one
    tool per line, so the prompt's count is the rules' count plus each tool line's. counts (from
    tool_token_counts, made once for a catalog) saves counting the same tool line again and again.
    Tests check it against count_tokens(render_tool_prompt(tools)) itself.
    """
    per_tool = (counts[t.name] if counts is not None else tool_tokens(t) for t in tools)
    return _RULES_TOKENS() + sum(per_tool) + count_tokens(request)


def tool_tokens(tool: Tool) -> int:
    """Count one tool's line in the prompt, as render_tool_prompt writes it."""
    return count_tokens(json.dumps(tool.spec(), ensure_ascii=False))


def tool_token_counts(tools: list[Tool]) -> dict[str, int]:
    """Count every tool's prompt line once, by name (for prompt_tokens over many views of one catalog)."""
    return {t.name: tool_tokens(t) for t in tools}


@functools.lru_cache(maxsize=1)
def _RULES_TOKENS() -> int:
    return count_tokens(tool_core.render_tool_prompt([]))


# ---------------------------------------------------------------------------------------------
# --- 4. Gorilla-style AST matching ---
# ---------------------------------------------------------------------------------------------

AST_CLASSES = ("correct", "wrong_arguments", "wrong_tool", "hallucinated", "unparseable")


def _literal(node: ast.AST) -> JSON:
    """Read an argument that is a literal; anything else (a variable, a call) is kept as its source form."""
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, RecursionError):
        return ("expr", ast.dump(node))


def parse_call(code: str) -> tuple[str, list, dict] | None:
    """Parse the first call in generated code (an assignment around it is fine) with ast; never evaluates it.

    Example: "m = f(1, x=True)" -> ('f', [1], {'x': True})
    """
    try:
        tree = ast.parse(code.strip())
    except (SyntaxError, ValueError, RecursionError):
        return None
    # only a call that is made: `f(...)` or `x = f(...)`, not one inside a lambda or a def
    statement = tree.body[0] if len(tree.body) == 1 else None
    call = statement.value if isinstance(statement, (ast.Expr, ast.Assign)) else None
    if not isinstance(call, ast.Call):
        return None
    names = [k.arg for k in call.keywords]
    if len(names) != len(set(names)):
        return None  # a repeated keyword: Python itself refuses the call
    name, plain = tool_core.dotted_name(call.func)
    name = name if plain else None  # f().load: not a function of any documented API
    if name is None or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if any(k.arg is None for k in call.keywords):  # **kwargs: not a literal call
        return None
    return name, [_literal(a) for a in call.args], {k.arg: _literal(k.value) for k in call.keywords}


def classify_call(code: str, gold_name: str, gold_arguments: dict, catalog_names: set[str]) -> str:
    """Classify a generated call against the catalog and the gold call (Gorilla's AST check, keyword calls)."""
    parsed = parse_call(code)
    if parsed is None:
        return "unparseable"
    name, args, kwargs = parsed
    if name not in catalog_names:
        return "hallucinated"
    if name != gold_name:
        return "wrong_tool"
    return "correct" if not args and tool_core.json_equal(kwargs, gold_arguments) else "wrong_arguments"


REFERENCE_APIS = [  # a small API documentation set, Gorilla's torch.hub kind (the first four are entries of
    # Gorilla's data/api/torchhub_api.jsonl, written there with keywords: repo_or_dir=..., model=...)
    "torch.hub.load('pytorch/vision', 'densenet121', pretrained=True)",
    "torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)",
    "torch.hub.load('pytorch/vision', 'mobilenet_v2', pretrained=True)",
    "torch.hub.load('ultralytics/yolov5', 'yolov5s', pretrained=True)",
    "torch.hub.load('facebookresearch/dino:main', 'dino_vits16')",
]


def _torch_hub_load(repo_or_dir, model, *args, source="github", trust_repo=None, force_reload=False, verbose=True,
                    skip_validation=False, **kwargs):
    """Stand for torch.hub.load's documented signature (PyTorch 2.x); never called, only read by inspect."""


@dataclass(frozen=True)
class ApiSignature:
    """An API's documented signature, and which of its parameters say which API a call is (Gorilla's choice per API)."""
    signature: inspect.Signature
    compared: tuple[str, ...]  # parameters whose values identify the API; every other argument is free
    repository: str | None = None  # the parameter holding "owner/name[:ref]", compared by the tag rule


API_SIGNATURES = {  # every API the reference set holds; Gorilla compares repo_or_dir and model only (get_args in
    # eval/eval-scripts/ast_eval_th.py): pretrained and the rest are optional arguments, not part of which API it is
    "torch.hub.load": ApiSignature(inspect.signature(_torch_hub_load), ("repo_or_dir", "model"), "repo_or_dir"),
}


def bind_call(name: str, args: list, kwargs: dict) -> dict | None:
    """Bind a parsed call's arguments to its API's parameter names, as Python would; None if Python would refuse it.

    Example: bind_call('torch.hub.load', ['pytorch/vision', 'densenet121'], {})['model'] -> 'densenet121'
    An API without a documented signature gives None (its positional arguments cannot be named); a call
    Python rejects (a required argument missing, one given twice) gives None; defaults are filled in, so a
    left-out argument equals its default written out (the rewrite Gorilla's blog on hallucination describes).
    """
    api = API_SIGNATURES.get(name)
    if api is None:
        return None
    try:
        bound = api.signature.bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    return dict(bound.arguments)


def _repository(value: str) -> tuple[str, str | None] | None:
    """Split torch.hub's "owner/name[:ref]" into the repository and its ref (None if no ref is named).

    Example: 'pytorch/vision:v0.10.0' -> ('pytorch/vision', 'v0.10.0'); 'pytorch/vision' -> ('pytorch/vision', None)
    None when torch.hub itself could not parse it (it splits once on ':' and the repository once on '/').
    """
    repo, colon, ref = value.partition(":")
    owner, slash, name = repo.partition("/")
    if not (owner and slash and name) or "/" in name or ":" in ref or (colon and not ref):
        return None
    return repo, ref if colon else None


def _same_argument(api: ApiSignature, parameter: str, generated: JSON, reference: JSON) -> bool:
    """Compare one identifying argument. Example: repo_or_dir 'pytorch/vision:v0.10.0' against 'pytorch/vision' -> True"""
    if parameter == api.repository and isinstance(generated, str) and isinstance(reference, str):
        ours, theirs = _repository(generated), _repository(reference)
        # a reference without a ref pins the repository only (any tag or branch of it is that API, as in Gorilla,
        # whose reference 'pytorch/vision' is found inside APIBench's own answers 'pytorch/vision:v0.10.0');
        # a reference with a ref ('facebookresearch/dino:main') pins that ref too
        return ours is not None and theirs is not None and ours[0] == theirs[0] and theirs[1] in (None, ours[1])
    return tool_core.json_equal(generated, reference)


@functools.lru_cache(maxsize=None)
def _bound_reference(reference: str) -> tuple[str, dict]:
    """Parse and bind one reference call (the lab's own text: a bad one is a ValueError, not a non-match)."""
    parsed = parse_call(reference)
    bound = bind_call(*parsed) if parsed is not None else None
    if bound is None:
        raise ValueError(f"reference {reference!r} is not a call of an API in API_SIGNATURES")
    return parsed[0], bound


def subtree_match(code: str, references: list[str] = REFERENCE_APIS) -> str | None:
    """Return the reference API whose call tree appears in the generated code, or None (Gorilla's sub-tree match).

    Example: subtree_match("m = torch.hub.load(model='densenet121', repo_or_dir='pytorch/vision:v0.10.0')")
             -> "torch.hub.load('pytorch/vision', 'densenet121', pretrained=True)"
    The code is parsed with ast, never run; text that is not one call, a starred or **kwargs argument, an
    API without a documented signature or a call Python would refuse matches nothing (None).
    Rules, each with its reason:
      - the function path must be the reference's whole dotted name: another path is another API;
      - positional arguments of both calls are bound to parameter names through the API's documented
        signature (API_SIGNATURES), so 'pytorch/vision' written first equals repo_or_dir='pytorch/vision';
      - only the parameters that identify the API are compared (repo_or_dir and model for torch.hub.load, as
        Gorilla's ast_eval_th.py does); the reference's pretrained=True and any argument the generated call
        adds are free, because they change how the API is called, not which API it is;
      - repo_or_dir follows the tag rule of _same_argument: 'pytorch/vision:v0.10.0' matches a reference
        'pytorch/vision', and a reference that names a ref (':main') needs that ref.
    Where it departs from Gorilla: Gorilla checks that each reference value occurs as text inside the
    generated call, so 'pytorch/vision' is found in 'pytorch/visions' and 'resnet50' in 'wide_resnet50_2',
    and any argument whose text contains "model" (model_math='fp16') is compared too; here each bound value
    is compared whole, so an invented repository or model never matches.
    """
    parsed = parse_call(code)
    if parsed is None:
        return None
    bound = bind_call(*parsed)
    if bound is None:
        return None
    name, api = parsed[0], API_SIGNATURES[parsed[0]]
    for reference in references:
        ref_name, ref_bound = _bound_reference(reference)
        if ref_name == name and all(_same_argument(api, p, bound[p], ref_bound[p]) for p in api.compared):
            return reference
    return None


def call_source(name: str, arguments: dict) -> str:
    """Write a call in Python syntax, as Gorilla's models write them. Example: ('f', {'a': 'x'}) -> "f(a='x')" """
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"


# ---------------------------------------------------------------------------------------------
# --- 5. Demos (scripts/05_many_tools.py prints these) ---
# ---------------------------------------------------------------------------------------------

KNOBS = "ToyCaller knobs: distraction 0.3, invent 0.5, recall 0.5 (a simulated picker: the mechanism carries over, not the digits)"

TEACHING_WAYS = [  # lecture 000's summary table, quoted, not computed (handout 001: §3.1, §3.7, §4.2, §4.1)
    # (approach, how many tools, what it learns from, what a call is)
    ("Toolformer", "5 tools", "self-supervision", "text"),
    ("ToolkenGPT", "234 tools", "ground-truth or synthetic calls", "one embedding (a toolken)"),
    ("Gorilla", "1,645 API calls", "GPT-4 self-instruct data", "text and API code"),
    ("ToolLLM", "16,000 APIs", "ChatGPT-generated traces", "a ReAct-style trace (reason, then act)"),
]


@dataclass(frozen=True)
class LabMechanism:
    """The one mechanism of an approach that the lab computes: what it is, the code, the script and demos showing it."""

    approach: str
    mechanism: str
    code: tuple[str, ...]  # module.name, each importable
    script: str  # "02" for scripts/02_toolformer.py
    demos: tuple[int, ...]
    also: str = ""  # a second place to look


LAB_MECHANISMS = [
    LabMechanism("Toolformer", "the loss filter: a call is kept only if L- - L+ >= tau",
                 ("toolformer_lab.usefulness", "toolformer_lab.keep"), "02", (1, 2, 3, 6)),
    LabMechanism("ToolkenGPT", "the toolken target: the toolken at the first result token, [N/A] (no loss) after it",
                 ("toolformer_lab.toolken_target", "toolformer_lab.tool_mode"), "02", (4, 5)),
    LabMechanism("Gorilla", "AST sub-tree matching: a generated call is real only if it matches a known API's call",
                 ("tool_catalog.classify_call", "tool_catalog.subtree_match"), "05", (4,),
                 "retrieval-aware picking: demo 3"),
    LabMechanism("ToolLLM", "an API retriever picks the few tools a request shows (BM25 for its neural one)",
                 ("tool_catalog.ToolRetriever", "tool_catalog.BM25Index.top_k"), "05", (3,),
                 "DFSDT: tool_catalog.solve_dfsdt, script 06"),
]


def which_demos(demos: tuple[int, ...]) -> str:
    """Write demo numbers briefly. Example: (1, 2, 3, 6) -> 'demos 1-3 and 6'; (4, 5) -> 'demos 4 and 5'"""
    runs: list[list[int]] = []
    for d in demos:
        if runs and d == runs[-1][-1] + 1:
            runs[-1].append(d)
        else:
            runs.append([d])
    parts = [f"{r[0]}-{r[-1]}" if len(r) > 2 else str(d) for r in runs for d in (r if len(r) <= 2 else r[:1])]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return ("demo " if len(demos) == 1 else "demos ") + text


@tool_core.preformatted
def demo_four_ways() -> str:
    """Lecture 000's table of four ways to teach a model its tools (quoted), and what of each this lab computes."""
    mechanisms = [[m.approach, m.mechanism, ", ".join(m.code),
                   f"script {m.script}, {which_demos(m.demos)}" + (f" ({m.also})" if m.also else "")]
                  for m in LAB_MECHANISMS]
    return "\n".join([
        "Lecture 000's summary table (quoted, not computed: the papers' own models and scales):",
        format_table(["approach", "tools (quoted)", "learns from (quoted)", "a call is (quoted)"],
                     [list(row) for row in TEACHING_WAYS]),
        "All four change the model to fit its tools; the more tools, the more the risk moves from picking the wrong one "
        "to\ninventing one that does not exist (the lecture's point, and Gorilla's).",
        "The one mechanism of each that this lab computes, and where to see it:",
        format_table(["approach", "mechanism", "code", "shown in"], mechanisms, [0, 40, 30, 34])])


@tool_core.preformatted
def demo_catalog() -> str:
    """Show the catalog's structure and where it is easy to confuse: one word between near duplicates."""
    catalog = orrin_catalog()
    requests = catalog_requests(catalog)
    retriever = ToolRetriever([c.tool for c in catalog])
    rows = []
    for name in ("get_meter_status", "get_transformer_status", "list_meters", "assign_work_order"):
        entry = next(c for c in catalog if c.tool.name == name)
        ranked = retriever.index.top_k(tool_document(entry.tool), 3)
        neighbours = [catalog[d].tool.name for d, _ in ranked if catalog[d] is not entry][:2]
        rows.append([name, len(near_duplicates(entry, catalog)), ", ".join(neighbours)])
    para = [r for r in requests if r.paraphrased]
    original = next(r for r in requests if r.object == "meter" and not r.paraphrased)
    examples = [original, next(r for r in requests if r.tool == original.tool and r.paraphrased)]
    return "\n".join([
        f"{len(OBJECTS)} object kinds x {len(OPERATIONS)} operations = {len(catalog)} tools.",
        f"  objects:    {', '.join(OBJECTS)}",
        f"  operations: {', '.join(p.format(o='X') for p, _, _ in OPERATIONS.values())}",
        f"  one object, ten tools one word apart: {', '.join(c.tool.name for c in catalog if c.object == 'meter')}",
        "",
        "Nearest neighbours (BM25 between the tools' own texts):",
        format_table(["tool", "near duplicates", "closest other tools"], rows),
        "",
        f"{len(requests)} requests, {len(para)} paraphrased so that they avoid the tool's own words, e.g.",
        *[f"  {'paraphrase' if r.paraphrased else 'original  '}: {r.text!r} -> {call_source(r.tool, r.arguments)}"
          for r in examples]])


def _evaluate(requests: list[Request], views: list[list[CatalogTool]], caller: ToyCaller,
              catalog_names: set[str], counts: dict[str, int]) -> dict:
    """Run the picker on each request with its view; count outcomes, recall and tokens."""
    picks = [caller.pick(r, v, catalog_names) for r, v in zip(requests, views)]
    recalled = [any(c.tool.name == r.tool for c in v) for r, v in zip(requests, views)]
    para = [i for i, r in enumerate(requests) if r.paraphrased]
    orig = [i for i, r in enumerate(requests) if not r.paraphrased]
    return {"picks": picks,
            "recall_orig": sum(recalled[i] for i in orig) / len(orig) if orig else 0.0,
            "recall_para": sum(recalled[i] for i in para) / len(para) if para else 0.0,
            "correct": sum(p.outcome == "correct" for p in picks),
            "wrong_tool": sum(p.outcome == "wrong_tool" for p in picks),
            "hallucinated": sum(p.outcome == "hallucinated" for p in picks),
            "tokens": sum(prompt_tokens([c.tool for c in v], r.text, counts) for r, v in zip(requests, views)) / len(requests)}


@tool_core.preformatted
def demo_all_in_context(seed: int = 0) -> str:
    """Put 10, 30, 75 or 150 tools in context (the right one always among them): accuracy and tokens per request."""
    catalog = orrin_catalog()
    names = {c.tool.name for c in catalog}
    requests = catalog_requests(catalog, seed)
    by_name = {c.tool.name: c for c in catalog}
    counts = tool_token_counts([c.tool for c in catalog])
    rows, accuracy, tokens = [], [], []
    for size in (10, 30, 75, 150):
        rng = random.Random(seed + size)
        views = []
        for r in requests:  # the right tool plus size - 1 others drawn at random (all of them at 150)
            others = [c for c in catalog if c.tool.name != r.tool]
            views.append(rng.sample(others, size - 1) + [by_name[r.tool]] if size < len(catalog) else catalog)
        got = _evaluate(requests, views, ToyCaller(seed=seed), names, counts)
        rows.append([size, f"{got['correct'] / len(requests):.0%}", got["wrong_tool"], f"{got['tokens']:,.0f}",
                     f"{5 * got['tokens']:,.0f}"])
        accuracy.append(100 * got["correct"] / len(requests))
        tokens.append(got["tokens"])
    source = f"scripts/05_many_tools.py, demo 2 (seed {seed}): tool_catalog.demo_all_in_context, {len(requests)} requests"
    sizes = [str(size) for size, *_ in rows]
    tool_core.record(tool_core.Chart("05_accuracy_by_tools", "The right tool picked, as more tools sit in context",
                                     "tools in context", "% of requests answered with the right tool", sizes,
                                     [("accuracy", accuracy)], source, kind="lines", y_max=100))
    tool_core.record(tool_core.Chart("05_tokens_by_tools", "Tokens of tool definitions sent with every request",
                                     "tools in context", "tokens per request (count_tokens)", sizes,
                                     [("tokens per request", tokens)], source))
    return "\n".join([
        f"{len(requests)} requests; the right tool is always in context. {KNOBS}.",
        format_table(["tools in context", "accuracy", "wrong tool", "tokens per request", "5-step task"], rows),
        "More tools, more near duplicates in view to be picked by mistake; the tokens grow linearly with the",
        "tools and are sent again at every step of the loop (counted with count_tokens of render_tool_prompt)."])


@tool_core.preformatted
def demo_retrieval(seed: int = 0) -> str:
    """Retrieve the top k tools with BM25, then pick: recall, accuracy, wrong and invented tools, tokens."""
    catalog = orrin_catalog()
    names = {c.tool.name for c in catalog}
    requests = catalog_requests(catalog, seed)
    retriever = ToolRetriever([c.tool for c in catalog])
    by_name = {c.tool.name: c for c in catalog}
    ranked = {r.text: [by_name[t.name] for t in retriever.search(r.text, 10)] for r in requests}
    counts = tool_token_counts([c.tool for c in catalog])
    rows = []

    def row(label: str, views: list[list[CatalogTool]], caller: ToyCaller) -> dict:
        got = _evaluate(requests, views, caller, names, counts)
        rows.append([label, f"{got['recall_orig']:.0%}", f"{got['recall_para']:.0%}", f"{got['correct'] / len(requests):.0%}",
                     got["wrong_tool"], got["hallucinated"], f"{got['tokens']:,.0f}"])
        return got

    row("all 150 in context", [catalog] * len(requests), ToyCaller(seed=seed))
    results = {k: row(f"BM25 top {k}", [ranked[r.text][:k] for r in requests], ToyCaller(seed=seed)) for k in (1, 3, 5, 10)}
    zero = row("zero-shot (no tools)", [[] for _ in requests], ToyCaller(seed=seed))
    rat = row("RAT, BM25 top 3", [ranked[r.text][:3] for r in requests], ToyCaller(seed=seed, rat=True))
    k3 = results[3]
    tool_core.record(tool_core.Chart(
        "05_recall_at_k", "BM25 recall: is the right tool among the top k?", "k (tools retrieved)",
        "% of requests whose tool is in the top k", [str(k) for k in results],
        [("original wording", [100 * got["recall_orig"] for got in results.values()]),
         ("paraphrased", [100 * got["recall_para"] for got in results.values()])],
        f"scripts/05_many_tools.py, demo 3 (seed {seed}): tool_catalog.demo_retrieval", kind="lines", y_max=100))
    missed = [r for r in requests if r.paraphrased and all(c.tool.name != r.tool for c in ranked[r.text][:3])]
    return "\n".join([
        f"{len(requests)} requests ({sum(r.paraphrased for r in requests)} paraphrased). {KNOBS}.",
        format_table(["tools in view", "recall orig.", "recall para.", "accuracy", "wrong tool", "invented", "tokens"], rows),
        f"Retrieval cuts the tokens per request from {rows[0][6]} to a few hundred. At k = 3, BM25 misses "
        f"{len(missed)} of {sum(r.paraphrased for r in requests)} paraphrases,",
        f"  e.g. {missed[0].text!r} (gold {missed[0].tool}): no word of it names the operation." if missed else "",
        f"Zero-shot (no tool in view), the picker answers from memory: the right name with probability recall = "
        f"{ToyCaller().recall:g}, hence its {zero['correct']} of {len(requests)} ({zero['correct'] / len(requests):.0%});",
        f"  the other {zero['hallucinated']} name a tool that does not exist (Gorilla's API hallucination).",
        "RAT is Gorilla's retrieval-aware training: trained with retrieved tools in the prompt, some of them wrong, a "
        "model learns",
        "  to answer from memory when none of them fits. Here the picker does just that (rat=True). At k = 3: wrong-tool "
        f"picks {k3['wrong_tool']} -> {rat['wrong_tool']},",
        f"  invented names {k3['hallucinated']} -> {rat['hallucinated']}: it stops forcing a wrong tool when the "
        "retrieved ones do not fit, but its memory invents too; recall stays the ceiling."])


@tool_core.preformatted
def demo_ast() -> str:
    """Classify generated calls with Gorilla's AST check, and match torch.hub calls as sub-trees."""
    catalog = orrin_catalog()
    names = {c.tool.name for c in catalog}
    gold = ("get_transformer_status", {"transformer_id": "TR-204"})
    candidates = [
        call_source(*gold),
        "get_transformer_status(transformer_id='TR-240')",
        "get_transformer_history(transformer_id='TR-204')",
        "get_transformer_state(transformer_id='TR-204')",
        "get_transformer_status(transformer_id='TR-204'",
    ]
    rows = [[code, classify_call(code, *gold, names)] for code in candidates]
    hub = ["model = torch.hub.load('pytorch/vision', 'densenet121', pretrained=True)",
           "net = torch.hub.load('pytorch/vision', 'densenet121', pretrained=True)",
           "model = torch.hub.load('pytorch/visions', 'densenet121', pretrained=True)",
           "model = torch.hub.load('pytorch/vision', 'densenet121', pretrained=False)",
           "torch.hub.load('pytorch/vision', 'densenet121')",
           "torch.hub.load(repo_or_dir='pytorch/vision:v0.10.0', model='densenet121')",
           "torch.hub.load('pytorch/vision:v0.10.0', 'BerryPicker')"]
    hub_rows = [[code, subtree_match(code) or "no match: not a real API call"] for code in hub]
    return "\n".join([
        "Request: \"What's the current status of transformer TR-204?\"  gold: " + call_source(*gold),
        format_table(["generated call", "AST verdict"], rows), "",
        f"torch.hub, against a reference set of {len(REFERENCE_APIS)} real calls:",
        format_table(["generated code", "sub-tree match"], hub_rows),
        "Arguments are bound to torch.hub.load's parameters and only repo_or_dir and model compared, as Gorilla does:",
        "a renamed variable, keywords for positions, a tag (:v0.10.0) or another pretrained keep the match;",
        "a hallucinated repository or model breaks it. (Lecture 000 says a flipped pretrained=False breaks it too;",
        "Gorilla's evaluation, ast_eval_th.py, compares only those two: pretrained is an optional argument.)"])


@tool_core.preformatted
def demo_deferred(seed: int = 0, n: int = 40) -> str:
    """Deferred loading: start with only a search_tools meta-tool; found schemas join the context as results."""
    catalog = orrin_catalog()
    names = {c.tool.name for c in catalog}
    by_name = {c.tool.name: c for c in catalog}
    retriever = ToolRetriever([c.tool for c in catalog])
    requests = random.Random(seed).sample(catalog_requests(catalog, seed), n)
    outcomes = {"deferred": Counter(), "all in context": Counter()}
    tokens = {"deferred": 0, "all in context": 0}
    callers = {mode: ToyCaller(seed=seed) for mode in outcomes}
    counted = functools.lru_cache(maxsize=None)(count_tokens)  # the same system prompt is counted once
    for request in requests:
        for mode in outcomes:
            registry = ToolRegistry([c.tool for c in catalog]) if mode == "all in context" else ToolRegistry()
            if mode == "deferred":
                _add_search_tools(registry, retriever)
            lm = tool_core.ScriptedLM(_deferred_model(request, registry, callers[mode], by_name, names, catalog, mode))
            transcript = tool_core.run_agent(lm, registry, request.text, max_steps=4)
            tokens[mode] += sum(counted(m["content"]) for prompt in lm.prompts for m in prompt)
            called = [c.name for c in transcript.calls if c.name != "search_tools"]
            outcomes[mode][_outcome(called[-1] if called else None, request.tool, names)] += 1
    rows = [[mode, f"{tokens[mode] / n:,.0f}", f"{outcomes[mode]['correct'] / n:.0%}", outcomes[mode]["wrong_tool"],
             outcomes[mode]["hallucinated"]] for mode in ("all in context", "deferred")]
    saved = 1 - tokens["deferred"] / tokens["all in context"]
    full, deferred = outcomes["all in context"], outcomes["deferred"]
    return "\n".join([
        f"{n} requests through tool_core.run_agent. Deferred: the model starts with only search_tools; each search",
        "returns the 5 best tools' definitions as its result, and those tools become callable.",
        format_table(["mode", "tokens per task (all turns)", "accuracy", "wrong tool", "invented"], rows),
        f"Deferred loading saves {saved:.0%} of the tokens (the lesson quotes about 85% for Anthropic's tool search, "
        "77K -> 8.7K).",
        f"Fewer near duplicates in view: wrong-tool picks {full['wrong_tool']} -> {deferred['wrong_tool']}; but where "
        f"the search misses, nothing right is in view: {deferred['hallucinated']} invented name(s). {KNOBS}."])


def _add_search_tools(registry: ToolRegistry, retriever: ToolRetriever) -> None:
    @registry.tool(read_only=True)
    def search_tools(query: str) -> list:
        """Find tools for a task; returns the 5 best tools' definitions, which you may then call.

        Args:
            query: what you need to do, in a few words
        """
        found = retriever.search(query, 5)
        for tool in found:
            if tool.name not in registry:
                registry.register(tool)
        return [t.spec() for t in found]


def _outcome(name: str | None, gold: str, names: set[str]) -> str:
    return "correct" if name == gold else "none" if name is None else "wrong_tool" if name in names else "hallucinated"


def _deferred_model(request: Request, registry: ToolRegistry, caller: ToyCaller, by_name: dict, names: set[str],
                    catalog: list[CatalogTool], mode: str):
    """Script a model: (deferred) search first; then pick among the tools it can see, call, and answer."""
    def reply(messages: list[dict]) -> str:
        turns = sum(m["role"] == "assistant" for m in messages)
        if mode == "deferred" and turns == 0:
            return tool_core.call_text("search_tools", {"query": request.text})
        if turns == (1 if mode == "deferred" else 0):
            view = [by_name[n] for n in registry.names() if n in by_name] if mode == "deferred" else catalog
            pick = caller.pick(request, view, names)
            return tool_core.call_text(pick.name, request.arguments)
        return "Done."
    return reply


@tool_core.preformatted
def demo_toolbench(seed: int = 0, budget: int = 8) -> str:
    """Find solution paths for 20 chain instructions by one greedy chain and by DFSDT; grade them as ToolEval does."""
    instructions, registry = toolbench_instructions(seed)
    chain = [solve_chain(i.roots, registry, budget) for i in instructions]
    dfs = [solve_dfsdt(i.roots, registry, budget) for i in instructions]
    refs = [Attempt(True, len(i.reference), list(i.reference)) for i in instructions]
    rows = [[label, f"{pass_rate(got):.0%}", sum(a.calls for a in got), f"{win_rate(got, chain):.0%}",
             f"{win_rate(got, refs):.0%}"] for label, got in (("greedy chain (ReAct)", chain), ("DFSDT", dfs))]
    traps = [[trap or "none (distraction only)", sum(i.trap == trap for i in instructions),
              sum(a.solved for a, i in zip(chain, instructions) if i.trap == trap),
              sum(a.solved for a, i in zip(dfs, instructions) if i.trap == trap)] for trap in ("", "stale id", "tool down")]
    sweep = ", ".join(f"{b}: {pass_rate([solve_dfsdt(i.roots, registry, b) for i in instructions]):.0%}"
                      for b in (3, 5, 8, 12))
    kinds = Counter(i.kind for i in instructions)
    example = _example(instructions, chain, dfs)
    lines = [
        f"{len(instructions)} instructions over the {len(registry)}-tool catalog, chains of 2-4 calls "
        f"({kinds['intra']} intra-category, {kinds['cross']} cross-category); "
        f"{sum(bool(i.trap) for i in instructions)} have a first natural call that fails.",
        "(Intra-category: every call is about one kind of object, e.g. vehicles; cross-category: two kinds.)",
        f"Budget: {budget} tool calls per instruction. {KNOBS}.",
        *_TOOLBENCH_TERMS,
        format_table(["search", "pass rate", "calls spent", "win rate vs chain", "win rate vs reference"], rows),
        "",
        format_table(["trap on the first call", "instructions", "chain solves", "DFSDT solves"], traps),
        "Stale id: the instruction quotes an old id that no record has (a search for it finds the record); tool down:",
        "the natural tool answers that it is unavailable (a search for the record serves instead).",
        f"DFSDT pass rate by budget: {sweep}.",
    ]
    if example is not None:
        lines += ["", *_example_lines(instructions[example], chain[example], dfs[example])]
    lines += ["",
              "Win rate here is a rule, not ToolEval's LLM judge: a solved path beats an unsolved one, the shorter path",
              "wins between two solved ones, a tie counts half. An LLM judge would also weigh what a rule cannot (is the",
              "final answer right and complete, was each step reasonable), but it is biased: it tends to prefer the",
              "path shown first (order bias; ToolEval shows both orders) and the longer, wordier one (length bias)."]
    return "\n".join(lines)


_TOOLBENCH_TERMS = textwrap.wrap(  # demo 5's words, for a reader who knows only the handout
    f"At each step the picker proposes candidate calls, best first; distraction {ToyCaller().distraction:g} is the "
    "chance that it ranks a near duplicate of the right tool (a name one word away) first; invent and recall apply "
    "only when the right tool is out of view, never here. A greedy chain (ReAct, as in lecture 1's loop) takes the "
    "first candidate at every step and gives up at the first failure; DFSDT (ToolLLM's depth-first search over the "
    "tree of candidates) goes back to the last choice and tries its next candidate instead. Pass rate: the share of "
    "instructions solved within the budget; calls spent: every call made, failed ones too; win rate: the share where "
    "the judge below prefers this search's path to the other's (a tie counts half); the reference is the shortest "
    "working path.", 114)


def _example(instructions: list[ToolBenchInstruction], chain: list[Attempt], dfs: list[Attempt]) -> int | None:
    """Pick the instruction to show: one with a stale id that the chain fails and DFSDT solves; first choice, one
    whose stale id is what fails (a 404, for good), not a tool that is down anyway (a 503, for now)."""
    shown = [k for k, (c, d) in enumerate(zip(chain, dfs))
             if d.solved and not c.solved and instructions[k].trap == "stale id"]
    clean = [k for k in shown if any(not s.result.ok and not s.result.retryable  # retryable: 503, the tool is down
                                     and instructions[k].stale in json.dumps(s.node.arguments) for s in dfs[k].steps)]
    return (clean or shown or [None])[0]


def _example_lines(ins: ToolBenchInstruction, chain: Attempt, dfs: Attempt) -> list[str]:
    """Write the example: the instruction, its planted stale id, the chain's one call, and DFSDT's every call."""
    on_path = path_steps(dfs)
    dropped = [s.number for s in dfs.steps if s.number not in on_path]
    first = chain.steps[-1]
    return [
        f"Example: {ins.text!r}",
        f"  {ins.stale} is a stale id, planted on purpose (the trap above): no record has it (the record is "
        f"{ins.current} now),",
        f"  and only a search for {ins.stale} leads there.",
        f"  chain: {' -> '.join(call_source(n, a) for n, a in chain.path)}  (gives up)",
        f"    it {_ending(first)}; a chain follows one path, so there is nothing to go back to",
        f"  DFSDT, every call in the order made, indented by its depth in the tree of candidate calls:",
        *("  " + line for line in render_steps(dfs)),
        f"  DFSDT: {dfs.calls} calls, path found: {' -> '.join(call_source(n, a) for n, a in dfs.path)}",
        f"    the path is calls {_and(on_path)}; "
        + (f"calls {_and(dropped)} were on abandoned branches, and the budget counts them too" if len(dropped) > 1 else
           f"call {_and(dropped)} was on an abandoned branch, and the budget counts it too")]


def _ending(step: SearchStep) -> str:
    """Say how a chain's last call ended it (the chain stops at a failure, a dead end or the budget)."""
    if step.outcome == "failed":
        return f"failed: {failure_reason(step.result)}"
    return {"dead end": "succeeded, but no next call follows from it (a dead end)",
            "ok": "succeeded, but the budget of calls was spent", "done": "finished the instruction"}[step.outcome]


def _and(numbers: list[int]) -> str:
    """Join numbers as prose. Example: [2, 3, 6] -> '2, 3 and 6'"""
    words = [str(n) for n in numbers]
    return " and ".join([", ".join(words[:-1]), words[-1]]) if len(words) > 1 else "".join(words)


# Handout 001, figure by figure: what `scripts/05_many_tools.py --vs-handout` prints, and README's table
HANDOUT_05: list[HandoutFigure] = [  # the first four: the lecture's table, which demo 0 quotes (the same, not computed)
    HandoutFigure(0, "§3.1", "tools Toolformer learned (quoted from the lecture's table, not computed)",
                  "5 (QA, calculator, search engine, translator, calendar)",
                  r"(?m)^Toolformer\s+(\d[\d,]*) tools"),
    HandoutFigure(0, "§3.7", "tools ToolkenGPT reached (quoted from the lecture's table, not computed)",
                  "234", r"(?m)^ToolkenGPT\s+(\d[\d,]*) tools"),
    HandoutFigure(0, "§4.2", "Gorilla's real API calls (quoted from the lecture's table, not computed)",
                  "1,645", r"(?m)^Gorilla\s+(\d[\d,]*) API calls"),
    HandoutFigure(0, "§4.1", "ToolLLM's real APIs (quoted from the lecture's table, not computed)",
                  "over 16,000 (16,000 多个)", r"(?m)^ToolLLM\s+(\d[\d,]*) APIs"),
    HandoutFigure(1, "§4.4", "the catalog",
                  "15 objects x 10 operations = 150 APIs", r"(\d+ object kinds x \d+ operations = \d+ tools)"),
    HandoutFigure(1, "§4.4", "the operations",
                  "get_X_status, get_X_history, list_Xs, assign_X, ...", r"operations: +(.+)"),
    HandoutFigure(1, "§4.4", "requests and paraphrased requests",
                  "300 requests, 190 paraphrased", r"(\d+ requests, \d+ paraphrased) so that"),
    HandoutFigure(3, "§4.4", "tokens per request, all 150 tools in context",
                  "over ten thousand (一万多)", r"cuts the tokens per request from ([\d,]+) to"),
    HandoutFigure(3, "§4.4", "tokens per request, BM25 top 3",
                  "a few hundred", r"(?m)^BM25 top 3\s+\S+\s+\S+\s+\S+\s+\d+\s+\d+\s+([\d,]+)$"),
    HandoutFigure(3, "§4.4", "tokens per request, BM25 top 10",
                  "a few hundred", r"(?m)^BM25 top 10\s+\S+\s+\S+\s+\S+\s+\d+\s+\d+\s+([\d,]+)$",
                  "each tool definition costs about 110 stand-in tokens here, so ten of them pass a thousand; no "
                  "knob"),
    HandoutFigure(3, "§4.4", "recall at k = 10, paraphrased requests", "100%", r"(?m)^BM25 top 10\s+\d+%\s+(\d+%)",
                  "the lab's paraphrase templates avoid most of the tool's words and BM25 knows no synonyms; "
                  "original wordings are recalled 100%; not a picker knob (seeds 0-5: 87-90%)"),
    HandoutFigure(3, "§4.4", "accuracy at k = 10 (the handout: higher than all in context)",
                  "higher than all 150 in context", r"(?m)^BM25 top 10\s+\S+\s+\S+\s+(\d+%)"),
    HandoutFigure(3, "§4.4", "paraphrased requests BM25 top 3 misses",
                  "about a third (of 190)", r"BM25 misses (\d+ of \d+) paraphrases",
                  "the lab's paraphrases (190 from 300 requests) swap more words than the handout's; retrieval is "
                  "deterministic, the seed only draws ids (seeds 0-5: 43-47% recalled)"),
    HandoutFigure(3, "§12 ex. 6", "BM25 top 3 recall on paraphrased requests",
                  "66%", r"(?m)^BM25 top 3\s+\d+%\s+(\d+%)",
                  "the same paraphrase corpus; README lists this one (with top 10: 90%)"),
    HandoutFigure(3, "§4.4", "zero-shot: answers that name a tool that does not exist",
                  "half (of 300)", r"(?:Zero-shot, |the other )(\d+)(?: of \d+ answers)? name a tool"),
    HandoutFigure(3, "§4.4", "wrong-tool picks at k = 3 without RAT",
                  "31", r"[Aa]t k = 3: wrong-tool picks (\d+) -> \d+",
                  "ToyCaller's knobs meet a weaker retriever: BM25 misses 108 paraphrases at k = 3 here (the handout"
                  " about 63), and without RAT half of the misses (1 - invent = 0.5) become wrong picks",
                  closer="invent 0.8, distraction 0.15: 29 -> 3 (but invented names 82 -> 57, further from the "
                         "handout)"),
    HandoutFigure(3, "§4.4", "wrong-tool picks at k = 3 with RAT", "3", r"[Aa]t k = 3: wrong-tool picks \d+ -> (\d+)",
                  "with RAT only distraction (0.3) leaves wrong picks; the count follows the knob and the seed",
                  closer="distraction 0.15 (with invent 0.8): 3; --seed 3 or 4: 3 at the default knobs"),
    HandoutFigure(3, "§4.4", "invented names at k = 3, without -> with RAT (the handout: RAT did not reduce them)",
                  "did not fall", r"invented names (\d+ -> \d+)",
                  "with RAT every miss goes to memory, which invents with 1 - recall = 0.5; whether that is more or "
                  "fewer than invent x misses depends on the seed and knobs; the handout's sentence does not hold at"
                  " seed 0",
                  closer="--seed 1: 47 -> 57 (they rise, as the handout says; wrong picks 62 -> 5); at seed 0 only "
                         "recall 0.3 with invent 0.7 gives 72 -> 75, and then zero-shot accuracy falls to about 30%"),
    HandoutFigure(4, "§4.4", "the AST demo's request",
                  "What's the current status of transformer TR-204?", r'Request: "([^"]+)"'),
    HandoutFigure(4, "§4.2, §4.4", "a name in the catalog's habit that does not exist (the handout's get_meter_state)",
                  "hallucinated", r"get_transformer_state\(transformer_id='TR-204'\)\s+(\w+)"),
]


def scale_figures(sizes: tuple[int, ...] = (150, 1600, 16000), queries: int = 50) -> str:
    """Time BM25 indexing and top-10 queries (pruned vs full scan) at growing catalog sizes, over the first `queries`
    requests of the catalog (scripts/benchmark.py takes 200 for steadier figures)."""
    requests = catalog_requests(orrin_catalog())
    texts = [tokenize(r.text) for r in requests[:queries]]
    rows = []
    for size in sizes:
        tools = scaled_catalog(size)
        began = time.perf_counter()
        index = BM25Index([tool_document(t) for t in tools])
        built = time.perf_counter() - began
        began = time.perf_counter()
        visited = 0
        for q in texts:
            index.top_k(q, 10)
            visited += index.visited
        pruned = (time.perf_counter() - began) / len(texts)
        total = sum(len(index.postings.get(t, ())) for q in texts for t in set(q))
        began = time.perf_counter()
        for q in texts:
            index.ranked(q, 10)
        full = (time.perf_counter() - began) / len(texts)
        rows.append([f"{size:,}", f"{built:.3f}", f"{pruned * 1000:.2f}", f"{full * 1000:.2f}", f"{visited / max(total, 1):.0%}"])
    return format_table(["tools", "index (s)", "top-10, pruned (ms)", "top-10, full scan (ms)", "postings touched"], rows)


def pruning_note(rows: list[list[str]]) -> str:
    """Say, from a scale table's own printed figures, where MaxScore pruning starts to pay, and why only there.

    rows: scale_figures' rows, [tools, index (s), top-10 pruned (ms), top-10 full scan (ms), postings touched].
    Example: 150 tools at 0.06 vs 0.05 ms (55% touched), 1,600 at 0.13 vs 0.45 -> '... no faster than the full scan at
    150 tools (0.06 ms against 0.05, skipping 45% of the postings), where what it skips saves no more than its
    bookkeeping costs. From 1,600 tools on it pays (3.5x faster at 1,600).'
    """
    sizes, pruned, full, touched = ([row[i] for row in rows] for i in (0, 2, 3, 4))
    faster = [float(p) < float(f) for p, f in zip(pruned, full)]
    start = next((i for i in range(len(rows)) if all(faster[i:])), len(rows))  # it pays from here on
    gains = ", ".join(f"{float(full[i]) / float(pruned[i]):.1f}x faster at {sizes[i]}" if float(pruned[i]) else
                      f"under 0.01 ms against {full[i]} at {sizes[i]}" for i in range(start, len(rows)))
    why = ("Pruning skips the postings (the index entries of the request's words) that cannot change the top 10, but "
           "before each word it finds the 10th-best score so far again, to know what it may skip; the bigger the "
           f"catalog, the smaller the share of postings it must touch ({touched[0]} at {sizes[0]} tools, {touched[-1]} "
           f"at {sizes[-1]}).")
    if start == 0:
        said = f"Where pruning pays, from this run's figures: at every size here ({gains})."
    else:
        slow = "; ".join(f"{sizes[i]} tools ({pruned[i]} ms against {full[i]}, skipping {100 - int(touched[i][:-1])}% "
                         "of the postings)" for i in range(start) if not faster[i])
        odd = [sizes[i] for i in range(start) if faster[i]]  # faster below a size where it is not: timing noise
        said = (f"Where pruning pays, from this run's figures: it is no faster than the full scan at {slow}, where "
                "what it skips saves no more than its bookkeeping costs"
                + (f" (at {', '.join(odd)} tools it was faster: the turn is not clean in this run). " if odd else ". ")
                + (f"From {sizes[start]} tools on it pays ({gains})." if start < len(rows) else
                   f"In this run it does not pay up to {sizes[-1]} tools."))
    return textwrap.fill(said, 118) + "\n" + textwrap.fill(why, 118)


@tool_core.preformatted
def demo_scale(sizes: tuple[int, ...] = (150, 1600, 16000), queries: int = 50) -> str:
    """BM25 at growing catalog sizes (wall-clock timings), and where pruning starts to pay in this run."""
    table = scale_figures(sizes, queries)
    return table + "\n" + pruning_note(table.rows)


# ---------------------------------------------------------------------------------------------
# --- 6. ToolBench's way of grading: solution paths by chain and by DFSDT, and ToolEval ---
# ---------------------------------------------------------------------------------------------
# Qin et al. (2023), ToolLLM, §2.3 and §3: instructions that chain several APIs of one category (intra) or of
# several (cross); a solution path found by a ReAct-style chain or by DFSDT, a depth-first search over the tree of
# the model's candidate calls; ToolEval's pass rate and win rate. Left out: real APIs, the LLM that proposes
# the candidates (a seeded stand-in on ToyCaller ranks them), and the LLM judge (a stated rule takes its place).

@dataclass
class PathNode:
    """One candidate call in the decision tree, with the ranked candidates the picker proposes after it succeeds."""

    name: str
    arguments: dict
    children: list[PathNode] = field(default_factory=list)
    finish: bool = False  # the instruction is done once this call succeeds
    note: str = ""  # why the picker proposes it, when it is not simply the step's natural call (for the reader)


@dataclass
class ToolBenchInstruction:
    """A multi-tool instruction: its text, its ranked first calls (the tree's roots), and a reference solution."""

    text: str
    kind: str  # intra (one category: one object kind) | cross (two object kinds)
    roots: list[PathNode]
    reference: list[tuple[str, dict]]  # the shortest path that works, written by hand from the world
    trap: str  # '' | 'stale id' (the instruction's id does not exist) | 'tool down' (the natural tool errors)
    stale: str = ""  # the planted id the instruction quotes ('' without that trap), e.g. 'WO-8737'
    current: str = ""  # the record's real id that a search for the stale one finds, e.g. 'WO-873'


@dataclass
class SearchStep:
    """One call a search made: its place in the order and in the tree, the candidate it tried, what came back."""

    number: int  # 1, 2, ... in the order the calls were made
    parent: int  # the number of the call whose candidates it was among (0: a first call, one of the tree's roots)
    depth: int  # 0 for a first call
    node: PathNode
    result: tool_core.ToolResult

    @property
    def outcome(self) -> str:
        """Say how the call ended for the search: 'done', 'ok', 'dead end' (ok, but nothing follows) or 'failed'."""
        if not self.result.ok:
            return "failed"
        return "done" if self.node.finish else "ok" if self.node.children else "dead end"


@dataclass
class Attempt:
    """One search's outcome on one instruction: solved within the budget or not, the calls spent, the path found,
    and every call it made in order (steps), those on abandoned branches too."""

    solved: bool
    calls: int
    path: list[tuple[str, dict]]
    steps: list[SearchStep] = field(default_factory=list)


def solve_chain(roots: list[PathNode], registry: ToolRegistry, budget: int) -> Attempt:
    """Follow the picker's first candidate at every step (ReAct: one path); give up at the first failure.

    A failure is a call that does not come back ok, or a dead end: an ok call after which the picker
    proposes nothing and the instruction is not done (the observation did not serve it).
    """
    _check_search(roots, registry, budget)
    path: list[tuple[str, dict]] = []
    steps: list[SearchStep] = []
    candidates = roots
    while candidates and len(path) < budget:
        node = candidates[0]
        path.append((node.name, node.arguments))
        steps.append(SearchStep(len(path), len(path) - 1, len(path) - 1, node, registry.call(node.name, node.arguments)))
        if not steps[-1].result.ok:
            return Attempt(False, len(path), path, steps)
        if node.finish:
            return Attempt(True, len(path), path, steps)
        candidates = node.children
    return Attempt(False, len(path), path, steps)


def solve_dfsdt(roots: list[PathNode], registry: ToolRegistry, budget: int) -> Attempt:
    """Search the tree depth first (DFSDT): on a failure, go back to the last choice point and try its next candidate.

    Every call executed counts against the budget, those on abandoned branches too. subtle: going
    back rewinds the conversation, not the world: a write made on an abandoned branch stays made
    (ToolBench's APIs are mostly reads; tau-bench's would need more care).
    """
    _check_search(roots, registry, budget)
    steps: list[SearchStep] = []

    def visit(nodes: list[PathNode], path: list[tuple[str, dict]], parent: int) -> list[tuple[str, dict]] | None:
        for node in nodes:
            if len(steps) == budget:
                return None
            steps.append(SearchStep(len(steps) + 1, parent, len(path), node, registry.call(node.name, node.arguments)))
            if not steps[-1].result.ok:
                continue  # this branch failed: the next candidate at the same choice point
            here = path + [(node.name, node.arguments)]
            if node.finish:
                return here
            found = visit(node.children, here, steps[-1].number)
            if found is not None:
                return found
        return None  # every candidate failed: back up one more level

    found = visit(roots, [], 0)
    return Attempt(found is not None, len(steps), found or [], steps)


def _check_search(roots: list[PathNode], registry: ToolRegistry, budget: int) -> None:
    """Refuse a budget below 1 and a tree that names a tool the registry lacks (a mistake in the instruction set)."""
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
        raise ValueError(f"budget must be a whole number of calls, at least 1, got {budget!r}")
    known, stack = set(registry.names()), list(roots)
    while stack:
        node = stack.pop()
        if node.name not in known:
            raise ValueError(f"the decision tree calls {node.name!r}, which the catalog lacks; use one of its "
                             f"{len(known)} tools (e.g. {sorted(known)[0]!r})")
        stack.extend(node.children)


def failure_reason(result: tool_core.ToolResult) -> str:
    """Say in a few words why a call failed: the tool's own first words, or that its schema refused the arguments.

    Example: 'get_pole_status failed: ToolExecutionError: no pole PL-7847; search for it ...' -> 'no pole PL-7847'
    """
    if result.ok:
        raise ValueError("failure_reason needs a failed call's result; this one is ok")
    if result.error_kind == "invalid_arguments":
        return "its schema refuses these arguments"
    if result.error_kind == "execution_error":  # tool_core writes '<tool> failed: <exception type>: <the tool's words>. '
        return re.split(r"[;.] ", result.message.split(": ", 2)[-1])[0]
    return result.error_kind or "failed"


def render_steps(attempt: Attempt) -> list[str]:
    """Write every call of a search in the order made, indented by its depth in the tree, each step back marked.

    Example: a first call that fails, then one that finishes ->
        ['  1  get_meter_details(meter_id='MT-999')', '       failed: no meter MT-999',
         '       backtrack: to the choice of a first call, its next candidate',
         '  2  search_meters(query='MT-999')  ok: the instruction is done']
    """
    if not isinstance(attempt, Attempt):
        raise TypeError(f"render_steps takes an Attempt (what solve_chain or solve_dfsdt returns), got {attempt!r}")
    lines = []
    for step, following in zip(attempt.steps, attempt.steps[1:] + [None]):
        pad, note = "  " * step.depth, f" ({step.node.note})" if step.node.note else ""
        call = f"{step.number:>3}  {pad}{call_source(step.node.name, step.node.arguments)}"
        if step.outcome in ("ok", "done"):
            lines.append(f"{call}  ok{note}" + (": the instruction is done" if step.outcome == "done" else ""))
            continue
        lines += [call, "       " + pad + (f"failed: {failure_reason(step.result)}{note}" if step.outcome == "failed"
                                           else f"ok{note}, but a dead end: no next call follows from it")]
        lines.append("       " + pad + _step_back(step, following))
    if attempt.steps and not attempt.solved and attempt.steps[-1].outcome == "ok":
        lines.append("       " + "  " * attempt.steps[-1].depth + "(no call after it: the budget of calls is spent)")
    return lines


def path_steps(attempt: Attempt) -> list[int]:
    """Number the calls that make up a solved search's path, from the last call back along its parents.

    Example: calls 1 (failed), 2, 3 (a child of 2, failed), 4 (a child of 2, done) -> [2, 4]
    """
    if not isinstance(attempt, Attempt):
        raise TypeError(f"path_steps takes an Attempt (what solve_chain or solve_dfsdt returns), got {attempt!r}")
    if not attempt.solved:
        return []
    by_number = {s.number: s for s in attempt.steps}
    numbers, at = [], attempt.steps[-1].number  # a solved search stops at the call that finished it
    while at:
        numbers.append(at)
        at = by_number[at].parent
    return numbers[::-1]


def _step_back(step: SearchStep, following: SearchStep | None) -> str:
    """Say where the search goes after a branch fails: the next candidate here, a level further back, or nowhere."""
    def choice(call: int) -> str:
        return "the choice of a first call" if call == 0 else f"the choice after call {call}"
    if following is None:
        return "no call after it: the search ends unsolved"
    if following.parent == step.parent:
        return f"backtrack: to {choice(step.parent)}, its next candidate"
    return (f"backtrack: no candidate left after call {step.parent}; back up to {choice(following.parent)}, "
            "its next candidate")


def judge(a: Attempt, b: Attempt) -> str:
    """Prefer one solution path to another by a stated rule (the lab's stand-in for ToolEval's LLM judge).

    The rule: a solved path beats an unsolved one; between two solved paths, the shorter wins; otherwise a tie.
    It sees the paths, not the calls spent on abandoned branches (ToolEval's judge reads the solution path), and
    it is symmetric, so the order of the pair cannot sway it. Example: judge(3 calls solved, 5 calls solved) -> 'a'
    """
    if a.solved != b.solved:
        return "a" if a.solved else "b"
    if a.solved and len(a.path) != len(b.path):
        return "a" if len(a.path) < len(b.path) else "b"
    return "tie"


def pass_rate(attempts: list[Attempt]) -> float:
    """ToolEval's pass rate: the share of instructions solved within the budget."""
    if not attempts:
        raise ValueError("pass rate of an empty instruction set is undefined: give at least one attempt")
    return sum(a.solved for a in attempts) / len(attempts)


def win_rate(attempts: list[Attempt], references: list[Attempt]) -> float:
    """ToolEval's win rate: the share of instructions where the judge prefers the attempt to the reference (a tie: half)."""
    if not attempts or len(attempts) != len(references):
        raise ValueError(f"win rate needs one reference per attempt and at least one pair, got {len(attempts)} "
                         f"attempts and {len(references)} references")
    verdicts = [judge(a, r) for a, r in zip(attempts, references)]
    return (verdicts.count("a") + verdicts.count("tie") / 2) / len(verdicts)


# A chain template: (kind, wording, steps); a step is (object slot, operation); ids, crews and dates come from the seed
_CHAINS = [
    ("intra", "Check {O1} {id1} and send crew {crew} to it.", [(1, "status"), (1, "assign")]),
    ("intra", "Get the details of {O1} {id1} and its history from {d1} to {d2}, then set its owner to {value}.",
     [(1, "details"), (1, "history"), (1, "update")]),
    ("intra", "Find the {O1} noted '{q}', check how it is doing and assign it to crew {crew}.",
     [(1, "search"), (1, "status"), (1, "assign")]),
    ("cross", "Check {O1} {id1}, then {O2} {id2} beside it, and send crew {crew} to {O2} {id2}.",
     [(1, "status"), (2, "status"), (2, "assign")]),
    ("cross", "Locate {O1} {id1} and {O2} {id2}, archive {O1} {id1} ({reason}) and send crew {crew} to {O2} {id2}.",
     [(1, "location"), (2, "location"), (1, "archive"), (2, "assign")]),
    ("cross", "Get the details of {O1} {id1}, then list the {O2}s of the {region} region.", [(1, "details"), (2, "list")]),
]


def _step_arguments(obj: str, op: str, values: dict, slot: int) -> dict:
    """Write one step's arguments from the instruction's values (the id of its object slot)."""
    key, oid = f"{obj}_id", values[f"id{slot}"]
    return {"status": {key: oid}, "details": {key: oid}, "location": {key: oid},
            "history": {key: oid, "start_date": values["d1"], "end_date": values["d2"]},
            "list": {"region": values["region"]}, "search": {"query": values["q"]},
            "update": {key: oid, "fields": {"owner": values["value"]}},
            "assign": {key: oid, "crew_id": values["crew"]},
            "archive": {key: oid, "reason": values["reason"]}}[op]


def toolbench_instructions(seed: int = 0, n: int = 20, caller: ToyCaller | None = None,
                           catalog: list[CatalogTool] | None = None) -> tuple[list[ToolBenchInstruction], ToolRegistry]:
    """Write n chain instructions over the catalog (half intra-, half cross-category) and the world they run in.

    About a third get a trap on their first call: a stale id (the call 404s; a search for the id
    finds the record) or a tool that is down (503; a search for the id serves instead). The picker
    (ToyCaller, distracted by near duplicates) ranks each step's candidates: a distracted pick
    first, then the natural call, then the way around a trap. Returns the instructions and the
    registry that executes their calls (the world: which ids exist, which tools are down).
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be a whole number of instructions, at least 1, got {n!r}")
    catalog = orrin_catalog() if catalog is None else catalog
    caller = ToyCaller(seed=seed) if caller is None else caller
    rng = random.Random(seed)
    ids: set[str] = set()
    down: set[str] = set()
    drafts = []
    for i in range(n):
        kind, wording, steps = rng.choice([c for c in _CHAINS if c[0] == ("intra", "cross")[i % 2]])
        values = _chain_values(rng)
        ids.update((values["id1"], values["id2"]))
        calls = [(values[f"o{slot}"], op, _step_arguments(values[f"o{slot}"], op, values, slot)) for slot, op in steps]
        trap = rng.choice(["", "", "", "", "stale id", "tool down"]) if calls[0][1] != "search" else ""
        stale = f"{values['id1']}7" if trap == "stale id" else ""  # an old four-digit id; real ones have three
        if trap == "tool down":
            down.add(OPERATIONS[calls[0][1]][0].format(o=calls[0][0]))
        text = wording.format(**(values | ({"id1": stale} if stale else {})))
        drafts.append((text, kind, calls, stale, trap, values["id1"] if stale else ""))
    by_name = {c.tool.name: c for c in catalog}
    out = []
    for text, kind, calls, stale, trap, current in drafts:  # every tool that is down is now known: trees get detours
        roots, reference = _tree(calls, stale, down, caller, by_name, catalog, text)
        out.append(ToolBenchInstruction(text, kind, roots, reference, trap, stale, current))
    return out, _world_registry(catalog, ids, down)


def _chain_values(rng: random.Random) -> dict:
    """Draw one instruction's objects, ids (three digits), crew, dates and words."""
    # subtle: not crews, whose id parameter crew_id is also the crew an assignment names (assign_crew has one)
    o1, o2 = rng.sample([o for o in OBJECTS if o != "crew"], 2)
    return {"o1": o1, "o2": o2, "O1": _words(o1), "O2": _words(o2),
            "id1": f"{OBJECTS[o1][0]}-{rng.randrange(100, 1000)}", "id2": f"{OBJECTS[o2][0]}-{rng.randrange(100, 1000)}",
            "crew": f"CR-{rng.randrange(1, 40)}", "d1": f"2026-0{rng.randrange(1, 5)}-01",
            "d2": f"2026-0{rng.randrange(5, 10)}-28", "region": rng.choice(REGIONS),
            "q": rng.choice(["corrosion", "storm damage", "loose bolt", "overheating"]),
            "value": rng.choice(["Dana Okafor", "Ivo Brandt"]), "reason": rng.choice(["replaced", "sold"])}


def _tree(calls: list[tuple[str, str, dict]], stale: str, down: set[str], caller: ToyCaller,
          by_name: dict[str, CatalogTool], catalog: list[CatalogTool], text: str) -> tuple[list[PathNode], list]:
    """Build the ranked candidates from the last step back to the first; return the roots and the reference path."""
    names = set(by_name)
    rest: list[PathNode] = []
    reference: list[tuple[str, dict]] = []
    for k in range(len(calls) - 1, -1, -1):
        obj, op, args = calls[k]
        name, finish = OPERATIONS[op][0].format(o=obj), k == len(calls) - 1
        ways = [PathNode(name, args, rest, finish)]  # the natural call, then a search for the id if the tool is down
        if name in down:
            ways.append(PathNode(f"search_{obj}s", {"query": args[f"{obj}_id"]}, rest, finish,
                                 f"a search in place of {name}, which is down"))
        step = [(ways[-1].name, ways[-1].arguments)]
        options = list(ways)
        if k == 0 and stale:  # the quoted id 404s; searching for it finds the record, then the ways above
            options = [PathNode(name, args | {f"{obj}_id": stale}, rest, finish, "it quotes the stale id"),
                       PathNode(f"search_{obj}s", {"query": stale}, ways, note="a search for the stale id")]
            step = [(f"search_{obj}s", {"query": stale})] + step
        entry = by_name[name]
        pick = caller.pick(Request(text, name, args, obj, op, False), [entry] + near_duplicates(entry, catalog), names)
        if pick.outcome != "correct":  # distracted: a near duplicate first; it fails or its answer does not serve
            quoted = options[-2].arguments if k == 0 and stale else args  # the picker knows only the id it was given
            options.insert(0, PathNode(pick.name, quoted, note=f"a near duplicate of {name}, picked by distraction"))
        rest, reference = options, step + reference
    return rest, reference


def _world_registry(catalog: list[CatalogTool], ids: set[str], down: set[str]) -> ToolRegistry:
    """Register the catalog against a world: a call on an id that does not exist 404s, a tool that is down 503s."""
    registry = ToolRegistry()
    for entry in catalog:
        registry.register(Tool(entry.tool.name, entry.tool.description, entry.tool.parameters,
                               _world_call(entry, ids, down), entry.tool.read_only))
    return registry


def _world_call(entry: CatalogTool, ids: set[str], down: set[str]):
    name, key = entry.tool.name, f"{entry.object}_id"

    def run(**arguments: JSON) -> dict:
        if name in down:
            raise tool_core.ToolExecutionError(f"{name} is unavailable; search for the record instead", status=503)
        if key in arguments and arguments[key] not in ids:
            raise tool_core.ToolExecutionError(f"no {_words(entry.object)} {arguments[key]}; search for it to find "
                                               "its current id", status=404)
        return {"tool": name, "arguments": arguments, "result": "ok"}
    return run
