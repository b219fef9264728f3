"""toolformer_lab's constrained-decoding chapter (sections 11-17) and scripts/08_constrained_decoding.py.

Expected values come from lecture 003 section 2 (the 14-token prefix tree: 12 automaton steps against 21; the mask
01100 after "age":; the a/b/c/d example: ab 9/10 under the mask, cd 100/109 for the model given a valid answer) or
from hand computation written out in comments. The automaton is checked against json.loads + tool_core.validate on
generated and mutated texts (seeded, thousands of cases); the three mask methods against each other on every step of
many generations; the figures scripts/08 prints against recounts that do not use the code that printed them.
"""
import json
import math
import random
import re
import sys
import types
import unittest
from collections import Counter
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # for script_runs, however the tests are started

import script_runs  # noqa: E402
import tool_core  # noqa: E402
import toolformer_lab as tl  # noqa: E402

SCRIPT = "08_constrained_decoding.py"
script_runs.prefetch(SCRIPT)  # the table's runs of script 08 start now, in the background


def script_run(variant: str) -> tuple[int, str, str]:
    """(returncode, stdout, stderr) of one of tests/script_runs.py's runs of script 08."""
    return script_runs.result(SCRIPT, variant)


_LAB = {}


def lab() -> tl.ConstrainedLab:
    """The script's lab (seed 0), built once."""
    if "lab" not in _LAB:
        _LAB["lab"] = tl.constrained_lab(0)
    return _LAB["lab"]


class FixedRandom(random.Random):
    """A random.Random whose random() always returns r, so a draw can be worked out by hand."""

    def __init__(self, r: float):
        super().__init__(0)
        self.r = r

    def random(self) -> float:
        return self.r


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) < len(keys):
        raise ValueError("duplicate key")
    return dict(pairs)


def strict_loads(text: str):
    """json.loads without duplicate keys or NaN: what the harness's parser accepts, written independently."""
    def refuse(name):
        raise ValueError(name)
    return json.loads(text, object_pairs_hook=no_duplicates, parse_constant=refuse)


NESTED = {"type": "object", "properties": {
    "tags": {"type": "array", "items": {"type": "string"}},
    "point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": ["integer", "null"]},
                                               "ok": {"type": "boolean"}}, "required": ["x"]},
    "kind": {"enum": ["a", "b", 1, None, True]},
    "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}}, "required": ["tags"]}
SCALARS = {"type": "array", "items": {"type": ["string", "number", "boolean", "null"]}}
AGE = {"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]}


# --- 11. The vocabulary ---

class Vocabulary(unittest.TestCase):
    def test_merge_pair_table(self):
        table = [((["a", "a", "a"], ("a", "a")), ["aa", "a"]), ((["a", "b", "a", "b"], ("a", "b")), ["ab", "ab"]),
                 ((["b", "a"], ("a", "b")), ["b", "a"]), (([], ("a", "b")), [])]
        for (parts, pair), expected in table:
            with self.subTest(parts=parts, pair=pair):
                self.assertEqual(tl._merge_pair(parts, pair), expected)

    def test_training_by_hand(self):
        # "abab ab": chunks 'abab', ' ab'; pairs ab 3, ba 1, ' a' 1 -> merge ab; then every pair occurs once: stop.
        # "aaaa" twice: aa 6 -> merge; then (aa, aa) 2 -> merge 'aaaa'.
        # "ab ab cd cd": chunks ab 1, ' ab' 1, ' cd' 2: ab 2, ' a' 1, ' c' 2, cd 2 -> the first counted of the 2s: ab.
        table = [(["abab ab"], 300, ["ab"]), (["aaaa", "aaaa"], 300, ["aa", "aaaa"]), (["aaaa"], 300, ["aa"]),
                 (["ab ab cd cd"], 96, ["ab"]), (["abab ab"], 95, [])]
        for texts, size, learned in table:
            with self.subTest(texts=texts, size=size):
                vocab = tl.train_bpe(texts, size)
                self.assertEqual(vocab.tokens[:95], [chr(c) for c in range(32, 127)])
                self.assertEqual(vocab.tokens[95:], learned)

    def test_encode_by_hand(self):
        vocab = tl.train_bpe(["abab ab"], 300)
        for text, expected in [("abab ab", ["ab", "ab", " ", "ab"]), ("ba", ["b", "a"]), ("", []),
                               ("a-b", ["a", "-", "b"])]:
            with self.subTest(text=text):
                self.assertEqual(vocab.encode(text), expected)
                self.assertEqual(vocab.decode(vocab.encode(text)), text)
        with self.assertRaisesRegex(ValueError, "printable ASCII"):
            vocab.encode("café")

    def test_lab_vocabulary(self):
        vocab = lab().vocab
        self.assertEqual(len(vocab.tokens), tl.BPE_SIZE)
        self.assertEqual(len(set(vocab.tokens)), len(vocab.tokens))
        # the issue's pieces, and a token that closes a string and an object at once
        for piece in ['{"', "name", '":', ' "', "}", '"}', " 42"]:
            with self.subTest(piece=piece):
                self.assertIn(piece, vocab.tokens)
        self.assertEqual(vocab.encode('{"name": "Ann", "age": 42}')[-4:], ["age", '":', " 42", "}"])
        for _, text in lab().calls:
            self.assertEqual(vocab.decode(vocab.encode(text)), text)
        self.assertEqual(tl.train_bpe(tl.LAB_PROSE + [text for _, text in lab().calls]).tokens, vocab.tokens)  # again


# --- 12. The model and the sampler ---

class Model(unittest.TestCase):
    def test_probs_are_the_ngram_probabilities(self):
        model = lab().models["add_person"]
        tokens = lab().vocab.tokens
        for context in ([], lab().vocab.encode('{"name": "Ann", "age":'), ["zz", "qq", "{"]):
            with self.subTest(context=context):
                probs = model.probs(context)
                self.assertEqual(len(probs), len(tokens) + 1)
                self.assertAlmostEqual(math.fsum(probs), 1.0, places=12)
                for i, word in enumerate(tokens + [tl.EOS]):
                    if model.lm.knows(word):  # the unseen share sums to P(<unk>), so no renormalising is needed
                        self.assertAlmostEqual(probs[i], model.lm.prob(word, context), places=12)

    def test_the_free_sampler_follows_the_model(self):
        model, rng = lab().models["add_person"], random.Random(5)
        context = lab().vocab.encode('{"name": "Ann", "age":')
        counts = Counter(model.sample(context, rng) for _ in range(4000))
        probs = model.probs(context)
        for i in sorted(range(len(probs)), key=lambda i: -probs[i])[:3]:
            with self.subTest(token=lab().vocab.tokens[i]):  # 4 standard deviations at most
                self.assertLess(abs(counts[i] / 4000 - probs[i]), 4 * math.sqrt(probs[i] * (1 - probs[i]) / 4000))

    def test_sample_masked_renormalises(self):
        # probs 0.5 / 0.3 / 0.2, mask {1, 2}: the mass left is 0.5, so id 1 takes r < 0.3 / 0.5 = 0.6
        probs = [0.5, 0.3, 0.2]
        table = [({1, 2}, 0.59, 1), ({1, 2}, 0.61, 2), ({0, 1, 2}, 0.49, 0), ({0, 1, 2}, 0.51, 1), ({2}, 0.99, 2),
                 ({0}, 0.0, 0), (set(), 0.5, None)]
        for allowed, r, expected in table:
            with self.subTest(allowed=allowed, r=r):
                self.assertEqual(tl.sample_masked(probs, allowed, FixedRandom(r)), expected)
        self.assertIsNone(tl.sample_masked([0.5, 0.0, 0.5], {1}, FixedRandom(0.3)))  # no mass left: None
        self.assertEqual(tl.sample_masked([0.5, 0.0, 0.5], {0, 1, 2}, FixedRandom(0.5)), 2)  # never the 0-mass id

    def test_masked_frequencies_are_the_renormalised_probabilities(self):
        rng = random.Random(11)
        counts = Counter(tl.sample_masked([0.5, 0.3, 0.2], {1, 2}, rng) for _ in range(5000))
        self.assertAlmostEqual(counts[1] / 5000, 0.6, delta=0.03)  # 0.3 / 0.5
        self.assertEqual(set(counts), {1, 2})


# --- 13. The integer automaton ---

class IntegerAutomaton(unittest.TestCase):
    def test_traces_from_the_lecture(self):
        table = [("42", ["S", "N", "N"], True), ("0", ["S", "Z"], True), ("2025", ["S", "N", "N", "N", "N"], True),
                 ("007", ["S", "Z"], False), ("4a", ["S", "N"], False), ("", ["S"], False), ("-1", ["S"], False)]
        for text, states, accepted in table:
            with self.subTest(text=text):
                self.assertEqual(tl.INTEGER.trace(text), (states, accepted))
        self.assertEqual(tl.integer_trace("42"), "S -4-> N -2-> N  accepted")
        self.assertEqual(tl.integer_trace("007"), "S -0-> Z -0-> ?  rejected: no edge")
        self.assertEqual(tl.integer_trace(""), "S  rejected: not an accepting state")

    def test_json_number_and_integer_against_the_regex(self):
        number = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
        integer = re.compile(r"-?(0|[1-9][0-9]*)")
        rng = random.Random(2)
        for _ in range(3000):
            text = "".join(rng.choice("-+.eE0123456789") for _ in range(rng.randrange(7)))
            with self.subTest(text=text):
                self.assertEqual(tl.JSON_NUMBER.trace(text)[1], number.fullmatch(text) is not None)
                self.assertEqual(tl.JSON_INTEGER.trace(text)[1], integer.fullmatch(text) is not None)


# --- 14. The pushdown automaton ---

class CompileSchema(unittest.TestCase):
    def test_unsupported_keywords_are_refused_by_name(self):
        table = [({"type": "integer", "minimum": 0}, "'minimum'"), ({"type": "string", "pattern": "a"}, "'pattern'"),
                 ({"anyOf": [{"type": "string"}]}, "'anyOf'"),
                 ({"type": "object", "properties": {"a": {"type": "string", "format": "date"}}}, "'format'"),
                 ({"type": "object", "properties": {"a": {"type": "string", "format": "date"}}}, "#/properties/a"),
                 ({"type": "array", "items": {"type": "string"}, "maxItems": 3}, "'maxItems'"),
                 ({"type": "object", "properties": {}, "additionalProperties": True}, "additionalProperties"),
                 ({"type": "object", "properties": {}, "additionalProperties": {"type": "string"}},
                  "additionalProperties"),
                 ({"type": "object"}, '"properties"'), ({"type": "array"}, '"items"'), ({"type": "strin"}, "type"),
                 ({"description": "no type"}, "type"), ({}, "type"), ("string", "must be an object"),
                 ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}, "['b']"),
                 ({"enum": [{"a": 1}]}, "enum"), ({"type": "integer", "enum": ["a", "b"]}, "no value of the enum")]
        for schema, named in table:
            with self.subTest(schema=schema):
                with self.assertRaises(ValueError) as caught:
                    tl.SchemaAutomaton(schema)
                self.assertIn(named, str(caught.exception))

    def test_supported_schemas_compile(self):
        for schema in [tl.PERSON_SCHEMA, NESTED, SCALARS, {"type": "integer"}, {"enum": ["x", 2.5, False]},
                       {"type": "string", "description": "d", "title": "t", "default": "x", "examples": ["y"]},
                       *tl.call_tools().values()]:
            with self.subTest(schema=schema):
                tl.SchemaAutomaton(schema)


class Pushdown(unittest.TestCase):
    def test_person_accepts_table(self):
        table = [('{"name":"Ann","age":42}', True), ('{"name": "Ann", "age": 42}', True),
                 ('{"age":42,"name":"Ann"}', True),  # any order
                 (' {"name":"Ann","age":42}\n', True), ('{"name":"Ann","age":-7}', True),
                 ('{"name":  "Ann","age":42}', False), ('{"name":"Ann","age":42}  ', False),  # one space at most
                 ('{"name":"A\\"nn","age":1}', True), ('{"name":"\\u00e9","age":1}', True),
                 ('{"name":"Ann","age":"42"}', False), ('{"name":"Ann"}', False), ('{"name":"Ann","age":42,}', False),
                 ('{"name":"Ann","age":42', False), ('{"name":"Ann","age":4.2}', False),
                 ('{"name":"Ann","age":042}', False), ('{"name":"\\x","age":1}', False),
                 ('{"name":"Ann","name":"Bo","age":1}', False), ('{"name":"Ann","age":42,"x":1}', False),
                 ('{"name":"Ann","age":42}}', False), ('{"name":"Ann\n","age":1}', False), ("", False), ("{}", False),
                 ('{"nam":"Ann","age":1}', False), ('{"name":"Ann","age":1e2}', False),  # stricter: no exponent
                 ('{"name":"Ann","age":420}', True)]  # syntax, not meaning
        automaton = tl.SchemaAutomaton(tl.PERSON_SCHEMA)
        for text, expected in table:
            with self.subTest(text=text):
                self.assertIs(automaton.accepts(text), expected)

    def test_nested_accepts_table(self):
        table = [('{"tags":[]}', True), ('{"tags":["a","b"],"point":{"x":-1.5e3}}', True),
                 ('{"tags":[],"point":{"x":1,"y":null,"ok":true}}', True), ('{"tags":[],"point":{"y":2}}', False),
                 ('{"tags":[1]}', False), ('{"tags":["a",]}', False), ('{"tags":[],"kind":"c"}', False),
                 ('{"tags":[],"kind":1}', True), ('{"tags":[],"kind":12}', False), ('{"tags":[],"kind":null}', True),
                 ('{"tags":[],"kind":true}', True), ('{"tags":[],"kind":false}', False),
                 ('{"tags":[],"matrix":[[1,2],[],[3]]}', True), ('{"tags":[],"matrix":[[1,2],[3]}', False),
                 ('{"tags":[],"matrix":[1]}', False), ('{"tags":[],"point":{"x":1,"ok":tru}}', False),
                 ('{"tags":[],"point":{"x":.5}}', False), ('{"tags":[],"point":{"x":1.}}', False),
                 ('{"tags":[],"point":{"x":1e}}', False), ('{"tags" : [ "a" , "b" ] }', True)]
        automaton = tl.SchemaAutomaton(NESTED)
        for text, expected in table:
            with self.subTest(text=text):
                self.assertIs(automaton.accepts(text), expected)

    def test_enum_values_that_begin_others(self):
        automaton = tl.SchemaAutomaton({"type": "array", "items": {"enum": [1, 12, 123, "a", "ab"]}})
        for text, expected in [("[1,12,123]", True), ('["a","ab"]', True), ("[124]", False), ("[13]", False),
                               ("[1 2]", False), ('["abc"]', False), ("[0]", False)]:
            with self.subTest(text=text):
                self.assertIs(automaton.accepts(text), expected)

    def test_allowed_next_table(self):
        automaton = tl.SchemaAutomaton(tl.PERSON_SCHEMA)
        table = [("", "\t\n\r {"), ('{"name":"Ann","age":4', "\t\n\r 0123456789}"),  # no comma: both keys written
                 ('{"name":"Ann","age":0', "\t\n\r }"), ('{"', "an"), ('{"name":"Ann",', '\t\n\r "'),
                 ('{"age":1,"', "n"), ('{"name":"Ann","age":42}', "\t\n\r "), ('{"name":"Ann","age":-', "0123456789"),
                 ('{"name": ', '"'), ('{"name":"Ann","age":42} ', "")]  # after one space, no other
        for prefix, expected in table:
            with self.subTest(prefix=prefix):
                self.assertEqual(automaton.allowed_next(prefix), expected)
        with self.assertRaisesRegex(ValueError, "not the start"):
            automaton.allowed_next("x")

    def test_the_stack_grows_with_the_nesting(self):
        schema = {"type": "integer"}
        for _ in range(40):
            schema = {"type": "array", "items": schema}
        automaton = tl.SchemaAutomaton(schema)
        self.assertTrue(automaton.accepts("[" * 40 + "7" + "]" * 40))
        self.assertFalse(automaton.accepts("[" * 40 + "7" + "]" * 39))
        self.assertFalse(automaton.accepts("[" * 40 + "7" + "]" * 41))
        self.assertEqual(tl.stack_text(tl.step_text(automaton.start(), "[" * 40)), "[" * 40)

    def test_against_json_and_validate_on_generated_and_mutated_texts(self):
        schemas = [tl.PERSON_SCHEMA, NESTED, SCALARS, {"type": "integer"}, {"enum": ["x", 2.5, False]},
                   {"enum": [1, 12, 123, "a", "ab"]}, *tl.call_tools().values()]
        rng, cases = random.Random(7), 0
        for schema in schemas:
            automaton = tl.SchemaAutomaton(schema)
            for _ in range(60):
                value = random_value(schema, rng)
                text = rng.choice([json.dumps(value), json.dumps(value, separators=(",", ":")),
                                   json.dumps(value, separators=("\n,", ":\t")), json.dumps(value, ensure_ascii=False)])
                self.assertEqual(tool_core.validate(schema, value), [])  # the generator's own check
                self.assertTrue(automaton.accepts(text), text)  # every valid value, in json.dumps' layouts
                cases += 1
                for _ in range(8):
                    mutated, cases = mutate(text, rng), cases + 1
                    if automaton.accepts(mutated):  # whatever it accepts parses and validates
                        self.assertEqual(tool_core.validate(schema, strict_loads(mutated)), [], mutated)
        self.assertGreater(cases, 4000)


def random_value(schema: dict, rng: random.Random, depth: int = 0):
    """Draw a value the schema admits (integers as ints, properties in random order)."""
    if "enum" in schema:
        kinds = schema.get("type")
        return rng.choice([v for v in schema["enum"] if not kinds or tool_core.validate({"type": kinds}, v) == []])
    kind = schema["type"] if isinstance(schema["type"], str) else rng.choice(schema["type"])
    if kind == "object":
        props = schema["properties"]
        names = [k for k in props if k in schema.get("required", []) or rng.random() < 0.5]
        rng.shuffle(names)
        return {k: random_value(props[k], rng, depth + 1) for k in names}
    if kind == "array":
        return [random_value(schema["items"], rng, depth + 1) for _ in range(rng.randrange(4 if depth < 3 else 1))]
    return {"string": lambda: rng.choice(["", "Ann", 'a "quoted" word', "back\\slash", "tab\there", "é ü", "\u2028",
                                          "}", "],:", "line\nbreak", "SS-218"]),
            "integer": lambda: rng.choice([0, 7, -42, 10 ** 12, rng.randrange(-999, 999)]),
            "number": lambda: rng.choice([0.5, -1.25e-7, 3, 2.5, rng.uniform(-1e3, 1e3)]),
            "boolean": lambda: rng.random() < 0.5, "null": lambda: None}[kind]()


def mutate(text: str, rng: random.Random) -> str:
    """Insert, delete or replace one character, drawn from what matters to JSON."""
    at = rng.randrange(len(text) + 1)
    c = rng.choice('{}[]":,0123456789-.eE+ tfnulasx\\')
    return rng.choice([text[:at] + c + text[at:], text[:at] + text[at + 1:], text[:at] + c + text[at + 1:]])


# --- 15. Token masks ---

LECTURE_TOKENS = ['"', '"ab', '"x', "0", "01", "0}", "1", "12", "1.", "4", "42", "42}", "null", "true"]


class Masks(unittest.TestCase):
    def test_the_lectures_prefix_tree(self):
        # after {"age": an integer: 0 0} 1 12 4 42 42} pass. Alone: " "ab "x 0 1 4 null true 1 step each (8),
        # 01 0} 12 1. 42 2 each (10), 42} 3: 21. The tree: first characters " 0 1 4 n t (6), then under 0: 1 }, under 1:
        # 2 ., under 4: 2 (5), then under 42: } (1): 12.
        masker = tl.TokenMasker(tl.SchemaAutomaton(AGE), LECTURE_TOKENS)
        at = tl.step_text(masker.automaton.start(), '{"age":')
        expected = {LECTURE_TOKENS.index(t) for t in ["0", "0}", "1", "12", "4", "42", "42}"]}
        self.assertEqual(masker.naive(at), (expected, 21))
        self.assertEqual(masker.prefix_tree(at), (expected, 12))
        self.assertEqual(masker.precomputed(at)[0], expected)

    def test_the_lectures_mask_after_age(self):
        # tokens " 4 42 } null -> mask 01100; at the start only { (or a space) may come
        person = tl.SchemaAutomaton(tl.PERSON_SCHEMA)
        after_age = tl.step_text(person.start(), '{"name":"Ann","age":')
        self.assertEqual(tl.mask(after_age, ['"', "4", "42", "}", "null"]), {1, 2})
        self.assertEqual(tl.mask(person.start(), ["x", "{", " ", "  ", '{"', "}"]), {1, 2, 4})

    def test_build_trie(self):
        self.assertEqual(tl.build_trie(["4", "42", "42}"]), {"4": ({"2": ({"}": ({}, [2])}, [1])}, [0])})
        self.assertEqual(tl.build_trie(["ab", "ac"]), {"a": ({"b": ({}, [0]), "c": ({}, [1])}, [])})

    def test_split_tokens_by_hand(self):
        # inside a string: a, \ and a token ending at the closing quote ('"', ' "') are decided by the state;
        # '",', '"}' and '" }' go on below the string: the stack decides; '"a' cannot follow any value.
        # Steps: root a " \ space (4), under ": , a } space (4), under "space: } (1), under space: " (1) = 10.
        tokens = ["a", '"', '",', '"a', '"}', "\\", ' "', '" }']
        allowed, dependent, steps, _ = tl.split_tokens(tl._IN_STRING, tl.build_trie(tokens))
        self.assertEqual((allowed, dependent, steps), ({0, 1, 5, 6}, (2, 4, 7), 10))
        # inside an integer after a digit: 1 and a space are decided; , } and ' }' depend; ' "', x and .5 never pass
        tokens = ["1", ",", " ", " }", ' "', "x", "}", ".5"]
        allowed, dependent, _, _ = tl.split_tokens(("N", tl.JSON_INTEGER, "N"), tl.build_trie(tokens))
        self.assertEqual((allowed, dependent), ({0, 2}, (1, 3, 6)))

    def test_states_of_a_small_schema(self):
        # {"a": boolean}, required: the value start, "{", two key positions, ":", the boolean's value start, after
        # the value, t tr tru, f fa fal fals, and the end: 15 states; six of them take one space: 6 more
        masker = tl.TokenMasker(tl.SchemaAutomaton({"type": "object", "properties": {"a": {"type": "boolean"}},
                                                    "required": ["a"]}), tl.BASE_CHARACTERS)
        self.assertEqual(len(masker.table), 21)

    def test_compile_by_hand(self):
        # a boolean with tokens t f true x. The value start: t f x (3 steps), then r u e under t (3): t, f, true pass.
        # t, tr, tru, f: 3 steps each, all refused (none goes on with t, f or x). The end: 3 refused. 21 steps.
        masker = tl.TokenMasker(tl.SchemaAutomaton({"type": "boolean"}), ["t", "f", "true", "x"])
        start = masker.automaton.start()[0]
        self.assertEqual((len(masker.table), masker.compile_steps), (6, 21))
        self.assertEqual(masker.table[start], ({0, 1, 2}, ()))
        self.assertEqual(masker.table[("L", ("true",), 1)], (frozenset(), ()))

    def test_three_methods_agree_on_every_step_of_generations(self):
        lab_, rng, configs = lab(), random.Random(9), []
        for g in tl.generate_calls(lab_, 12, True, 21) + tl.generate_calls(lab_, 12, False, 22):
            automaton, config = lab_.automata[g.tool], lab_.automata[g.tool].start()
            for token in g.tokens:
                if rng.random() < 0.6:
                    configs.append((g.tool, config))
                cut = rng.randrange(1, len(token) + 1)  # also partway through a token
                if tl.step_text(config, token[:cut]) is not None and cut < len(token):
                    configs.append((g.tool, tl.step_text(config, token[:cut])))
                config = tl.step_text(config, token)
                if config is None:  # a free call that went wrong: no mask exists past here
                    break
        self.assertGreater(len(configs), 150)
        for tool, config in configs:
            masker = lab_.maskers[tool]
            with self.subTest(tool=tool, stack=tl.stack_text(config), state=config[0][:1]):
                naive = masker.naive(config)[0]
                self.assertEqual(masker.prefix_tree(config)[0], naive)
                self.assertEqual(masker.precomputed(config)[0], naive)

    def test_three_methods_agree_on_a_random_vocabulary(self):
        rng = random.Random(4)
        tokens = sorted({"".join(rng.choice('{}[]":, 0123456789-.etrufalsn\\ab') for _ in range(rng.randrange(1, 5)))
                         for _ in range(150)})
        masker = tl.TokenMasker(tl.SchemaAutomaton(NESTED), tokens)
        for _ in range(60):
            text = json.dumps(random_value(NESTED, rng), separators=rng.choice([(",", ":"), (", ", ": ")]))
            prefix = text[:rng.randrange(len(text) + 1)]
            config = tl.step_text(masker.automaton.start(), prefix)
            with self.subTest(prefix=prefix):
                naive = masker.naive(config)[0]
                self.assertEqual(masker.prefix_tree(config)[0], naive)
                self.assertEqual(masker.precomputed(config)[0], naive)


# --- 12/16. Generating and grading calls ---

class Generation(unittest.TestCase):
    def test_masked_calls_are_all_valid(self):
        lab_ = lab()
        calls = tl.generate_calls(lab_, 501, True, 31)
        self.assertEqual(Counter(g.tool for g in calls), {tool: 167 for tool in lab_.tools})
        for g in calls:
            with self.subTest(text=g.text):
                self.assertEqual(g.stop, "end")
                self.assertEqual(tool_core.validate(lab_.tools[g.tool], strict_loads(g.text)), [])

    def test_free_calls_fail_the_lectures_ways(self):
        lab_ = lab()
        texts = [(g.tool, g.text) for g in tl.generate_calls(lab_, 300, False, 32)]
        verdicts = Counter()
        for tool, text in texts:
            try:
                value = strict_loads(text)
            except ValueError:
                verdicts["extra comma" if re.search(r",\s*[}\]]", text) else "invalid JSON"] += 1
                verdicts["missing brace"] += _loads(text + "}")
                continue
            errors = tool_core.validate(lab_.tools[tool], value)
            verdicts["string for integer"] += any("expected integer, got string" in e for e in errors)
            verdicts["valid"] += not errors
        for kind in ("extra comma", "missing brace", "string for integer"):
            with self.subTest(kind=kind):
                self.assertGreater(verdicts[kind], 0)
        self.assertLess(verdicts["valid"], 300)

    def test_the_same_seed_writes_the_same_calls(self):
        self.assertEqual([g.text for g in tl.generate_calls(lab(), 30, False, 5)],
                         [g.text for g in tl.generate_calls(lab(), 30, False, 5)])
        self.assertEqual([g.text for g in tl.generate_calls(lab(), 30, True, 5)],
                         [g.text for g in tl.generate_calls(lab(), 30, True, 5)])

    def test_generation_ends_with_a_reason(self):
        person = tl.SchemaAutomaton(tl.PERSON_SCHEMA)
        empty = types.SimpleNamespace(vocab=tl.Vocabulary([], {}), end=0, probs=lambda context: [1.0])
        stuck = types.SimpleNamespace(vocab=tl.Vocabulary(["x", "y"], {}), end=2, probs=lambda context: [0.5, 0.5, 0.0])
        tokens = lab().vocab.tokens
        brace = tokens.index("}")  # all the mass on "}", which cannot start the arguments
        zero = types.SimpleNamespace(vocab=lab().vocab, end=len(tokens),
                                     probs=lambda context: [float(i == brace) for i in range(len(tokens) + 1)])
        table = [(empty, tl.TokenMasker(person, []), "the vocabulary is empty"),
                 (stuck, tl.TokenMasker(person, ["x", "y"]), "dead end: no token of the vocabulary can follow ''"),
                 (zero, lab().maskers["add_person"], "zero probability on every allowed token")]
        for model, masker, reason in table:
            with self.subTest(reason=reason):
                self.assertIn(reason, tl.generate_call(model, "add_person", random.Random(0), masker).stop)
        looping = types.SimpleNamespace(vocab=tl.Vocabulary(["a"], {}), end=1, probs=lambda context: [1.0, 0.0],
                                        sample=lambda context, rng: 0)
        free = tl.generate_call(looping, "add_person", random.Random(0), max_tokens=5)
        self.assertEqual((free.stop, free.text), ("max_tokens", "aaaaa"))


def _loads(text: str) -> bool:
    try:
        strict_loads(text)
        return True
    except ValueError:
        return False


class Grading(unittest.TestCase):
    def test_call_problems_table(self):
        person, ticket = tl.PERSON_SCHEMA, tl.call_tools()["create_ticket"]
        table = [(person, '{"name": "Ann", "age": 42}', []),
                 (person, '{"name": "Ann", "age": "42"}', ["schema: a string where an integer belongs"]),
                 (person, '{"name": "Ann", "age": 42,}', ["JSON: extra comma"]),
                 (person, '{"name": "Ann", "age": 42', ["JSON: missing brace"]),
                 (person, '{"name": "Ann"', ["JSON: missing brace"]),
                 (person, '{"name": "Ann" "age": 42}', ["JSON: missing comma"]),
                 (person, '{"name": "Ann', ["JSON: cut short (a quote missing)"]),
                 (person, '{"name": "Ann"}', ["schema: a required property missing"]),
                 (person, '{"name": "Ann", "name": "Bo", "age": 1}', ["JSON: a key written twice"]),
                 (person, '{"name": "Ann", "age": 42}}', ["JSON: extra text after the object"]),
                 (person, '{"name" "Ann", "age": 42}', ["JSON: missing colon"]),
                 (person, '{"name": , "age": 42}', ["JSON: no value where one must stand"]),
                 (person, '"Ann"', ["JSON: arguments not an object"]),
                 (person, '{"name": 5, "age": "x"}', ["schema: other schema error",
                                                     "schema: a string where an integer belongs"]),
                 (ticket, '{"substation_id": "SS-218", "summary": "x", "priority": "urgent"}',
                  ["schema: a value outside the enum"]),
                 (ticket, '{"substation_id": "SS-218", "summary": "x", "crew": 2}',
                  ["schema: a property the tool does not have"])]
        for schema, text, expected in table:
            with self.subTest(text=text):
                self.assertEqual(tl.call_problems("add_person", schema, text), expected)


# --- 16. What masking does not give ---

class GrammarAligned(unittest.TestCase):
    def test_exact_figures(self):
        # masked: a 0.9, then b renormalised to 1: ab 9/10; cd 1/10.
        # the model given a valid answer: ab 0.9 * 0.01 = 9/1000, cd 0.1 * 1 = 1/10 -> ab 9/109, cd 100/109
        self.assertEqual(tl.masked_answer_distribution(), {"ab": Fraction(9, 10), "cd": Fraction(1, 10)})
        self.assertEqual(tl.valid_answer_distribution(), {"ab": Fraction(9, 109), "cd": Fraction(100, 109)})

    def test_allowed_table(self):
        for prefix, expected in [("", ["a", "c"]), ("a", ["b"]), ("c", ["d"]), ("x", []), ("ab", [])]:
            with self.subTest(prefix=prefix):
                self.assertEqual(tl.gad_allowed(prefix), expected)

    def test_sampled_figures_by_hand(self):
        self.assertEqual(tl.sample_answers(random.Random(3), 500, True), Counter(masked_sample(random.Random(3), 500)))
        self.assertEqual(tl.sample_answers(random.Random(3), 500, False),
                         Counter(rejection_sample(random.Random(3), 500)))


def masked_sample(rng: random.Random, n: int) -> list[str]:
    """The masked sampler draws twice per answer (step 2 has one token left): ab when the first draw is below 0.9."""
    out = []
    for _ in range(n):
        out.append("ab" if rng.random() < 0.9 else "cd")
        rng.random()
    return out


def rejection_sample(rng: random.Random, n: int) -> list[str]:
    """The model's own draws, invalid answers dropped: a below 0.9 then b below 0.01 (x above); else c then d."""
    out = []
    while len(out) < n:
        if rng.random() < 0.9:
            if rng.random() < 0.01:
                out.append("ab")
        else:
            rng.random()
            out.append("cd")
    return out


# --- 17. scripts/08_constrained_decoding.py ---

def section(out: str, title: str) -> str:
    """Return the text of the demo whose banner starts with title."""
    return re.search(rf"=== {re.escape(title)}.*? ===\n(.*?)(?=\n=== |\Z)", out, re.S).group(1)


def cells(line: str) -> list[str]:
    return re.split(r" {2,}", line.strip())


class Script(unittest.TestCase):
    """What script 08 prints, from the table's runs (tests/test_scripts.py: the same bytes from any directory, --help
    with --timings, and where the seed goes)."""

    def test_prints_the_six_demos(self):
        code, out, err = script_run("root")
        self.assertEqual(code, 0, err)
        self.assertEqual(re.findall(r"^=== (.*) ===$", out, re.M), [
            "Demo 1. Free and masked generation", "Demo 2. A regex as a finite automaton",
            "Demo 3. A JSON Schema as a pushdown automaton", "Demo 4. One masked step",
            "Demo 5. What a mask costs, three ways", "Demo 6. What masking does not give"])

    def test_demo_1_figures_match_an_independent_grading(self):
        out, lab_ = section(script_run("root")[1], "Demo 1"), lab()
        rows = {cells(line)[0]: cells(line)[1:] for line in out.splitlines()
                if line.split(" ")[0] in (*lab_.tools, "all")}
        graded = {m: [(g.tool, independent_grade(lab_.tools[g.tool], g.text)) for g in
                      tl.generate_calls(lab_, 150, m, 1 + m)] for m in (False, True)}
        for tool in (*lab_.tools, "all"):
            expected = [str(sum(tool in (t, "all") for t, _ in graded[False]))]
            for m in (False, True):
                mine = [v for t, v in graded[m] if tool in (t, "all")]
                expected += [f"{sum(v != 'json' for v in mine) / len(mine):.0%}",
                             f"{mine.count('valid') / len(mine):.0%}"]
            with self.subTest(tool=tool):
                self.assertEqual(rows[tool], expected)
                self.assertEqual(expected[3:], ["100%", "100%"])
        self.assertIn(f"One 4-gram per tool over the {len(lab_.vocab.tokens)}-token vocabulary, trained on 100 calls "
                      "each (15% of them with one slip", out)
        ended = Counter(g.stop for g in tl.generate_calls(lab_, 150, True, 2))
        self.assertEqual(ended, Counter({"end": 150}))  # the mask offers the end only where a call is complete
        self.assertIn("All 150 masked calls ended with the model's own end-of-call token", out)
        problems = {cells(line)[0]: int(cells(line)[1]) for line in out.split("shortest example")[1].splitlines()[2:]}
        for problem in ("JSON: extra comma", "JSON: missing brace", "schema: a string where an integer belongs"):
            self.assertIn(problem, problems)  # the lecture's three
        # each broken call has one JSON problem; validate's own words count two of the schema problems
        free = [(lab_.tools[g.tool], g.text) for g in tl.generate_calls(lab_, 150, False, 1)]
        errors = [tool_core.validate(schema, strict_loads(text)) for schema, text in free
                  if independent_grade(schema, text) != "json"]
        self.assertEqual(sum(n for p, n in problems.items() if p.startswith("JSON")),
                         sum(independent_grade(schema, text) == "json" for schema, text in free))
        for problem, words in (("schema: a string where an integer belongs", "expected integer, got string"),
                               ("schema: a required property missing", "missing required")):
            self.assertEqual(problems.get(problem, 0), sum(any(words in e for e in es) for es in errors))

    def test_demo_2_and_3_figures(self):
        out = script_run("root")[1]
        for line in ("42    S -4-> N -2-> N  accepted", "007   S -0-> Z -0-> ?  rejected: no edge",
                     "4a    S -4-> N -a-> ?  rejected: no edge", "2025  S -2-> N -0-> N -2-> N -5-> N  accepted"):
            self.assertIn(line, section(out, "Demo 2"))
        demo3 = section(out, "Demo 3")
        rows = [cells(line) for line in demo3.splitlines() if re.match(r"\d ", line)]
        # the lecture's walk: { push, "name": string, "Ann", key age, "age": integer, 42 digits or }, } pop
        self.assertEqual([r[1:3] for r in rows[:7]], [["(empty)", "a value: an object"], ["{ (push {)", "{"],
                                                      ['"name":', "{"], ['"Ann",', "{"], ['"age":', "{"], ["42", "{"],
                                                      ["} (pop {)", "(empty)"]])
        self.assertEqual([r[-1] for r in rows[:7]], ["{ or white space", '" or white space', '" or white space',
                                                     '" or white space', "- 0-9 or white space",
                                                     "0-9 } or white space", "white space, or the end of the text"])
        self.assertIn("rejected at '\"': the mask allows only - 0-9 or white space", demo3)
        self.assertEqual(re.findall(r"^-> (\w+)", demo3, re.M), ["accepted", "rejected"])

    def test_demo_4_figures(self):
        out, lab_ = section(script_run("root")[1], "Demo 4"), lab()
        tokens, lm = lab_.vocab.tokens, lab_.models["add_person"].lm
        # after {"name": "Ann", "age": the text may go on as: ws* -? (0|[1-9][0-9]*) ws* } ws*
        prefix_of = re.compile(r"\s*(-|-?(0|[1-9][0-9]*)\s*(\}\s*)?)?")
        allowed = [t for t in tokens if prefix_of.fullmatch(t)]
        self.assertIn(f"The mask lets {len(allowed)} of {len(tokens)} tokens through", out)
        context = lab_.vocab.encode(tl.MASK_STEP_PREFIX)
        unseen = sum(not lm.knows(t) for t in tokens)
        p = {t: lm.prob(t, context) if lm.knows(t) else lm.p_unk / unseen for t in tokens}
        kept = math.fsum(p[t] for t in allowed)
        self.assertIn(f"The allowed tokens held {kept:.4f} of the probability", out)
        def shown(x):
            return f"{x:.4f}" if x >= 1e-4 else f"{x:.1e}"
        for token in ['"', "4", "}", " 42"]:  # the lecture's tokens in the vocabulary, and its 42 as written here
            row = next(cells(line) for line in out.splitlines() if line.startswith(repr(token) + " "))
            with self.subTest(token=token):
                self.assertEqual(row[1:3], [f"{math.log(p[token]):.2f}", shown(p[token])])
                self.assertEqual(row[3], str(int(token in allowed)))
                self.assertEqual(row[4:], [f"{math.log(p[token]):.2f}", shown(p[token] / kept)] if token in allowed
                                 else ["-inf", "0"])
        ids = sorted(tokens.index(t) for t in allowed)
        r, pick = random.Random(0).random() * sum(p[tokens[i]] for i in ids), None
        for i in ids:
            r -= p[tokens[i]]
            if r < 0:
                pick = tokens[i]
                break
        self.assertIn(f"Sampled (random.Random(0)): {pick!r}", out)

    def test_demo_5_figures(self):
        out, lab_ = section(script_run("root")[1], "Demo 5"), lab()
        self.assertIn("allowed: 0 0} 1 12 4 42 42}; each token on its own: 21 automaton steps; the prefix tree: 12 "
                      "(same mask: True)", out)
        steps = sum(len(g.tokens) for g in tl.generate_calls(lab_, 6, True, 3))
        self.assertIn(f"at all {steps} steps of 6 masked calls", out)
        self.assertIn("The three masks are the same at every step.", out)
        configs, tokens = tl.mask_costs(lab_)["configs"], lab_.vocab.tokens
        naive = trie = dependent_steps = 0
        for tool, config in configs:
            after = {"": config}  # prefix -> configuration after it (None: refused); the tree's nodes are the prefixes
            for t in tokens:
                for k in range(1, len(t) + 1):
                    if t[:k] not in after:
                        after[t[:k]] = tl.step(after[t[:k - 1]], t[k - 1])
                        trie += 1  # a node of the prefix tree whose parent is still alive: one step
                    if after[t[:k]] is None:
                        break
                naive += k  # alone, a token costs the characters up to the first refused one
            for i in lab_.maskers[tool].table[config[0]][1]:
                t = tokens[i]
                dependent_steps += next((k for k in range(1, len(t) + 1) if tl.step_text(config, t[:k]) is None),
                                        len(t))
        n = len(configs)
        rows = [cells(line) for line in out.splitlines() if re.match(r"[123]\. ", line)]
        self.assertEqual([r[1:] for r in rows], [[f"{naive / n:.1f}", "1.0x"],
                                                 [f"{trie / n:.1f}", f"{naive / trie:.1f}x"],
                                                 [f"{dependent_steps / n:.1f}", f"{naive / dependent_steps:.1f}x"]])
        self.assertGreater(naive / trie, 1)
        self.assertGreater(naive / dependent_steps, naive / trie)
        # inside a string the stack decides only for tokens that close the string and go on with , } ]
        in_string = [t for t in lab_.vocab.tokens if re.fullmatch(r'[^"\\]*"\s*[,}\]].*', t)]
        self.assertIn(f"inside a string {len(in_string)} ({len(in_string) / len(lab_.vocab.tokens):.1%})", out)
        states = sum(len(m.table) for m in lab_.maskers.values())
        self.assertIn(f"gave each of the {states} automaton states of the 3 tools its ready mask", out)
        self.assertIn("printed only with --timings", out)

    def test_demo_6_figures(self):
        out = section(script_run("root")[1], "Demo 6")
        self.assertIn('{"name": "Ann", "age": 420} -> the automaton accepts it: True; validate: no errors.', out)
        masked = Counter(masked_sample(random.Random(5), 1000))
        free = Counter(rejection_sample(random.Random(4), 1000))
        for answer, exact_masked, exact_free in (("ab", "90.0% (9/10)", "8.3% (9/109)"),
                                                 ("cd", "10.0% (1/10)", "91.7% (100/109)")):
            row = next(cells(line) for line in out.splitlines() if line.startswith(answer + " "))
            with self.subTest(answer=answer):
                self.assertEqual(row[1:], [exact_masked, f"{masked[answer] / 1000:.1%}", exact_free,
                                           f"{free[answer] / 1000:.1%}"])
        self.assertIn("samples ab 90% of the time, where the model itself, given a valid answer, says cd 92%", out)


class Words(unittest.TestCase):
    """Script 08 in words a reader of the lectures knows: how masked calls ended; what a mask lets through."""

    def test_how_the_calls_ended(self):
        limit = tl.MAX_CALL_TOKENS
        cases = [  # (Generation.stop counts, the sentence)
            (Counter({"end": 150}), "All 150 masked calls ended with the model's own end-of-call token (the mask offers "
                                    "it only once the call is complete)."),
            (Counter({"max_tokens": 3}), f"All 3 masked calls ended at the {limit}-token limit, cut off."),
            (Counter({"end": 148, "max_tokens": 1, "dead end: no token of the vocabulary can follow 'x'": 1}),
             "How the 150 masked calls ended: 148 with the model's own end-of-call token (the mask offers it only once "
             "the call is complete); 1 stopped (dead end: no token of the vocabulary can follow 'x'); 1 at the "
             f"{limit}-token limit, cut off."),  # most first; a tie in the order of the reasons' names
        ]
        for stops, expected in cases:
            with self.subTest(stops=dict(stops)):
                self.assertEqual(tl.stop_sentence(stops), expected)

    def test_what_a_mask_lets_through(self):
        cases = [(" 0123456789}", "0-9 } or white space"), ("123456789", "1-9"), (" \t\n", "white space"),
                 ("", "nothing"), ('"', '"'), ("-0123456789 ", "- 0-9 or white space")]
        for chars, expected in cases:
            with self.subTest(chars=chars):
                self.assertEqual(tl.mask_text(chars), expected)


def independent_grade(schema: dict, text: str) -> str:
    """Grade arguments with json.loads and validate alone: "json" (not a JSON object), "schema" or "valid"."""
    try:
        value = strict_loads(text)
    except ValueError:
        return "json"
    if not isinstance(value, dict):
        return "json"
    return "schema" if tool_core.validate(schema, value) else "valid"


if __name__ == "__main__":
    unittest.main()
