"""tool_catalog: BM25 by hand, MaxScore against the full scan, the catalog, prompt_tokens, ToyCaller, AST, script 05.

Expected values come from hand arithmetic (written out in the comments), from the catalog's spec
(15 objects x 10 operations, 23 near duplicates = 9 + 14, 190 paraphrases) or from independent
counts (a full scan sorted here, count_tokens of render_tool_prompt); never from running the code
under test and pasting what it printed. Script 05's output comes from tests/script_runs.py's runs (started in the
background when this file is imported; tests/test_scripts.py checks --help, the directory and where the seed goes).
"""
import dataclasses
import functools
import gc
import math
import random
import re
import sys
import tempfile
import unittest
import weakref
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = "05_many_tools.py"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # for script_runs, however the tests are started

import tool_catalog as tc  # noqa: E402
import tool_core  # noqa: E402
from tool_core import count_tokens, render_tool_prompt  # noqa: E402
import script_runs  # noqa: E402
from exercise_tables import COMMON, CORPUS, DEFAULT_CASES, EDGE_CASES, IDF, RARE  # noqa: E402

script_runs.prefetch(SCRIPT)  # the table's runs of script 05 start now, in the background

# --- shared fixtures -----------------------------------------------------------------------------

@functools.cache
def catalog_and_requests(seed: int = 0):
    """The 150-tool catalog and its 300 requests (built once; tests must not mutate them)."""
    catalog = tc.orrin_catalog()
    return catalog, tc.catalog_requests(catalog, seed)


@functools.cache
def catalog_index():
    """The BM25 index over the 150 tools (a ToolRetriever's)."""
    catalog, _ = catalog_and_requests()
    return tc.ToolRetriever([c.tool for c in catalog])


@functools.cache
def scaled_1600():
    """The 1,600-tool catalog's documents and their BM25 index."""
    documents = [tc.tool_document(t) for t in tc.scaled_catalog(1600)]
    return documents, tc.BM25Index(documents)


@functools.cache
def all_150_prompt_tokens() -> int:
    """count_tokens of the system prompt with all 150 tools, counted here without prompt_tokens."""
    return count_tokens(render_tool_prompt([c.tool for c in catalog_and_requests()[0]]))


def full_scan(index: tc.BM25Index, query: list[str], k: int | None = None) -> list[tuple[int, float]]:
    """The reference top k: every score, sorted by (-score, index), zeros dropped, the first k (all if k is None)."""
    ranked = sorted((-s, d) for d, s in enumerate(index.scores(query)) if s > 0)
    return [(d, -neg) for neg, d in ranked[:k]]


def naive_bm25(documents: list[list[str]], query: list[str], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """BM25 straight from the formula, one document at a time (an independent implementation)."""
    n_docs, avgdl = len(documents), sum(map(len, documents)) / len(documents)
    out = []
    for doc in documents:
        total = 0.0
        for term in query:
            n, tf = sum(term in d for d in documents), doc.count(term)
            if tf:
                idf = math.log(1 + (n_docs - n + 0.5) / (n + 0.5))
                total += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / avgdl))
        out.append(total)
    return out


def sections(output: str) -> dict[str, str]:
    """Split a demo script's output at its '=== title ===' banners: {title: body}."""
    parts = re.split(r"^=== (.*) ===$", output, flags=re.M)
    return {title: body for title, body in zip(parts[1::2], parts[2::2])}


def demo_body(output: str, number: int) -> str:
    return next(body for title, body in sections(output).items() if title.startswith(f"Demo {number}."))


def table(text: str, first_header: str, n_rows: int) -> list[list[str]]:
    """Read n_rows rows of the format_table whose header line starts with first_header."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first_header))
    return [re.split(r" {2,}", line.strip()) for line in lines[start + 2: start + 2 + n_rows]]


def percent(cell: str) -> int:
    return int(cell.rstrip("%"))


def number(cell: str) -> int:
    return int(cell.replace(",", ""))


# --- 1. BM25 by hand -----------------------------------------------------------------------------

# CORPUS (d0 = a b b, d1 = b c, d2 = c c c d), IDF, DEFAULT_CASES (k1 = 1.2, b = 0.75) and EDGE_CASES (b = 0, b = 1,
# k1 = 0), with RARE = ln(8/3) and COMMON = ln(1.6): worked out by hand in tests/exercise_tables.py, where
# `scripts/exercises.py --check 6` reads the same rows.


class Bm25ByHand(unittest.TestCase):
    def test_tokenize(self):
        cases = [("get_meter_status(MT-123)", ["get", "meter", "status", "mt", "123"]),  # the docstring's example
                 ("How is Meter MT-123 doing?", ["how", "is", "meter", "mt", "123", "doing"]),
                 ("GET_METER_STATUS", ["get", "meter", "status"]), ("meters", ["meters"]), ("", []), ("--- !", [])]
        for text, expected in cases:
            with self.subTest(text=text):
                self.assertEqual(tc.tokenize(text), expected)

    def assertScores(self, got, expected):
        self.assertEqual(len(got), len(expected))
        for g, e in zip(got, expected):
            self.assertAlmostEqual(g, e, places=12)

    def test_idf(self):
        index = tc.BM25Index(CORPUS)
        for term, expected in IDF:  # an unknown word: n = 0 -> ln(1 + 3.5 / 0.5) = ln 8
            with self.subTest(term=term):
                self.assertAlmostEqual(index.idf(term), expected, places=12)

    def test_scores_with_the_default_k1_and_b(self):
        index = tc.BM25Index(CORPUS)
        for query, expected in DEFAULT_CASES:
            with self.subTest(query=query):
                self.assertScores(index.scores(query), expected)

    def test_scores_at_the_edges_of_k1_and_b(self):
        for k1, b, query, expected in EDGE_CASES:
            with self.subTest(k1=k1, b=b, query=query):
                self.assertScores(tc.BM25Index(CORPUS, k1=k1, b=b).scores(query), expected)

    def test_top_k_best_first_without_zero_scores(self):
        index = tc.BM25Index(CORPUS)
        cases = [  # (query, k, expected (document, score) pairs)
            (["b"], 3, [(0, COMMON * 1.375), (1, COMMON * 22 / 19)]),  # d2 scores 0: not returned
            (["c"], 3, [(2, COMMON * 22 / 15), (1, COMMON * 22 / 19)]),
            (["b", "c"], 3, [(1, COMMON * 44 / 19), (2, COMMON * 22 / 15), (0, COMMON * 1.375)]),
            (["b", "c"], 1, [(1, COMMON * 44 / 19)]),
            (["a", "d"], 2, [(0, RARE), (2, RARE * 0.88)]),
            (["b", "b"], 1, [(0, COMMON * 2.75)]),  # 2.75 > 44/19 ~ 2.316
            (["a"], 10, [(0, RARE)]),  # k above the matches: only the documents that score
        ]
        for query, k, expected in cases:
            for method in (index.ranked, index.top_k):  # the plain full scan, then the pruned one: the same list
                with self.subTest(method=method.__name__, query=query, k=k):
                    got = method(query, k)
                    self.assertEqual([d for d, _ in got], [d for d, _ in expected])
                    self.assertScores([s for _, s in got], [s for _, s in expected])

    def test_ties_go_to_the_lower_document_index(self):
        # k1 = 0 on the corpus: b c scores d0 = ln 1.6, d1 = 2 ln 1.6, d2 = ln 1.6: d0 before d2.
        # [x] [y] [x] [y], query x y: every document ln(1 + 2.5 / 2.5) = ln 2, tf part 2.2 / 2.2 = 1.
        # [y] [x], query x y, k 1: x is taken first (equal bounds, then by name), so d1 leads after
        #   one term and d0 only reaches the same ln 2 with y: it must still win the tie.
        cases = [
            (tc.BM25Index(CORPUS, k1=0.0), ["b", "c"], 3, [1, 0, 2]),
            (tc.BM25Index([["x"], ["y"], ["x"], ["y"]]), ["x", "y"], 3, [0, 1, 2]),
            (tc.BM25Index([["x"], ["y"], ["x"], ["y"]]), ["y", "x"], 1, [0]),
            (tc.BM25Index([["y"], ["x"]]), ["x", "y"], 1, [0]),
            (tc.BM25Index([["y"], ["x"], ["z"]]), ["x", "y"], 1, [0]),
        ]
        for index, query, k, expected in cases:
            with self.subTest(documents=index.lengths, query=query, k=k):
                self.assertEqual([d for d, _ in index.top_k(query, k)], expected)

    def test_scores_agree_with_a_naive_implementation(self):
        rng = random.Random(11)
        words = [f"w{i}" for i in range(30)]
        documents = [rng.choices(words, [1 / (i + 1) for i in range(30)], k=rng.randint(1, 12)) for _ in range(40)]
        for k1, b in [(1.2, 0.75), (0.0, 0.5), (2.0, 0.0), (0.5, 1.0)]:
            index = tc.BM25Index(documents, k1=k1, b=b)
            for _ in range(5):
                query = rng.choices(words, k=rng.randint(1, 4))
                with self.subTest(k1=k1, b=b, query=query):
                    self.assertScores(index.scores(query), naive_bm25(documents, query, k1, b))


# --- 2. MaxScore top_k returns exactly what the full scan returns --------------------------------

def zipf_corpus(rng: random.Random, n_docs: int = 400, vocabulary: int = 200) -> tuple[list[list[str]], list]:
    """Documents drawn from a Zipf-like law (word i with weight 1/(i+1)): a few very common words, many rare."""
    words = [f"w{i}" for i in range(vocabulary)]
    weights = [1 / (i + 1) for i in range(vocabulary)]
    documents = [rng.choices(words, weights, k=rng.randint(1, 20)) for _ in range(n_docs)]
    return documents + [[], []], (words, weights)  # two empty documents too


class MaxScoreEqualsFullScan(unittest.TestCase):
    def assertSameAsFullScan(self, index, query, k):
        self.assertEqual(index.top_k(query, k), full_scan(index, query, k))

    def test_the_300_catalog_requests(self):
        index = catalog_index().index
        _, requests = catalog_and_requests()
        for r in requests:
            query = tc.tokenize(r.text)
            ranked = full_scan(index, query)
            for k in (1, 3, 10, 50):
                with self.subTest(k=k, request=r.text):
                    self.assertEqual(index.top_k(query, k), ranked[:k])

    def test_random_queries_over_the_1600_tool_catalog(self):
        documents, index = scaled_1600()
        by_count = Counter(w for d in documents for w in set(d)).most_common()
        common, rare = [w for w, _ in by_count[:15]], [w for w, _ in by_count[-40:]]
        rng, pruned = random.Random(5), 0
        for _ in range(80):
            query = rng.choices(common, k=rng.randint(0, 3)) + rng.choices(rare, k=rng.randint(0, 3))
            query += ["nonexistentword"] * rng.randint(0, 1)
            k = rng.choice([1, 2, 3, 5, 10, 50])
            with self.subTest(query=query, k=k):
                self.assertSameAsFullScan(index, query, k)
            pruned += index.visited < sum(len(index.postings.get(t, ())) for t in set(query))
        self.assertGreater(pruned, 10)  # the pruned path was exercised, not only the plain one

    def test_random_queries_over_a_zipf_corpus(self):
        rng = random.Random(3)
        documents, (words, weights) = zipf_corpus(rng)
        index, pruned = tc.BM25Index(documents), 0
        for _ in range(120):
            query = rng.choices(words, weights, k=rng.randint(1, 6))
            k = rng.choice([1, 2, 3, 5, 10, 40])
            with self.subTest(query=query, k=k):
                self.assertSameAsFullScan(index, query, k)
            pruned += index.visited < sum(len(index.postings[t]) for t in set(query))
        self.assertGreater(pruned, 10)

    def test_a_query_longer_than_pruning_pays_for_scans_every_posting(self):
        rng = random.Random(4)
        documents, (words, weights) = zipf_corpus(rng)
        index = tc.BM25Index(documents)
        query = rng.sample(words, tc.MAX_PRUNED_TERMS + 1)  # distinct terms: one more than pruning takes
        self.assertSameAsFullScan(index, query, 10)
        self.assertEqual(index.visited, sum(len(index.postings[t]) for t in set(query) if t in index.postings))
        self.assertSameAsFullScan(index, query[:tc.MAX_PRUNED_TERMS], 10)

    def test_postings_touched_by_hand(self):
        # d0 = r r, d1 = d2 = d3 = c, d4 = r c; N = 5, b = 0 (no length factor, k1 x 1 = 1.2).
        #   idf(r, n 2) = ln(1 + 3.5 / 2.5) = ln 2.4 ~ 0.8755;  idf(c, n 4) = ln(1 + 1.5 / 4.5) = ln(4/3) ~ 0.2877
        #   impacts: r in d0 (tf 2) 1.375 ln 2.4 ~ 1.2038; r in d4 ln 2.4; c in d1..d4 ln(4/3).
        # Query r c: r first (bound 1.2038), touching its 2 postings: d0 1.2038, d4 0.8755.
        #   k 1: the 1st best 1.2038 > c's bound 0.2877: prune; d4 can reach 0.8755 + 0.2877 = 1.1632 < 1.2038,
        #        dropped; only d0 is looked up in c: 2 + 1 = 3 postings, not 6.
        #   k 2: the 2nd best 0.8755 > 0.2877: prune, nobody dropped, d0 and d4 looked up: 2 + 2 = 4.
        #   k 3: only 2 candidates for 3 places: c is scanned in full, 2 + 4 = 6.
        r, c = math.log(2.4), math.log(4 / 3)
        index = tc.BM25Index([["r", "r"], ["c"], ["c"], ["c"], ["r", "c"]], b=0.0)
        cases = [(1, [(0, 1.375 * r)], 3), (2, [(0, 1.375 * r), (4, r + c)], 4),
                 (3, [(0, 1.375 * r), (4, r + c), (1, c)], 6)]
        for k, expected, visited in cases:
            with self.subTest(k=k):
                got = index.top_k(["r", "c"], k)
                self.assertEqual([d for d, _ in got], [d for d, _ in expected])
                for (_, g), (_, e) in zip(got, expected):
                    self.assertAlmostEqual(g, e, places=12)
                self.assertEqual(index.visited, visited)

    def test_pruning_skips_postings_of_a_common_word(self):
        _, index = scaled_1600()
        query = tc.tokenize("the status of the backup meter")  # 'the' and 'of' are in most tool descriptions
        total = sum(len(index.postings[t]) for t in set(query))
        self.assertEqual(index.top_k(query, 10), full_scan(index, query, 10))
        self.assertLess(index.visited, total)


# --- 3. Bad input: a clear answer, never a ZeroDivisionError ------------------------------------

class Bm25BadInput(unittest.TestCase):
    def test_empty_and_unknown_queries_give_nothing(self):
        index = tc.BM25Index(CORPUS)
        retriever = catalog_index()
        for query in ([], ["zebra"], ["zebra", "quokka"]):
            with self.subTest(query=query):
                self.assertEqual(index.top_k(query, 3), [])
                self.assertEqual(index.scores(query), [0.0, 0.0, 0.0])
        for text in ("", "   ", "zebra quokka", "!!!"):
            with self.subTest(text=text):
                self.assertEqual(retriever.search(text, 3), [])

    def test_k_must_be_a_whole_number_of_at_least_one(self):
        index = tc.BM25Index(CORPUS)
        for k in (0, -1, 1.5, None):
            with self.subTest(k=k):
                with self.assertRaisesRegex(ValueError, "k must be"):
                    index.top_k(["a"], k)
        for k in (0, -1, 1.5):
            with self.subTest(k=k):
                with self.assertRaisesRegex(ValueError, "k must be"):
                    catalog_index().search("meter status", k)

    def test_k_above_the_number_of_tools_names_it(self):
        retriever = catalog_index()
        # k = 150 is allowed. The word 'meter' is in 8 meter tools: get_meter_{status,history,details,location},
        # {create,update,assign,archive}_meter (name and meter_id); list_meters and search_meters say 'meters'.
        self.assertEqual(len(retriever.search("meter", 150)), 8)
        for k in (151, 1000):
            with self.subTest(k=k):
                with self.assertRaisesRegex(ValueError, r"\b150\b"):
                    retriever.search("meter status", k)
        small = tc.ToolRetriever([c.tool for c in catalog_and_requests()[0][:3]])
        with self.assertRaisesRegex(ValueError, r"\b3\b"):
            small.search("meter", 4)

    def test_empty_catalogs(self):
        with self.assertRaisesRegex(ValueError, "at least one tool"):
            tc.ToolRetriever([])
        # [[], [a]]: avgdl = 0.5; a in d1: idf ln(1 + 1.5 / 1.5) = ln 2, length factor 0.25 + 0.75 x 1 / 0.5 = 1.75,
        #   tf part 2.2 / (1 + 1.2 x 1.75) = 2.2 / 3.1
        cases = [([], [], []), ([[], []], [0.0, 0.0], []), ([[], ["a"]], [0.0, math.log(2) * 2.2 / 3.1], [1])]
        for documents, scores, top in cases:
            with self.subTest(documents=documents):
                index = tc.BM25Index(documents)
                got = index.scores(["a"])
                self.assertEqual(len(got), len(scores))
                for g, e in zip(got, scores):
                    self.assertAlmostEqual(g, e, places=12)
                self.assertEqual([d for d, _ in index.top_k(["a"], 3)], top)

    def test_k1_and_b_out_of_range(self):
        for k1, b in [(-0.1, 0.75), (1.2, -0.01), (1.2, 1.01), (-1, 2)]:
            with self.subTest(k1=k1, b=b):
                with self.assertRaisesRegex(ValueError, "k1 >= 0 and 0 <= b <= 1"):
                    tc.BM25Index(CORPUS, k1=k1, b=b)

    # Was a bug (fixed): BM25Index(k1=nan) is accepted (nan < 0 is False), every score is nan, and top_k then
    # silently returns [] for every query: a programmer's mistake that should raise ValueError.
    def test_k1_nan_is_refused(self):
        with self.assertRaises(ValueError):
            tc.BM25Index(CORPUS, k1=float("nan"))

    def test_scaled_catalog_limits(self):
        # the limit: (108 prefixes + the bare kind) x 15 kinds x 10 operations = 16,350 tools
        for n in (0, -5, 16351, 10 ** 6, 2.5):
            with self.subTest(n=n):
                with self.assertRaisesRegex(ValueError, "from 1 to 16350"):
                    tc.scaled_catalog(n)
        self.assertEqual(len(tc.scaled_catalog(1)), 1)


# --- 4. The catalog ------------------------------------------------------------------------------

class CatalogStructure(unittest.TestCase):
    def test_150_tools_15_objects_by_10_operations(self):
        catalog, _ = catalog_and_requests()
        names = [c.tool.name for c in catalog]
        self.assertEqual(len(catalog), 150)
        self.assertEqual(len(set(names)), 150)
        self.assertEqual(set(Counter(c.object for c in catalog).values()), {10})
        self.assertEqual(len({c.object for c in catalog}), 15)
        self.assertEqual(set(Counter(c.operation for c in catalog).values()), {15})
        self.assertEqual(len({c.operation for c in catalog}), 10)
        for (obj, op), name in [(("meter", "status"), "get_meter_status"), (("work_order", "list"), "list_work_orders"),
                                (("crew", "search"), "search_crews"), (("switch", "archive"), "archive_switch"),
                                (("transformer", "history"), "get_transformer_history"),
                                (("invoice", "create"), "create_invoice")]:
            with self.subTest(name=name):
                entry = next(c for c in catalog if c.tool.name == name)
                self.assertEqual((entry.object, entry.operation), (obj, op))

    def test_every_tool_has_23_near_duplicates(self):
        catalog, _ = catalog_and_requests()
        for entry in catalog:
            with self.subTest(tool=entry.tool.name):
                near = tc.near_duplicates(entry, catalog)
                self.assertEqual(len(near), 23)  # 9 other operations of its object + 14 other objects of its operation
                self.assertEqual(sum(c.object == entry.object for c in near), 9)
                self.assertEqual(sum(c.operation == entry.operation for c in near), 14)
                self.assertNotIn(entry, near)

    def test_schemas_are_usable_and_accept_the_gold_arguments(self):
        catalog, requests = catalog_and_requests()
        by_name = {c.tool.name: c.tool for c in catalog}
        for entry in catalog:
            with self.subTest(tool=entry.tool.name):
                tool_core.check_schema(entry.tool.parameters)
        for r in requests:
            with self.subTest(request=r.text):
                self.assertEqual(tool_core.validate(by_name[r.tool].parameters, r.arguments), [])
                self.assertEqual((by_name[r.tool].name, r.object, r.operation),
                                 (r.tool, *next((c.object, c.operation) for c in catalog if c.tool.name == r.tool)))

    def test_300_requests_190_paraphrased(self):
        catalog, requests = catalog_and_requests()
        self.assertEqual(len(requests), 300)
        self.assertEqual(sum(r.paraphrased for r in requests), 190)
        self.assertEqual(set(Counter(r.tool for r in requests).values()), {2})  # two per tool
        first_of_each = {}
        for r in requests:
            first_of_each.setdefault(r.tool, r)
        self.assertTrue(all(r.paraphrased for r in first_of_each.values()))  # the docstring: the first is a paraphrase

    def test_requests_are_deterministic_per_seed(self):
        catalog, requests = catalog_and_requests()
        self.assertEqual(tc.catalog_requests(catalog, 0), requests)
        other = tc.catalog_requests(catalog, 1)
        self.assertEqual(sum(r.paraphrased for r in other), 190)
        self.assertGreater(sum(a.text != b.text for a, b in zip(requests, other)), 100)

    def test_paraphrases_avoid_their_operations_word(self):
        _, requests = catalog_and_requests()
        paraphrases = [r for r in requests if r.paraphrased]
        self.assertEqual(len(paraphrases), 190)
        for r in paraphrases:
            with self.subTest(request=r.text):
                # each operation's key word is its own name: status, history, ..., assign, archive
                self.assertNotIn(r.operation, re.findall(r"[a-z]+", r.text.lower()))

    def test_scaled_catalog(self):
        tools = tc.scaled_catalog(16000)
        self.assertEqual(len(tools), 16000)
        self.assertEqual(len({t.name for t in tools}), 16000)
        # the first 150 are the Orrin catalog; then the prefixed objects, 'backup' first (the docstring's example)
        self.assertEqual([t.name for t in tools[:150]], [c.tool.name for c in catalog_and_requests()[0]])
        self.assertEqual(tools[150].name, "get_backup_substation_status")

    # Was a bug (fixed): orrin_catalog([]) builds the full 150-tool catalog (`objects or list(OBJECTS)`): an empty
    # list of objects should give an empty catalog (or a ValueError), not every object.
    def test_an_empty_object_list_is_an_empty_catalog(self):
        try:
            catalog = tc.orrin_catalog([])
        except ValueError:
            return
        self.assertEqual(len(catalog), 0)

    # Was a bug (fixed): catalog_requests(paraphrased=100) returns 150 paraphrases (the first request of every
    # tool always is one), though the docstring promises `paraphrased` of them; below len(catalog)
    # or above 2 x len(catalog) the count is silently different from what was asked.
    def test_paraphrased_count_is_what_was_asked(self):
        catalog, _ = catalog_and_requests()
        try:
            requests = tc.catalog_requests(catalog, paraphrased=100)
        except ValueError:
            return
        self.assertEqual(sum(r.paraphrased for r in requests), 100)


# --- 5. prompt_tokens agrees with count_tokens(render_tool_prompt(...)) -------------------------

class PromptTokens(unittest.TestCase):
    def test_equals_the_rendered_prompts_count(self):
        catalog, requests = catalog_and_requests()
        tools = [c.tool for c in catalog]
        scaled = tc.scaled_catalog(400)[150:]
        for label, subset in [("none", []), ("one", tools[:1]), ("ten", tools[40:50]), ("all 150", tools),
                              ("250 scaled", scaled)]:
            prompt = count_tokens(render_tool_prompt(subset))
            for request in ("", requests[0].text, "How is meter MT-123 doing right now?"):
                with self.subTest(tools=label, request=request):
                    self.assertEqual(tc.prompt_tokens(subset, request), prompt + count_tokens(request))

    def test_stays_right_when_catalogs_are_built_and_dropped(self):
        # a cache keyed by id() alone once gave a new tool the count of a dead one at the same address
        objects = list(tc.OBJECTS)
        for i in range(30):
            tools = [c.tool for c in tc.orrin_catalog([objects[(7 * i) % 15]])]
            if i % 3 == 0:
                tools = tools[::-1]
            with self.subTest(round=i):
                self.assertEqual(tc.prompt_tokens(tools, "x"), count_tokens(render_tool_prompt(tools)) + 1)
            del tools  # freed at once (a Tool holds no cycle); a cycle among these young objects would go with:
            if i % 5 == 0:
                gc.collect(0)  # generation 0 only: a full collection walks every object of the test process

    # Was a bug (fixed): the per-tool cache is keyed by identity, and Tool is a mutable dataclass: a tool whose
    # description is changed after it was counted keeps its old count, so prompt_tokens no longer
    # equals count_tokens(render_tool_prompt(tools)) as its docstring promises.
    def test_a_changed_tool_is_counted_again(self):
        tool = dataclasses.replace(catalog_and_requests()[0][0].tool)
        tc.prompt_tokens([tool])
        tool.description += " It also reports the last ten alarms with their severity and time."
        self.assertEqual(tc.prompt_tokens([tool]), count_tokens(render_tool_prompt([tool])))

    # Was a bug (fixed): the cache keeps a strong reference to every tool it has counted (to stop id reuse), so
    # no counted tool is ever freed: each demo run adds 150 tools, a 16,000-tool catalog stays for good.
    def test_a_counted_tool_can_be_freed(self):
        tool = dataclasses.replace(catalog_and_requests()[0][0].tool)
        tc.prompt_tokens([tool])
        ref = weakref.ref(tool)
        del tool
        gc.collect()
        self.assertIsNone(ref())


# --- 6. ToyCaller --------------------------------------------------------------------------------

def unrelated(catalog, request, n):
    """n tools that share neither object nor operation with the request's gold tool."""
    return [c for c in catalog if c.object != request.object and c.operation != request.operation][:n]


class ToyCallerKnobs(unittest.TestCase):
    def setUp(self):
        self.catalog, self.requests = catalog_and_requests()
        self.names = {c.tool.name for c in self.catalog}
        self.by_name = {c.tool.name: c for c in self.catalog}

    def picks(self, caller, view_of):
        return [caller.pick(r, view_of(r), self.names) for r in self.requests]

    def shares(self, name, request):
        entry = self.by_name[name]
        return entry.object == request.object or entry.operation == request.operation

    def test_same_seed_same_picks(self):
        first = self.picks(tc.ToyCaller(seed=5), lambda r: self.catalog)
        self.assertEqual(first, self.picks(tc.ToyCaller(seed=5), lambda r: self.catalog))
        self.assertNotEqual(first, self.picks(tc.ToyCaller(seed=6), lambda r: self.catalog))

    def test_distraction(self):
        # 0: the right tool in view is always taken
        picks = self.picks(tc.ToyCaller(distraction=0), lambda r: self.catalog)
        self.assertEqual(Counter(p.outcome for p in picks), {"correct": 300})
        # 1 with all 150 in view: all 23 near duplicates in view, probability 1 x 23/23 = 1
        picks = self.picks(tc.ToyCaller(distraction=1), lambda r: self.catalog)
        self.assertEqual(Counter(p.outcome for p in picks), {"wrong_tool": 300})
        for r, p in zip(self.requests, picks):
            with self.subTest(request=r.text):
                self.assertTrue(self.shares(p.name, r) and p.name != r.tool)
                self.assertEqual((p.source, p.arguments), ("context", {}))
        # 1 with the right tool among tools one word away from nothing: no near duplicate, no distraction
        picks = self.picks(tc.ToyCaller(distraction=1),
                           lambda r: unrelated(self.catalog, r, 5) + [self.by_name[r.tool]])
        self.assertEqual(Counter(p.outcome for p in picks), {"correct": 300})
        self.assertTrue(all(p.arguments == r.arguments for r, p in zip(self.requests, picks)))

    def test_invent(self):
        invented = [("get_meter_status", "get_meter_state"), ("get_work_order_history", "get_work_order_log"),
                    ("get_pole_details", "get_pole_info"), ("get_crew_location", "get_crew_position"),
                    ("list_invoices", "list_all_invoices"), ("search_relays", "find_relays"),
                    ("create_customer", "add_customer"), ("update_line", "modify_line"),
                    ("assign_vehicle", "dispatch_vehicle"), ("archive_switch", "retire_switch")]
        caller = tc.ToyCaller(invent=1)
        for gold, expected in invented:
            with self.subTest(gold=gold):
                request = next(r for r in self.requests if r.tool == gold)
                pick = caller.pick(request, unrelated(self.catalog, request, 3), self.names)
                self.assertEqual((pick.name, pick.outcome, pick.source), (expected, "hallucinated", "context"))
        # invent = 1, the right tool out of view, its near duplicates in view: always a name not in the catalog
        near = lambda r: tc.near_duplicates(self.by_name[r.tool], self.catalog)  # noqa: E731
        picks = self.picks(tc.ToyCaller(invent=1), near)
        self.assertTrue(all(p.outcome == "hallucinated" and p.name not in self.names for p in picks))
        # invent = 0: always an existing tool, one sharing the object or the operation
        picks = self.picks(tc.ToyCaller(invent=0), near)
        for r, p in zip(self.requests, picks):
            with self.subTest(request=r.text):
                self.assertEqual(p.outcome, "wrong_tool")
                self.assertTrue(self.shares(p.name, r))

    def test_invent_0_takes_the_most_similar_tool_in_view(self):
        request = next(r for r in self.requests if r.tool == "get_meter_status")
        cases = [  # (view, expected pick): similarity = same object + same operation; ties to the first in view
            (["list_crews", "archive_pole", "get_meter_history"], "get_meter_history"),
            (["list_crews", "get_pole_status", "get_meter_history"], "get_pole_status"),
            (["list_crews", "archive_pole"], "list_crews"),
            (["archive_pole", "update_meter"], "update_meter"),
        ]
        for view, expected in cases:
            with self.subTest(view=view):
                pick = tc.ToyCaller(invent=0).pick(request, [self.by_name[n] for n in view], self.names)
                self.assertEqual((pick.name, pick.outcome), (expected, "wrong_tool"))

    def test_recall_zero_shot(self):
        picks = self.picks(tc.ToyCaller(recall=1), lambda r: [])
        self.assertEqual(Counter((p.outcome, p.source) for p in picks), {("correct", "memory"): 300})
        picks = self.picks(tc.ToyCaller(recall=0), lambda r: [])
        self.assertEqual(Counter((p.outcome, p.source) for p in picks), {("hallucinated", "memory"): 300})
        for r, p in zip(self.requests, picks):
            with self.subTest(request=r.text):
                self.assertEqual(p.name, tc.INVENTED[r.operation].format(o=r.object))

    def test_rat(self):
        view = lambda r: unrelated(self.catalog, r, 4)  # noqa: E731
        picks = self.picks(tc.ToyCaller(rat=True, recall=1), view)  # nothing fits: answer from memory
        self.assertEqual(Counter((p.outcome, p.source) for p in picks), {("correct", "memory"): 300})
        picks = self.picks(tc.ToyCaller(rat=False, recall=1, invent=0), view)  # forced to pick from the view
        self.assertEqual(Counter((p.outcome, p.source) for p in picks), {("wrong_tool", "context"): 300})
        picks = self.picks(tc.ToyCaller(rat=True, distraction=0), lambda r: view(r) + [self.by_name[r.tool]])
        self.assertEqual(Counter((p.outcome, p.source) for p in picks), {("correct", "context"): 300})

    def test_knobs_outside_0_1(self):
        for knobs in [{"distraction": -0.01}, {"distraction": 1.01}, {"invent": 2}, {"recall": -1},
                      {"recall": float("nan")}]:
            with self.subTest(knobs=knobs):
                with self.assertRaisesRegex(ValueError, list(knobs)[0]):
                    tc.ToyCaller(**knobs)


# --- 7. The demos' figures, recounted -----------------------------------------------------------

@functools.cache
def recounted_retrieval():
    """Recall per k from the full scan (scores sorted here), the k = 3 misses, and the prompt sizes."""
    catalog, requests = catalog_and_requests()
    index = catalog_index().index
    ranked = {r.text: [catalog[d].tool.name for d, _ in full_scan(index, tc.tokenize(r.text), 10)] for r in requests}
    recall = {}
    for k in (1, 3, 5, 10):
        for para in (False, True):
            group = [r for r in requests if r.paraphrased == para]
            recall[k, para] = sum(r.tool in ranked[r.text][:k] for r in group) / len(group)
    missed = [r for r in requests if r.paraphrased and r.tool not in ranked[r.text][:3]]
    request_tokens = sum(count_tokens(r.text) for r in requests) / len(requests)
    return recall, missed, request_tokens


class DemoFigures(unittest.TestCase):
    def setUp(self):
        code, self.out, err = script_runs.result(SCRIPT)
        self.assertEqual(code, 0, err)

    def test_catalog_demo(self):
        body = demo_body(self.out, 1)
        self.assertIn("15 object kinds x 10 operations = 150 tools.", body)
        self.assertIn("300 requests, 190 paraphrased", body)
        catalog, _ = catalog_and_requests()
        by_name = {c.tool.name: c for c in catalog}
        for tool, near, closest in table(body, "tool ", 4):
            with self.subTest(tool=tool):
                self.assertEqual(near, "23")
                for other in closest.split(", "):  # the closest tools are one word away
                    self.assertIn(by_name[other], tc.near_duplicates(by_name[tool], catalog))

    def test_all_in_context_demo(self):
        body = demo_body(self.out, 2)
        self.assertTrue(body.lstrip().startswith("300 requests;"))
        rows = table(body, "tools in context", 4)
        self.assertEqual([row[0] for row in rows], ["10", "30", "75", "150"])
        tokens = [number(row[3]) for row in rows]
        self.assertTrue(all(a < b for a, b in zip(tokens, tokens[1:])), tokens)  # tokens grow with the tools in context
        self.assertGreater(percent(rows[0][1]), percent(rows[3][1]))  # accuracy falls from 10 to 150 tools
        _, _, request_tokens = recounted_retrieval()
        all_150 = all_150_prompt_tokens() + request_tokens
        self.assertEqual(number(rows[3][3]), round(all_150))
        for size, accuracy, wrong, per_request, five_steps in rows:
            with self.subTest(size=size):
                # the right tool is always in view, so nothing is invented: accuracy = (300 - wrong) / 300
                self.assertEqual(percent(accuracy), round(100 * (300 - int(wrong)) / 300))
                self.assertLessEqual(abs(number(five_steps) - 5 * number(per_request)), 3)
        # all 150 in view, distraction 0.3 x 23/23: about 300 x 0.3 = 90 wrong picks (sd ~ 8); 4 sd either side
        self.assertTrue(58 <= int(rows[3][2]) <= 122, rows[3])

    def test_retrieval_demo(self):
        body = demo_body(self.out, 3)
        self.assertTrue(body.lstrip().startswith("300 requests (190 paraphrased)."))
        rows = {row[0]: row for row in table(body, "tools in view", 7)}
        recall, missed, request_tokens = recounted_retrieval()
        for k in (1, 3, 5, 10):
            with self.subTest(k=k):
                row = rows[f"BM25 top {k}"]
                self.assertEqual((percent(row[1]), percent(row[2])),
                                 (round(100 * recall[k, False]), round(100 * recall[k, True])))
        for label, row in rows.items():
            with self.subTest(row=label):  # every pick is correct, a wrong tool or invented
                self.assertEqual(percent(row[3]), round(100 * (300 - int(row[4]) - int(row[5])) / 300))
        self.assertIn(f"At k = 3, BM25 misses {len(missed)} of 190 paraphrases,", body)
        self.assertIn(f"e.g. {missed[0].text!r} (gold {missed[0].tool})", body)
        all_150 = all_150_prompt_tokens() + request_tokens
        self.assertEqual(number(rows["all 150 in context"][6]), round(all_150))
        no_tools = count_tokens(render_tool_prompt([])) + request_tokens
        self.assertEqual(number(rows["zero-shot (no tools)"][6]), round(no_tools))
        # the mechanisms
        self.assertGreater(percent(rows["BM25 top 10"][2]), percent(rows["BM25 top 3"][2]))
        self.assertLess(int(rows["RAT, BM25 top 3"][4]), int(rows["BM25 top 3"][4]))
        zero = rows["zero-shot (no tools)"]
        self.assertEqual((zero[1], zero[2], zero[4]), ("0%", "0%", "0"))
        self.assertTrue(150 - 35 <= int(zero[5]) <= 150 + 35)  # recall 0.5: about 150 invented (sd ~ 8.7)
        # zero-shot the picker answers from memory, right with probability recall: every answer right or invented
        self.assertIn(f"the right name with probability recall = {tc.ToyCaller().recall:g}, hence its "
                      f"{300 - int(zero[5])} of 300 ({zero[3]});", body)
        self.assertIn(f"the other {zero[5]} name a tool that does not exist", body)
        self.assertIn("RAT is Gorilla's retrieval-aware training", body)
        self.assertIn(f"wrong-tool picks {rows['BM25 top 3'][4]} -> {rows['RAT, BM25 top 3'][4]}", body)
        # the all-150 row is demo 2's 150 row: same requests, same view, same seeded picker
        demo2 = table(demo_body(self.out, 2), "tools in context", 4)[3]
        self.assertEqual(rows["all 150 in context"][3:5], demo2[1:3])

    def test_deferred_demo(self):
        body = demo_body(self.out, 5)
        rows = {row[0]: row for row in table(body, "mode", 2)}
        full, deferred = number(rows["all in context"][1]), number(rows["deferred"][1])
        system = all_150_prompt_tokens()
        self.assertTrue(2 * system < full < 2 * system + 500)  # the 150 schemas go out at both model turns
        self.assertLess(deferred, full / 5)
        saved = int(re.search(r"Deferred loading saves (\d+)% of the tokens", body).group(1))
        self.assertLessEqual(abs(saved - 100 * (1 - deferred / full)), 1)
        for mode, row in rows.items():
            with self.subTest(mode=mode):
                self.assertLessEqual(int(row[3]) + int(row[4]), 40)

    def test_ast_demo(self):
        body = demo_body(self.out, 4)
        verdicts = [row[-1] for row in table(body, "generated call", 5)]
        self.assertEqual(verdicts, ["correct", "wrong_arguments", "wrong_tool", "hallucinated", "unparseable"])

    def test_scale_figures_smoke(self):
        text = tc.demo_scale((150, 1600), queries=20)  # what --scale prints, on two sizes: the table, then the note
        rows = table(text, "tools", 2)
        self.assertEqual([row[0] for row in rows], ["150", "1,600"])
        for row in rows:
            with self.subTest(size=row[0]):
                self.assertTrue(0 < percent(row[4]) <= 100)
        self.assertEqual(text.split("\n", 4)[4], tc.pruning_note(rows))  # the note reads the table's own figures

    def test_where_pruning_pays(self):
        def rows(*figures):  # (tools, pruned ms, full ms, touched) -> scale_figures' rows
            return [[tools, "0.001", pruned, full, touched] for tools, pruned, full, touched in figures]
        cases = [  # (the table's figures, what the note must say; speed-ups by hand: full / pruned)
            (rows(("150", "0.06", "0.05", "55%"), ("1,600", "0.13", "0.45", "23%"), ("16,000", "0.72", "3.40", "22%")),
             ["no faster than the full scan at 150 tools (0.06 ms against 0.05, skipping 45% of the postings)",
              "From 1,600 tools on it pays (3.5x faster at 1,600, 4.7x faster at 16,000).", "(55% at 150 tools, "
              "22% at 16,000)"]),
            (rows(("150", "0.04", "0.05", "55%"), ("16,000", "0.72", "3.40", "22%")),  # 0.05 / 0.04 = 1.25
             ["Where pruning pays, from this run's figures: at every size here (1.2x faster at 150, 4.7x faster at "
              "16,000)."]),
            (rows(("150", "0.05", "0.05", "55%"), ("1,600", "0.20", "0.20", "23%")),  # a tie is no gain
             ["at 150 tools (0.05 ms against 0.05, skipping 45% of the postings); 1,600 tools (0.20 ms against 0.20, "
              "skipping 77% of the postings)", "In this run it does not pay up to 1,600 tools."]),
            (rows(("150", "0.03", "0.04", "55%"), ("1,600", "0.30", "0.20", "23%"), ("16,000", "0.00", "3.40", "22%")),
             ["no faster than the full scan at 1,600 tools (0.30 ms against 0.20, skipping 77% of the postings)",
              "(at 150 tools it was faster: the turn is not clean in this run)",  # it pays from a size on, for good
              "From 16,000 tools on it pays (under 0.01 ms against 3.40 at 16,000)."]),
        ]
        for figures, phrases in cases:
            note = " ".join(tc.pruning_note(figures).split())
            for phrase in phrases:
                with self.subTest(figures=[f[2:4] for f in figures], phrase=phrase):
                    self.assertIn(phrase, note)


# --- 8. AST matching -----------------------------------------------------------------------------

GOLD = ("get_transformer_status", {"transformer_id": "TR-204"})
AST_CASES = [  # (generated code, verdict against GOLD)
    ("get_transformer_status(transformer_id='TR-204')", "correct"),
    ('get_transformer_status(transformer_id="TR-204")', "correct"),
    ("status = get_transformer_status(transformer_id='TR-204')", "correct"),  # an assignment around it is fine
    ("get_transformer_status(transformer_id='TR-240')", "wrong_arguments"),  # a wrong value
    ("get_transformer_status()", "wrong_arguments"),  # a missing argument
    ("get_transformer_status(transformer_id='TR-204', verbose=True)", "wrong_arguments"),  # an extra argument
    ("get_transformer_status('TR-204')", "wrong_arguments"),  # positional instead of keyword
    ("get_transformer_status('TR-204', transformer_id='TR-204')", "wrong_arguments"),  # and an extra positional
    ("get_transformer_status(transformer_id=tr)", "wrong_arguments"),  # a variable, not a literal
    ("get_transformer_status(transformer_id=204)", "wrong_arguments"),
    ("get_transformer_history(transformer_id='TR-204')", "wrong_tool"),
    ("get_meter_status(meter_id='MT-123')", "wrong_tool"),
    ("get_transformer_state(transformer_id='TR-204')", "hallucinated"),
    ("grid.get_transformer_status(transformer_id='TR-204')", "hallucinated"),  # not the catalog's name
    ("get_transformer_status(transformer_id='TR-204'", "unparseable"),  # a syntax error
    ("get_transformer_status", "unparseable"),  # not a call
    ("transformer_id = 'TR-204'", "unparseable"),
    ("", "unparseable"),
    ("get_transformer_status(**{'transformer_id': 'TR-204'})", "unparseable"),  # **kwargs
    ("get_transformer_status(*ids)", "unparseable"),
    ("(lambda: 'TR-204')()", "unparseable"),  # a call of a lambda: no function name
    ("__import__('os').system('echo x')", "unparseable"),  # no dotted name: classified, never run
]


class AstMatching(unittest.TestCase):
    def setUp(self):
        self.names = {c.tool.name for c in catalog_and_requests()[0]}

    def test_every_class(self):
        for code, expected in AST_CASES:
            with self.subTest(code=code):
                self.assertEqual(tc.classify_call(code, *GOLD, self.names), expected)
        self.assertEqual({expected for _, expected in AST_CASES}, set(tc.AST_CLASSES))

    def test_gold_calls_written_out_are_correct(self):
        for r in catalog_and_requests()[1]:
            with self.subTest(request=r.text):
                self.assertEqual(tc.classify_call(tc.call_source(r.tool, r.arguments), r.tool, r.arguments, self.names),
                                 "correct")

    def test_examples_of_the_docstrings(self):
        self.assertEqual(tc.parse_call("m = f(1, x=True)"), ("f", [1], {"x": True}))
        self.assertEqual(tc.call_source("f", {"a": "x"}), "f(a='x')")

    def test_the_code_is_never_run(self):
        with tempfile.TemporaryDirectory() as folder:
            marker = Path(folder) / "ran"
            gold = ("get_meter_status", {"meter_id": "MT-123"})
            cases = [(f"__import__('pathlib').Path({str(marker)!r}).touch()", "unparseable"),
                     (f"get_meter_status(meter_id=__import__('pathlib').Path({str(marker)!r}).write_text('x'))",
                      "wrong_arguments"),
                     ("get_meter_status(meter_id=open('/etc/passwd').read())", "wrong_arguments")]
            for code, expected in cases:
                with self.subTest(code=code):
                    self.assertEqual(tc.classify_call(code, *gold, self.names), expected)
                    self.assertIsNone(tc.subtree_match(code))
                    self.assertFalse(marker.exists())

    # Was a bug (fixed): parse_call takes the first Call anywhere in the tree, so a call that is only defined,
    # inside a lambda or a def, and never made, is graded as if it were made ("correct").
    def test_a_call_inside_a_definition_is_not_a_call(self):
        for code in ("lambda: get_transformer_status(transformer_id='TR-204')",
                     "def f():\n    return get_transformer_status(transformer_id='TR-204')"):
            with self.subTest(code=code):
                self.assertEqual(tc.classify_call(code, *GOLD, self.names), "unparseable")

    # Was a bug (fixed): a repeated keyword is a SyntaxError for Python ("keyword argument repeated") but ast.parse
    # accepts it and the dict keeps the last value, so a call Python refuses is graded "correct".
    def test_a_repeated_keyword_is_unparseable(self):
        for code in ("get_transformer_status(transformer_id='TR-240', transformer_id='TR-204')",
                     "get_transformer_status(transformer_id='TR-204', transformer_id='TR-204')"):
            with self.subTest(code=code):
                self.assertEqual(tc.classify_call(code, *GOLD, self.names), "unparseable")

    def test_subtree_match(self):
        densenet, resnet, dino = tc.REFERENCE_APIS[0], tc.REFERENCE_APIS[1], tc.REFERENCE_APIS[4]
        cases = [  # (generated code, the reference it matches or None); only repo_or_dir and model are compared
            ("model = torch.hub.load('pytorch/vision', 'densenet121', pretrained=True)", densenet),
            ("net = torch.hub.load('pytorch/vision', 'densenet121', pretrained=True)", densenet),  # renamed variable
            ("model = torch.hub.load('pytorch/visions', 'densenet121', pretrained=True)", None),  # invented repository
            # Was None: pretrained was compared. Gorilla compares repo_or_dir and model only (ast_eval_th.py's get_args):
            # pretrained changes how densenet121 is loaded, not which API it is
            ("model = torch.hub.load('pytorch/vision', 'densenet121', pretrained=False)", densenet),
            ("torch.hub.load('pytorch/vision', 'resnet50', pretrained=True, force_reload=True)", resnet),  # extra kw
            # Was None (issue 21, item 4): the reference's pretrained=True was required of the generated call
            ("torch.hub.load('pytorch/vision', 'densenet121')", densenet),
            ("torch.hub.load('facebookresearch/dino:main', 'dino_vits16', pretrained=True)", dino),
            ("torch.load('pytorch/vision', 'densenet121', pretrained=True)", None),  # another function path
            ("hub.load('pytorch/vision', 'densenet121', pretrained=True)", None),
            ("torch.hub.load('pytorch/vision', pretrained=True)", None),  # model missing: Python raises TypeError
            ("torch.hub.load('pytorch/vision', 'densenet121', pretrained=1)", densenet),  # was None; pretrained is free
            ("torch.hub.load('pytorch/vision', 'densenet121', pretrained=True", None),  # unparseable
        ]
        for code, expected in cases:
            with self.subTest(code=code):
                self.assertEqual(tc.subtree_match(code), expected)

    def test_subtree_match_binds_arguments_through_the_signature(self):
        densenet, dino = tc.REFERENCE_APIS[0], tc.REFERENCE_APIS[4]
        cases = [  # expected by hand from torch.hub.load(repo_or_dir, model, *args, source=..., ..., **kwargs)
            # keyword and positional forms are one call once bound
            ("torch.hub.load(repo_or_dir='pytorch/vision', model='densenet121')", densenet),
            ("torch.hub.load(model='densenet121', repo_or_dir='pytorch/vision')", densenet),
            ("torch.hub.load('pytorch/vision', model='densenet121', pretrained=True)", densenet),
            ("m = torch.hub.load(model='densenet121', repo_or_dir='pytorch/vision:v0.10.0')", densenet),  # the docstring's
            # the tag: a reference without a ref pins the repository only; one with a ref pins the ref too
            ("torch.hub.load('pytorch/vision:v0.10.0', 'densenet121', pretrained=True)", densenet),
            ("torch.hub.load('pytorch/vision:main', 'densenet121')", densenet),
            ("torch.hub.load('facebookresearch/dino:main', 'dino_vits16')", dino),
            ("torch.hub.load('facebookresearch/dino', 'dino_vits16')", None),  # the reference's ref :main left out
            ("torch.hub.load('facebookresearch/dino:v1', 'dino_vits16')", None),  # another ref
            ("torch.hub.load('pytorch/vision:', 'densenet121')", None),  # torch.hub cannot load an empty ref
            ("torch.hub.load('pytorch/vision:v1:v2', 'densenet121')", None),  # two colons: torch.hub's split fails
            ("torch.hub.load('pytorch', 'densenet121')", None),  # no owner/name
            # wrong repository or model, whole values: Gorilla's text check would find the reference inside these two
            ("torch.hub.load('pytorch/visions', 'densenet121')", None),
            ("torch.hub.load('pytorch/vision', 'densenet1210')", None),
            ("torch.hub.load('Pytorch/vision', 'densenet121')", None),
            ("torch.hub.load('pytorch/vision', 'densenet')", None),
            ("torch.hub.load('pytorch/vision', 121)", None),
            ("torch.hub.load(repo, 'densenet121')", None),  # a variable is not the reference's literal
            # extra arguments are free: torch.hub.load's own options, *args and the entry point's **kwargs
            ("torch.hub.load('pytorch/vision', 'densenet121', 'extra', source='github', force_reload=True)", densenet),
            ("torch.hub.load('pytorch/vision', 'densenet121', trust_repo=True, verbose=False, progress=False)", densenet),
            ("torch.hub.load('pytorch/vision', 'densenet121', weights='DEFAULT', args=1, kwargs=2)", densenet),
            # calls Python refuses, and text that is not one call of a documented API
            ("torch.hub.load('pytorch/vision', 'densenet121', repo_or_dir='pytorch/vision')", None),  # given twice
            ("torch.hub.load()", None),
            ("torch.hub.load(*spec)", None),
            ("torch.hub.load(**{'repo_or_dir': 'pytorch/vision', 'model': 'densenet121'})", None),
            ("torch.hub.load('pytorch/vision', 'densenet121', pretrained=True, pretrained=True)", None),
            ("torch.hub.list('pytorch/vision')", None),  # a real torch.hub function, not in the reference set
            ("lambda: torch.hub.load('pytorch/vision', 'densenet121')", None),  # defined, never made
            ("import torch\nmodel = torch.hub.load('pytorch/vision', 'densenet121')", None),  # not one call
            ("torch.hub.load", None), ("", None), ("model = ", None), ("\x00", None),
        ]
        for code, expected in cases:
            with self.subTest(code=code):
                self.assertEqual(tc.subtree_match(code), expected)

    def test_subtree_match_on_gorillas_own_examples(self):
        # references: entries of Gorilla's data/api/torchhub_api.jsonl as written there (keywords); generated
        # code: answers from data/apibench/torchhub_eval.json, and the blog's hallucinated model (Blog 2)
        resnet50 = "torch.hub.load(repo_or_dir='pytorch/vision', model='resnet50', pretrained=True)"
        wide = "torch.hub.load(repo_or_dir='pytorch/vision', model='wide_resnet50_2', pretrained=True)"
        dcgan = ("torch.hub.load(repo_or_dir='facebookresearch/pytorch_GAN_zoo:hub', model='DCGAN', pretrained=True, "
                 "useGPU=use_gpu)")
        tacotron = ("torch.hub.load(repo_or_dir='NVIDIA/DeepLearningExamples:torchhub', model='nvidia_tacotron2', "
                    "model_math='fp16')")
        vad = "torch.hub.load(repo_or_dir='snakers4/silero-vad', model='silero_vad', force_reload=True)"
        references = [resnet50, wide, dcgan, tacotron, vad]
        cases = [
            # APIBench's answer carries the tag its reference leaves out; resnet50 comes first in the list and
            # occurs inside 'wide_resnet50_2' as text (Gorilla's check would stop there), but is another model
            ("torch.hub.load('pytorch/vision:v0.10.0', 'wide_resnet50_2', pretrained=True)", wide),
            ("torch.hub.load('pytorch/vision', 'wide_resnet50_2', pretrained=True)", wide),
            ("torch.hub.load(repo_or_dir='pytorch/vision', model='wide_resnet50_2', pretrained=True)", wide),
            ("torch.hub.load('pytorch/vision:v0.10.0', 'resnet50', pretrained=True)", resnet50),
            ("torch.hub.load('facebookresearch/pytorch_GAN_zoo:hub', 'DCGAN', pretrained=True, useGPU=use_gpu)", dcgan),
            ("torch.hub.load('facebookresearch/pytorch_GAN_zoo:hub', 'DCGAN')", dcgan),
            ("torch.hub.load('facebookresearch/pytorch_GAN_zoo', 'DCGAN', pretrained=True)", None),  # ref :hub missing
            ("torch.hub.load('NVIDIA/DeepLearningExamples:torchhub', 'nvidia_tacotron2', model_math='fp16')", tacotron),
            # model_math is an argument of the entry point, free here (Gorilla's "model" in the text compares it)
            ("torch.hub.load('NVIDIA/DeepLearningExamples:torchhub', 'nvidia_tacotron2')", tacotron),
            ("torch.hub.load('snakers4/silero-vad', 'silero_vad')", vad),  # the reference's force_reload is free
            ("torch.hub.load('snakers4/silero-models', 'silero_vad')", None),  # another repository
            ("torch.hub.load('pytorch/vision:v0.10.0', 'BerryPicker')", None),  # Blog 2's hallucinated model
            # written so in Gorilla's own data (an entry of MEAL-V2), but a positional argument after a keyword
            # is a SyntaxError in Python
            ("torch.hub.load(repo_or_dir='szq0214/MEAL-V2', 'meal_v2', model='mealv2_efficientnet_b0', pretrained=True)",
             None),
        ]
        for code, expected in cases:
            with self.subTest(code=code):
                self.assertEqual(tc.subtree_match(code, references), expected)

    def test_bind_call(self):
        load = "torch.hub.load"
        bound = tc.bind_call(load, ["pytorch/vision", "densenet121"], {"pretrained": True})
        self.assertEqual(bound, {"repo_or_dir": "pytorch/vision", "model": "densenet121", "args": (),
                                 "source": "github", "trust_repo": None, "force_reload": False, "verbose": True,
                                 "skip_validation": False, "kwargs": {"pretrained": True}})
        self.assertEqual(tc.bind_call(load, ["pytorch/vision", "densenet121"], {})["model"], "densenet121")  # docstring
        self.assertEqual(tc.bind_call(load, [], {"model": "m", "repo_or_dir": "r"}),
                         tc.bind_call(load, ["r", "m"], {}))
        self.assertEqual(tc.bind_call(load, ["r", "m", 1, 2], {"force_reload": True})["args"], (1, 2))
        self.assertEqual(tc.bind_call(load, ["r", "m", 1, 2], {"force_reload": True})["force_reload"], True)
        for args, kwargs in ((["r"], {}), ([], {}), (["r", "m"], {"model": "m"}), (["r"], {"repo_or_dir": "r"})):
            with self.subTest(args=args, kwargs=kwargs):
                self.assertIsNone(tc.bind_call(load, args, kwargs))
        self.assertIsNone(tc.bind_call("torch.hub.list", ["pytorch/vision"], {}))  # no documented signature here

    def test_repository_tags(self):
        cases = [("pytorch/vision", ("pytorch/vision", None)), ("pytorch/vision:v0.10.0", ("pytorch/vision", "v0.10.0")),
                 ("NVIDIA/DeepLearningExamples:torchhub", ("NVIDIA/DeepLearningExamples", "torchhub")),
                 ("owner/name:feature/x", ("owner/name", "feature/x")),  # a branch may hold a slash
                 ("pytorch/vision:", None), ("pytorch/vision:a:b", None), ("pytorch", None), ("/vision", None),
                 ("pytorch/", None), ("a/b/c", None), (":v1", None), ("", None)]
        for value, expected in cases:
            with self.subTest(value=value):
                self.assertEqual(tc._repository(value), expected)

    def test_a_bad_reference_is_an_error_not_a_non_match(self):
        for reference in ("torch.hub.load('pytorch/vision')", "f(1)", "torch.hub.load(", "torch.hub.load(**spec)"):
            with self.subTest(reference=reference), self.assertRaises(ValueError):
                tc.subtree_match("torch.hub.load('pytorch/vision', 'densenet121')", [reference])

    def test_the_demo_shows_the_rules(self):
        rows = dict(re.findall(r"^(\S.*?\))\s{2,}(torch\.hub\.load\(.*\)|no match: not a real API call)$",
                               tc.demo_ast(), re.M))
        densenet = tc.REFERENCE_APIS[0]
        self.assertEqual(rows["model = torch.hub.load('pytorch/vision', 'densenet121', pretrained=False)"], densenet)
        self.assertEqual(rows["torch.hub.load('pytorch/vision', 'densenet121')"], densenet)
        self.assertEqual(rows["torch.hub.load(repo_or_dir='pytorch/vision:v0.10.0', model='densenet121')"], densenet)
        self.assertEqual(rows["model = torch.hub.load('pytorch/visions', 'densenet121', pretrained=True)"],
                         "no match: not a real API call")
        self.assertEqual(rows["torch.hub.load('pytorch/vision:v0.10.0', 'BerryPicker')"], "no match: not a real API call")


# --- 9. docs_registry ----------------------------------------------------------------------------

class DocsRegistry(unittest.TestCase):
    def test_the_outage_credit_question(self):
        # 'outage' and 'credit' are only in outage-credits (idf ln(1 + 4.5 / 1.5) = ln 4 each): it must lead
        result = tc.docs_registry().call("search_docs", {"query": "What is the outage credit limit?"})
        self.assertTrue(result.ok, result.message)
        self.assertEqual(result.content[0]["id"], "outage-credits")
        self.assertLessEqual(len(result.content), 3)
        result = tc.docs_registry().call("search_docs", {"query": "zebra quokka", "k": 5})
        self.assertEqual((result.ok, result.content), (True, []))

    def test_k_out_of_range_is_an_execution_error(self):
        registry = tc.docs_registry()
        for k in (0, -1, 6, 100):
            with self.subTest(k=k):
                result = registry.call("search_docs", {"query": "outage credit", "k": k})
                self.assertEqual((result.ok, result.error_kind), (False, "execution_error"))
                self.assertIn("from 1 to 5", result.message)
        self.assertTrue(registry.call("search_docs", {"query": "outage credit", "k": 5}).ok)

    # Was a bug (fixed): docs_registry({}) searches the built-in DOCS (`docs or DOCS`): an empty document set
    # should be refused or find nothing, not answer from documents it was never given.
    def test_an_empty_document_set_finds_nothing(self):
        try:
            registry = tc.docs_registry({})
        except ValueError:
            return
        result = registry.call("search_docs", {"query": "outage credit", "k": 1})
        self.assertFalse(result.ok and result.content)


# --- 10. scripts/05_many_tools.py ----------------------------------------------------------------

class FourWays(unittest.TestCase):
    """The table of four ways to teach a model its tools: the lecture's figures quoted as data, and pointers to the
    code and demos that compute one mechanism of each (they must exist)."""

    def test_the_lectures_table_is_quoted(self):
        # lecture 000's summary table; handout 001: five tools (§3.1), 234 (§3.7), 1,645 API calls (§4.2), 16,000 (§4.1)
        body = script_runs.sections(script_runs.result(SCRIPT).stdout)["Four ways to teach a model its tools"]
        self.assertIn("Lecture 000's summary table (quoted, not computed", body)
        self.assertEqual(table(body, "approach    tools", 4), [
            ["Toolformer", "5 tools", "self-supervision", "text"],
            ["ToolkenGPT", "234 tools", "ground-truth or synthetic calls", "one embedding (a toolken)"],
            ["Gorilla", "1,645 API calls", "GPT-4 self-instruct data", "text and API code"],
            ["ToolLLM", "16,000 APIs", "ChatGPT-generated traces", "a ReAct-style trace (reason, then act)"]])
        self.assertEqual(body, tc.demo_four_ways())

    def test_every_pointer_names_code_and_a_demo_that_exist(self):
        modules = {"tool_catalog": tc, "toolformer_lab": __import__("toolformer_lab")}
        titles = {number: re.findall(r'"(Demo \d+)\. ', (ROOT / "scripts" / name).read_text(encoding="utf-8"))
                  for number, name in (("02", "02_toolformer.py"), ("05", "05_many_tools.py"))}
        expected = {"Toolformer": ("02", (1, 2, 3, 6)), "ToolkenGPT": ("02", (4, 5)), "Gorilla": ("05", (4,)),
                    "ToolLLM": ("05", (3,))}  # the loss filter and demo 6; toolkens; AST matching; retrieval
        self.assertEqual({m.approach: (m.script, m.demos) for m in tc.LAB_MECHANISMS}, expected)
        self.assertEqual([m.approach for m in tc.LAB_MECHANISMS], [row[0] for row in tc.TEACHING_WAYS])
        for m in tc.LAB_MECHANISMS:
            for name in m.code:
                with self.subTest(code=name):
                    module, *path = name.split(".")
                    self.assertTrue(callable(functools.reduce(getattr, path, modules[module])))
            for demo in m.demos:
                with self.subTest(approach=m.approach, demo=demo):
                    self.assertIn(f"Demo {demo}", titles[m.script])
        self.assertIn("solve_dfsdt", tc.LAB_MECHANISMS[3].also)
        self.assertTrue(callable(tc.solve_dfsdt))

    def test_which_demos(self):
        for demos, expected in (((4,), "demo 4"), ((4, 5), "demos 4 and 5"), ((1, 2, 3), "demos 1-3"),
                                ((1, 2, 3, 6), "demos 1-3 and 6"), ((1, 3, 5), "demos 1, 3 and 5")):
            with self.subTest(demos=demos):
                self.assertEqual(tc.which_demos(demos), expected)


class Script05Runs(unittest.TestCase):
    """What script 05 prints, from the table's runs (tests/test_scripts.py: the same bytes from any directory, --help,
    and that --seed changes demos 2, 3 and 5 only)."""

    def test_prints_demos_1_to_5(self):
        code, out, err = script_runs.result(SCRIPT)
        self.assertEqual(code, 0, err)
        self.assertEqual(re.findall(r"^=== Demo (\d)\. ", out, re.M), ["1", "2", "3", "4", "5"])
        self.assertNotIn("BM25 at scale", out)  # --scale only

    def test_seed_1_draws_other_requests_of_the_same_counts(self):
        code, out, err = script_runs.result(SCRIPT, "seed 1")
        self.assertEqual(code, 0, err)
        self.assertIn("300 requests (190 paraphrased).", demo_body(out, 3))
        self.assertNotEqual(demo_body(out, 3), demo_body(script_runs.result(SCRIPT).stdout, 3))


if __name__ == "__main__":
    unittest.main()
