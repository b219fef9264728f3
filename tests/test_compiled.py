"""Tests for tool_core.compile_schema: a schema compiled once must give exactly validate's errors.

validate is the reference (tests/test_validate.py checks it against the specification by hand);
these tests check the compiled Validator against it: the same error strings in the same order,
or the same ValueError for a broken schema. Inputs: every schema and value of tests/test_validate.py,
the edge cases below, and seeded random schemas built from every supported keyword with random
values. A handful of examples are also written out by hand, as the lecture would show them.
What they leave out: speed (scripts/benchmark.py measures it).
"""
import random
import sys
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import tool_core  # noqa: E402
from tool_core import Tool, ToolRegistry, compile_schema, tool_from_function, validate  # noqa: E402
import test_validate  # noqa: E402  (its tables of schemas and values)


def verdict(check, schema, value):
    """Run one validator; return ("errors", [...]) or ("raises", exception type, message)."""
    try:
        return ("errors", check(schema, value))
    except ValueError as exc:
        return ("raises", type(exc).__name__, str(exc))


def compiled(schema, value):
    return compile_schema(schema)(value)


def same_verdicts(case: unittest.TestCase, pairs) -> None:
    """Assert that compile_schema and validate agree on every (schema, value) pair."""
    for schema, value in pairs:
        with case.subTest(schema=schema, value=value):
            case.assertEqual(verdict(compiled, schema, value), verdict(validate, schema, value))


# --- 1. Examples by hand ---

HAND = [  # (schema, value, the errors, written from the keyword's rule)
    ({"type": "integer", "minimum": 1}, 0, ["$: expected a number >= 1, got 0"]),
    ({"type": "integer"}, 1.0, []),
    ({"type": ["string", "null"]}, 5, ["$: expected string or null, got integer 5"]),
    ({"enum": ["low", "normal", "high"]}, "urgent", ['$: expected one of ["low", "normal", "high"], got "urgent"']),
    ({"properties": {"a b": {"const": 1}}}, {"a b": True}, ['$["a b"]: expected exactly 1, got true']),
    ({"required": ["team", "limit"], "properties": {"limit": {"type": "integer"}}}, {"limit": "ten"},
     ["$: missing required properties ['team'] (required: ['team', 'limit'])", '$.limit: expected integer, got string "ten"']),
    ({"properties": {"team": {}}, "additionalProperties": False}, {"team": 1, "dept": 2, "x": 3},
     ["$: unexpected properties ['dept', 'x'] (allowed: ['team'])"]),
    ({"items": {"$ref": "#/$defs/n"}, "$defs": {"n": {"type": "integer"}}}, [1, "2", 3.5],
     ['$[1]: expected integer, got string "2"', "$[2]: expected integer, got number 3.5"]),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, 4,
     ["$: integer 4 matches none of the 2 anyOf alternatives ([0] $: expected string, got integer 4; "
      "[1] $: expected null, got integer 4)"]),
    ({"propertyNames": {"maxLength": 2}}, {"abc": 1},
     ['$.abc: expected at most 2 characters, got 3 in "abc" (in a property name)']),
]


class HandExamples(unittest.TestCase):
    def test_examples(self):
        for schema, value, expected in HAND:
            with self.subTest(schema=schema, value=value):
                self.assertEqual(compile_schema(schema)(value), expected)
                self.assertEqual(validate(schema, value), expected)


class Structure(unittest.TestCase):
    def test_compiled_keywords_run_in_the_interpreters_order(self):
        self.assertEqual(list(tool_core.COMPILE), list(tool_core.KEYWORDS))  # so errors come in the same order

    def test_compiling_never_raises(self):
        deep = {}
        for _ in range(5000):
            deep = {"items": deep}
        schemas = [5, None, "x", [], {"multipleOf": 10 ** 400}, {"pattern": 5}, {"pattern": "("}, {"$ref": "#/no"},
                   {"properties": {"a": 5}}, {"enum": 5}, {"required": [1]}, {"if": {}, "then": 3}, deep]
        for n, schema in enumerate(schemas):
            with self.subTest(n=n):
                compile_schema(schema)  # a broken schema fails when a value reaches its broken part, as in validate


# --- 2. Every schema and value the suite already uses ---

TABLES = [test_validate.TYPE, test_validate.ENUM_CONST, test_validate.OBJECTS, test_validate.ARRAYS,
          test_validate.NUMBERS, test_validate.STRINGS, test_validate.WRONG_TYPE_IGNORED,
          test_validate.COMBINATORS, test_validate.REFS]

DEEP = 0
for _ in range(5000):
    DEEP = [DEEP]
LISTS_120 = []
for _ in range(120):
    LISTS_120 = [LISTS_120]
EDGES = [  # schemas and values from the other tests of validate, and the traps next to them
    ({"uniqueItems": True}, [1, 2, 1, 1, 2]), ({"uniqueItems": True}, [1, True, 1.0, True]),
    ({"uniqueItems": True}, [[1], {"a": 1}, [1.0], {"a": 1.0}, {"a": True}]),
    ({"properties": {"ids": {"uniqueItems": True}}}, {"ids": [7, 7, 7]}),
    ({"properties": {"limit": {"type": "integer", "default": 10}}, "required": ["limit"]}, {"team": "grid"}),
    ({"items": {"$ref": "#"}}, DEEP), ({"type": "array"}, DEEP), ({"items": {"$ref": "#"}}, [[[[0]]]]),
    # broken schemas: both raise the same ValueError, and only when a value reaches the broken part
    ({"$ref": "#/$defs/missing"}, 1), ({"$ref": "#/$defs/a~1b"}, 1), ({"pattern": "("}, "abc"), ({"pattern": "("}, 5),
    ({"patternProperties": {"[": {}}}, {"a": 1}), ({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}, 1),
    ({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}, 1),
    ({"multipleOf": 0}, 5), ({"minimum": "5"}, 3), ({"minimum": "5"}, "x"), ({"required": 5}, {}), ({"properties": 5}, {}),
    ({"properties": {"x": 5}}, {}), ({"properties": {"x": 5}}, {"x": 1}), ({"type": 5}, 1), ({"enum": "ab"}, "a"),
    ({"anyOf": [{"type": "string"}, {"$ref": "#"}]}, "x"), ({"if": {"type": "string"}, "else": {"$ref": "#"}}, "x"),
    ({"if": {"type": "string"}, "else": {"$ref": "#"}}, 1), ({"not": {"type": "string", "minimum": "5"}}, 3),
    ({"contains": {"$ref": "#"}}, [[[]]]), ({"contains": {"$ref": "#"}}, LISTS_120), ({"$ref": 5}, 1), ({"items": {"pattern": "(", "type": "integer"}}, []),
    ({"multipleOf": 0.123456789}, 1e308), ({"multipleOf": float("inf")}, 3), ({"pattern": "\\u{zz}"}, "a"),
    ({"oneOf": [{"type": "integer"}, {"minimum": 10}]}, 12), ({"oneOf": []}, 1), ({"anyOf": []}, 1),
    ({"contains": {"type": "string"}, "minContains": 2, "maxContains": 2}, ["a", 1, "b", "c"]),
    ({"minProperties": 1, "maxProperties": 1}, {}), ({"dependentRequired": {"card": ["cvv", "exp"]}}, {"card": 1}),
    ({"prefixItems": [{"type": "string"}], "items": False}, ["a", 1, 2]), ({"allOf": [False, {"type": "null"}]}, 0),
]


class SameAsValidate(unittest.TestCase):
    def test_the_tables_of_test_validate(self):
        for table in TABLES:
            same_verdicts(self, [(schema, value) for schema, value, _ in table])
        same_verdicts(self, [(schema, value) for schema, value, _, _ in test_validate.MESSAGES])
        same_verdicts(self, [(schema, value) for schema, value, _ in test_validate.AS_SCHEMA_TYPES])
        same_verdicts(self, [({"pattern": pattern}, text) for pattern, text, _ in ECMA_CASES])

    def test_edges_and_broken_schemas(self):
        same_verdicts(self, EDGES)

    def test_tool_schemas(self):
        registry, _ = tool_core.orrin_grid_registry()
        values = [{}, {"code": "E-1474"}, {"code": 5}, {"filters": {}, "limit": 1.5}, {"filters": [], "x": None},
                  {"substation_id": "SS-218", "summary": "s", "priority": "urgent", "department": "x"}]
        same_verdicts(self, [(tool.parameters, value) for tool in registry for value in values])

    def test_the_schemas_of_the_other_labs(self):
        """The 150 catalog tools with their gold arguments, and Cardinal's generated tools, loose and strict."""
        import interfaces
        import service_env
        import tool_catalog
        catalog = tool_catalog.orrin_catalog()
        by_name = {entry.tool.name: entry.tool.parameters for entry in catalog}
        requests = tool_catalog.catalog_requests(catalog)
        pairs = [(by_name[r.tool], r.arguments) for r in requests]
        pairs += [(by_name[r.tool], broken) for r in requests[:60] for broken in spoiled(r.arguments)]
        cardinal = interfaces.openapi_to_tools(interfaces.cardinal_openapi(), "http://127.0.0.1:9")
        schemas = [tool.parameters for tool in cardinal] + [interfaces.strict_schema(tool.parameters)[0] for tool in cardinal]
        schemas += [tool.parameters for tool in service_env.service_registry(service_env.ServiceDB())]
        rng = random.Random(13)
        pairs += [(schema, value) for schema in schemas for value in [{}, {"team": "firmware", "limit": 3}, None]
                  + [random_value(rng, 1) for _ in range(6)]]
        same_verdicts(self, pairs)


def spoiled(arguments: dict) -> list[dict]:
    """Return three wrong versions of valid arguments: a key dropped, a key added, every value made a list."""
    first = next(iter(arguments), None)
    return [{k: v for k, v in arguments.items() if k != first}, arguments | {"unexpected": 1},
            {k: [v] for k, v in arguments.items()}]


ECMA_CASES = [(r"^\d+$", "١٢", False), (r"^\p{L}+$", "π", True), (r"^[A-Z]{2}-\d+$", "SS-218\n", False),
              (r"\bfoo", "éfoo", True), (r"(?<y>\d)\k<y>", "11", True), (r"^\s$", "\ufeff", True)]


# --- 3. Random schemas and values, seeded ---

NAMES = ["a", "b", "c", "x_1", "a b"]
STRINGS = ["", "a", "ab", "abc", "x_1", "SS-218", "é", "日本", "a b", "0", "12"]
NUMBERS = [0, 1, -1, 1.0, 2.5, 3, 10, 12, 100, 0.1, 0.3, -0.0, 1e20, 7.5]
PATTERNS = ["^a", "b", "^[a-z]+$", r"^\d+$", "^x_", "é"]
TYPES = ["string", "integer", "number", "boolean", "null", "array", "object"]


def random_value(rng: random.Random, depth: int = 0):
    kind = rng.choice(["str", "num", "num", "bool", "null"] + (["list", "dict", "dict"] if depth < 3 else []))
    if kind == "str":
        return rng.choice(STRINGS)
    if kind == "num":
        return rng.choice(NUMBERS)
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "list":
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(NAMES + STRINGS[:4]): random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def sub(rng, depth):
    return random_schema(rng, depth + 1)


KEYWORD_MAKERS = {  # keyword -> a function (rng, depth) giving its part of a random schema
    "type": lambda rng, d: {"type": rng.choice(TYPES) if rng.random() < 0.7 else rng.sample(TYPES, 2)},
    "enum": lambda rng, d: {"enum": [random_value(rng, 2) for _ in range(rng.randint(1, 4))]},
    "const": lambda rng, d: {"const": random_value(rng, 2)},
    "required": lambda rng, d: {"required": rng.sample(NAMES, rng.randint(0, 3))},
    "properties": lambda rng, d: {"properties": {n: sub(rng, d) for n in rng.sample(NAMES, rng.randint(1, 3))}},
    "patternProperties": lambda rng, d: {"patternProperties": {p: sub(rng, d) for p in rng.sample(PATTERNS, rng.randint(1, 2))}},
    "additionalProperties": lambda rng, d: {"additionalProperties": False if rng.random() < 0.5 else sub(rng, d)},
    "dependentRequired": lambda rng, d: {"dependentRequired": {rng.choice(NAMES): rng.sample(NAMES, 2)}},
    "propertyNames": lambda rng, d: {"propertyNames": rng.choice([{"maxLength": 1}, {"pattern": "^[a-z]+$"}, sub(rng, d)])},
    "minProperties": lambda rng, d: {"minProperties": rng.randint(0, 3)},
    "maxProperties": lambda rng, d: {"maxProperties": rng.randint(0, 3)},
    "prefixItems": lambda rng, d: {"prefixItems": [sub(rng, d) for _ in range(rng.randint(1, 2))]},
    "items": lambda rng, d: {"items": False if rng.random() < 0.2 else sub(rng, d)},
    "contains": lambda rng, d: {"contains": sub(rng, d)} | rng.choice([{}, {"minContains": 2}, {"maxContains": 1},
                                                                          {"minContains": 0}]),
    "minItems": lambda rng, d: {"minItems": rng.randint(0, 3)},
    "maxItems": lambda rng, d: {"maxItems": rng.randint(0, 3)},
    "uniqueItems": lambda rng, d: {"uniqueItems": rng.random() < 0.8},
    "minimum": lambda rng, d: {"minimum": rng.choice(NUMBERS)},
    "maximum": lambda rng, d: {"maximum": rng.choice(NUMBERS)},
    "exclusiveMinimum": lambda rng, d: {"exclusiveMinimum": rng.choice(NUMBERS)},
    "exclusiveMaximum": lambda rng, d: {"exclusiveMaximum": rng.choice(NUMBERS)},
    "multipleOf": lambda rng, d: {"multipleOf": rng.choice([2, 0.5, 0.1, 3, 1e-05])},
    "minLength": lambda rng, d: {"minLength": rng.randint(0, 3)},
    "maxLength": lambda rng, d: {"maxLength": rng.randint(0, 3)},
    "pattern": lambda rng, d: {"pattern": rng.choice(PATTERNS)},
    "allOf": lambda rng, d: {"allOf": [sub(rng, d) for _ in range(rng.randint(1, 3))]},
    "anyOf": lambda rng, d: {"anyOf": [sub(rng, d) for _ in range(rng.randint(1, 3))]},
    "oneOf": lambda rng, d: {"oneOf": [sub(rng, d) for _ in range(rng.randint(1, 3))]},
    "not": lambda rng, d: {"not": sub(rng, d)},
    "if": lambda rng, d: {"if": sub(rng, d)} | rng.choice([{}, {"then": sub(rng, d)}, {"else": sub(rng, d)},
                                                            {"then": sub(rng, d), "else": sub(rng, d)}]),
    "$ref": lambda rng, d: {"$ref": rng.choice(["#/$defs/d0", "#/$defs/d1", "#"])},
}


def random_schema(rng: random.Random, depth: int = 0):
    if depth >= 3 or rng.random() < 0.1:
        return rng.choice([True, False, {}, {"type": rng.choice(TYPES)}, {"$ref": "#/$defs/d0"}])
    schema = {}
    for keyword in rng.sample(sorted(KEYWORD_MAKERS), rng.randint(1, 4)):
        schema.update(KEYWORD_MAKERS[keyword](rng, depth))
    return schema


def random_root(rng: random.Random):
    schema = random_schema(rng)
    if not isinstance(schema, dict):
        return schema
    return schema | {"$defs": {"d0": random_schema(rng, 2), "d1": {"items": {"$ref": "#/$defs/d1"}, "type": "array"}}}


class RecursiveSchemas(unittest.TestCase):
    """Found by fuzzing: anyOf (or if/then/else, allOf) branches that each recurse through $ref into the same
    child judged it once per branch, 2^depth times: a 40-byte value took 20 s. Each meeting is judged once now."""

    SCHEMAS = [
        {"anyOf": [{"type": "array", "items": {"$ref": "#"}, "minItems": 1},
                   {"type": "array", "items": {"$ref": "#"}, "maxItems": 3}]},
        {"if": {"type": "array", "items": {"$ref": "#"}}, "then": {"type": "array", "items": {"$ref": "#"}},
         "else": {"type": "array", "items": {"$ref": "#"}}},
        {"allOf": [{"items": {"$ref": "#"}}, {"items": {"$ref": "#"}}], "not": {"type": "string"}},
    ]

    def test_which_schemas_memoize(self):
        laughs = {f"L{i}": {"allOf": [{"$ref": f"#/$defs/L{i + 1}"}, {"$ref": f"#/$defs/L{i + 1}"}]} for i in range(30)}
        cases = [(self.SCHEMAS[0], True),  # a cycle: "#" inside itself
                 ({"$ref": "#/$defs/L0", "$defs": laughs | {"L30": {"type": "integer"}}}, True),  # 2^30 inlined
                 ({"$defs": {"a": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a"}, "y": {"$ref": "#/$defs/a"}}},
                  False),  # shared, not multiplied
                 ({"type": "object"}, False), ({"$ref": "#/nowhere"}, False)]
        for schema, expected in cases:
            with self.subTest(schema=str(schema)[:50]):
                self.assertEqual(tool_core._refs_multiply(schema), expected)

    def test_deep_values_are_judged_once_per_place(self):
        deep = []
        for _ in range(40):  # 2^40 judgements without the memo: this test would not finish
            deep = [deep]
        broken = ["x"]
        for _ in range(40):
            broken = [broken]
        for n, schema in enumerate(self.SCHEMAS):
            with self.subTest(schema=n):
                self.assertEqual(validate(schema, deep), [])
                self.assertEqual(compile_schema(schema)(deep), [])
                errors = validate(schema, broken)
                self.assertTrue(errors)
                self.assertEqual(compile_schema(schema)(broken), errors)
                self.assertTrue(all("[0]" * 40 in e or "anyOf" in e or "not" in e for e in errors), errors)


class RandomSchemas(unittest.TestCase):
    def test_random_schemas_and_values(self):
        rng, failures, checked = random.Random(11), [], 0
        for _ in range(200):
            schema = random_root(rng)
            validator = compile_schema(schema)
            for _ in range(8):
                value = random_value(rng)
                expected = verdict(validate, schema, value)
                got = verdict(lambda s, v: validator(v), schema, value)
                checked += expected[0] == "errors"
                if got != expected:
                    failures.append((schema, value, got, expected))
        if failures:
            shortest = sorted(failures, key=lambda f: len(repr(f)))[:3]
            self.fail(f"{len(failures)} disagreements; the shortest:\n" + "\n".join(map(repr, shortest)))
        self.assertGreater(checked, 1200)  # most cases are verdicts, not schema errors

    def test_compiled_checks_answer_alone(self):
        """On a well-formed schema without $ref loops, the compiled check never hands a value to validate."""
        rng = random.Random(12)
        pairs = []
        while len(pairs) < 600:
            schema = random_schema(rng)
            if "$ref" not in repr(schema):
                pairs.append((schema, random_value(rng)))
        validators = [(compile_schema(schema), value) for schema, value in pairs]
        with mock.patch.object(tool_core, "validate", side_effect=AssertionError("validate was consulted")):
            for validator, value in validators:
                validator(value)

    def test_recursive_schemas_answer_alone(self):
        """A $ref followed once per level of the value is no loop: a 110-level tree needs no help from validate."""
        tree = {"type": "object", "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}},
                "required": ["value"]}
        value = {"value": 0, "children": []}
        for level in range(110):
            value = {"value": level, "children": [value, {"value": "x"}]}
        expected = validate(tree, value)
        self.assertEqual(len(expected), 110)  # every level's second child has a string value
        validator = compile_schema(tree)
        with mock.patch.object(tool_core, "validate", side_effect=AssertionError("validate was consulted")):
            self.assertEqual(validator(value), expected)
            self.assertEqual(compile_schema({"items": {"$ref": "#"}})([[[[0]]]]), [])
        linked = {"type": "object", "properties": {"next": {"$ref": "#"}}}  # recursion through properties alone
        chain = {}
        for _ in range(110):
            chain = {"next": chain}
        self.assertEqual(validate(linked, chain), [])
        with mock.patch.object(tool_core, "validate", side_effect=AssertionError("validate was consulted")):
            self.assertEqual(compile_schema(linked)(chain), [])


# --- 4. The registry uses the compiled schema ---

class Registry(unittest.TestCase):
    def test_call_never_runs_validate(self):
        registry, _ = tool_core.orrin_grid_registry()
        with mock.patch.object(tool_core, "validate", side_effect=AssertionError("validate was called")):
            ok = registry.call("create_ticket", {"substation_id": "SS-218", "summary": "relay trips"})
            refused = registry.call("create_ticket", {"substation_id": "SS-218", "summary": "s", "priority": "urgent"})
        self.assertTrue(ok.ok, ok.message)
        self.assertEqual(refused.error_kind, "invalid_arguments")
        self.assertIn('$.priority: expected one of ["low", "normal", "high"], got "urgent"', refused.message)

    def test_replaced_parameters_are_compiled_again(self):
        def count(n: int) -> int:
            """Return n."""
            return n

        registry = ToolRegistry([tool_from_function(count)])
        self.assertTrue(registry.call("count", {"n": 5.0}).ok)
        registry.get("count").parameters = {"type": "object", "properties": {"n": {"type": "string"}}}
        refused = registry.call("count", {"n": 5})
        self.assertEqual(refused.error_kind, "invalid_arguments")
        self.assertIn("$.n: expected string, got integer 5", refused.message)

    def test_a_broken_schema_still_fails_at_call_time(self):
        tool = Tool("broken", "Broken.", {"type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}}, lambda **kw: 1)
        registry = ToolRegistry([tool])  # registering compiles it, and must not raise
        self.assertTrue(registry.call("broken", {}).ok)  # no value reaches the broken part
        self.assertIn("broken schema", registry.call("broken", {"x": 1}).message)


if __name__ == "__main__":
    unittest.main()
