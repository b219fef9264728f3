"""toolformer_lab and scripts 01/02: KN sums to 1, the copy cache, Toolformer's weights, filter and sweep, retraining,
ToolkenGPT's target, and smoke tests for both scripts (issue 3, section 5).

Expected values come from the lecture (weights 1/3 .. 1/15; 2.5 / 2.1 / 0.8 -> 1.3; 4.0 / 3.0 / 2.6 -> 0.4) or from
hand computation written out in comments; figures that depend on the corpus and the knobs are checked by mechanism
(an inequality, an ordering) rather than by value. needs_call is checked against every use of it (gold labels, the
calls chosen at tau 0.5, the test's call sites, demo 3's wrong-call rows); best_calls, sweep_rows, the sweep's two
explanations, the retraining summary and the ToolkenGPT head on lists small enough to count by hand. The scripts'
stdout is the demos' output (whose every figure tests/test_toolformer_lab_demos.py recomputes) and carries the figures
that can be counted by hand.
"""
import math
import random
import re
import sys
import unittest
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # for script_runs, however the tests are started

import toolformer_lab as tl  # noqa: E402
import lab_results  # noqa: E402
import script_runs  # noqa: E402
from exercise_tables import KEEP, USEFULNESS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = {"01": "01_why_tools.py", "02": "02_toolformer.py"}
script_runs.prefetch(*SCRIPTS.values())  # the table's runs of both scripts start now, in the background


def script_run(script: str, variant: str) -> tuple[int, str, str]:
    """(returncode, stdout, stderr) of one of tests/script_runs.py's runs: "root", "elsewhere" or "seed 1"."""
    return script_runs.result(SCRIPTS[script], variant)


def brute_argmax(lm: tl.NGramLM, context: list[str]) -> str:
    """The most probable known word over the whole distribution, ties to the larger word, <unk> excluded."""
    dist = lm.distribution(context)
    return max((w for w in dist if w != tl.UNK), key=lambda w: (dist[w], w))


TINY = [s.split() for s in ("the cat sat on the mat", "the dog sat", "a cat ran to the dog", "the mat is red")]
NO_SINGLETONS = [s.split() for s in ("a b c", "a b c", "c b a", "c b a")]
ONE_SENTENCE = [["only", "one", "sentence", "here"]]
CORPORA = {"tiny": TINY, "no singletons": NO_SINGLETONS, "one sentence": ONE_SENTENCE,
           "announcements": tl.announcement_corpus()}


# --- 1. Tokens ---

class Tokens(unittest.TestCase):
    def test_tokenize_table(self):
        table = [
            ("[Calculator(120 + 85) -> 205]", ["[", "Calculator", "(", "120", "+", "85", ")", "->", "205", "]"]),
            ("capacity is 205 megawatts.", ["capacity", "is", "205", "megawatts", "."]),
            ("Substation SS-218", ["Substation", "SS", "-", "218"]),
            ("Thursday, October 15, 2026", ["Thursday", ",", "October", "15", ",", "2026"]),
            ('[QA("Who founded Ashholt?") -> Tove Belwick]',
             ["[", "QA", "(", '"', "Who", "founded", "Ashholt", "?", '"', ")", "->", "Tove", "Belwick", "]"]),
            ("17423 * 892", ["17423", "*", "892"]),  # numbers stay whole
            ("a -> b - c > d", ["a", "->", "b", "-", "c", ">", "d"]),  # "->" is one token, "-" and ">" alone are not
            ("don't", ["don't"]),
            ("", []),
        ]
        for text, expected in table:
            with self.subTest(text=text):
                self.assertEqual(tl.tokenize(text), expected)

    def test_detokenize_table_and_round_trip(self):
        self.assertEqual(tl.detokenize(["SS", "-", "218", "is", "205", "."]), "SS-218 is 205.")
        for text in ("[Calculator(120 + 85) -> 205]", '[QA("Who founded Ashholt?") -> Tove Belwick]',
                     "Thursday, October 15, 2026", "Substation SS-218 has two transformers of 120 and 85 megawatts, "
                     "so its capacity is 205 megawatts.", "[Calendar() -> Thursday, October 15, 2026]"):
            with self.subTest(text=text):
                self.assertEqual(tl.detokenize(tl.tokenize(text)), text)

    def test_call_tokens(self):
        self.assertEqual(tl.call_tokens("Calculator(120 + 85)", "205"), tl.tokenize("[Calculator(120 + 85) -> 205]"))
        self.assertEqual(tl.call_tokens("Calendar()", None), ["[", "Calendar", "(", ")", "->", "]"])

    def test_is_content_word_table(self):
        table = [("205", True), ("megawatts", True), ("Belwick", True), ("SS", True), ("Thursday", True),
                 ("the", False), ("The", False), ("is", False), ("and", False), ("so", False), ("its", False),
                 (",", False), (".", False), ("-", False), ("->", False), ("[", False), ("]", False), ('"', False)]
        for token, expected in table:
            with self.subTest(token=token):
                self.assertIs(tl.is_content_word(token), expected)


# --- 2. The n-gram model: interpolated Kneser-Ney ---

class KneserNey(unittest.TestCase):
    def test_every_distribution_sums_to_one(self):
        rng = random.Random(3)
        for name, corpus in CORPORA.items():
            for order in range(1, 6):
                lm = tl.NGramLM(order=order).fit(corpus)
                seen = corpus[rng.randrange(len(corpus))]
                contexts = {"empty": [], "seen": seen[:2], "seen, full sentence": list(seen),
                            "partly seen": [seen[0], "zebra"], "partly seen, end": ["zebra", seen[-1]],
                            "unseen": ["zebra", "quark", "flux"], "unknown word itself": ["<unk>"]}
                for what, ctx in contexts.items():
                    with self.subTest(corpus=name, order=order, context=what):
                        dist = lm.distribution(ctx)
                        self.assertEqual(set(dist), set(lm.vocab))
                        self.assertIn(tl.UNK, dist)
                        self.assertEqual(dist[tl.UNK], lm.p_unk)
                        self.assertAlmostEqual(sum(dist.values()), 1.0, delta=1e-9)
                        self.assertTrue(all(p > 0 for p in dist.values()))

    def test_hand_computed_bigram(self):
        # Corpus: "the cat" / "the dog", bigram model, D = 0.75.
        # Words: the x2, cat x1, dog x1 -> 4 tokens, 2 singletons -> p_unk = 2 / (4 + 1) = 0.4.
        # vocab = {</s>, <unk>, cat, dog, the}; the uniform base is over vocab minus <unk>: 1/4.
        # Bigrams: (<s> the) 2, (the cat) 1, (cat </s>) 1, (the dog) 1, (dog </s>) 1.
        # Continuation counts N1+(. w): the 1, cat 1, dog 1, </s> 2; total 5, 4 types.
        #   P1(w) = max(N - .75, 0)/5 + .75 * 4/5 * 1/4 -> P1(the) = P1(cat) = P1(dog) = .05 + .15 = .2, P1(</s>) = .4
        # History "the": c = 2, 2 follower types -> weight .75 * 2/2 = .75.
        #   P(cat | the) = (1 - .75)/2 + .75 * .2 = .275 -> times (1 - .4) = .165
        #   P(the | the) = .75 * .2 = .15 -> .09;  P(</s> | the) = .75 * .4 = .3 -> .18
        # History <s>: c = 2, 1 follower type: P(the | <s>) = 1.25/2 + .75 * 1/2 * .2 = .7 -> .42
        # Unseen history "zebra": straight to P1: P(cat | zebra) = .2 -> .12; P(</s> | zebra) = .4 -> .24
        lm = tl.NGramLM(order=2, discount=0.75).fit([["the", "cat"], ["the", "dog"]])
        self.assertEqual(lm.vocab, sorted(["</s>", "<unk>", "cat", "dog", "the"]))
        self.assertAlmostEqual(lm.p_unk, 0.4, places=12)
        table = [("cat", ["the"], 0.165), ("dog", ["the"], 0.165), ("the", ["the"], 0.09), ("</s>", ["the"], 0.18),
                 ("the", [], 0.42), ("cat", ["zebra"], 0.12), ("</s>", ["zebra"], 0.24),
                 ("zebra", ["the"], 0.4), ("<unk>", [], 0.4)]
        for word, ctx, expected in table:
            with self.subTest(word=word, context=ctx):
                self.assertAlmostEqual(lm.prob(word, ctx), expected, places=12)
        # log-probability of "cat </s>" after "the": log(.165) + log(P(</s> | cat)).
        # P(</s> | cat): c = 1, 1 type: .25/1 + .75 * 1 * .4 = .55 -> .33
        self.assertAlmostEqual(lm.logprob(["cat", "</s>"], ["the"]), math.log(0.165) + math.log(0.33), places=12)

    def test_p_unk_floor_without_singletons(self):
        # a b / a b: 4 tokens, no word seen once -> the floor 1 / (4 + 1) = 0.2
        lm = tl.NGramLM(order=2).fit([["a", "b"], ["a", "b"]])
        self.assertAlmostEqual(lm.p_unk, 0.2, places=12)
        # unigram model on the same: N(a) = N(b) = 2, N(</s>) = 2, total 6, 3 types; base 1/3
        # P1(a) = 1.25/6 + .75 * 3/6 * 1/3 = 1.25/6 + .125 = 1/3 -> times .8
        uni = tl.NGramLM(order=1).fit([["a", "b"], ["a", "b"]])
        self.assertAlmostEqual(uni.prob("a", ["whatever"]), 0.8 / 3, places=12)

    def test_bad_arguments_raise(self):
        for kwargs in ({"order": 0}, {"discount": 0}, {"discount": 1}):
            with self.subTest(**kwargs), self.assertRaises(ValueError):
                tl.NGramLM(**kwargs)

    def test_most_likely_is_the_argmax(self):
        rng = random.Random(11)
        cases = [(name, order) for name in ("tiny", "announcements") for order in (1, 2, 3, 4, 5)]
        for name, order in cases:
            corpus = CORPORA[name]
            lm = tl.NGramLM(order=order).fit(corpus)
            for _ in range(25):
                ctx = self.random_context(rng, corpus, lm)
                with self.subTest(corpus=name, order=order, context=ctx):
                    self.assertEqual(lm.most_likely(ctx), brute_argmax(lm, ctx))

    def test_most_likely_with_many_followers(self):
        # "is" is followed by hundreds of products: most_likely takes its bigram shortcut there
        problems = tl.multiplication_problems(0, 120)
        corpus = [tl.times_sentence(a, b) for a, b in problems]
        rng = random.Random(5)
        for order in (3, 5):
            lm = tl.NGramLM(order=order).fit(corpus)
            contexts = [tl.times_sentence(a, b)[:4] for a, b in rng.sample(problems, 5)]
            contexts += [[str(rng.randrange(2, 99)), "times", str(rng.randrange(2, 99)), "is"] for _ in range(5)]
            contexts += [["is"], ["zebra", "is"], ["times"]]
            for ctx in contexts:
                with self.subTest(order=order, context=ctx):
                    self.assertEqual(lm.most_likely(ctx), brute_argmax(lm, ctx))

    @staticmethod
    def random_context(rng: random.Random, corpus: list[list[str]], lm: tl.NGramLM) -> list[str]:
        if rng.random() < 0.5:  # a seen prefix, so the higher orders have counts
            sentence = corpus[rng.randrange(len(corpus))]
            return sentence[: rng.randrange(len(sentence) + 1)]
        words = [w for w in lm.vocab if w != tl.UNK] + ["zebra"]
        return [rng.choice(words) for _ in range(rng.randrange(6))]

    def test_generate_never_writes_unk(self):
        # every word a singleton: p_unk = 4/5 is larger than any known word's probability
        lm = tl.NGramLM(order=3).fit([["w", "x", "y", "z"]])
        self.assertAlmostEqual(lm.p_unk, 0.8, places=12)
        for ctx in ([], ["w"], ["zebra", "quark"], ["z"], ["<unk>"]):
            with self.subTest(context=ctx):
                self.assertNotEqual(lm.most_likely(ctx), tl.UNK)
                self.assertNotIn(tl.UNK, lm.generate(ctx, 20, stop=()))
        self.assertEqual(lm.generate(["w"], 10), ["x", "y", "z"])  # recites its only sentence and stops at </s>
        big = tl.NGramLM(order=3).fit(tl.announcement_corpus())
        rng = random.Random(2)
        for _ in range(10):
            ctx = self.random_context(rng, tl.announcement_corpus(), big)
            with self.subTest(context=ctx):
                self.assertNotIn(tl.UNK, big.generate(ctx, 15, stop=()))


# --- 3. The copy cache ---

MEGAWATT_PREFIX = tl.tokenize("Substation SS-218 has two transformers of 120 and 85 megawatts, so its capacity is")


class CopyCache(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lm = tl.NGramLM(order=3).fit(TINY)

    def test_cache_copies_content_words_only(self):
        # stop words (has, of, and, so, its, is) and marks ("-", ",") are left out
        expected = Counter({"Substation": 1, "SS": 1, "218": 1, "two": 1, "transformers": 1, "120": 1, "85": 1,
                            "megawatts": 1, "capacity": 1})
        self.assertEqual(tl.CachedLM(self.lm).cache(MEGAWATT_PREFIX), expected)
        self.assertEqual(tl.CachedLM(self.lm).cache(tl.tokenize(tl.TODAY)),
                         Counter({"Thursday": 1, "October": 1, "15": 1, "2026": 1}))

    def test_switch_copies_punctuation(self):
        punct = tl.CachedLM(self.lm, content_only=False)
        self.assertEqual(punct.cache(tl.tokenize(tl.TODAY)),
                         Counter({",": 2, "Thursday": 1, "October": 1, "15": 1, "2026": 1}))
        self.assertEqual(punct.cache(MEGAWATT_PREFIX)[","], 1)
        self.assertEqual(punct.cache(MEGAWATT_PREFIX)["is"], 1)

    def test_mixture_by_hand(self):
        # context "mat is red cat mat is": cache {mat: 2, red: 1, cat: 1}, size 4
        ctx = ["mat", "is", "red", "cat", "mat", "is"]
        cached = tl.CachedLM(self.lm)
        for word, share in (("red", 1 / 4), ("mat", 2 / 4), ("cat", 1 / 4), ("is", 0), ("dog", 0), ("205", 0)):
            with self.subTest(word=word):
                self.assertAlmostEqual(cached.prob(word, ctx), 0.8 * self.lm.prob(word, ctx) + 0.2 * share, places=12)
        # a content word of the context that the trigram does not expect here gains; a stop word in the context
        # does not (it only loses the 0.2 share) unless the cache copies every token
        self.assertGreater(cached.prob("cat", ctx), self.lm.prob("cat", ctx))
        self.assertLess(cached.prob("is", ctx), self.lm.prob("is", ctx))
        self.assertGreater(tl.CachedLM(self.lm, content_only=False).prob("is", ctx), self.lm.prob("is", ctx))
        # an empty cache mixes in nothing
        self.assertEqual(cached.prob("cat", ["the", ","]), self.lm.prob("cat", ["the", ","]))

    def test_result_in_context_helps_predict_it(self):
        # the lab's background model never saw "205": the cache is what lets an earlier "205" be copied
        lm = tl.NGramLM(order=3).fit(tl.announcement_corpus())
        with_result = MEGAWATT_PREFIX[:-2] + ["205", "megawatts", ","] + MEGAWATT_PREFIX[-2:]
        cached = tl.CachedLM(lm)
        self.assertGreater(cached.prob("205", with_result), lm.prob("205", with_result))
        self.assertGreater(cached.prob("205", with_result), cached.prob("205", MEGAWATT_PREFIX))
        self.assertEqual(lm.prob("205", with_result), lm.prob("205", MEGAWATT_PREFIX))  # same last two words

    def test_cached_distribution_sums_to_one(self):
        contexts = {"empty": [], "stop words and marks only": ["the", ",", "is"], "content words": ["the", "cat"],
                    "unseen words": ["Tove", "Belwick", ",", "205", "205"], "megawatt": MEGAWATT_PREFIX}
        for content_only in (True, False):
            cached = tl.CachedLM(self.lm, content_only=content_only)
            for what, ctx in contexts.items():
                with self.subTest(content_only=content_only, context=what):
                    dist = cached.distribution(ctx)
                    self.assertAlmostEqual(sum(dist.values()), 1.0, delta=1e-9)
                    for w in cached.cache(ctx):  # every copyable word is in the distribution
                        self.assertIn(w, dist)
        self.assertEqual(tl.CachedLM(self.lm).distribution(["the", ","]), self.lm.distribution(["the", ","]))


# --- 4. Toolformer's weights, loss and filter ---

class WeightsAndFilter(unittest.TestCase):
    def test_default_weights_from_the_lecture(self):
        weights = tl.toolformer_weights()
        expected = [1 / 3, 4 / 15, 1 / 5, 2 / 15, 1 / 15]
        self.assertEqual(len(weights), 5)
        for t, (got, want) in enumerate(zip(weights, expected)):
            with self.subTest(t=t):
                self.assertAlmostEqual(got, want, places=12)
        self.assertAlmostEqual(sum(weights), 1.0, places=12)
        self.assertEqual(tl.WEIGHTS, weights)

    def test_weights_follow_the_formula(self):
        table = [((3, 0.2), [1 / 2.4, 0.8 / 2.4, 0.6 / 2.4]),  # 1, .8, .6 over 2.4
                 ((4, 0.5), [2 / 3, 1 / 3, 0, 0]),  # 1, .5, then max(0, 0) and max(0, -.5): the cut-off
                 ((7, 0.2), [1 / 3, 4 / 15, 1 / 5, 2 / 15, 1 / 15, 0, 0]),  # past t = 5 the weights vanish
                 ((1, 0.2), [1.0])]
        for (span, decay), expected in table:
            with self.subTest(span=span, decay=decay):
                got = tl.toolformer_weights(span, decay)
                self.assertEqual(len(got), len(expected))
                for g, e in zip(got, expected):
                    self.assertAlmostEqual(g, e, places=12)
                self.assertAlmostEqual(sum(got), 1.0, places=12)

    def test_usefulness_worked_example_exactly(self):
        self.assertEqual(tl.usefulness(Fraction("2.5"), Fraction("2.1"), Fraction("0.8")), Fraction("1.3"))
        self.assertEqual(tl.usefulness(Decimal("2.5"), Decimal("2.1"), Decimal("0.8")), Decimal("1.3"))
        self.assertEqual(round(tl.usefulness(2.5, 2.1, 0.8), 10), 1.3)

    def test_usefulness_table(self):
        # exercise_tables.USEFULNESS, by hand from eq. 2; `scripts/exercises.py --check 1` runs the same rows
        for losses, alone, expected in USEFULNESS:
            with self.subTest(losses=losses, with_call_alone=alone):
                got = tl.usefulness(*losses, with_call_alone=alone)
                self.assertEqual(got, expected)
                self.assertIs(type(got), type(expected))  # exact in, exact out: min and subtraction only
        self.assertEqual(round(tl.usefulness(4.0, 3.0, 2.6), 10), 0.4)
        self.assertEqual(round(tl.usefulness(4.0, 3.0, 2.6, with_call_alone=False), 10), 1.4)
        self.assertLess(tl.usefulness(4.0, 3.0, 2.6), 1.0)
        self.assertGreaterEqual(tl.usefulness(4.0, 3.0, 2.6, with_call_alone=False), 1.0)

    def test_keep_table(self):
        # exercise_tables.KEEP: one candidate with those losses, kept or not at tau
        for losses, tau, kept in KEEP:
            with self.subTest(losses=losses, tau=tau):
                candidate = tl.Candidate(0, 1, "Calculator", {}, True, "r", *losses)
                self.assertEqual(tl.keep([candidate], tau), [candidate] if kept else [])

    def test_keep_applies_the_threshold(self):
        slide = tl.Candidate(0, 1, "Calculator", {"expression": "1 + 1"}, True, "2", 2.5, 2.1, 0.8)
        exercise = tl.Candidate(1, 1, "Calculator", {"expression": "1 + 2"}, True, "3", 4.0, 3.0, 2.6)
        self.assertEqual(round(slide.gain, 10), 1.3)
        self.assertEqual(tl.keep([slide, exercise], 1.0), [slide])
        self.assertEqual(tl.keep([slide, exercise], 0.4 - 1e-9), [slide, exercise])
        self.assertEqual(tl.keep([slide, exercise], None), [slide, exercise])
        self.assertEqual(tl.best_calls([exercise, slide], 0.0), {0: slide, 1: exercise})

    def test_weighted_loss_by_hand(self):
        class Half:  # p = 1/2 for every token: each term is w * log 2; records what it was shown
            def __init__(self):
                self.contexts = []

            def prob(self, word, context):
                self.contexts.append((word, list(context)))
                return 0.5

        tokens = ["a", "b", "c", "d", "e", "f", "g"]
        model = Half()
        self.assertAlmostEqual(tl.weighted_loss(model, tokens, 1), math.log(2), places=12)  # five weights sum to 1
        self.assertEqual([w for w, _ in model.contexts], ["b", "c", "d", "e", "f"])
        # two tokens left: only w_0 + w_1 = 1/3 + 4/15 = 3/5 count (not renormalised)
        self.assertAlmostEqual(tl.weighted_loss(Half(), tokens, 5), 0.6 * math.log(2), places=12)
        # z goes right before x_i: x_j is predicted from x_{1:i-1}, z, x_{i:j-1}
        model = Half()
        tl.weighted_loss(model, tokens, 2, ["[", "Z", "]"])
        self.assertEqual(model.contexts[0], ("c", ["a", "b", "[", "Z", "]"]))
        self.assertEqual(model.contexts[2], ("e", ["a", "b", "[", "Z", "]", "c", "d"]))


def hand_candidate(text: int, tool: str, gold: bool, gain: float, position: int = 1) -> tl.Candidate:
    """A candidate whose usefulness is set by hand: L(eps) = L(c, eps) = 5, L(c, r) = 5 - gain."""
    return tl.Candidate(text, position, tool, {}, gold, "r", 5.0, 5.0, 5.0 - gain)


class HandMadeCandidates(unittest.TestCase):
    """best_calls, sweep_rows, the sweep's explanations and the retraining summary on lists small enough to count."""

    def test_best_calls_keeps_the_largest_gain_per_text(self):
        # losses (L(eps), L(c, eps), L(c, r)) -> gain = min of the first two - the third
        a = tl.Candidate(0, 1, "Calculator", {}, False, "r", 3.0, 3.5, 2.5)  # 3.0 - 2.5 = 0.5, first for text 0
        b = tl.Candidate(0, 2, "Calculator", {}, True, "r", 3.0, 3.5, 1.0)  # 3.0 - 1.0 = 2.0, the best
        c = tl.Candidate(0, 3, "Calendar", {}, False, "r", 3.0, 2.0, 0.8)  # min(3, 2) - 0.8 = 1.2 (not 3 - 0.8 = 2.2)
        d = tl.Candidate(1, 1, "QA", {}, True, "r", 2.0, 2.0, 1.0)  # 1.0
        e = tl.Candidate(1, 2, "QA", {}, False, "r", 2.0, 2.5, 1.0)  # 1.0 as well: a tie keeps the first, d
        f = tl.Candidate(2, 1, "Calendar", {}, False, "r", 1.0, 1.0, 1.5)  # -0.5
        g = tl.Candidate(2, 2, "Calendar", {}, False, "r", 1.0, 1.0, 0.75)  # 0.25
        candidates = [a, b, c, d, e, f, g]
        table = [(None, {0: b, 1: d, 2: g}), (-1.0, {0: b, 1: d, 2: g}), (0.0, {0: b, 1: d, 2: g}),
                 (0.25, {0: b, 1: d, 2: g}), (0.5, {0: b, 1: d}), (1.0, {0: b, 1: d}), (1.5, {0: b}), (2.0, {0: b}),
                 (2.5, {})]
        for tau, expected in table:
            with self.subTest(tau=tau):
                got = tl.best_calls(candidates, tau)
                self.assertEqual(sorted(got), sorted(expected))
                for n in expected:
                    self.assertIs(got[n], expected[n])

    def test_sweep_rows_on_hand_made_candidates(self):
        cands = [hand_candidate(0, "Calculator", True, 1.8), hand_candidate(0, "Calculator", False, -0.1),
                 hand_candidate(1, "QA", True, 3.2), hand_candidate(1, "QA", False, 0.2),
                 hand_candidate(2, "Calendar", True, 0.6), hand_candidate(2, "Calendar", False, 0.0),
                 hand_candidate(3, "Calendar", False, 1.2), hand_candidate(3, "Calendar", False, -0.3),
                 hand_candidate(4, "Calendar", True, 2.5)]
        # kept (gain >= tau), per tool "n (gold)", useless = not gold among the kept, over the kept
        expected = [["no filter", 9, "2 (1 right)", "2 (1 right)", "5 (2 right)", "56%"],  # 5 of 9
                    ["0", 7, "1 (1 right)", "2 (1 right)", "4 (2 right)", "43%"],  # 0.2, 0.0 and 1.2: 3 of 7
                    ["0.5", 5, "1 (1 right)", "1 (1 right)", "3 (2 right)", "20%"],  # the 1.2 calendar: 1 of 5
                    ["1", 4, "1 (1 right)", "1 (1 right)", "2 (1 right)", "25%"],  # 1 of 4
                    ["1.5", 3, "1 (1 right)", "1 (1 right)", "1 (1 right)", "0%"],
                    ["2", 2, "0 (0 right)", "1 (1 right)", "1 (1 right)", "0%"],
                    ["3", 1, "0 (0 right)", "1 (1 right)", "0 (0 right)", "0%"]]
        self.assertEqual(tl.TAUS, (None, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0))
        for got, want in zip(tl.sweep_rows(cands), expected, strict=True):
            with self.subTest(tau=want[0]):
                self.assertEqual(got, want)
        # nothing kept: the share is 0%, not a division by zero; one useless call kept alone: 1 of 1 = 100%
        losers = [hand_candidate(0, "Calendar", False, -1.0), hand_candidate(1, "QA", True, -0.5)]
        self.assertEqual(tl.sweep_rows(losers)[0], ["no filter", 2, "0 (0 right)", "1 (1 right)", "1 (0 right)", "50%"])
        self.assertEqual(tl.sweep_rows(losers)[1], ["0", 0, "0 (0 right)", "0 (0 right)", "0 (0 right)", "0%"])
        alone = [hand_candidate(0, "Calendar", False, 3.5), hand_candidate(1, "QA", True, -0.5)]
        self.assertEqual(tl.sweep_rows(alone)[6], ["3", 1, "0 (0 right)", "0 (0 right)", "1 (0 right)", "100%"])

    def test_calculator_before_qa_on_hand_made_gains(self):
        def run(calc: list[float], qa: list[float]) -> tl.ToolformerRun:
            cands = [hand_candidate(0, "Calculator", True, g) for g in calc]
            cands += [hand_candidate(1, "QA", True, g) for g in qa]
            # a wrong question that gains little is not a QA call the threshold must keep; a wrong calculation
            # that loses is dropped by any threshold above 0
            cands += [hand_candidate(0, "Calculator", False, -0.2), hand_candidate(1, "QA", False, 0.1)]
            return tl.ToolformerRun(None, [], cands, 0, True)
        # only the gold calls decide the range, so the sentence speaks of the right calls
        separated = ("Any tau between {} and {} drops every right calculator call and keeps every right QA call: "
                     "the loss rewards results that predict several tokens.")
        overlap = "Here the calculator and QA gains overlap: no threshold separates them."
        table = [(([1.0, 1.8], [3.0, 3.5]), separated.format("1.80", "3.00")),  # max calculator, min QA
                 (([1.8, 1.0], [3.5, 3.0]), separated.format("1.80", "3.00")),
                 (([1.0, 2.5], [2.0, 3.0]), overlap),  # 2.5 >= 2.0
                 (([2.0], [2.0]), overlap),  # touching: no tau keeps 2.0 and drops 2.0
                 (([0.5], [0.6]), separated.format("0.50", "0.60"))]
        for (calc, qa), expected in table:
            with self.subTest(calculator=calc, qa=qa):
                self.assertEqual(tl._calculator_before_qa(run(calc, qa)), expected)

    def test_lowest_calendar_on_a_hand_made_run(self):
        # the bigram of KneserNey.test_hand_computed_bigram: P(the | cat) = .75 * P1(the) = .75 * .2 = .15, times .6
        lm = tl.NGramLM(order=2).fit([["the", "cat"], ["the", "dog"]])
        text = tl.Text(["the", "cat", "the", "dog"], "date", (2, 3), {})
        cands = [hand_candidate(0, "Calendar", True, 1.5, position=3),
                 hand_candidate(0, "Calendar", True, 0.7, position=2),  # the lowest right Calendar() call
                 hand_candidate(0, "Calendar", False, 0.1, position=1),  # lower, but not gold
                 hand_candidate(0, "Calculator", True, 0.2, position=2)]  # lower, but not a calendar
        run = tl.ToolformerRun(lm, [text], cands, 0, True)
        self.assertEqual(tl._lowest_calendar(run), "The lowest Calendar gain (0.70) is before 'the' after 'the cat', "
                                                    "which the model alone already predicts with P = 0.09.")

    def test_retrain_summary_by_hand(self):
        s = tl.CallSite  # (text, position, P('['), greedy writes '[', needs a call)
        sites = [s(0, 1, 0.1, False, False), s(0, 2, 0.3, False, True), s(0, 3, 0.05, False, False),
                 s(0, 4, 0.6, True, True),  # text 0 needs a call at 2 or 4 and gets one at 4
                 s(1, 5, 0.2, False, True), s(1, 6, 0.7, True, False),  # text 1 calls one token late
                 s(2, 1, 0.0, False, False), s(2, 2, 0.15, False, False), s(2, 3, 0.2, True, False),  # needs none
                 s(3, 1, 0.5, False, True)]  # text 3 needs one at 1, none written
        result = tl.Retrained({}, [], None, sites)
        self.assertEqual(result.needed(), {0: [sites[1], sites[3]], 1: [sites[4]], 3: [sites[9]]})
        summary = result.summary()
        # where needed: mean over texts 0, 1, 3 of their best P('['): (0.6 + 0.2 + 0.5) / 3 = 1.3 / 3
        self.assertAlmostEqual(summary.p_needed, 1.3 / 3, places=12)
        # elsewhere: (0.1 + 0.05 + 0.7 + 0.0 + 0.15 + 0.2) / 6 = 1.2 / 6 = 0.2
        self.assertAlmostEqual(summary.p_elsewhere, 0.2, places=12)
        self.assertEqual(summary.texts_called, 1)  # text 0 only
        self.assertEqual(summary.texts_needing, 3)
        self.assertEqual(summary.calls_elsewhere, 2)  # (1, 6) and (2, 3)
        self.assertEqual(summary._fields, ("p_needed", "p_elsewhere", "texts_called", "texts_needing", "calls_elsewhere"))

    def test_retrain_summary_needs_both_kinds_of_place(self):
        # each mean divides by a count: texts that need a call (p_needed), places that need none (p_elsewhere);
        # when either is empty there is nothing to average, which is the caller's mistake, not a 0
        s = tl.CallSite
        table = [("no sites", []),
                 ("no text needs a call", [s(0, 1, 0.1, False, False), s(1, 1, 0.4, True, False)]),
                 ("every place needs one", [s(0, 1, 0.1, False, True), s(1, 2, 0.4, True, True)])]
        for name, sites in table:
            with self.subTest(name):
                with self.assertRaises(ValueError):
                    tl.Retrained({}, [], None, sites).summary()
        # one place of each kind is enough: (0.3) / 1 and (0.2) / 1
        summary = tl.Retrained({}, [], None, [s(0, 1, 0.2, False, False), s(0, 2, 0.3, True, True)]).summary()
        self.assertEqual(summary, (0.3, 0.2, 1, 1, 0))


class HandMadeTexts(unittest.TestCase):
    """Steps 1 and 2 on texts written here: which candidates are gold, and what a failed call leaves as its result."""

    def test_gold_is_the_texts_own_call_where_needs_call_says(self):
        def capacity(sentence: str, needed: tuple[int, ...]) -> tl.Text:
            return tl.Text(tl.tokenize(sentence), "capacity", needed, {"a": 30, "b": 12})
        # Substation0 SS1 -2 9 3 has4 two5 transformers6 of7 30 8 and9 12 10 megawatts11 ,12 so13 its14 capacity15 is16
        # 42 17; Today0 is1 Thursday2 ,3 October4
        table = [  # (text, the text's own call the rules write, its gold candidates as (position, call))
            (capacity("Substation SS-9 has two transformers of 30 and 12 megawatts, so its capacity is 42 megawatts.",
                      (17,)), "Calculator(30 + 12)", [(17, "Calculator(30 + 12)")]),
            # the rules write Calculator(30 + 12) for this text too, but no place in it needs a call: not gold
            (capacity("Substation SS-9 has two transformers of 30 and 12 megawatts.", ()), "Calculator(30 + 12)", []),
            (tl.Text(tl.tokenize("The vendor Ashholt was founded in a barn."), "vendor", (), {"vendor": "Ashholt"}),
             'QA("Who founded Ashholt?")', []),
            (tl.Text(tl.tokenize(f"Today is {tl.TODAY}, and the crews are out."), "date", (2, 4), {}), "Calendar()",
             [(2, "Calendar()"), (4, "Calendar()")]),
        ]
        for text, own, gold in table:
            with self.subTest(text=tl.detokenize(text.tokens)):
                candidates = tl.candidate_calls([text])
                self.assertIn(own, [c.call for c in candidates])
                self.assertEqual([(c.position, c.call) for c in candidates if c.gold], gold)

    def test_a_failed_candidate_keeps_its_error_kind_as_its_result(self):
        table = [  # (tool, arguments, the result step 3 scores: the value, or "error: <error kind>")
            ("Calculator", {"expression": "120 + 85"}, "205"),
            ("QA", {"question": "Who founded Ashholt?"}, "Tove Belwick"),
            ("Calendar", {}, tl.TODAY),
            ("Calculator", {"expression": "1 / 0"}, "error: execution_error"),  # raised while running
            ("QA", {"question": "Who founded Nowhere?"}, "error: execution_error"),  # no such vendor: LookupError
            ("Calculator", {}, "error: invalid_arguments"),  # expression is required
            ("Search", {"query": "Ashholt"}, "error: unknown_tool"),
        ]
        candidates = [tl.Candidate(0, 1, tool, arguments, False) for tool, arguments, _ in table]
        tl.execute_candidates(candidates, tl.toolformer_registry())
        for c, (tool, arguments, result) in zip(candidates, table):
            with self.subTest(tool=tool, arguments=arguments):
                self.assertEqual(c.result, result)


# --- 5. The pipeline: candidates, the megawatt and Ashholt sentences, the sweep, retraining ---

class Pipeline(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = lab_results.toolformer_pipeline(0)  # shared with the other files: read-only
        cls.rerun = tl.toolformer_pipeline(0)  # a second run of its own, for test_sweep_is_deterministic
        cls.punct = lab_results.toolformer_pipeline(0, content_only=False)
        cls.retrained = lab_results.retrain(0, 0.5)

    def sentence(self, kind: str) -> tuple[int, tl.Text, list[tl.Candidate]]:
        n = next(k for k, t in enumerate(self.base.texts) if t.kind == kind)
        return n, self.base.texts[n], [c for c in self.base.candidates if c.text == n]

    def test_sweep_is_deterministic(self):
        def fingerprint(run):
            return [(c.text, c.position, c.call, c.result, c.L_empty, c.L_call, c.L_result, c.gain)
                    for c in run.candidates]
        self.assertEqual(fingerprint(self.base), fingerprint(self.rerun))
        self.assertEqual([t.tokens for t in self.base.texts], [t.tokens for t in self.rerun.texts])
        self.assertEqual(tl.sweep_rows(self.base.candidates), tl.sweep_rows(self.rerun.candidates))
        self.assertTrue(all(math.isfinite(c.gain) for c in self.base.candidates))

    def test_corpus_size_from_the_rules(self):
        # 15 capacity + 20 faults + 30 vendor + 15 date + 40 plain texts; per text: capacity/faults 3 calculations
        # + an unrelated Calendar + 1 elsewhere; vendor 2 QA + Calendar + 1; date 2 Calendar + 1; plain 2 Calendar
        self.assertEqual(len(self.base.texts), 120)
        self.assertEqual(len(self.base.candidates), 35 * 5 + 30 * 4 + 15 * 3 + 40 * 2)
        self.assertEqual(sum(c.gold for c in self.base.candidates), 35 + 30 + 30)

    def test_megawatt_sentence(self):
        n, text, cands = self.sentence("capacity")
        self.assertEqual(tl.detokenize(text.tokens), "Substation SS-218 has two transformers of 120 and 85 megawatts, "
                                                     "so its capacity is 205 megawatts.")
        self.assertEqual(text.tokens[text.call_position], "205")
        right = [c for c in cands if c.call == "Calculator(120 + 85)"]
        self.assertEqual(len(right), 1)
        right = right[0]
        self.assertTrue(right.gold)
        self.assertEqual(right.result, "205")
        self.assertEqual(right.position, text.call_position)
        self.assertGreater(right.gain, 0)
        others = [c for c in cands if c is not right]
        self.assertTrue(any(c.tool == "Calculator" for c in others))
        self.assertTrue(any(c.tool == "Calendar" for c in others))
        for c in others:
            with self.subTest(call=c.call, position=c.position):
                self.assertFalse(c.gold)
                self.assertGreater(right.gain, c.gain)
                self.assertLessEqual(c.gain, 1e-9)  # a wrong or unrelated call does not lower the loss
        for c in cands:
            if c.position == text.call_position:  # the call without its result is no better than no call
                with self.subTest(call=c.call, without_result=True):
                    self.assertGreaterEqual(c.L_call, c.L_empty - 1e-9)

    def test_ashholt_sentence(self):
        n, text, cands = self.sentence("vendor")
        self.assertEqual(tl.detokenize(text.tokens), "The vendor Ashholt was founded by Tove Belwick.")
        by_call = {c.call: c for c in cands}
        right, wrong = by_call['QA("Who founded Ashholt?")'], by_call['QA("Where is Ashholt based?")']
        self.assertEqual(right.result, "Tove Belwick")
        self.assertEqual(wrong.result, next(f.city for f in tl.vendor_facts() if f.vendor == "Ashholt"))
        self.assertGreater(right.gain, 0)
        for c in cands:
            if c is not right:
                with self.subTest(call=c.call, position=c.position):
                    self.assertGreater(right.gain, c.gain)

    def test_no_filter_keeps_mostly_useless_calendar_calls(self):
        kept = tl.keep(self.base.candidates, None)
        self.assertEqual(kept, self.base.candidates)
        useless_calendar = [c for c in kept if c.tool == "Calendar" and not c.gold]
        self.assertGreater(len(useless_calendar), len(kept) / 2)

    def test_a_middle_threshold_keeps_exactly_the_right_calls(self):
        right = {id(c) for c in self.base.candidates if c.gold}
        exact = [t for t in tl.TAUS if t is not None and {id(c) for c in tl.keep(self.base.candidates, t)} == right]
        self.assertTrue(exact, "some threshold of the sweep keeps every right call and no useless one")
        self.assertGreater(min(exact), 0)  # ... and it is not the lowest: tau = 0 keeps useless calls too
        self.assertTrue(any(not c.gold for c in tl.keep(self.base.candidates, 0.0)))

    def test_raising_tau_drops_calculator_before_qa(self):
        calc = [c.gain for c in self.base.candidates if c.tool == "Calculator"]
        qa_right = [c.gain for c in self.base.candidates if c.tool == "QA" and c.gold]
        tau = min(qa_right)
        self.assertGreater(tau, max(calc))  # one-token results gain less than two-token names
        kept = tl.keep(self.base.candidates, tau)
        self.assertFalse([c for c in kept if c.tool == "Calculator"])
        self.assertEqual(sum(c.tool == "QA" and c.gold for c in kept), len(qa_right))
        # the demo's own grid of thresholds shows it too
        self.assertTrue(any(all(c.gain >= t for c in self.base.candidates if c.tool == "QA" and c.gold)
                            and not any(c.gain >= t for c in self.base.candidates if c.tool == "Calculator")
                            for t in tl.TAUS if t is not None))

    def test_punctuation_cache_makes_spurious_calendar_gains(self):
        self.assertEqual([t.tokens for t in self.punct.texts], [t.tokens for t in self.base.texts])

        def plain_calendar_gains(run):
            return [c.gain for c in run.candidates
                    if c.tool == "Calendar" and not c.gold and run.texts[c.text].kind == "plain"]
        self.assertGreater(max(plain_calendar_gains(self.punct)), max(plain_calendar_gains(self.base)))
        # and the filter is fooled: at some threshold that keeps no useless call with the content-word cache,
        # the punctuation-copying cache keeps useless calendar calls in texts that need no tool
        fooled = [t for t in tl.TAUS if t is not None and t > 0
                  and not any(g >= t for g in plain_calendar_gains(self.base))
                  and any(g >= t for g in plain_calendar_gains(self.punct))]
        self.assertTrue(fooled)

    def test_held_out_texts_are_new(self):
        train = {tuple(t.tokens) for t in self.base.texts}
        tests = tl.toolformer_texts(1, held_out=True)
        self.assertFalse([t for t in tests if tuple(t.tokens) in train])
        self.assertFalse({f for t in tests for f in t.fact.values()} & {t.fact.get("vendor") for t in self.base.texts})

    def test_retraining_raises_p_open_at_call_positions(self):
        # the steps demo_retrain takes: best kept call per text, augment, retrain a trigram, measure on new texts
        chosen = tl.best_calls(self.base.candidates, 0.5)
        self.assertTrue(all(c.gold for c in chosen.values()))
        augmented = tl.augment(self.base.texts, chosen)
        self.assertEqual(sum("[" in tokens for tokens in augmented), len(chosen))
        lm = tl.NGramLM(order=3).fit(tl.announcement_corpus() + augmented)
        tests = tl.toolformer_texts(1, held_out=True)
        sites = tl.call_sites(lm, tests)
        at_call = [s.p_open for s in sites if s.needs_call]
        elsewhere = [s.p_open for s in sites if not s.needs_call]
        # 10 capacity, 10 faults and 10 vendor texts need one call each; 15 date texts may call in 2 places
        self.assertEqual(len(at_call), 10 + 10 + 10 + 2 * 15)
        self.assertEqual(len({s.text for s in sites if s.needs_call}), 45)
        mean_call, mean_else = sum(at_call) / len(at_call), sum(elsewhere) / len(elsewhere)
        self.assertGreater(mean_call, 10 * mean_else)
        # before retraining the background model never writes "[" except as an unknown word
        base = self.base.lm
        self.assertEqual(base.prob("[", ["capacity", "is"]), base.p_unk)

    def test_wrong_calls_are_explained_from_the_data(self):
        tests = tl.toolformer_texts(1, held_out=True)
        result = self.retrained
        before = tl.call_contexts(result.augmented)
        for site in (s for s in result.sites if s.writes_call and not s.needs_call):
            with self.subTest(text=site.text, position=site.position):
                two = tuple(tests[site.text].tokens[site.position - 2: site.position])
                why = tl.explain_wrong_call(site, result.sites, tests, before)
                self.assertEqual("came right before a kept call" in why, two in before)
        for site in (s for s in result.sites if s.needs_call and not s.writes_call):
            later = [s for s in result.sites if s.text == site.text and s.writes_call
                     and 0 < s.position - site.position <= 2]
            why = tl.explain_wrong_call(site, result.sites, tests, before)
            self.assertEqual("later instead" in why, bool(later))

    def test_demos_run_for_every_threshold_of_the_sweep(self):
        for tau in [t for t in tl.TAUS if t is not None] + [-1.0, 5.0]:
            with self.subTest(tau=tau):
                self.assertIn("Ashholt", lab_results.demo_candidates(0, tau))
                self.assertIn("P('[')", lab_results.demo_retrain(0, tau))

    def test_augment_inserts_the_call_before_x_i(self):
        n, text, cands = self.sentence("capacity")
        right = next(c for c in cands if c.gold)
        augmented = tl.augment(self.base.texts, {n: right})
        self.assertEqual(tl.detokenize(augmented[n]), "Substation SS-218 has two transformers of 120 and 85 megawatts, "
                                                      "so its capacity is [Calculator(120 + 85) -> 205] 205 megawatts.")
        self.assertEqual([t for k, t in enumerate(augmented) if k != n],
                         [t.tokens for k, t in enumerate(self.base.texts) if k != n])

    # --- needs_call: one definition of where a call is needed, for labelling, choosing and grading ---

    def test_needs_call_by_hand(self):
        # positions counted by hand on the tokens ("Today is Thursday , October 15 , 2026 , ..." -> 2 and 4)
        table = [("Today is Thursday, October 15, 2026, and the crews are out.", [2, 4]),
                 ("The audit of the feeders starts today, Thursday, October 15, 2026.", [8, 10]),
                 ("Today, Thursday, October 15, 2026, the office closes early.", [2, 4]),
                 ("The new meters go live today, Thursday, October 15, 2026, at noon.", [7, 9]),
                 ("The report was filed today, Thursday, October 15, 2026.", [6, 8]),  # held out
                 ("The depot reopens today, Thursday, October 15, 2026, at 7 am.", [5, 7]),  # held out
                 ("Billing runs today, Thursday, October 15, 2026, as planned.", [4, 6]),  # held out
                 # Substation0 SS1 -2 218 3 has4 two5 transformers6 of7 120 8 and9 85 10 megawatts11 ,12 so13 its14
                 # capacity15 is16 205 17
                 ("Substation SS-218 has two transformers of 120 and 85 megawatts, so its capacity is 205 megawatts.",
                  [17]),
                 ("The vendor Ashholt was founded by Tove Belwick.", [6]),  # The0 vendor1 Ashholt2 was3 founded4 by5
                 ("The depot gate is locked after dark.", [])]
        texts = {tl.detokenize(t.tokens): t for t in self.base.texts + tl.toolformer_texts(1, held_out=True)}
        for sentence, expected in table:
            with self.subTest(sentence=sentence):
                text = texts[sentence]
                self.assertEqual([p for p in range(len(text.tokens) + 1) if tl.needs_call(text, p)], expected)
        faults = next(t for t in self.base.texts if t.kind == "faults")
        # The0 crew1 logged2 a3 faults4 on5 Monday6 and7 b8 on9 Tuesday10 ,11 so12 a+b 13
        self.assertEqual([p for p in range(len(faults.tokens)) if tl.needs_call(faults, p)], [13])
        self.assertEqual(faults.tokens[13], str(faults.fact["a"] + faults.fact["b"]))

    def test_gold_candidates_stand_where_needs_call_says(self):
        texts = self.base.texts
        for c in self.base.candidates:
            if c.gold:
                with self.subTest(text=c.text, position=c.position, tool=c.tool):
                    self.assertTrue(tl.needs_call(texts[c.text], c.position))
        own = {"capacity": "Calculator", "faults": "Calculator", "vendor": "QA", "date": "Calendar"}
        for n, text in enumerate(texts):
            for p in range(len(text.tokens)):
                if tl.needs_call(text, p):  # ... and every needed place has the text's own call, labelled gold
                    with self.subTest(text=n, position=p, kind=text.kind):
                        self.assertEqual([c.tool for c in self.base.candidates if c.text == n and c.position == p
                                          and c.gold], [own[text.kind]])
        dates = [n for n, t in enumerate(texts) if t.kind == "date"]
        self.assertEqual(len(dates), 15)
        self.assertEqual(sum(c.gold for c in self.base.candidates if c.text in dates), 2 * 15)

    def test_calendar_elsewhere_keeps_clear_of_the_date(self):
        # Calendar() within five tokens before the date, or inside it, would be useful there too: the rules keep
        # their "elsewhere" calls out of the span from 4 tokens before "Thursday" to "2026"
        dates = [c for c in self.base.candidates if self.base.texts[c.text].kind == "date" and not c.gold]
        self.assertEqual(len(dates), 15)
        for c in dates:
            tokens = self.base.texts[c.text].tokens
            with self.subTest(text=c.text, position=c.position):
                self.assertFalse(tokens.index("Thursday") - 4 <= c.position <= tokens.index("2026"))

    def test_best_calls_at_half_choose_needed_places(self):
        chosen = tl.best_calls(self.base.candidates, 0.5)
        for n, c in chosen.items():
            with self.subTest(text=n):
                self.assertTrue(c.gold)
                self.assertTrue(tl.needs_call(self.base.texts[n], c.position))

    def test_call_sites_follow_needs_call(self):
        tests = tl.toolformer_texts(1, held_out=True)
        sites = self.retrained.sites
        self.assertEqual([(s.text, s.position) for s in sites],
                         [(n, p) for n, t in enumerate(tests) for p in range(1, len(t.tokens))])
        for s in sites:
            with self.subTest(text=s.text, position=s.position):
                self.assertEqual(s.needs_call, tl.needs_call(tests[s.text], s.position))
        # both places of a date text count: "Thursday" and "October"
        for n, t in enumerate(tests):
            if t.kind == "date":
                with self.subTest(date_text=n):
                    self.assertEqual([t.tokens[s.position] for s in sites if s.text == n and s.needs_call],
                                     ["Thursday", "October"])

    def test_summary_from_the_sites(self):
        tests = tl.toolformer_texts(1, held_out=True)
        for tau in (0.5, None):
            result = lab_results.retrain(0, tau)
            need = {}
            for s in result.sites:
                if tl.needs_call(tests[s.text], s.position):
                    need.setdefault(s.text, []).append(s)
            rest = [s for s in result.sites if not tl.needs_call(tests[s.text], s.position)]
            summary = result.summary()
            with self.subTest(tau=tau):
                self.assertAlmostEqual(summary.p_needed, sum(max(s.p_open for s in v) for v in need.values()) / len(need),
                                       places=12)
                self.assertAlmostEqual(summary.p_elsewhere, sum(s.p_open for s in rest) / len(rest), places=12)
                self.assertEqual(summary.texts_called, sum(any(s.writes_call for s in v) for v in need.values()))
                self.assertEqual(summary.texts_needing, 10 + 10 + 10 + 15)
                self.assertEqual(summary.calls_elsewhere, sum(s.writes_call for s in rest))
                self.assertEqual(result.needed(), need)

    def test_demo_retrain_never_reports_a_needed_place_as_wrong(self):
        # the bug fixed: a date text called before "October" was listed both as "missed call" (at "Thursday") and as
        # "extra call" (at "October"). Count the wrong places with needs_call and compare with the demo's table.
        tests = tl.toolformer_texts(1, held_out=True)
        sites = self.retrained.sites
        expected = Counter()
        for s in sites:
            if s.writes_call and not tl.needs_call(tests[s.text], s.position):
                expected[(tests[s.text].kind, "extra call")] += 1
        for n, t in enumerate(tests):
            places = [s for s in sites if s.text == n and tl.needs_call(t, s.position)]
            if places and not any(s.writes_call for s in places):
                expected[(t.kind, "missed call")] += 1
        text = lab_results.demo_retrain(0, 0.5)
        lines = text.split("Where the filtered model calls wrongly (tau = 0.5):\n")[1].splitlines()[2:]
        shown = Counter()
        for line in lines:
            kind, what, times = re.match(r"(\w+)\s+(extra call|missed call)\s+(\d+)\s", line).groups()
            shown[(kind, what)] += int(times)
        self.assertEqual(shown, expected)
        self.assertFalse([k for k in shown if k[0] == "date"])


# --- 6. ToolkenGPT ---

class Toolken(unittest.TestCase):
    def test_target_table(self):
        table = [((["is", "2", "5", "6", "square"], 1, 3, "[square]"), ["is", "[square]", "[N/A]", "[N/A]", "square"]),
                 ((["is", "2", "5", "6"], 1, 3, "[square]"), ["is", "[square]", "[N/A]", "[N/A]"]),
                 ((["total", "7", "."], 1, 1, "[add]"), ["total", "[add]", "."])]
        for args, expected in table:
            with self.subTest(args=args):
                tokens = list(args[0])
                self.assertEqual(tl.toolken_target(*args), expected)
                self.assertEqual(args[0], tokens)  # the input is not modified

    def test_digit_tokens_table(self):
        table = [("256 ft", ["2", "5", "6", "ft"]), ("the area is 81.", ["the", "area", "is", "8", "1", "."]),
                 ("no digits", ["no", "digits"]), ("SS-218", ["SS", "-", "2", "1", "8"])]
        for text, expected in table:
            with self.subTest(text=text):
                self.assertEqual(tl.digit_tokens(text), expected)

    def test_loss_table_skips_exactly_the_na_positions(self):
        problems = [("A square room has sides of 12 feet, so the area is 144 square feet.", "144", "[square]"),
                    ("We logged 11 and 7 faults, so the total is 18 faults.", "18", "[add]"),
                    ("The total of the bill is listed on page 2.", None, None)]
        examples = []
        for text, result, toolken in problems:
            tokens = tl.digit_tokens(text)
            if result is None:
                examples.append((tokens, tokens))
                continue
            start = tokens.index(result[0], tokens.index("is"))
            examples.append((tokens, tl.toolken_target(tokens, start, len(result), toolken)))
        frozen = tl.NGramLM(order=3).fit(tl.announcement_corpus() + [t for t, _ in examples])
        head = tl.ToolkenHead().fit(examples)
        text, result, toolken = tl.TOOLKEN_EXAMPLE
        tokens = tl.digit_tokens(text)
        start = tokens.index("2")  # "... the area is 256 square feet": the first digit of 256
        self.assertEqual(tokens[start: start + 3], ["2", "5", "6"])
        target = tl.toolken_target(tokens, start, len(result), toolken)
        table = tl.toolken_loss_table(frozen, head, tokens, target)
        self.assertEqual(len(table), len(tokens))
        for j, (pos, original, tt, loss) in enumerate(table):
            with self.subTest(position=j, target=tt):
                self.assertEqual((pos, original, tt), (j, tokens[j], target[j]))
                if target[j] == tl.NA:
                    self.assertIsNone(loss)
                else:
                    self.assertIsNotNone(loss)
                    self.assertTrue(math.isfinite(loss) and loss >= 0)
        self.assertEqual([j for j, *_, loss in table if loss is None], [start + 1, start + 2])

    # Two hand-written examples for the head (ToolkenGPT counts a label at every non-[N/A] position):
    #   x is 4   -> x is [sq]            y is 5 6 -> y is [add] [N/A]
    # Each position j is counted once at each level k = 0, 1, 2, under its context tokens[max(0, j-k):j] at that
    # level. Near the start the slices are shorter than k (at j = 0 all are empty, at j = 1 the 2-token one is
    # (x,)), but a level-2 slice is still counted at level 2 only, never again under a lower level.
    #   level 0, () : <word> 4 (j = 0, 1 of both), [sq] 1, [add] 1 -> 6
    #   level 1     : ()  <word> 2 (j = 0)   (x,) <word> 1   (y,) <word> 1   (is,) [sq] 1, [add] 1
    #   level 2     : ()  <word> 2 (j = 0)   (x,) <word> 1   (y,) <word> 1   (x, is) [sq] 1   (y, is) [add] 1
    # Two toolkens: the base is 1 / (1 + 2) = 1/3; each level is (count + lower) / (total + 1).
    #   P0([sq]) = (1 + 1/3) / 7 = 4/21,  P0([add]) = 4/21,  P0(<word>) = (4 + 1/3) / 7 = 13/21  (sum 21/21)
    HEAD_EXAMPLES = [(["x", "is", "4"], ["x", "is", "[sq]"]), (["y", "is", "5", "6"], ["y", "is", "[add]", "[N/A]"])]

    def test_head_probabilities_by_hand(self):
        head = tl.ToolkenHead().fit(self.HEAD_EXAMPLES)
        self.assertEqual(head.toolkens(), {"[sq]", "[add]"})
        table = [
            # "x is": level 1 (is,) has 2: P1([sq]) = (1 + 4/21) / 3 = 25/63 (and [add]), P1(<word>) = (0 + 13/21) / 3
            # = 13/63; level 2 (x, is) has 1: P2([sq]) = (1 + 25/63) / 2 = 44/63
            ("[sq]", ["x", "is"], Fraction(44, 63)),
            ("[add]", ["x", "is"], Fraction(25, 126)),  # (0 + 25/63) / 2
            ("<word>", ["x", "is"], Fraction(13, 126)),  # (0 + 13/63) / 2; 88 + 25 + 13 = 126
            ("[add]", ["y", "is"], Fraction(44, 63)),
            ("[sq]", ["y", "is"], Fraction(25, 126)),
            # one token "is": level 2 looks for the slice (is,) counted at level 2, which only a text starting with
            # "is" would give: unseen, so P2 = (0 + P1) / (0 + 1) = P1 = 25/63
            ("[sq]", ["is"], Fraction(25, 63)),
            # "x": level 1 (x,) has <word> 1: P1(<word>) = (1 + 13/21) / 2 = 17/21, P1([sq]) = (0 + 4/21) / 2 = 2/21;
            # level 2 (x,) (the 2-token slice at j = 1) has <word> 1: P2(<word>) = (1 + 17/21) / 2 = 19/21
            ("<word>", ["x"], Fraction(19, 21)),
            ("[sq]", ["x"], Fraction(1, 21)),  # (0 + 2/21) / 2
            # empty context: level 1 () and level 2 () each hold the two j = 0 positions, <word> 2:
            # P1([sq]) = (0 + 4/21) / 3 = 4/63, P2([sq]) = (0 + 4/63) / 3 = 4/189
            ("[sq]", [], Fraction(4, 189)),
            ("<word>", [], Fraction(181, 189)),  # P1 = (2 + 13/21) / 3 = 55/63; P2 = (2 + 55/63) / 3 = 181/189
            # unseen contexts add nothing: (0 + lower) / (0 + 1) all the way down to P0
            ("[sq]", ["zebra", "quark"], Fraction(4, 21)),
            ("<word>", ["zebra", "quark"], Fraction(13, 21)),
            ("[add]", ["the", "zebra", "quark"], Fraction(4, 21)),  # only the last two tokens count
        ]
        for label, context, expected in table:
            with self.subTest(label=label, context=context):
                self.assertAlmostEqual(head.prob(label, context), float(expected), places=12)
        for context in ([], ["x"], ["is"], ["x", "is"], ["y", "is"], ["zebra"]):  # a distribution over the labels
            with self.subTest(sums_to_one=context):
                self.assertAlmostEqual(sum(head.prob(lab, context) for lab in ("<word>", "[sq]", "[add]")), 1.0,
                                       places=12)

    def test_head_counts_each_start_position_once_per_level(self):
        # The bug fixed: the 0-, 1- and 2-token contexts shared one key, so at j = 0, where all three slices are (),
        # the label was counted three times under (), and at j = 1 twice under (tokens[0],).
        #   "12 ..." -> [add] [N/A]   (a text that opens with a result: one counted position, j = 0)
        #   "the end" -> the end      (j = 0 and j = 1, both <word>)
        examples = [(["1", "2"], ["[add]", "[N/A]"]), (["the", "end"], ["the", "end"])]
        head = tl.ToolkenHead().fit(examples)
        # counted once per level:
        #   level 0, () : [add] 1, <word> 2 -> 3 (one per non-[N/A] position)
        #   level 1, () : [add] 1, <word> 1 (the two j = 0 positions)     level 2, () : the same
        # One toolken: the base is 1/2.
        #   P0([add]) = (1 + 1/2) / 4 = 3/8;  P1 = (1 + 3/8) / 3 = 11/24;  P2 = (1 + 11/24) / 3 = 35/72
        #   P2(<word>) = 1 - 35/72 = 37/72  (P0 = 5/8, P1 = (1 + 5/8) / 3 = 13/24, P2 = (1 + 13/24) / 3 = 37/72)
        # The old shared key held under (): [add] 3 (j = 0, three times), <word> 3 + 1 = 4 -> 7, looked up thrice:
        #   P0 = (3 + 1/2) / 8 = 7/16;  P1 = (3 + 7/16) / 8 = 55/128;  P2 = (3 + 55/128) / 8 = 439/1024
        table = [("[add]", 0, Fraction(3, 8)), ("<word>", 0, Fraction(5, 8)),
                 ("[add]", 1, Fraction(11, 24)), ("[add]", 2, Fraction(35, 72)), ("<word>", 2, Fraction(37, 72))]
        for label, k, expected in table:
            with self.subTest(label=label, k=k):
                self.assertAlmostEqual(head.prob(label, [], k), float(expected), places=12)
        self.assertNotAlmostEqual(head.prob("[add]", []), float(Fraction(439, 1024)), places=3)  # the old triple count
        self.assertNotAlmostEqual(head.prob("[add]", [], 0), float(Fraction(7, 16)), places=3)

    def test_loss_table_by_hand(self):
        class Half:  # the frozen model: P = 1/2 for every word; records what it was asked
            def __init__(self):
                self.asked = []

            def prob(self, word, context):
                self.asked.append((word, list(context)))
                return 0.5

        head = tl.ToolkenHead().fit(self.HEAD_EXAMPLES)
        frozen = Half()
        tokens, target = ["x", "is", "7", "8"], ["x", "is", "[sq]", "[N/A]"]
        # a word pays -log(P(<word>) * P_frozen(word)); the toolken pays -log P(toolken); [N/A] pays nothing
        # P(<word> | ()) = 181/189, P(<word> | x) = 19/21, P([sq] | x is) = 44/63 (test_head_probabilities_by_hand)
        expected = [(0, "x", "x", -math.log(Fraction(181, 189) / 2)),
                    (1, "is", "is", -math.log(Fraction(19, 21) / 2)),
                    (2, "7", "[sq]", -math.log(Fraction(44, 63))),
                    (3, "8", "[N/A]", None)]
        got = tl.toolken_loss_table(frozen, head, tokens, target)
        self.assertEqual(len(got), len(expected))
        for row, want in zip(got, expected):
            with self.subTest(position=want[0]):
                self.assertEqual(row[:3], want[:3])
                if want[3] is None:
                    self.assertIsNone(row[3])
                else:
                    self.assertAlmostEqual(row[3], want[3], places=12)
        self.assertEqual(frozen.asked, [("x", []), ("is", ["x"])])  # only the word positions, with their prefix


# --- 7. Scripts 01 and 02: they run, the same everywhere, and print the demos' figures ---

class ScriptDemosInProcess(unittest.TestCase):
    def test_why_tools_for_several_seeds(self):
        for seed in range(4):  # 0 and 1 are the scripts' runs; 2 and 3 two more draws
            with self.subTest(seed=seed):
                text = lab_results.demo_cant_compute(seed)
                answer = text.split("'32 times 34 is' -> ")[1].split()[0]
                self.assertTrue(answer.isdigit())  # a number from training, not the product
                self.assertNotEqual(answer, str(32 * 34))

    def test_model_answers_come_from_2024_text(self):
        text = lab_results.demo("demo_cant_see")
        self.assertIn("model: '2 days per week'", text)
        self.assertIn("3 days per week", text)  # from the policy tool


class Scripts(unittest.TestCase):
    """The two scripts' output, from tests/script_runs.py's runs (tests/test_scripts.py checks that they run, the same
    bytes from any directory, --help, and where the seed goes)."""

    NEEDLES = {"01": ["Demo 1", "Demo 2", "Demo 3", '<tool_result name="calculate" id="call_1">15541316</tool_result>',
                      "15,541,316", "model: '2 days per week'", "model: 'Monday'"],
               "02": ["Demo 1", "Demo 2", "Demo 3", "Demo 4", "min(2.5, 2.1) - 0.8 = 1.3", "-> 0.4 < tau = 1.0: dropped",
                      "it would be 1.4: kept", "P('[')", "Calculator(120 + 85)", "Tove Belwick", "[square]", "[N/A]"]}

    RUNS = {"root": 0, "seed 1": 1}  # run -> the seed it was given

    def test_both_scripts_print_the_lectures_figures(self):
        for script in SCRIPTS:
            with self.subTest(script=script):
                code, out, err = script_run(script, "root")
                self.assertEqual(code, 0, err[-2000:])
                for needle in self.NEEDLES[script]:
                    self.assertIn(needle, out)

    def test_a_tau_that_is_no_number_is_refused(self):
        code, out, err = script_runs.in_process(script_runs.SCRIPTS / SCRIPTS["02"], "--tau", "nan")
        self.assertEqual((code, out), (2, ""))  # argparse's usage error, before any work
        self.assertIn("argument --tau: tau must be a finite number, got nan", err)

    def test_seed_one_runs(self):
        for script in SCRIPTS:
            with self.subTest(script=script):
                code, out, err = script_run(script, "seed 1")
                self.assertEqual(code, 0, err[-2000:])
                self.assertIn("Demo 3", out)
        self.assertIn("P('[')", script_run("02", "seed 1")[1])
        self.assertIn("15541316", script_run("01", "seed 1")[1])

    # --- the figures in the scripts' output ---

    def test_stdout_is_exactly_what_the_demos_return(self):
        # the figures of every demo are pinned in tests/test_toolformer_lab_demos.py; this ties them to the scripts
        for name, seed in self.RUNS.items():
            expected = {"01": [lab_results.demo_cant_compute(seed), lab_results.demo("demo_cant_see"),
                               lab_results.demo("demo_calculator_loop"), lab_results.demo("demo_tool_families")],
                        "02": [lab_results.demo("demo_worked_numbers"), lab_results.demo_candidates(seed, 0.5),
                               lab_results.demo_threshold_sweep(seed), lab_results.demo_retrain(seed, 0.5),
                               lab_results.demo("demo_toolken"),
                               lab_results.demo_tool_use(seed, 0.5), lab_results.demo_too_weak(seed, 0.5)]}
            for script, bodies in expected.items():
                with self.subTest(script=script, run=name):
                    code, out, err = script_run(script, name)
                    self.assertEqual(code, 0, err[-2000:])
                    self.assertEqual(list(script_runs.sections(out).values()), bodies)

    def test_script_01_figures(self):
        for name, seed in self.RUNS.items():
            code, out, err = script_run("01", name)
            train = [p for p in tl.multiplication_problems(seed, 300) if p != (32, 34)]
            with self.subTest(run=name):
                self.assertIn(f"Trained on {len(train)} sentences like", out)
                self.assertIn(f"(300 per digit count, seed {seed})", out)
                self.assertIn("'32 times 34 is' -> ", out)
                self.assertIn("(correct 1088)", out)  # 32 x 34
                rows = re.findall(r"^(\d) x \1 digits +(\d+) +(\d+) +(\d+)% +(\d+)%$", out, re.M)
                self.assertEqual([r[0] for r in rows], ["1", "2", "3"])
                for d, n, seen, model, calculator in rows:
                    probe = tl.multiplication_problems(seed + 1000 + int(d), 40, (int(d),))
                    in_training = sum(p in set(train) for p in probe)
                    with self.subTest(digits=d):
                        self.assertEqual((int(n), int(seen), calculator), (40, in_training, "100"))
                        # every problem it saw it recites, so it is right at least that often
                        self.assertGreaterEqual(int(model), int(f"{in_training / 40:.0%}"[:-1]))
                # 17,423 x 892 = 15,680,700 - 139,384
                self.assertIn('<tool_result name="calculate" id="call_1">15541316</tool_result>', out)
                self.assertIn("[model] 17,423 x 892 = 15,541,316.", out)

    def test_script_02_figures(self):
        for name, seed in self.RUNS.items():
            code, out, err = script_run("02", name)
            run = lab_results.toolformer_pipeline(seed)
            useful = {c.text for c in run.candidates if min(c.L_empty, c.L_call) - c.L_result >= 0.5}
            with self.subTest(run=name):
                # the corpus sizes do not depend on the seed: 120 texts, 420 candidates, 95 gold (see
                # Pipeline.test_corpus_size_from_the_rules); without a filter all are kept: 35 x 3 calculations
                # (35 right), 30 x 2 questions (30 right), 420 - 165 = 255 Calendar() (2 x 15 right); 325 useless = 77%
                self.assertIn("120 texts, 420 candidates written by rules", out)
                self.assertIn("all executed; 95 are right.", out)
                self.assertEqual(out.count("no filter  420   105 (35 right)  60 (30 right)  255 (30 right)  77%"), 2)
                self.assertIn(f"Inserted the best kept call into {len(useful)} of 120 training texts", out)
                self.assertIn("tested on 60 held-out texts", out)
                self.assertEqual(len(re.findall(r"  \d+ of 45  ", out)), 2)  # 10 + 10 + 10 + 15 test texts need one
                # demo 4 does not depend on the seed: 22 tokens, 2 of them [N/A]; -log(21181/25872) = 0.200
                self.assertIn("Loss = sum over the 20 non-[N/A] positions", out)
                self.assertIn("(the 7 of them shown contribute", out)
                self.assertIn("-log P([square]) = 0.20 once", out)
                self.assertIn("in place of the digit 2; the digits 5 6 after it are [N/A]", out)
        out = script_run("02", "root")[1]
        self.assertIn("Inserted the best kept call into 80 of 120 training texts", out)  # 35 + 30 + 15
        self.assertIn("0.5        95    35 (35 right)   30 (30 right)  30 (30 right)   0%", out)
        self.assertRegex(out, r"filter, tau = 0.5 +80 +\d\.\d{3} +\d\.\d{3} +45 of 45 ")
        self.assertRegex(out, r"no filter \(each text's best candidate\) +120 ")


if __name__ == "__main__":
    unittest.main()
