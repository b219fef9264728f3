"""Tool use at inference (issue 24, section 3): Toolformer decoding with its tools, ToolkenGPT's tool mode, and demo 5
of scripts/02_toolformer.py, every figure of which is computed again here.

What is pinned, and how:
  - the decoding rules on models small enough to work out by hand (a one-sentence trigram writes its one sentence);
  - every token the demo's model writes is its argmax under the rules the demo states: a decoder written again here
    gives every printed text and all 60 held-out texts, and each token of the printed calculator and QA calls is
    also the argmax over the whole distribution;
  - every result the harness inserts is what the tool returns for that call, worked out here (a + b, the knowledge
    base's founder, the calendar's fixed date); the copy counts are read again from the printed texts;
  - ToolkenGPT's step: the toolken is the argmax, the argument is the question's number, 16 x 16 = 256 fills exactly
    the toolken's place and the [N/A] places, and those are exactly the places the loss skips.
Nothing here takes an expected value from the function under test. The pipeline is tests/lab_results.py's (shared with
tests/test_toolformer_lab.py in this process; read-only).
"""
import dataclasses
import functools
import math
import re
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # for lab_results, however the tests are started

import lab_results  # noqa: E402
from test_toolformer_lab_demos import table  # noqa: E402 - the same table reader as the demos' figures
import tool_core  # noqa: E402
import toolformer_lab as tl  # noqa: E402

SEED, TAU = 0, 0.5
TODAY = "Thursday, October 15, 2026"
CLOSERS = frozenset({"->", "]"})
FOUNDERS = {f.vendor: f.founder for f in tl.vendor_facts()}


# --- the rules, written again ---

def pick(lm: tl.NGramLM, context: list[str], banned: frozenset) -> str:
    """The likeliest next word over the whole distribution, <unk> and banned left out, ties to the later word."""
    dist = lm.distribution(context)
    return max((w for w in dist if w != tl.UNK and w not in banned), key=lambda w: (dist[w], w))


def pick_fast(lm: tl.NGramLM, context: list[str], banned: frozenset) -> str:
    """The same argmax through NGramLM.most_likely (checked against the whole distribution in test_toolformer_lab)."""
    return lm.most_likely(context, exclude=banned)


def top(lm: tl.NGramLM, context: list[str], k: int, chooser=pick_fast) -> list[str]:
    """The k likeliest next words, "->" and "]" left out."""
    ranked: list[str] = []
    for _ in range(k):
        ranked.append(chooser(lm, context, CLOSERS | set(ranked)))
    return ranked


def answer(written: str) -> str | None:
    """What the lab's three tools return for a written call, worked out here; None for anything else."""
    m = re.fullmatch(r"Calculator\((\d+) ([+*-]) (\d+)\)", written)
    if m:
        a, op, b = int(m[1]), m[2], int(m[3])
        return str(a + b if op == "+" else a * b if op == "*" else a - b)
    m = re.fullmatch(r'QA\("Who founded (\w+)\?"\)', written)
    if m:
        return FOUNDERS.get(m[1])
    return TODAY if written == "Calendar()" else None


def walk(lm, prompt, k=1, max_calls=1, chooser=pick_fast, limit=30):
    """Decode as demo 5 says: argmax; '[' when among the k likeliest (while a call is allowed); no '->' or ']'
    outside a call, no '[' or ']' inside one; at '->' the tool's answer and ']' go in.

    Returns (tokens, [(at, written, answer)]).
    """
    tokens, calls, opened = [], [], None
    while len(tokens) < limit:
        context = prompt + tokens
        if opened is not None:
            word = chooser(lm, context, frozenset({"[", "]"}))
        elif len(calls) < max_calls and "[" in top(lm, context, k, chooser):
            word = "["
        else:
            word = chooser(lm, context, CLOSERS | {"["})
        if word == tl.EOS:
            break
        tokens.append(word)
        if word == "[":
            opened = len(tokens) - 1
        elif word == "->":
            written = tl.detokenize(tokens[opened + 1: -1])
            calls.append((opened, written, answer(written)))
            tokens += tl.tokenize(answer(written)) + ["]"]
            opened = None
    if opened is not None:
        calls.append((opened, tl.detokenize(tokens[opened + 1:]), None))
    return tokens, calls


def prompt_of(text: tl.Text) -> list[str]:
    """Demo 5's prompt as it says: the text up to where it needs a call; a plain text up to its middle."""
    return text.tokens[: text.call_positions[0]] if text.call_positions else text.tokens[: len(text.tokens) // 2]


def own_call(text: tl.Text) -> str | None:
    """The call a text needs, written by hand from its facts."""
    if text.kind in ("capacity", "faults"):
        return f"Calculator({text.fact['a']} + {text.fact['b']})"
    if text.kind == "vendor":
        return f'QA("Who founded {text.fact["vendor"]}?")'
    return "Calendar()" if text.kind == "date" else None


def still_to_say(before: list[str], result: list[str]) -> list[str]:
    """The result less the longest start of it that `before` already ends with."""
    done = 0
    for n in range(1, min(len(before), len(result)) + 1):
        if before[-n:] == result[:n]:
            done = n
    return result[done:]


def goes_on_with(before: list[str], result: list[str], after: list[str]) -> bool:
    """Whether `after` starts with what the result still has to say."""
    rest = still_to_say(before, result)
    return bool(rest) and after[: len(rest)] == rest


@functools.cache
def demo_text() -> str:
    """Demo 5 on the seed-0 pipeline at tau 0.5, computed once for both test classes."""
    return str(lab_results.demo_tool_use(SEED, TAU))


def split_call(tokens: list[str]) -> tuple[list[str], str, list[str], list[str]] | None:
    """(before '[', the call between '[' and '->', the result up to ']', after ']'), or None with no complete call."""
    if "->" not in tokens:
        return None
    at, arrow = tokens.index("["), tokens.index("->")
    close = tokens.index("]", arrow)
    return tokens[:at], tl.detokenize(tokens[at + 1: arrow]), tokens[arrow + 1: close], tokens[close + 1:]


def one(pattern: str, text: str) -> tuple[str, ...]:
    """The groups of the one match of pattern in text."""
    found = re.findall(pattern, text, re.S)
    if len(found) != 1:
        raise AssertionError(f"expected one match of {pattern!r}, found {len(found)} in:\n{text}")
    return found[0] if isinstance(found[0], tuple) else (found[0],)


# --- the decoding rules, on models small enough to work out by hand ---

def tiny(*sentences: str) -> tl.NGramLM:
    return tl.NGramLM(order=3).fit([s.split() for s in sentences])


class DecodingRules(unittest.TestCase):
    def setUp(self):
        self.registry = tl.toolformer_registry()

    def test_the_harness_writes_the_tools_result_not_the_models(self):
        # trained on a wrong sum: the model would write 6 after '->', the calculator says 2 + 3 = 5
        lm = tiny("x is [ Calculator ( 2 + 3 ) -> 6 ] 6 .")
        out = tl.decode_with_tools(lm, ["x", "is"], self.registry)
        self.assertEqual(out.tokens, "[ Calculator ( 2 + 3 ) -> 5 ] 6 .".split())
        self.assertEqual(out.by_harness(), {8, 9})  # '5' and ']' right after '->' (index 7)
        (call,) = out.calls
        self.assertEqual((call.at, call.arrow, call.written, call.result.content), (0, 7, "Calculator(2 + 3)", 5))
        self.assertEqual(out.after(call), ["6", "."])
        self.assertFalse(tl.copies_result(["x", "is"], ["5"], out.after(call)))  # it goes on with its memory, 6

    def test_what_is_banned_where(self):
        table_ = [  # (sentences, prompt, what it writes): after 'a', ']' / '->' is likeliest but only closes a call
            (("a ] b", "a ] b", "a c"), ["a"], ["c"]),
            (("a -> b", "a -> b", "a c"), ["a"], ["c"]),
            # inside a call, no second '[': after 'Calendar (' the model saw '[' twice, ')' once
            (("q [ Calendar ( [", "q [ Calendar ( [", "q [ Calendar ( ) -> d ]"), ["q"],
             ["[", "Calendar", "(", ")", "->", *tl.tokenize(TODAY), "]"]),
            # ... and no ']': after 'Calendar (' it saw ']' twice, ')' once, but closing the call is the harness's job
            (("q [ Calendar ( ] ]", "q [ Calendar ( ] ]", "q [ Calendar ( ) -> d ]"), ["q"],
             ["[", "Calendar", "(", ")", "->", *tl.tokenize(TODAY), "]"]),
        ]
        for sentences, prompt, expected in table_:
            with self.subTest(sentences=sentences):
                out = tl.decode_with_tools(tiny(*sentences), prompt, self.registry, max_tokens=len(expected))
                self.assertEqual(out.tokens, expected)

    def test_one_call_per_text_unless_told_otherwise(self):
        lm = tiny("q [ Calendar ( ) -> d ] [ Calendar ( ) -> d ] .")
        one_call = tl.decode_with_tools(lm, ["q"], self.registry)
        two_calls = tl.decode_with_tools(lm, ["q"], self.registry, max_calls=2)
        self.assertEqual((len(one_call.calls), len(two_calls.calls)), (1, 2))
        self.assertEqual(one_call.tokens.count("["), 1)
        self.assertEqual([c.result.text for c in two_calls.calls], [TODAY, TODAY])

    def test_k_opens_a_call_when_the_bracket_is_among_the_k_likeliest(self):
        lm = tiny("p w", "p w", "p [ Calendar ( ) -> d ]")  # after 'p': 'w' twice, '[' once
        self.assertEqual(tl.call_rank(lm, ["p"], 10), 1)
        self.assertIsNone(tl.call_rank(lm, ["p"], 1))
        self.assertEqual(tl.decode_with_tools(lm, ["p"], self.registry, k=1).tokens, ["w"])
        self.assertEqual(tl.decode_with_tools(lm, ["p"], self.registry, k=2).tokens[:2], ["[", "Calendar"])

    def test_the_marks_that_close_a_call_do_not_outrank_the_one_that_opens_it(self):
        # after 'p': a closing mark twice, '[' once. The model never writes '->' or ']' outside a call, so neither
        # stands before '[': '[' is the likeliest token it may write (rank 0), and k = 1 opens the call
        for mark in ("->", "]"):
            with self.subTest(mark=mark):
                lm = tiny(f"p {mark} x", f"p {mark} x", "p [ Calendar ( ) -> d ]")
                self.assertEqual(tl.call_rank(lm, ["p"], 1), 0)
                self.assertEqual(tl.decode_with_tools(lm, ["p"], self.registry, k=1).tokens,
                                 ["[", "Calendar", "(", ")", "->", *tl.tokenize(TODAY), "]"])

    def test_a_bad_call_is_counted_never_raised(self):
        table_ = [  # (sentence, error kind, what the harness writes after '->')
            ("q [ QA ( x", "truncated", []),  # the text ends inside the call: nothing runs, nothing inserted
            ("q [ Nope ( 1 ) -> z ]", "unknown_tool", ["error", ":", "unknown", "tool", "]"]),
            ("q [ + -> z ]", "bad_name", ["error", ":", "bad", "name", "]"]),  # not Tool(...)
            ("q [ Calculator ( 1 / 0 ) -> z ]", "execution_error", ["error", ":", "execution", "error", "]"]),
        ]
        for sentence, kind, inserted in table_:
            with self.subTest(sentence=sentence):
                out = tl.decode_with_tools(tiny(sentence), ["q"], self.registry, max_tokens=12)
                (call,) = out.calls
                self.assertFalse(call.result.ok)
                self.assertEqual(call.result.error_kind, kind)
                self.assertEqual(call.inserted, inserted)
                self.assertTrue(call.result.message)

    def test_parse_call(self):
        table_ = [
            ("Calculator(120 + 85)", ("Calculator", {"expression": "120 + 85"})),
            ('QA("Who founded Ashholt?")', ("QA", {"question": "Who founded Ashholt?"})),
            ("Calendar()", ("Calendar", {})),
            ("Nope(3)", ("Nope", {})),  # the registry, not the parser, says it is unknown
            ('QA(" Who founded.', None),
            ("+", None),
            ("", None),
        ]
        for written, expected in table_:
            with self.subTest(written=written):
                self.assertEqual(tl.parse_call(written, self.registry), expected)

    def test_unwritten_and_copies_result(self):
        date = tl.tokenize(TODAY)
        table_ = [  # (before, result, after, unwritten part, copied)
            (["is"], ["205"], ["205", "megawatts"], ["205"], True),
            (["is"], ["205"], ["31", "megawatts"], ["205"], False),
            (["today", ",", "Thursday", ","], date, date[2:] + ["."], date[2:], True),
            (["today", ","], date, date[2:], date, False),  # it skipped 'Thursday ,'
            (["by"], ["Tove", "Belwick"], ["Tove"], ["Tove", "Belwick"], False),  # half a name is no copy
        ]
        for before, result, after, rest, copied in table_:
            with self.subTest(before=before, after=after):
                self.assertEqual(tl.unwritten(before, result), rest)
                self.assertEqual(tl.copies_result(before, result, after), copied)
                self.assertEqual(goes_on_with(before, result, after), copied)  # the test's own reading agrees


# --- demo 5, first half: Toolformer's retrained trigram on the held-out texts ---

class ToolformerDecodes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = demo_text()
        cls.trained = lab_results.retrain(SEED, TAU)  # the same trigram: retrain is seeded, its tests do not matter
        cls.lm = cls.trained.lm
        cls.tests = lab_results.held_out_texts(SEED + 1)
        cls.printed = dict(re.findall(r'^  (capacity|faults|vendor|date|plain) +"(.*)"$', cls.out, re.M))
        cls.walks = [walk(cls.lm, prompt_of(t)) for t in cls.tests]

    def first(self, kind: str) -> tl.Text:
        return next(t for t in self.tests if t.kind == kind)

    def test_the_printed_texts_are_the_first_of_each_kind_and_start_with_their_prompt(self):
        self.assertEqual(list(self.printed), ["capacity", "faults", "vendor", "date", "plain"])
        for kind, text in self.printed.items():
            with self.subTest(kind=kind):
                prompt = prompt_of(self.first(kind))
                self.assertEqual(tl.tokenize(text)[: len(prompt)], prompt)

    def test_every_token_the_model_wrote_is_its_argmax(self):
        # under the stated rules the printed text is what greedy decoding writes, the harness's answer and ']' put in
        for kind, text in self.printed.items():
            with self.subTest(kind=kind):
                prompt = prompt_of(self.first(kind))
                tokens, calls = walk(self.lm, prompt)
                self.assertEqual(prompt + tokens, tl.tokenize(text))
                self.assertEqual(tokens.count("["), len(calls))  # one call at most, and no '[' after it
                # each token of the calculator's and the QA call ('[' up to '->' or the end) is the argmax over the
                # whole distribution, too (the faults text writes the capacity text's call; the calendar's is short)
                for at, _, _ in calls if kind in ("capacity", "vendor") else ():
                    end = tokens.index("->") if "->" in tokens else len(tokens) - 1
                    for i in range(at, end + 1):
                        context = prompt + tokens[:i]
                        banned = CLOSERS if i == at else frozenset({"[", "]"})
                        self.assertEqual(pick(self.lm, context, banned), tokens[i], (kind, i))

    def test_the_texts_end_where_the_model_ends_them(self):
        for kind, text in self.printed.items():
            with self.subTest(kind=kind):
                tokens = tl.tokenize(text)
                self.assertLess(len(tokens) - len(prompt_of(self.first(kind))), 30)  # not cut at the limit
                inside = "[" in tokens and "->" not in tokens
                banned = frozenset({"[", "]"}) if inside else CLOSERS | ({"["} if "[" in tokens else set())
                self.assertEqual(pick(self.lm, tokens, banned), tl.EOS)

    def test_each_inserted_result_is_what_the_tool_returns(self):
        rows = {r[0]: r for r in table(self.out, "text      the model wrote")}
        for kind, text in self.printed.items():
            parts = split_call(tl.tokenize(text))
            with self.subTest(kind=kind):
                if parts is None:
                    continue
                _, written, result, _ = parts
                self.assertEqual(tl.detokenize(result), answer(written))
                self.assertEqual(rows[kind][1:3], [written, answer(written)])
        self.assertEqual(rows["capacity"][3], "Calculator(57 + 92)")  # the text's own call: 57 and 92 megawatts
        self.assertEqual(rows["vendor"][2], "truncated: the text ended inside the call; nothing ran")
        self.assertEqual(rows["plain"][1:3], ["(no call)", "-"])
        # and over all 60 texts, the lab's decoder inserts what the tool returns, where the rules say
        registry = tl.toolformer_registry()
        for t, (tokens, calls) in zip(self.tests, self.walks):
            decoded = tl.decode_with_tools(self.lm, prompt_of(t), registry)
            with self.subTest(text=tl.detokenize(t.tokens)):
                self.assertEqual(decoded.tokens, tokens)
                self.assertEqual([(c.at, c.written) for c in decoded.calls], [c[:2] for c in calls])
                for c, (_, _, expected) in zip(decoded.calls, calls):
                    self.assertEqual(c.result.text if c.result.ok else None, expected)

    def test_the_copy_column_is_read_again_from_the_printed_texts(self):
        rows = {r[0]: r[4] for r in table(self.out, "text      the model wrote")}
        for kind, text in self.printed.items():
            parts = split_call(tl.tokenize(text))
            with self.subTest(kind=kind):
                expected = "-" if parts is None else "yes" if goes_on_with(parts[0], parts[2], parts[3]) else "no"
                self.assertEqual(rows[kind], expected)
        self.assertEqual(rows["capacity"], "yes")  # '-> 31] 31 faults': its own wrong sum, copied

    def test_the_tally_of_all_60_texts(self):
        expected = {kind: [0] * 7 for kind in ("capacity", "faults", "vendor", "date", "plain", "all")}
        for t, (tokens, calls) in zip(self.tests, self.walks):
            prompt, right = prompt_of(t), own_call(t)
            at, written, result = calls[0] if calls else (None, None, None)
            row = [1, bool(calls), result is not None, bool(calls) and written == right, 0, 0, 0]
            if result is not None:
                parts = split_call(prompt + tokens)
                row[4] = goes_on_with(parts[0], parts[2], parts[3])
            if calls and right is not None:  # the text's own call and result where the model opened its call
                before = prompt + tokens[:at]
                after, _ = walk(self.lm, before + tl.tokenize(f"[{right} -> {answer(right)}]"), max_calls=0)
                row[5], row[6] = 1, goes_on_with(before, tl.tokenize(answer(right)), after)
            for kind in (t.kind, "all"):
                expected[kind] = [a + b for a, b in zip(expected[kind], row)]
        printed = table(self.out, "text      texts", n_rows=6)
        for cells in printed:
            texts, opened, ok, right, copied, given, given_copied = expected[cells[0]]
            with self.subTest(kind=cells[0]):
                self.assertEqual(cells[1:5], [str(texts), str(opened), str(ok), str(right)])
                self.assertEqual(cells[5], f"{copied} of {ok}")
                self.assertEqual(cells[6], f"{given_copied} of {given}" if given else "-")
        self.assertEqual([c[0] for c in printed], list(expected))
        self.assertEqual(expected["all"][0], 60)  # 10 + 10 + 10 + 15 + 15 held-out texts

    def test_why_it_copies(self):
        training = [f" {' '.join(t)} " for t in self.trained.augmented]
        verbatim = copied = given = given_copied = given_seen = 0
        for t, (tokens, calls) in zip(self.tests, self.walks):
            prompt, right = prompt_of(t), own_call(t)
            if calls and calls[0][2] is not None:
                before, _, result, after = split_call(prompt + tokens)
                if goes_on_with(before, result, after):
                    run = tokens[calls[0][0]: tokens.index("->") + 1] + result + ["]"] + still_to_say(before, result)
                    copied += 1
                    verbatim += any(f" {' '.join(run)} " in s for s in training)
            if calls and right is not None:
                before = prompt + tokens[: calls[0][0]]
                result = tl.tokenize(answer(right))
                after, _ = walk(self.lm, before + tl.tokenize(f"[{right} -> {answer(right)}]"), max_calls=0)
                given += 1
                given_copied += goes_on_with(before, result, after)
                given_seen += any(f" {result[-1]} ] {still_to_say(before, result)[0]} " in s for s in training)
        self.assertEqual(one(r"(\d+) of the (\d+) copies repeat a training text word for word", self.out),
                         (str(verbatim), str(copied)))
        given_line = r"it goes on with the result in (\d+) of (\d+) texts; .*? in a row for (\d+) of the (\d+):"
        self.assertEqual(one(given_line, self.out), (str(given_copied), str(given), str(given_seen), str(given)))
        self.assertEqual(verbatim, copied)  # here every copy is memory: its call, result and words stood in training
        # the count looks in the training text: with none, no copy is verbatim, and nothing else changes
        registry = tl.toolformer_registry()
        decoded = [tl.decode_with_tools(self.lm, prompt_of(t), registry) for t in self.tests]
        own = tl.own_calls(self.tests, SEED + 1)
        untrained = dataclasses.replace(self.trained, augmented=[])
        counts = tl._decoding_counts(untrained, self.tests, decoded, own, registry)["all"]
        self.assertEqual((counts["verbatim"], counts["copied"], counts["given_copied"]), (0, copied, given_copied))

    def test_the_papers_rule_is_measured_not_assumed(self):
        changed = sum(walk(self.lm, prompt_of(t), k=10)[0] != tokens for t, (tokens, _) in zip(self.tests, self.walks))
        self.assertEqual(one(r"Decoded with k = 10, (\d+) of\nthe (\d+) prompts come out differently", self.out),
                         (str(changed), "60"))
        self.assertIn("opens a call whenever '[' is among the k = 10 likeliest tokens", self.out)
        self.assertIn("with one\ncall per input", self.out)


# --- demo 5, second half: ToolkenGPT's tool mode ---

def word_problem_model() -> tuple[tl.NGramLM, tl.ToolkenHead]:
    """Demo 4's toolken model, built here from the word problems: digits one token each, results marked."""
    examples = []
    for text, result, toolken in tl._WORD_PROBLEMS:
        tokens = tl.digit_tokens(text)
        target = list(tokens)
        if result is not None:
            start = next(j for j in range(len(tokens)) if "".join(tokens[j: j + len(result)]) == result)
            target[start: start + len(result)] = [toolken] + [tl.NA] * (len(result) - 1)
        examples.append((tokens, target))
    return tl.NGramLM(order=3).fit(tl.announcement_corpus() + [t for t, _ in examples]), tl.ToolkenHead().fit(examples)


class ToolkenToolMode(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = demo_text()
        cls.part = cls.out[cls.out.index("ToolkenGPT at inference"):]
        cls.frozen, cls.head = word_problem_model()
        cls.registry = tl.toolken_registry()
        text = "The patio is a square with sides of 16 feet, so the area is 256 square feet."  # TOOLKEN_EXAMPLE
        cls.tokens = tl.digit_tokens(text)
        cls.start = cls.tokens.index("2")  # 'the area is 2 5 6': the first digit of the result
        cls.context = cls.tokens[: cls.start]

    def test_the_lab_builds_the_same_toolken_model(self):
        frozen, head = tl.toolken_model()
        for j in range(len(self.tokens)):
            for label in ("[square]", "[add]", "[multiply]", "<word>"):
                self.assertAlmostEqual(head.prob(label, self.tokens[:j]), self.head.prob(label, self.tokens[:j]))
            self.assertAlmostEqual(frozen.prob(self.tokens[j], self.tokens[:j]),
                                   self.frozen.prob(self.tokens[j], self.tokens[:j]))

    def test_the_toolken_is_the_argmax_after_the_area_is(self):
        dist = self.frozen.distribution(self.context)
        word = max((w for w in dist if w != tl.UNK), key=lambda w: (dist[w], w))
        scores = {t: self.head.prob(t, self.context) for t in ("[add]", "[multiply]", "[square]")}
        scores[word] = self.head.prob("<word>", self.context) * dist[word]
        self.assertEqual(max(scores, key=scores.get), "[square]")
        self.assertEqual(tl.next_label(self.frozen, self.head, self.context), ("[square]", scores["[square]"]))
        printed = dict(re.findall(r"P\((\[\w+\])\) = (\d\.\d\d)", self.part))
        self.assertEqual(printed, {t: f"{scores[t]:.2f}" for t in ("[add]", "[multiply]", "[square]")})
        self.assertIn(f"the likeliest word '{word}' {scores[word]:.2f} -> [square]", self.part)

    def test_tool_mode_prompts_with_the_demonstration_and_copies_the_side(self):
        mode = tl.tool_mode("[square]", self.context, self.registry)
        self.assertEqual(mode.prompt.splitlines(), [
            "A square room has sides of 12 feet, so the area is [square](12)",
            "The patio is a square with sides of 16 feet, so the area is [square]("])
        self.assertEqual((mode.call, mode.arguments, mode.result.content), ("[square](16)", {"x": 16}, 16 * 16))
        for line in mode.prompt.splitlines():
            self.assertIn(f"    {line}\n", self.part)
        self.assertIn("It writes [square](16), the argument copied from after 'sides of'", self.part)
        self.assertIn("square(x=16) -> 256;", self.part)

    def test_the_result_fills_exactly_the_places_the_loss_skips(self):
        decoded = tl.decode_with_toolkens(self.frozen, self.head, self.context, self.registry)
        by_tool = [self.start + i for i, w in enumerate(decoded.writers) if w == "tool"]
        self.assertEqual(by_tool, [16, 17, 18])  # 'The patio is a square with sides of 1 6 feet , so the area is': 16
        self.assertEqual(decoded.tokens[:3], ["2", "5", "6"])  # 256, one token per digit
        target = tl.toolken_target(self.tokens, self.start, 3, "[square]")
        rows = tl.toolken_loss_table(self.frozen, self.head, self.tokens, target)
        skipped = [j for j, _, _, loss in rows if loss is None]
        self.assertEqual(skipped, [j for j, t in enumerate(target) if t == tl.NA])
        self.assertEqual(skipped, by_tool[1:])  # the toolken's own place is counted, the rest of the result is not
        self.assertAlmostEqual(rows[self.start][3], -math.log(self.head.prob("[square]", self.context)))
        printed = table(self.part, "i   original t_i")
        self.assertEqual([r[0] for r in printed if r[5] == "tool"], ["16", "17", "18"])
        self.assertEqual([r[0] for r in printed if r[3] == "-"], ["17", "18"])
        self.assertEqual([r[0] for r in printed if r[2] == tl.NA], ["17", "18"])
        self.assertEqual([r[4] for r in printed if r[5] == "tool"], ["2", "5", "6"])
        self.assertIn("The loss skips positions 17, 18:", self.part)
        self.assertIn("(it wrote 16, 17, 18); at 16, where the model predicted [square]", self.part)

    def test_a_toolken_with_no_demonstration_is_a_clear_error(self):
        for demonstrations, known in ((tl.TOOLKEN_DEMONSTRATIONS, "[add], [multiply], [square]"), ({}, "none")):
            with self.subTest(known=known):
                with self.assertRaises(ValueError) as raised:
                    tl.tool_mode("[divide]", self.context, self.registry, demonstrations)
                message = str(raised.exception)
                self.assertIn("'[divide]'", message)
                self.assertIn("needs a worked call of it (the text before the call, and its arguments)", message)
                self.assertTrue(message.endswith(known), message)
        self.assertTrue(self.part.rstrip().endswith(
            "  ValueError: no demonstration for toolken '[divide]': tool mode needs a worked call of it (the text "
            "before the call, and its arguments) in demonstrations, which has [add], [multiply], [square]"))

    def test_the_models_mistakes_come_back_as_data(self):
        # no 'sides of' in the question: the slot stays empty and the tool refuses; a toolken with no tool behind it
        no_cue = tl.tool_mode("[square]", tl.digit_tokens("The side is 7 , so the area is"), self.registry)
        self.assertEqual((no_cue.call, no_cue.result.error_kind), ("[square](None)", "invalid_arguments"))
        no_tool = tl.tool_mode("[cube]", tl.digit_tokens("sides of 3 , so the volume is"), self.registry,
                               {"[cube]": ("a cube with sides of 2 , so the volume is", (2,))})
        self.assertEqual(no_tool.result.error_kind, "unknown_tool")
        with self.assertRaises(ValueError):  # a demonstration that never says its argument is the programmer's
            tl.tool_mode("[square]", self.context, self.registry, {"[square]": ("the area is", (12,))})

    def test_join_digits_and_fill_arguments(self):
        table_ = [(["of", "1", "6", "feet"], ["of", "16", "feet"]), (["1", "2", "and", "8", "5"], ["12", "and", "85"]),
                  (["no", "digits"], ["no", "digits"]), ([], [])]
        for tokens, expected in table_:
            with self.subTest(tokens=tokens):
                self.assertEqual(tl.join_digits(tokens), expected)
                self.assertEqual(tl.digit_tokens(" ".join(expected)), tokens)
        demo = "The crew strung 120 and 85 meters".split()
        self.assertEqual(tl.fill_arguments(demo, (120, 85), "The crew strung 40 and 9 meters".split()), ["40", "9"])
        # 'crew strung' is nowhere in the second question; '120 and' finds '11 and', any number standing for one
        self.assertEqual(tl.fill_arguments(demo, (120, 85), "We logged 11 and 7 faults".split()), [None, "7"])

    def test_a_failed_tool_ends_decoding(self):
        # the patio question: the model predicts [square] first (test_the_result_fills_exactly_the_places_the_loss_
        # skips); here square fails while running, so nothing is written for it and decoding stops, its error kept
        registry = tool_core.ToolRegistry()

        @registry.tool(read_only=True)
        def square(x: int) -> int:
            """Return x * x.

            Args:
                x: the side of the square
            """
            raise tool_core.ToolExecutionError("the calculator is down", status=503)

        decoded = tl.decode_with_toolkens(self.frozen, self.head, self.context, registry, max_tokens=8)
        self.assertEqual((decoded.tokens, decoded.writers), ([], []))
        (mode,) = decoded.modes
        self.assertEqual((mode.call, mode.result.ok, mode.result.error_kind),
                         ("[square](16)", False, "execution_error"))


class FixedWords:
    """A frozen model that always finds one word likeliest, with a set probability."""

    def __init__(self, word: str, p: float):
        self.word, self.p = word, p

    def most_likely(self, context: list[str]) -> str:
        return self.word

    def prob(self, word: str, context: list[str]) -> float:
        return self.p if word == self.word else 0.0


class FixedHead:
    """A toolken head with set probabilities for <word> and each toolken, whatever the context."""

    def __init__(self, probs: dict[str, float]):
        self.probs = probs

    def prob(self, label: str, context: list[str]) -> float:
        return self.probs[label]

    def toolkens(self) -> set[str]:
        return set(self.probs) - {"<word>"}


class ToolkenSoftmax(unittest.TestCase):
    def test_a_word_is_scaled_by_the_head_and_a_toolken_is_not(self):
        # eq. 1, one softmax over words and toolkens: P(word) = P(<word>) * P_frozen(word), P(toolken) = the head's
        table = [  # (P(<word>), P_frozen(w), P([t])) -> (label, its probability), worked out by hand
            ((0.6, 0.5, 0.4), ("[t]", 0.4)),  # w: 0.6 * 0.5 = 0.30 < 0.4, though 0.6 and 0.5 are each above 0.4
            ((0.6, 0.9, 0.4), ("w", 0.54)),  # w: 0.6 * 0.9 = 0.54 > 0.4
            ((0.2, 0.9, 0.3), ("[t]", 0.3)),  # w: 0.18
        ]
        for (p_word, p_frozen, p_tool), (label, p) in table:
            with self.subTest(p_word=p_word, p_frozen=p_frozen, p_tool=p_tool):
                got = tl.next_label(FixedWords("w", p_frozen), FixedHead({"<word>": p_word, "[t]": p_tool}), ["x"])
                self.assertEqual(got[0], label)
                self.assertAlmostEqual(got[1], p, places=12)


if __name__ == "__main__":
    unittest.main()
