"""toolformer_lab and scripts 01/02: KN sums to 1, the copy cache, Toolformer's weights, filter and sweep, retraining,
ToolkenGPT's target, and smoke tests for both scripts (issue 3, section 5).

Expected values come from the lecture (weights 1/3 .. 1/15; 2.5 / 2.1 / 0.8 -> 1.3; 4.0 / 3.0 / 2.6 -> 0.4) or from
hand computation written out in comments; figures that depend on the corpus and the knobs are checked by mechanism
(an inequality, an ordering) rather than by value.
"""
import math
import os
import random
import subprocess
import sys
import tempfile
import unittest
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import toolformer_lab as tl  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = {"01": ROOT / "scripts" / "01_why_tools.py", "02": ROOT / "scripts" / "02_toolformer.py"}
_PROCS: dict[tuple[str, str], subprocess.Popen] = {}
_DONE: dict[tuple[str, str], tuple[int, str, str]] = {}
_ELSEWHERE = tempfile.TemporaryDirectory()


def setUpModule():
    """Start the script runs at once, so they overlap with the in-process tests (the file stays under 3 s)."""
    runs = {"root": ([], ROOT, "1"), "elsewhere": ([], Path(_ELSEWHERE.name), "2"), "help": (["--help"], ROOT, "0"),
            "seed1": (["--seed", "1"], ROOT, "0")}
    for script, path in SCRIPTS.items():
        for name, (args, cwd, hashseed) in runs.items():
            # the root run uses a relative path, the other an absolute one from another directory; different
            # PYTHONHASHSEEDs make set/dict-order dependence show up as different output
            target = os.path.relpath(path, ROOT) if name == "root" else str(path)
            env = dict(os.environ, PYTHONHASHSEED=hashseed)
            _PROCS[(script, name)] = subprocess.Popen([sys.executable, target, *args], cwd=cwd, env=env, text=True,
                                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def tearDownModule():
    for proc in _PROCS.values():
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    _ELSEWHERE.cleanup()


def script_run(script: str, name: str) -> tuple[int, str, str]:
    """Return (returncode, stdout, stderr) of one of the runs started in setUpModule."""
    if (script, name) not in _DONE:
        out, err = _PROCS[(script, name)].communicate(timeout=60)
        _DONE[(script, name)] = (_PROCS[(script, name)].returncode, out, err)
    return _DONE[(script, name)]


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

    def test_usefulness_exercise(self):
        # L- = min(4.0, 3.0) = 3.0; 3.0 - 2.6 = 0.4 < 1.0: dropped. With L- = L(eps) = 4.0: 1.4 >= 1.0: kept.
        table = [((Decimal("4.0"), Decimal("3.0"), Decimal("2.6")), True, Decimal("0.4")),
                 ((Decimal("4.0"), Decimal("3.0"), Decimal("2.6")), False, Decimal("1.4")),
                 ((Fraction("4.0"), Fraction("3.0"), Fraction("2.6")), True, Fraction("0.4")),
                 ((Fraction("4.0"), Fraction("3.0"), Fraction("2.6")), False, Fraction("1.4")),
                 ((Decimal("2.5"), Decimal("2.1"), Decimal("0.8")), False, Decimal("1.7"))]
        for losses, alone, expected in table:
            with self.subTest(losses=losses, with_call_alone=alone):
                self.assertEqual(tl.usefulness(*losses, with_call_alone=alone), expected)
        self.assertEqual(round(tl.usefulness(4.0, 3.0, 2.6), 10), 0.4)
        self.assertEqual(round(tl.usefulness(4.0, 3.0, 2.6, with_call_alone=False), 10), 1.4)
        self.assertLess(tl.usefulness(4.0, 3.0, 2.6), 1.0)
        self.assertGreaterEqual(tl.usefulness(4.0, 3.0, 2.6, with_call_alone=False), 1.0)

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


# --- 5. The pipeline: candidates, the megawatt and Ashholt sentences, the sweep, retraining ---

class Pipeline(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = tl.toolformer_pipeline(0)
        cls.rerun = tl.toolformer_pipeline(0)
        cls.punct = tl.toolformer_pipeline(0, content_only=False)

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
        result = tl.retrain(self.base, 0.5, tests)
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
                self.assertIn("Ashholt", tl.demo_candidates(self.base, tau))
                self.assertIn("P('[')", tl.demo_retrain(self.base, tau))

    def test_augment_inserts_the_call_before_x_i(self):
        n, text, cands = self.sentence("capacity")
        right = next(c for c in cands if c.gold)
        augmented = tl.augment(self.base.texts, {n: right})
        self.assertEqual(tl.detokenize(augmented[n]), "Substation SS-218 has two transformers of 120 and 85 megawatts, "
                                                      "so its capacity is [Calculator(120 + 85) -> 205] 205 megawatts.")
        self.assertEqual([t for k, t in enumerate(augmented) if k != n],
                         [t.tokens for k, t in enumerate(self.base.texts) if k != n])


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
        self.assertAlmostEqual(table[start][3], -math.log(head.prob(toolken, tokens[:start])), places=12)


# --- 7. Smoke tests for scripts 01 and 02 ---

class ScriptDemosInProcess(unittest.TestCase):
    def test_why_tools_for_several_seeds(self):
        for seed in range(6):
            with self.subTest(seed=seed):
                text = tl.demo_cant_compute(seed)
                answer = text.split("'32 times 34 is' -> ")[1].split()[0]
                self.assertTrue(answer.isdigit())  # a number from training, not the product
                self.assertNotEqual(answer, str(32 * 34))

    def test_model_answers_come_from_2024_text(self):
        text = tl.demo_cant_see()
        self.assertIn("model: '2 days per week'", text)
        self.assertIn("3 days per week", text)  # from the policy tool


class Scripts(unittest.TestCase):
    NEEDLES = {"01": ["Demo 1", "Demo 2", "Demo 3", '<tool_result name="calculate" id="call_1">15541316</tool_result>',
                      "15,541,316", "model: '2 days per week'", "model: 'Monday'"],
               "02": ["Demo 1", "Demo 2", "Demo 3", "Demo 4", "min(2.5, 2.1) - 0.8 = 1.3", "-> 0.4 < tau = 1.0: dropped",
                      "it would be 1.4: kept", "P('[')", "Calculator(120 + 85)", "Tove Belwick", "[square]", "[N/A]"]}

    def test_both_scripts_run_the_same_from_any_directory(self):
        for script in SCRIPTS:
            with self.subTest(script=script):
                code, out, err = script_run(script, "root")
                self.assertEqual(code, 0, err[-2000:])
                other_code, other_out, other_err = script_run(script, "elsewhere")
                self.assertEqual(other_code, 0, other_err[-2000:])
                self.assertEqual(out, other_out)
                for needle in self.NEEDLES[script]:
                    self.assertIn(needle, out)

    def test_help(self):
        for script in SCRIPTS:
            with self.subTest(script=script):
                code, out, err = script_run(script, "help")
                self.assertEqual(code, 0, err[-2000:])
                self.assertIn("usage", out)
                self.assertIn("--seed", out)

    def test_seed_one_runs(self):
        for script in SCRIPTS:
            with self.subTest(script=script):
                code, out, err = script_run(script, "seed1")
                self.assertEqual(code, 0, err[-2000:])
                self.assertIn("Demo 3", out)
        self.assertIn("P('[')", script_run("02", "seed1")[1])
        self.assertIn("15541316", script_run("01", "seed1")[1])


if __name__ == "__main__":
    unittest.main()
