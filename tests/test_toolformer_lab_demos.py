"""Every figure scripts 01 and 02 print, read back out of the demo text and checked against an independent computation.

Each test parses a demo's output with a regex (or reads its table by the column rules under the header) and compares
the figure with one of:
  - a count or a product worked out by hand (120 texts, 420 candidates, 95 gold, 17,423 x 892 = 15,541,316);
  - a recomputation from the primitives the other test file checks by hand (NGramLM.prob, CachedLM.prob, tokenize),
    written out again here: the weighted loss with the lecture's weights 1/3, 4/15, 1/5, 2/15, 1/15; the usefulness
    min(L(eps), L(c, eps)) - L(c, r); the best call per text; the retrained trigram and where it opens a call; the
    ToolkenGPT head's counts.
Nothing here takes an expected value from the function that prints it. The scripts print exactly these demo strings
(tests/test_toolformer_lab.py checks that), so the figures are pinned in the scripts' output too.
"""
import json
import math
import re
import sys
import unittest
from collections import Counter
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # for lab_results, however the tests are started

import lab_results  # noqa: E402
import toolformer_lab as tl  # noqa: E402

LECTURE_WEIGHTS = [Fraction(1, 3), Fraction(4, 15), Fraction(1, 5), Fraction(2, 15), Fraction(1, 15)]
TODAY = "Thursday, October 15, 2026"
NUMBER = r"-?\d+\.\d+"


# --- reading the demo text ---

def table(text: str, first_header: str, n_rows: int | None = None) -> list[list[str]]:
    """Return the cells of the table whose header line starts with first_header (columns from its dash line).

    Rows run to the first blank line or the end of the text, or stop after n_rows when text follows the table.
    """
    lines = text.splitlines()
    k = next(i for i in range(len(lines) - 1)
             if lines[i].startswith(first_header) and lines[i + 1].startswith("-") and set(lines[i + 1]) <= {"-", " "})
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[k + 1])]
    rows = []
    for line in lines[k + 2:]:
        if not line.strip() or len(rows) == n_rows:
            break
        rows.append([line[a: b if j < len(spans) - 1 else None].strip() for j, (a, b) in enumerate(spans)])
    return rows


def wrapped_table(text: str, first_header: str) -> list[list[str]]:
    """Like table(), for a table whose cells wrap: a line with an empty first cell continues the row above."""
    rows = []
    for row in table(text, first_header):
        if row[0] or not rows:
            rows.append(row)
        else:
            rows[-1] = [f"{old} {new}".strip() for old, new in zip(rows[-1], row)]
    return rows


def find(pattern: str, text: str) -> tuple[str, ...]:
    """Return the groups of the one match of pattern in text (fails the test by raising if there is none)."""
    found = re.findall(pattern, text)
    if len(found) != 1:
        raise AssertionError(f"expected one match of {pattern!r}, found {len(found)} in:\n{text}")
    return found[0] if isinstance(found[0], tuple) else (found[0],)


# --- the pipeline's figures, computed again from the primitives ---

def usefulness(c: tl.Candidate) -> float:
    """L- - L+ with L- = min(L(eps), L(c, eps)) (paper eq. 2), from the candidate's three losses."""
    return min(c.L_empty, c.L_call) - c.L_result


def written_call(c: tl.Candidate) -> str:
    """How the rules write a call: Calculator(a + b), QA("question"), Calendar()."""
    if c.tool == "QA":
        return f'QA("{c.arguments["question"]}")'
    if c.tool == "Calculator":
        return f"Calculator({c.arguments['expression']})"
    return "Calendar()"


def weighted_loss(model, tokens: list[str], i: int, prefix: list[str] = ()) -> float:
    """-sum_t w_t log p(x_{i+t} | x_{<i}, prefix, x_{i..i+t-1}) with the lecture's weights; the cache recounted each step."""
    context, loss = list(tokens[:i]) + list(prefix), 0.0
    for t, w in enumerate(LECTURE_WEIGHTS):
        if i + t < len(tokens):
            loss -= float(w) * math.log(model.prob(tokens[i + t], context))
            context.append(tokens[i + t])
    return loss


def losses(model, tokens: list[str], c: tl.Candidate) -> tuple[float, float, float]:
    """L(eps), L(e(c, eps)) = loss after "[call ->]", L(e(c, r)) = loss after "[call -> result]"."""
    call = written_call(c)
    return (weighted_loss(model, tokens, c.position), weighted_loss(model, tokens, c.position, tl.tokenize(f"[{call} ->]")),
            weighted_loss(model, tokens, c.position, tl.tokenize(f"[{call} -> {c.result}]")))


def needed_positions(text: tl.Text) -> list[int]:
    """Where the text's own call belongs, counted by hand on the sentence templates.

    capacity: "Substation SS - N has two transformers of a and b megawatts , so its capacity is S" -> S is token 17;
    faults: "The crew logged a faults on Monday and b on Tuesday , so S" -> token 13; vendor: "The vendor V was founded
    by F" -> token 6; date: before "Thursday" and before "October"; plain: nowhere.
    """
    fixed = {"capacity": [17], "faults": [13], "vendor": [6], "plain": []}
    if text.kind == "date":
        return [text.tokens.index("Thursday"), text.tokens.index("October")]
    return fixed[text.kind]


def best_per_text(candidates: list[tl.Candidate], tau: float | None) -> dict[int, tl.Candidate]:
    """Each text's candidate with the largest usefulness among those >= tau (tau None: all); the first on a tie."""
    best: dict[int, tl.Candidate] = {}
    for c in candidates:
        if (tau is None or usefulness(c) >= tau) and (c.text not in best or usefulness(c) > usefulness(best[c.text])):
            best[c.text] = c
    return best


class Retraining:
    """Step 4 done again: insert each text's best call, fit a trigram, and look at every test position."""

    def __init__(self, run: tl.ToolformerRun, tau: float | None, tests: list[tl.Text]):
        self.chosen = best_per_text(run.candidates, tau)
        self.augmented = []
        for n, text in enumerate(run.texts):
            c, t = self.chosen.get(n), text.tokens
            self.augmented.append(t if c is None else
                                  t[: c.position] + tl.tokenize(f"[{written_call(c)} -> {c.result}]") + t[c.position:])
        self.lm = lm = tl.NGramLM(order=3).fit(tl.announcement_corpus() + self.augmented)
        self.sites = []  # (text, position, P('['), greedy writes '[', needed)
        for n, text in enumerate(tests):
            need = needed_positions(text)
            for p in range(1, len(text.tokens)):
                context = text.tokens[:p]
                self.sites.append((n, p, lm.prob("[", context), lm.most_likely(context) == "[", p in need))
        needing = sorted({n for n, *_, need in self.sites if need})
        best_p = [max(p_open for m, _, p_open, _, need in self.sites if m == n and need) for n in needing]
        rest = [(p_open, writes) for _, _, p_open, writes, need in self.sites if not need]
        self.p_needed = sum(best_p) / len(best_p)
        self.p_elsewhere = sum(p for p, _ in rest) / len(rest)
        self.called = sum(any(writes for m, _, _, writes, need in self.sites if m == n and need) for n in needing)
        self.needing = len(needing)
        self.calls_elsewhere = sum(writes for _, writes in rest)
        self.missed = [n for n in needing if not any(w for m, _, _, w, need in self.sites if m == n and need)]
        self.before_calls = {tuple(s[j - 2: j]) for s in self.augmented for j in range(2, len(s)) if s[j] == "["}


# --- Script 01 ---

class WhyToolsFigures(unittest.TestCase):
    """demo_cant_compute, demo_cant_see and demo_calculator_loop (scripts/01_why_tools.py, seed 0)."""

    @classmethod
    def setUpClass(cls):
        cls.compute = lab_results.demo_cant_compute(0)
        cls.see = lab_results.demo("demo_cant_see")
        cls.loop = lab_results.demo("demo_calculator_loop")
        cls.train = [p for p in tl.multiplication_problems(0, 300) if p != (32, 34)]
        cls.lm = tl.NGramLM(order=5).fit([[str(a), "times", str(b), "is", str(a * b)] for a, b in cls.train])

    def answer(self, a: int, b: int) -> str:
        return self.lm.most_likely([str(a), "times", str(b), "is"], exclude=frozenset({tl.EOS}))

    def test_training_size_and_the_recited_example(self):
        n, a, b, c, per_size, seed = find(r"Trained on (\d+) sentences like '(\d+) times (\d+) is (\d+)' "
                                          r"\((\d+) per digit count, seed (\d+)\)", self.compute)
        self.assertEqual((int(per_size), int(seed)), (300, 0))
        self.assertEqual(int(n), len(self.train))
        self.assertLessEqual(len(self.train), 3 * 300)
        first_two_digit = next(p for p in self.train if p[0] > 9)
        self.assertEqual((int(a), int(b)), first_two_digit)
        self.assertEqual(int(c), int(a) * int(b))
        said, correct = find(rf"seen in training:  '{a} times {b} is' -> (\d+) \(correct (\d+)\)", self.compute)
        self.assertEqual(said, correct)  # a problem it saw is recited
        self.assertEqual(int(correct), int(a) * int(b))

    def test_a_drawn_32_times_34_is_left_out_and_said(self):
        drawn = tl.multiplication_problems(123456, 300)
        self.assertEqual(drawn.count((32, 34)), 1)  # this seed draws the question once
        text = tl.demo_cant_compute(123456)
        self.assertIn(f"Trained on {len(drawn) - 1} sentences like", text)
        self.assertIn("(300 per digit count, seed 123456; 1 drawn '32 times 34' left out, as the question below)", text)
        self.assertNotIn("left out", self.compute)  # seed 0 never draws it

    def test_the_unseen_example(self):
        self.assertNotIn((32, 34), self.train)
        said, correct = find(r"'32 times 34 is' -> (\d+) \(correct (\d+)\)", self.compute)
        self.assertEqual(correct, "1088")  # 32 x 34 = 1020 + 68
        count, listed = find(r"backs off to 'times 34 is', seen in (\d+) sentence\(s\): (.*)\.\n", self.compute)
        after = [(a, b) for a, b in self.train if b == 34]
        self.assertEqual(int(count), len(after))
        self.assertEqual(listed.removesuffix(" ..."), ", ".join(f"'{a} times 34 is {a * 34}'" for a, _ in after[:3]))
        # what it says is the product of one of those sentences: it recites, it does not multiply
        self.assertIn(int(said), [a * 34 for a, _ in after])
        self.assertNotEqual(said, correct)
        top = find(r"Its top three answers: (\d+) (\d\.\d{3}), (\d+) (\d\.\d{3}), (\d+) (\d\.\d{3}) \(ties", self.compute)
        words, shown = top[0::2], top[1::2]
        self.assertEqual(words[0], said)
        for w, p in zip(words, shown):
            with self.subTest(word=w):
                self.assertEqual(f"{self.lm.prob(w, ['32', 'times', '34', 'is']):.3f}", p)
        # the sentences after 'times 34 is' were each seen once: their answers tie, and the tie goes to the later word
        if len(after) == 2:
            self.assertEqual(shown[0], shown[1])
            self.assertEqual(list(words[:2]), sorted((str(a * 34) for a, _ in after), reverse=True))

    def test_accuracy_table(self):
        rows = table(self.compute, "fresh test problems", 3)
        self.assertEqual([r[0] for r in rows], ["1 x 1 digits", "2 x 2 digits", "3 x 3 digits"])
        seen = set(self.train)
        for d, (_, n, was_seen, model, calculator) in zip((1, 2, 3), rows):
            probe = tl.multiplication_problems(0 + 1000 + d, 40, (d,))  # the demo's probe seeds: seed + 1000 + d
            known = [p for p in probe if p in seen]
            with self.subTest(digits=d):
                self.assertEqual(int(n), 40)
                self.assertEqual(int(was_seen), len(known))
                for a, b in known:  # every problem it saw it recites
                    self.assertEqual(self.answer(a, b), str(a * b))
                right = len(known) + sum(self.answer(a, b) == str(a * b) for a, b in probe if (a, b) not in seen)
                self.assertEqual(model, f"{right / 40:.0%}")
                self.assertEqual(calculator, "100%")
        # 1-digit problems: 81 pairs, 300 draws -> nearly all seen; 3-digit: 810,000 pairs -> almost none
        self.assertGreater(int(rows[0][2]), int(rows[1][2]))
        self.assertGreaterEqual(int(rows[1][2]), int(rows[2][2]))

    def test_cant_see(self):
        # the 2024 text: 10 sentences; every remote-work sentence says "up to 2 days per week"; after "Today is":
        # Monday (team meets, busy, interns) 3 times, Friday once
        expected = ["Trained on 10 sentences of 2024 company text (trigram).",
                    "  'Employees may work remotely up to' -> model: '2 days per week'",
                    "      lookup_policy('remote work') -> Since January 2026, employees may work remotely up to 3 days "
                    "per week.",
                    "  'Today is' -> model: 'Monday' (after 'Today is' its training text had {'Monday': 3, 'Friday': 1})",
                    f"      calendar() -> {TODAY}"]
        self.assertEqual(self.see.splitlines()[:5], expected)

    def test_calculator_loop(self):
        tools = [json.loads(line.strip()) for line in self.loop.splitlines() if line.strip().startswith("{")]
        self.assertEqual([t["name"] for t in tools], ["calculate"])
        self.assertEqual(tools[0]["parameters"]["required"], ["expression"])
        # 17,423 x 892 = 17,423 x 900 - 17,423 x 8 = 15,680,700 - 139,384 = 15,541,316
        self.assertIn('{"expression": "17423 * 892"}', self.loop)
        self.assertIn('<tool_result name="calculate" id="call_1">15541316</tool_result>', self.loop)
        self.assertIn("[model] 17,423 x 892 = 15,541,316.", self.loop)
        self.assertTrue(self.loop.endswith("-- stop: final_answer after 2 model turn(s), 1 call(s)"))


class ToolFamilies(unittest.TestCase):
    """demo_tool_families (scripts/01 demo 4): lecture 000's four families, each a lab tool; and the captioner."""

    @classmethod
    def setUpClass(cls):
        cls.text = lab_results.demo("demo_tool_families")

    def test_the_families_and_their_shapes(self):
        # the families and examples as lecture 000 names them; each signature written by hand from the tool's
        # definition (demo 2's lookup_policy, demo 3's calculate, Orrin Grid's create_ticket, caption_image)
        expected = [
            ["knowledge access", "search_engine(query) -> document", "lookup_policy(topic: string) -> string",
             "read-only"],
            ["computation", "calculator(formula) -> value", "calculate(expression: string) -> integer | number",
             "read-only"],
            ["interaction with the world", "get_weather(city) -> weather", 'create_ticket(substation_id: string, '
             'summary: string, priority?: "low" | "normal" | "high") -> object', "has side effects"],
            ["non-textual modalities", "image.caption(image) -> str",
             "caption_image(image: string (image/png, base64)) -> string", "read-only"]]
        self.assertEqual(wrapped_table(self.text, "family"), expected)

    def test_the_shapes_are_read_off_the_schemas(self):
        # change a tool's schema and its row follows: the signature column is computed, not typed
        registry, _ = tl.family_registry()
        tool = registry.get("create_ticket")
        tool.parameters["properties"]["summary"] = {"type": "string", "maxLength": 80}
        tool.parameters["required"] = ["substation_id"]
        self.assertEqual(tl.tool_core.tool_signature(tool), 'create_ticket(substation_id: string, summary?: string, '
                                                            'priority?: "low" | "normal" | "high") -> object')
        self.assertEqual([t.name for t in registry], [name for _, _, name in tl.FAMILIES])

    def test_the_calls(self):
        rows = wrapped_table(self.text, "tool ")
        self.assertEqual([r[0] for r in rows], ["lookup_policy", "calculate", "create_ticket", "caption_image"])
        self.assertEqual(rows[0][2], "Since January 2026, employees may work remotely up to 3 days per week.")
        self.assertEqual(rows[1][2], "15541316")  # 17,423 x 892, as in demo 3
        self.assertEqual(json.loads(rows[2][2]), {"ticket": "WO-5001", "substation_id": "SS-218",  # the first ticket
                                                  "summary": "relay trips twice an hour", "priority": "high"})
        # the sign: 8 x 4 = 32 pixels, a 4 x 2 white panel = 8 of them: 25% white, 75% red
        self.assertEqual(rows[3][2], "a picture of 8 x 4 pixels: red 75%, white 25%")
        self.assertIn('{"image": "iVBORw0KGgoAAAANSUhEUgAA... (108 characters)"}', rows[3][1])
        self.assertIn("Tickets in the work-order system: 0 before these calls, 1 after", self.text)

    def test_the_picture_sent(self):
        picture = tl.png_image(tl.WARNING_SIGN, {"r": (210, 20, 30), "w": (250, 250, 250)})
        encoded = tl.base64.b64encode(picture).decode("ascii")
        self.assertEqual(len(encoded), 108)
        self.assertEqual(encoded[:24], "iVBORw0KGgoAAAANSUhEUgAA")  # the PNG signature and IHDR's length, in base64


class Captioner(unittest.TestCase):
    """png_image, png_pixels, caption_image: a picture in, words out; anything else refused with a reason."""

    RGB = {"r": (255, 0, 0), "w": (255, 255, 255), "b": (0, 0, 255), "k": (0, 0, 0)}

    def test_round_trip(self):
        for rows in (["r"], ["rw"], ["rw", "bk"], ["rrrb", "rrrb", "wwww"]):
            with self.subTest(rows=rows):
                width, height, pixels = tl.png_pixels(tl.png_image(rows, self.RGB))
                self.assertEqual((width, height), (len(rows[0]), len(rows)))
                self.assertEqual(pixels, [self.RGB[c] for row in rows for c in row])

    def test_captions(self):
        cases = [  # (picture, caption by hand: size, then colour shares, largest first)
            (["r"], "a picture of 1 x 1 pixels: red 100%"),
            (["rw"], "a picture of 2 x 1 pixels: red 50%, white 50%"),
            (["rrrb", "rrrb", "wwww"], "a picture of 4 x 3 pixels: red 50%, white 33%, blue 17%"),
        ]
        for rows, expected in cases:
            with self.subTest(rows=rows):
                image = tl.base64.b64encode(tl.png_image(rows, self.RGB)).decode("ascii")
                self.assertEqual(tl.caption_image(image), expected)

    def test_colour_names(self):
        for rgb, name in (((250, 10, 10), "red"), ((10, 10, 10), "black"), ((240, 240, 240), "white"),
                          ((40, 170, 50), "green"), ((130, 125, 128), "grey"), ((250, 220, 30), "yellow")):
            with self.subTest(rgb=rgb):
                self.assertEqual(tl.colour_name(rgb), name)

    def test_refusals_come_back_to_the_model(self):
        registry = tl.tool_core.ToolRegistry([tl.caption_tool()])
        good = tl.png_image(["rw"], self.RGB)
        damaged = good.replace(b"IEND", b"IEND\x00", 1)[:len(good)]  # the CRC no longer follows its chunk
        raw = tl.zlib.compress(b"\x01" + bytes(self.RGB["r"]) + bytes(self.RGB["w"]))  # a row with filter type 1
        filtered = good[:good.index(b"IDAT") - 4] + tl.struct.pack(">I", len(raw)) + b"IDAT" + raw + \
            tl.struct.pack(">I", tl.zlib.crc32(b"IDAT" + raw)) + good[good.index(b"IEND") - 4:]
        cases = [  # (the image argument, words the message must hold)
            ("not base64!", "the image is not base64"),
            (tl.base64.b64encode(b"GIF89a...").decode(), "not a PNG"),
            (tl.base64.b64encode(good[:-6]).decode(), "cut short"),
            (tl.base64.b64encode(good[:len(tl.PNG_SIGNATURE)]).decode(), "cut short"),
            (tl.base64.b64encode(damaged).decode(), "IEND chunk is damaged"),
            (tl.base64.b64encode(filtered).decode(), "filter type 0"),
        ]
        for image, words in cases:
            with self.subTest(words=words):
                result = registry.call("caption_image", {"image": image})
                self.assertEqual(result.error_kind, "execution_error")
                self.assertIn(words, result.message)
        self.assertEqual(registry.call("caption_image", {"image": 5}).error_kind, "invalid_arguments")


# --- Script 02 ---

class ToolformerFigures(unittest.TestCase):
    """The demos of scripts/02_toolformer.py with seed 0 and tau 0.5."""

    SEED, TAU = 0, 0.5

    @classmethod
    def setUpClass(cls):
        cls.base = lab_results.toolformer_pipeline(cls.SEED)  # shared with the other files: read-only
        cls.punct = lab_results.toolformer_pipeline(cls.SEED, content_only=False)
        cls.worked = lab_results.demo("demo_worked_numbers")
        cls.candidates_demo = lab_results.demo_candidates(cls.SEED, cls.TAU)
        cls.sweep = lab_results.demo_threshold_sweep(cls.SEED)
        cls.retrain = lab_results.demo_retrain(cls.SEED, cls.TAU)
        cls.tests = tl.toolformer_texts(cls.SEED + 1, held_out=True)
        cls.kept = Retraining(cls.base, cls.TAU, cls.tests)
        cls.unfiltered = Retraining(cls.base, None, cls.tests)

    # --- the lecture's worked numbers ---

    def test_worked_numbers(self):
        lines = self.worked.splitlines()
        # 1/3, 4/15, 1/5, 2/15, 1/15 to four places: .3333 .2667 .2000 .1333 .0667; they sum to 15/15 = 1
        self.assertEqual(lines[0], "weights w_t = max(0, 1 - 0.2 t) / 3 for t = 0..4: "
                                   "0.3333 + 0.2667 + 0.2000 + 0.1333 + 0.0667 = 1")
        self.assertTrue(lines[1].endswith("L- - L+ = min(2.5, 2.1) - 0.8 = 1.3"))  # 2.1 - 0.8
        self.assertIn("4.0 / 3.0 / 2.6 -> 0.4 < tau = 1.0: dropped", lines[2])  # min(4.0, 3.0) - 2.6
        self.assertIn("it would be 1.4: kept", lines[2])  # 4.0 - 2.6

    # --- demo 1: every candidate of two sentences ---

    def test_the_marker_is_explained_where_it_is_used(self):
        lines = self.candidates_demo.splitlines()
        self.assertTrue(lines[1].startswith("'at': the two words before the position, and [.] where the call is "
                                            "inserted"))
        self.assertIn("of the five tokens that follow [.]", lines[2])
        self.assertEqual(len(tl.WEIGHTS), 5)  # what "five" counts: the lecture's weights, 1/3 down to 1/15
        row = next(line for line in lines if line.startswith("capacity is [.]"))
        self.assertIn("Calculator(120 + 85)", row)  # the marker stands where the call goes: before '205'

    def candidate_rows(self, kind: str) -> tuple[tl.Text, list[tl.Candidate], list[list[str]]]:
        n = next(k for k, t in enumerate(self.base.texts) if t.kind == kind)
        sentence = f'"{tl.detokenize(self.base.texts[n].tokens)}"'
        part = self.candidates_demo[self.candidates_demo.index(sentence):]
        return self.base.texts[n], [c for c in self.base.candidates if c.text == n], table(part, "at ")

    def test_demo1_rows_recomputed(self):
        model = tl.CachedLM(self.base.lm)
        for kind in ("capacity", "vendor"):
            text, cands, rows = self.candidate_rows(kind)
            self.assertEqual(len(rows), len(cands))
            for c, row in zip(cands, rows):
                with self.subTest(kind=kind, call=written_call(c), position=c.position):
                    empty, call, result = losses(model, text.tokens, c)
                    gain = min(empty, call) - result
                    where = " ".join(text.tokens[c.position - 2: c.position]) + " [.]"
                    self.assertEqual(row, [where, written_call(c), c.result, f"{empty:.2f}", f"{call:.2f}",
                                           f"{result:.2f}", f"{gain:+.2f}", "kept" if gain >= self.TAU else "-"])

    def test_demo1_calls_and_results_by_hand(self):
        # 120 + 85 = 205, 120 x 85 = 10200, 85 - 120 = -35; Ashholt: founded by Tove Belwick, based in Marrow Bay
        _, _, rows = self.candidate_rows("capacity")
        self.assertEqual([r[:3] for r in rows[:4]], [["capacity is [.]", "Calculator(120 + 85)", "205"],
                                                      ["capacity is [.]", "Calculator(120 * 85)", "10200"],
                                                      ["capacity is [.]", "Calculator(85 - 120)", "-35"],
                                                      ["capacity is [.]", "Calendar()", TODAY]])
        self.assertEqual(rows[4][1:3], ["Calendar()", TODAY])  # one Calendar() somewhere else in the text
        self.assertNotEqual(rows[4][0], "capacity is [.]")
        self.assertEqual([r[-1] for r in rows], ["kept", "-", "-", "-", "-"])
        _, _, rows = self.candidate_rows("vendor")
        self.assertEqual([r[:3] for r in rows[:3]], [["founded by [.]", 'QA("Who founded Ashholt?")', "Tove Belwick"],
                                                      ["founded by [.]", 'QA("Where is Ashholt based?")', "Marrow Bay"],
                                                      ["founded by [.]", "Calendar()", TODAY]])
        self.assertEqual([r[-1] for r in rows], ["kept", "-", "-", "-"])

    def test_demo1_closing_sentence(self):
        gain, copied, call, empty = find(rf"lowers the loss by ({NUMBER}) nats: only its result lets the cache copy "
                                         rf"'(\w+)'.*\(({NUMBER}) vs ({NUMBER}) with no call\)", self.candidates_demo)
        right = next(c for c in self.base.candidates if c.tool == "Calculator" and c.arguments["expression"] == "120 + 85")
        L_empty, L_call, L_result = losses(tl.CachedLM(self.base.lm), self.base.texts[right.text].tokens, right)
        self.assertEqual(copied, "205")
        self.assertEqual((gain, call, empty), (f"{min(L_empty, L_call) - L_result:.2f}", f"{L_call:.2f}", f"{L_empty:.2f}"))
        self.assertGreaterEqual(L_call, L_empty)  # the call without its result does not help

    def test_demo1_keeps_a_gain_equal_to_tau(self):
        # the filter keeps L- - L+ >= tau_f: a threshold equal to the megawatt call's gain still keeps it
        right = next(c for c in self.base.candidates if c.gold and c.tool == "Calculator")
        rows = table(tl.demo_candidates(self.base, usefulness(right)), "at ")
        self.assertEqual(rows[0][1], "Calculator(120 + 85)")
        self.assertEqual([r[-1] for r in rows[:5]], ["kept", "-", "-", "-", "-"])

    def test_every_candidate_loss_recomputed(self):
        # score_candidates keeps the cache up to date incrementally and shares L(eps) per position; here each loss
        # is computed from scratch, for both caches
        for run, content_only in ((self.base, True), (self.punct, False)):
            model = tl.CachedLM(run.lm, content_only=content_only)
            for c in run.candidates:
                with self.subTest(content_only=content_only, text=c.text, position=c.position, call=written_call(c)):
                    for got, want in zip((c.L_empty, c.L_call, c.L_result), losses(model, run.texts[c.text].tokens, c)):
                        self.assertAlmostEqual(got, want, places=9)

    # --- demo 2: the sweep ---

    def test_demo2_header_by_hand(self):
        # texts: 15 capacity + 20 faults + 30 vendor + 15 date + 40 plain = 120;
        # candidates: 35 x (3 calculations + Calendar + 1 elsewhere) + 30 x (2 QA + Calendar + 1) + 15 x (2 Calendar
        # + 1) + 40 x 2 = 175 + 120 + 45 + 80 = 420; gold: 35 sums + 30 founders + 15 x 2 calendar places = 95
        self.assertEqual(find(r"(\d+) texts, (\d+) candidates written by rules .* all executed; (\d+) are right\.",
                              self.sweep), ("120", "420", "95"))

    def expected_sweep(self, candidates: list[tl.Candidate]) -> list[list[str]]:
        rows = []
        for tau in (None, 0, 0.5, 1, 1.5, 2, 3):
            kept = [c for c in candidates if tau is None or usefulness(c) >= tau]
            cells = [f"{sum(c.tool == tool for c in kept)} ({sum(c.tool == tool and c.gold for c in kept)} right)"
                     for tool in ("Calculator", "QA", "Calendar")]
            useless = sum(not c.gold for c in kept)
            share = f"{useless / len(kept):.0%}" if kept else "0%"
            rows.append(["no filter" if tau is None else str(tau), str(len(kept)), *cells, share])
        return rows

    def test_demo2_sweep_tables(self):
        first, second = self.sweep.split("The same sweep")
        for name, text, run in (("content words", first, self.base), ("punctuation too", second, self.punct)):
            with self.subTest(cache=name):
                expected = self.expected_sweep(run.candidates)
                self.assertEqual(table(text, "tau ", 7), expected)
                self.assertEqual([[str(c) for c in row] for row in tl.sweep_rows(run.candidates)], expected)
        # computed facts: without a filter 420 - 95 = 325 of 420 are useless (77%); at tau = 0.5 exactly the 95
        # gold calls are kept
        rows = table(first, "tau ", 7)
        self.assertEqual((rows[0][1], rows[0][-1]), ("420", "77%"))
        self.assertEqual(rows[2][1:], ["95", "35 (35 right)", "30 (30 right)", "30 (30 right)", "0%"])

    def test_demo2_gain_ranges(self):
        got = find(r"Calculator (\S+) \(one-token results\), QA (\S+) \(two-token names\), Calendar (\S+)\.", self.sweep)
        for tool, shown in zip(("Calculator", "QA", "Calendar"), got):
            gains = [usefulness(c) for c in self.base.candidates if c.gold and c.tool == tool]
            low, high = f"{min(gains):.2f}", f"{max(gains):.2f}"
            with self.subTest(tool=tool):
                self.assertEqual(shown, low if low == high else f"{low}-{high}")

    def test_demo2_lowest_calendar(self):
        gain, token, before, p = find(rf"The lowest Calendar gain \(({NUMBER})\) is before '(\S+)' after '(.+?)', "
                                      rf"which the model alone already predicts with P = ({NUMBER})\.", self.sweep)
        low = min((c for c in self.base.candidates if c.gold and c.tool == "Calendar"), key=usefulness)
        tokens = self.base.texts[low.text].tokens
        self.assertEqual((gain, token, before), (f"{usefulness(low):.2f}", tokens[low.position],
                                                 " ".join(tokens[low.position - 2: low.position])))
        self.assertEqual(p, f"{self.base.lm.prob(tokens[low.position], tokens[:low.position]):.2f}")
        self.assertIn(token, ("Thursday", "October"))

    def test_demo2_calculator_before_qa(self):
        calc = max(usefulness(c) for c in self.base.candidates if c.gold and c.tool == "Calculator")
        qa = min(usefulness(c) for c in self.base.candidates if c.gold and c.tool == "QA")
        self.assertLess(calc, qa)  # one-token results gain less than two-token names, on this corpus
        # calc and qa come from the gold calls only, so the sentence speaks of the right calls
        self.assertEqual(find(rf"Any tau between ({NUMBER}) and ({NUMBER}) drops every right calculator call and keeps "
                              r"every right QA call: ", self.sweep), (f"{calc:.2f}", f"{qa:.2f}"))

    def test_demo2_punctuation_gains(self):
        top, content_top = find(rf"now gains up to ({NUMBER}) nats \(copying content words only: at most ({NUMBER})\)",
                                self.sweep)
        plain = [c for c in self.punct.candidates if self.base.texts[c.text].kind == "plain"]
        best = max(plain, key=usefulness)
        self.assertEqual(top, f"{usefulness(best):.2f}")
        content = max(usefulness(c) for c in self.base.candidates if self.base.texts[c.text].kind == "plain")
        self.assertEqual(content_top, f"{content:.2f}")
        self.assertGreater(float(top), float(content_top))
        tokens = self.base.texts[best.text].tokens
        shown = f'"{tl.detokenize(tokens[:best.position])} [Calendar() -> {TODAY}] {tl.detokenize(tokens[best.position:])}"'
        self.assertIn("\n  " + shown + "\n", self.sweep)

    # --- demo 3: retraining ---

    def test_demo3_inserted_and_tested(self):
        inserted, texts = find(r"Inserted the best kept call into (\d+) of (\d+) training texts", self.retrain)
        self.assertEqual((int(inserted), int(texts)), (len(self.kept.chosen), 120))
        # at tau = 0.5 the kept calls are the 95 gold ones (the sweep), one per capacity, faults and vendor text and
        # two per date text: 35 + 30 + 15 = 80 texts get a call
        self.assertEqual(inserted, "80")
        # held out: 10 capacity + 10 faults + 10 vendor + 15 date + 15 plain = 60
        self.assertEqual(find(r"tested on (\d+) held-out texts", self.retrain), ("60",))
        # the example is the first text whose inserted call is a calculation: the megawatt sentence
        self.assertIn('\n  "Substation SS-218 has two transformers of 120 and 85 megawatts, so its capacity is '
                      '[Calculator(120 + 85) -> 205] 205 megawatts."\n', self.retrain)
        first_calc = min(n for n, c in self.kept.chosen.items() if c.tool == "Calculator")
        self.assertIn(f'\n  "{tl.detokenize(self.kept.augmented[first_calc])}"\n', self.retrain)

    def test_demo3_table_recomputed(self):
        rows = table(self.retrain, "training text", 2)
        for row, (label, result) in zip(rows, ((f"filter, tau = {self.TAU:g}", self.kept),
                                               ("no filter (each text's best candidate)", self.unfiltered))):
            with self.subTest(row=label):
                self.assertEqual(row, [label, str(len(result.chosen)), f"{result.p_needed:.3f}",
                                       f"{result.p_elsewhere:.3f}", f"{result.called} of {result.needing}",
                                       str(result.calls_elsewhere)])
        # 10 capacity + 10 faults + 10 vendor + 15 date test texts need a call; every one of the 120 training texts
        # has a candidate, so without a filter each gets one
        self.assertEqual(rows[0][4].split(" of ")[1], "45")
        self.assertEqual(rows[1][1], "120")
        # the filter's point, by mechanism: a better P('[') where needed, a lower one elsewhere, fewer stray calls
        self.assertGreater(self.kept.p_needed, self.unfiltered.p_needed)
        self.assertLess(self.kept.p_elsewhere, self.unfiltered.p_elsewhere)
        self.assertLess(self.kept.calls_elsewhere, self.unfiltered.calls_elsewhere)
        self.assertEqual(rows[0][4], "45 of 45")

    def test_demo3_useless_without_filter(self):
        useless, with_filter, without = find(rf"best candidate, (\d+) of them a call that helps nothing; P\('\['\) where "
                                             rf"no call is needed: ({NUMBER}) with the filter, ({NUMBER}) without\.",
                                             self.retrain)
        self.assertEqual(int(useless), sum(not c.gold for c in self.unfiltered.chosen.values()))
        # the 40 plain texts need nothing, so their best candidate is a useless Calendar()
        self.assertGreaterEqual(int(useless), 40)
        self.assertEqual((with_filter, without), (f"{self.kept.p_elsewhere:.3f}", f"{self.unfiltered.p_elsewhere:.3f}"))

    def check_wrong_calls(self, text: str, kept: Retraining):
        """Compare demo 3's wrong-call table with the wrong places counted from the recomputed call sites."""
        rows = [] if text.rstrip().endswith("  nowhere") else table(text, "text ")
        extra = [(n, p) for n, p, _, writes, need in kept.sites if writes and not need]
        expected = Counter((self.tests[n].kind, "extra call") for n, _ in extra)
        expected.update((self.tests[n].kind, "missed call") for n in kept.missed)
        shown = Counter()
        for kind, what, times, why in rows:
            shown[(kind, what)] += int(times)
        self.assertEqual(shown, expected)
        p_open = {(n, p): p_open for n, p, p_open, _, _ in kept.sites}
        for kind, what, times, why in rows:
            with self.subTest(kind=kind, what=what, why=why):
                if what == "extra call":  # it names the two words before the stray "[", and whether training had them
                    pairs = {tuple(self.tests[n].tokens[p - 2: p]) for n, p in extra if self.tests[n].kind == kind}
                    named = [pair for pair in pairs if f"'{' '.join(pair)}'" in why]
                    self.assertTrue(named)
                    self.assertEqual("came right before a kept call in training" in why, named[0] in kept.before_calls)
                elif "later instead" not in why:  # a missed call: said at the text's place with the highest P('[')
                    self.assertIn(why, [self.missed_reason(kept, n, p_open) for n in kept.missed
                                        if self.tests[n].kind == kind])
        return rows

    def missed_reason(self, kept: Retraining, n: int, p_open: dict) -> str:
        """Write, from this file's recount, why text n gets no call: at its likeliest place, which words won."""
        p = max(needed_positions(self.tests[n]), key=lambda q: p_open[(n, q)])  # the first place on a tie
        context, p_call = self.tests[n].tokens[:p], p_open[(n, p)]
        if not kept.before_calls:
            return f"no call was kept, so '[' never appears in training: P('[') = {p_call:.2f}, the unseen-word share"
        if tuple(context[-2:]) in kept.before_calls:
            word = kept.lm.most_likely(context)
            return (f"'{' '.join(context[-2:])}' came right before a kept call in training, but '{word}' is likelier "
                    f"there ({kept.lm.prob(word, context):.2f} against P('[') = {p_call:.2f})")
        return f"'{' '.join(context[-2:])}' never came right before a kept call in training (P('[') = {p_call:.2f})"

    def test_demo3_wrong_calls_recomputed(self):
        rows = self.check_wrong_calls(self.retrain, self.kept)
        # no date text is both missed and called: both its places count, so a call at either one is not "extra"
        self.assertFalse([r for r in rows if r[0] == "date"])
        self.assertEqual([r[:3] for r in rows], [["capacity", "extra call", "10"]])

    def test_demo3_wrong_calls_when_nothing_is_kept(self):
        # tau = 5 keeps no call at all (the largest gain is QA's 3.17 or a calendar's 3.89): every text that needs
        # a call misses it, the date texts included, and every row says '[' was never seen in training
        text = lab_results.demo_retrain(self.SEED, 5.0)
        rows = self.check_wrong_calls(text, Retraining(self.base, 5.0, self.tests))
        self.assertEqual(Counter(r[0] for r in rows if r[1] == "missed call"),
                         Counter({"capacity": 1, "faults": 1, "vendor": 1, "date": 1}))
        self.assertEqual(sum(int(r[2]) for r in rows if r[1] == "missed call"), 10 + 10 + 10 + 15)
        self.assertIn("(with no call kept, '[' is a word the filtered model never saw", text)
        self.assertNotIn("with no call kept", self.retrain)

    def test_demo3_a_missed_call_names_the_word_that_won(self):
        # tau = 0 also keeps a Calendar() of gain 0.00 whose result puts "Thursday , October" into training, so after
        # "Thursday ," the trigram now prefers "October": every date text misses its call, and the row says so
        kept = Retraining(self.base, 0.0, self.tests)
        rows = self.check_wrong_calls(lab_results.demo_retrain(self.SEED, 0.0), kept)
        dates = [r for r in rows if r[0] == "date"]
        self.assertEqual([(r[1], r[2]) for r in dates], [("missed call", "15")])
        self.assertTrue(dates[0][3].startswith("'Thursday ,' came right before a kept call in training, but 'October'"))

    # --- demo 4: ToolkenGPT ---

    # --- demo 6: the filter with models that can use a result less ---

    def test_demo6_rows_recomputed(self):
        text = lab_results.demo_too_weak(self.SEED, self.TAU)
        rows = table(text, "model", 3)
        models = {"trigram alone, no copy cache": self.base.lm,
                  "trigram, copy weight 0.05": tl.CachedLM(self.base.lm, weight=0.05),
                  "trigram, copy weight 0.2 (demos 1-3)": tl.CachedLM(self.base.lm)}
        self.assertEqual([r[0] for r in rows], list(models))
        right = next(c for c in self.base.candidates if c.gold and c.tool == "Calculator")
        tokens = self.base.texts[right.text].tokens
        self.assertEqual((tokens[right.position], written_call(right)), ("205", "Calculator(120 + 85)"))
        before = tokens[:right.position]
        after = before + tl.tokenize("[Calculator(120 + 85) -> 205]")
        gains = {}
        for row, (label, model) in zip(rows, models.items()):
            if label.endswith("(demos 1-3)"):  # the run's own losses, recomputed in test_every_candidate_loss_recomputed
                gains[label] = [usefulness(c) for c in self.base.candidates]
            else:
                gains[label] = [min(e, c) - r for e, c, r in (losses(model, self.base.texts[c.text].tokens, c)
                                                                for c in self.base.candidates)]
            kept = [c for c, g in zip(self.base.candidates, gains[label]) if g >= self.TAU]
            right_gains = [g for c, g in zip(self.base.candidates, gains[label]) if c.gold]
            with self.subTest(model=label):
                self.assertEqual(row[1:], [f"{model.prob('205', after):.4f} ({model.prob('205', before):.4f})",
                                           str(len(kept)), f"{sum(c.gold for c in kept)} of 95",
                                           f"{min(right_gains):.2f} to {max(right_gains):.2f}"])
        # the trigram alone: after a call both histories end in ']', unseen, so it backs off alike with the result or
        # without it: L(e(c, r)) = L(e(c, eps)), so L- - L+ = min(L(eps), L(e(c, eps))) - L(e(c, eps)) <= 0
        self.assertFalse(self.base.lm.knows("]"))
        self.assertEqual(self.base.lm.prob("205", after), self.base.lm.prob("205", before[:-2] + ["->", "]"]))
        self.assertEqual(rows[0][2:4], ["0", "0 of 95"])
        self.assertTrue(all(g <= 0 for g in gains["trigram alone, no copy cache"]))
        self.assertIn("L(e(c, r)) = L(e(c, eps)) for 420 of 420\ncandidates, and no call gains more than 0.00: nothing "
                      "is kept, and step 4 has nothing to learn from.", text)
        # demos 1-3's model: the sweep's row for tau = 0.5 (95 kept, all right) and its gains, Calendar 0.51-3.89
        self.assertEqual(rows[2][2:4], ["95", "95 of 95"])
        self.assertIn("0.5        95    35 (35 right)   30 (30 right)  30 (30 right)   0%", self.sweep)
        self.assertIn("Calendar 0.51-3.89", self.sweep)
        self.assertEqual(rows[2][4], "0.51 to 3.89")
        # copying more, the result of the right call is likelier and more right calls clear tau
        self.assertLess(int(rows[0][2]), int(rows[1][2]))
        self.assertLessEqual(int(rows[1][2]), int(rows[2][2]))

    def test_demo6_counts_what_the_trigram_alone_tells_apart(self):
        # a background that has seen '205 ] 205': after the megawatt call the trigram now knows the history '205 ]',
        # so with its result the call scores apart from the call alone; every other call still backs off alike
        lm = tl.NGramLM(order=3).fit(tl.announcement_corpus() + [tl.tokenize("the capacity is 205 ] 205 megawatts .")])
        run = tl.ToolformerRun(lm, self.base.texts, self.base.candidates, self.SEED, True)  # its candidates: read-only
        alone = [losses(lm, run.texts[c.text].tokens, c) for c in run.candidates]
        same = sum(call == result for _, call, result in alone)
        gains = [min(empty, call) - result for empty, call, result in alone]
        self.assertLess(same, 420)
        for tau in (0.0, 0.5):
            kept = sum(g >= tau for g in gains)
            verdict = (f"{kept} calls meet tau = {tau:g}" + (", though none gains anything: noise, not a signal."
                                                              if max(gains) <= 0 else ".")
                       if kept else "nothing is kept, and step 4 has nothing to learn from.")
            with self.subTest(tau=tau):
                self.assertIn(f"The trigram alone: L(e(c, r)) = L(e(c, eps)) for {same} of 420\ncandidates, and no "
                              f"call gains more than {max(gains):.2f}: {verdict}", tl.demo_too_weak(run, tau))
        # with the lab's background (no ']' in it) at tau = 0: the calls that gain exactly 0, L(e(c, eps)) <= L(eps)
        zero = sum(call <= empty for empty, call, _ in (losses(self.base.lm, self.base.texts[c.text].tokens, c)
                                                          for c in self.base.candidates))
        self.assertIn(f"no call gains more than 0.00: {zero} calls meet tau = 0, though none gains anything: noise, not "
                      "a signal.", tl.demo_too_weak(self.base, 0.0).replace("\n", " "))

    def test_demo6_leaves_the_run_as_it_was(self):
        fresh = tl.rescored(self.base, self.base.lm)  # new candidates, scored by another model
        self.assertTrue(all(a is not b for a, b in zip(fresh, self.base.candidates)))
        self.assertEqual([(c.text, c.position, c.call, c.result) for c in fresh],
                         [(c.text, c.position, c.call, c.result) for c in self.base.candidates])
        right = next(c for c in self.base.candidates if c.gold and c.tool == "Calculator")
        self.assertEqual(f"{right.gain:.2f}", "1.80")  # demo 1's figure, still the run's own

    def test_demo4_figures(self):
        self.check_toolken(lab_results.demo("demo_toolken"))

    def check_toolken(self, text: str):
        problems = tl._WORD_PROBLEMS
        self.assertEqual(find(r"the toolken head was trained on (\d+) word problems", text), ("9",))  # 9 in the list
        examples = []
        for sentence, result, toolken in problems:
            tokens = tl.digit_tokens(sentence)
            target = list(tokens)
            if result is not None:
                start = next(j for j in range(len(tokens)) if "".join(tokens[j: j + len(result)]) == result)
                target[start: start + len(result)] = [toolken] + ["[N/A]"] * (len(result) - 1)
            examples.append((tokens, target))
        frozen = tl.NGramLM(order=3).fit(tl.announcement_corpus() + [t for t, _ in examples])
        head = ReferenceHead(examples)
        tokens = tl.digit_tokens(tl.TOOLKEN_EXAMPLE[0])
        # "The patio is a square with sides of 1 6 feet , so the area is 2 5 6 square feet ." : 22 tokens, the
        # result's digits at 16, 17, 18
        self.assertEqual(len(tokens), 22)
        self.assertEqual(tokens[16:19], ["2", "5", "6"])
        target = tokens[:16] + ["[square]", "[N/A]", "[N/A]"] + tokens[19:]
        loss = {j: (-math.log(head.prob(tt, tokens[:j])) if tt.startswith("[")
                    else -math.log(head.prob("<word>", tokens[:j]) * frozen.prob(tt, tokens[:j])))
                for j, tt in enumerate(target) if tt != "[N/A]"}
        rows = table(text, "i ", 9)
        self.assertEqual([r[0] for r in rows], [str(j) for j in range(13, 22)])  # from three before the result
        for j, t, tt, shown in rows:
            with self.subTest(position=j):
                j = int(j)
                self.assertEqual((t, tt), (tokens[j], target[j]))
                self.assertEqual(shown, "-" if j in (17, 18) else f"{loss[j]:.2f}")
        counted, total, n_shown, part = find(rf"Loss = sum over the (\d+) non-\[N/A\] positions = ({NUMBER}) nats "
                                             rf"\(the (\d+) of them shown contribute ({NUMBER})\)", text)
        self.assertEqual((counted, n_shown), ("20", "7"))  # 22 tokens less the two [N/A]; rows 13 to 21 less 17, 18
        self.assertEqual(total, f"{sum(loss.values()):.2f}")
        self.assertEqual(part, f"{sum(loss[j] for j in range(13, 22) if j in loss):.2f}")
        # P([square] | "area is"), counted by hand over the 9 problems (one label per non-[N/A] position):
        #   ("area", "is") is followed 3 times, always by [square];
        #   ("is",) 10 times: [square] 3 (area is), [add] 3 (total is), [multiply] 1 (product is), a word 3 (yard is a,
        #   plot is unknown, bill is listed);
        #   () at level 0: every non-[N/A] position once, 18 + 19 + 18 + 20 + 15 + 16 + 16 + 13 + 11 = 146 (a problem's
        #   first token is counted once here, not again for its empty 1- and 2-token contexts), [square] 3 of them.
        # With 3 toolkens the base is 1/4:  P0 = (3 + 1/4) / 147 = 13/588;  P1 = (3 + 13/588) / 11 = 1777/6468;
        #   P2 = (3 + 1777/6468) / 4 = 21181/25872, -log = 0.2001
        square = find(rf"At the result the model pays -log P\(\[square\]\) = ({NUMBER}) once", text)[0]
        self.assertEqual(square, f"{-math.log(Fraction(21181, 25872)):.2f}")
        self.assertEqual(square, "0.20")
        first, rest, frozen_pays, digits = find(
            rf"in place of the digit (\d); the digits ([\d ]+) after it are \[N/A\] and cost nothing \(the frozen model "
            rf"alone would pay ({NUMBER}) nats to guess ([\d ]+)\)", text)
        self.assertEqual((first, rest, digits), ("2", "5 6", "2 5 6"))
        self.assertEqual(frozen_pays, f"{-sum(math.log(frozen.prob(tokens[j], tokens[:j])) for j in (16, 17, 18)):.2f}")


class ReferenceHead:
    """ToolkenGPT's head in count form, counted again for each query:

        P_k(label | last k tokens) = (c_k(h_k, label) + P_{k-1}) / (c_k(h_k) + 1),  P_{-1} = 1 / (1 + number of toolkens)

    c_k counts the labels (a toolken or <word>) at the non-[N/A] positions whose k-token context is h_k, each level
    apart: every position is counted once per level. Near the start of a text a k-token context has fewer than k
    tokens (all of them there are), and it still counts at level k only.
    """

    def __init__(self, examples: list[tuple[list[str], list[str]]]):
        self.labelled = []  # (level k, the up to k tokens before the position, its label)
        for tokens, target in examples:
            for j, t in enumerate(target):
                if t == "[N/A]":
                    continue
                for k in (0, 1, 2):
                    before = tokens[:j][-k:] if k else []
                    self.labelled.append((k, tuple(before), t if t.startswith("[") else "<word>"))
        self.toolkens = {label for _, _, label in self.labelled if label != "<word>"}

    def prob(self, label: str, context: list[str]) -> float:
        p = 1 / (1 + len(self.toolkens))
        for k in (0, 1, 2):
            h = tuple(context[len(context) - k:]) if k else ()
            at_h = [lab for level, ctx, lab in self.labelled if level == k and ctx == h]
            p = (at_h.count(label) + p) / (len(at_h) + 1)
        return p


if __name__ == "__main__":
    unittest.main()
