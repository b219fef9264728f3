"""Tests for tool_core.validate: JSON Schema draft 2020-12, every error with its JSON path.

Expected values come from the specification
(https://json-schema.org/draft/2020-12/json-schema-validation and -core), worked out by hand,
never from running the code. Each keyword gets a table of (schema, value, expected_valid) rows;
MESSAGES checks that an error names the path, what was expected and what was given.
Run: python3 -m unittest tests.test_tool_core_validate -v
"""
import copy
import json
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tool_core  # noqa: E402
from tool_core import as_schema_types, is_json_type, json_equal, json_type, validate  # noqa: E402

# --- Tables: (schema, value, expected_valid) per keyword ---

TYPE = [
    ({"type": "integer"}, 1, True),
    ({"type": "integer"}, 1.0, True),  # subtle: a number with zero fraction is an integer
    ({"type": "integer"}, 1.5, False),
    ({"type": "integer"}, True, False),  # subtle: bool inherits from int in Python, not in JSON
    ({"type": "number"}, True, False),
    ({"type": "number"}, 2.5, True),
    ({"type": "number"}, 2, True),
    ({"type": "number"}, "2", False),
    ({"type": "string"}, "x", True),
    ({"type": "string"}, None, False),
    ({"type": "boolean"}, False, True),
    ({"type": "boolean"}, 0, False),
    ({"type": "null"}, None, True),
    ({"type": "null"}, False, False),
    ({"type": "array"}, [], True),
    ({"type": "array"}, {}, False),
    ({"type": "object"}, {}, True),
    ({"type": "object"}, [], False),
    ({"type": ["string", "null"]}, None, True),  # nullable
    ({"type": ["string", "null"]}, "x", True),
    ({"type": ["string", "null"]}, 1, False),
]

ENUM_CONST = [
    ({"enum": ["low", "high"]}, "low", True),
    ({"enum": ["low", "high"]}, "urgent", False),
    ({"enum": [1, 2]}, 1.0, True),  # 1 == 1.0 in JSON
    ({"enum": [1, 2]}, True, False),  # true != 1
    ({"enum": [0, None]}, False, False),  # false != 0
    ({"enum": [[1], {"a": True}]}, [1.0], True),
    ({"enum": [{"a": True}]}, {"a": 1}, False),
    ({"const": 1}, 1.0, True),
    ({"const": 1}, True, False),
    ({"const": False}, 0, False),
    ({"const": [1]}, [1.0], True),
    ({"const": {"a": True}}, {"a": 1}, False),
    ({"const": None}, None, True),
    ({"const": "x"}, "y", False),
]

OBJECTS = [
    ({"properties": {"n": {"type": "integer"}}}, {"n": 1}, True),
    ({"properties": {"n": {"type": "integer"}}}, {"n": "1"}, False),
    ({"properties": {"n": {"type": "integer"}}}, {}, True),  # absent properties are not checked
    ({"required": ["a"]}, {"a": None}, True),
    ({"required": ["a"]}, {"b": 1}, False),
    ({"additionalProperties": False, "properties": {"a": {}}}, {"a": 1}, True),
    ({"additionalProperties": False, "properties": {"a": {}}}, {"a": 1, "b": 2}, False),
    ({"additionalProperties": {"type": "string"}}, {"a": "x"}, True),
    ({"additionalProperties": {"type": "string"}}, {"a": 1}, False),
    ({"patternProperties": {"^x_": {"type": "integer"}}}, {"x_a": 1, "y": "s"}, True),
    ({"patternProperties": {"^x_": {"type": "integer"}}}, {"x_a": "s"}, False),
    ({"patternProperties": {"^x_": {}}, "additionalProperties": False}, {"x_a": 1}, True),
    ({"patternProperties": {"^x_": {}}, "additionalProperties": False}, {"y": 1}, False),
    ({"minProperties": 1}, {"a": 1}, True),
    ({"minProperties": 1}, {}, False),
    ({"maxProperties": 1}, {"a": 1}, True),
    ({"maxProperties": 1}, {"a": 1, "b": 2}, False),
    ({"dependentRequired": {"card": ["cvv"]}}, {"card": 1, "cvv": 2}, True),
    ({"dependentRequired": {"card": ["cvv"]}}, {"cvv": 2}, True),
    ({"dependentRequired": {"card": ["cvv"]}}, {"card": 1}, False),
    ({"propertyNames": {"maxLength": 3}}, {"abc": 1}, True),
    ({"propertyNames": {"maxLength": 3}}, {"abcd": 1}, False),
]

ARRAYS = [
    ({"items": {"type": "integer"}}, [1, 2], True),
    ({"items": {"type": "integer"}}, [1, "2"], False),
    ({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}, ["a", 1, 2], True),
    ({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}, ["a", "b"], False),
    ({"prefixItems": [{"type": "string"}]}, ["a", 1, None], True),  # no items: extras allowed
    ({"prefixItems": [{"type": "string"}], "items": False}, ["a"], True),
    ({"prefixItems": [{"type": "string"}], "items": False}, ["a", 1], False),
    ({"prefixItems": [{"type": "string"}, {}]}, ["a"], True),  # shorter than prefixItems is fine
    ({"minItems": 2}, [1, 2], True),
    ({"minItems": 2}, [1], False),
    ({"maxItems": 1}, [1], True),
    ({"maxItems": 1}, [1, 2], False),
    ({"uniqueItems": True}, [1, True], True),  # true != 1
    ({"uniqueItems": True}, [1, 1.0], False),  # 1 == 1.0
    ({"uniqueItems": True}, [[1], [1.0]], False),
    ({"uniqueItems": True}, [{"a": 1}, {"a": True}], True),
    ({"uniqueItems": False}, [1, 1], True),
    ({"contains": {"type": "string"}}, [1, "a"], True),
    ({"contains": {"type": "string"}}, [1, 2], False),
    ({"contains": {"type": "string"}}, [], False),
    ({"contains": {"type": "string"}, "minContains": 2}, ["a", 1, "b"], True),
    ({"contains": {"type": "string"}, "minContains": 2}, ["a", 1], False),
    ({"contains": {"type": "string"}, "maxContains": 1}, ["a", 1], True),
    ({"contains": {"type": "string"}, "maxContains": 1}, ["a", "b"], False),
    ({"contains": {"type": "string"}, "minContains": 0}, [1], True),
    ({"contains": {"type": "string"}, "minContains": 2, "maxContains": 2}, ["a", 1, "b", "c"], False),
]

NUMBERS = [
    ({"minimum": 5}, 5, True),
    ({"minimum": 5}, 4.9, False),
    ({"maximum": 5}, 5, True),
    ({"maximum": 5}, 6, False),
    ({"exclusiveMinimum": 5}, 5.1, True),
    ({"exclusiveMinimum": 5}, 5, False),
    ({"exclusiveMaximum": 5}, 4, True),
    ({"exclusiveMaximum": 5}, 5.0, False),
    ({"multipleOf": 2}, 4, True),
    ({"multipleOf": 2}, 4.0, True),
    ({"multipleOf": 2}, 5, False),
    ({"multipleOf": 0.0001}, 0.0075, True),  # subtle: not an integer ratio in binary floats
    ({"multipleOf": 0.0001}, 0.00751, False),
    ({"multipleOf": 0.1}, 0.3, True),
    ({"multipleOf": 0.123456789}, 1e308, False),  # must not overflow or raise
]

STRINGS = [
    ({"minLength": 2}, "ab", True),
    ({"minLength": 2}, "a", False),
    ({"maxLength": 1}, "💩", True),  # one code point (two UTF-16 units, four UTF-8 bytes)
    ({"maxLength": 1}, "ab", False),
    ({"minLength": 2}, "💩", False),
    ({"pattern": "es"}, "test", True),  # unanchored search
    ({"pattern": "^es"}, "test", False),
    ({"pattern": "^[a-z]+$"}, "abc", True),
    ({"pattern": "^[a-z]+$"}, "abc1", False),
    ({"format": "email"}, "not an email", True),  # format is an annotation only
    ({"foo": 1}, {"anything": [1, None]}, True),  # unknown keywords are ignored
]

# Each keyword applies only to its own type; other values pass it untouched.
WRONG_TYPE_IGNORED = [
    ({"minimum": 5}, "abc", True),
    ({"multipleOf": 3}, "abc", True),
    ({"exclusiveMaximum": 0}, True, True),  # bool is not a number
    ({"minLength": 3}, 5, True),
    ({"pattern": "^x$"}, 7, True),
    ({"required": ["a"]}, [1], True),
    ({"properties": {"a": {"type": "string"}}}, "a", True),
    ({"additionalProperties": False}, [1, 2], True),
    ({"maxProperties": 0}, [1], True),
    ({"items": {"type": "string"}}, {"a": 1}, True),
    ({"minItems": 3}, "ab", True),
    ({"uniqueItems": True}, "aa", True),
    ({"contains": {"type": "string"}}, 5, True),
]

COMBINATORS = [
    ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, 3, True),
    ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, 3.5, False),
    ({"oneOf": [{"type": "integer"}, {"minimum": 10}]}, 3, True),
    ({"oneOf": [{"type": "integer"}, {"minimum": 10}]}, 12, False),  # both match
    ({"oneOf": [{"type": "integer"}, {"minimum": 10}]}, 3.5, False),  # none match
    ({"allOf": [{"type": "integer"}, {"minimum": 10}]}, 12, True),
    ({"allOf": [{"type": "integer"}, {"minimum": 10}]}, 3, False),
    ({"not": {"type": "string"}}, 1, True),
    ({"not": {"type": "string"}}, "a", False),
    ({"if": {"type": "integer"}, "then": {"minimum": 0}, "else": {"type": "string"}}, 1, True),
    ({"if": {"type": "integer"}, "then": {"minimum": 0}, "else": {"type": "string"}}, -1, False),
    ({"if": {"type": "integer"}, "then": {"minimum": 0}, "else": {"type": "string"}}, "s", True),
    ({"if": {"type": "integer"}, "then": {"minimum": 0}, "else": {"type": "string"}}, None, False),
    ({"if": {"type": "integer"}}, -1, True),  # if alone asserts nothing
    ({"then": {"minimum": 0}}, -1, True),  # then without if is ignored
    (True, {"a": [1]}, True),
    (False, None, False),
    ({"properties": {"x": False}}, {"y": 1}, True),
    ({"properties": {"x": False}}, {"x": 1}, False),
]

TREE = {
    "type": "object",
    "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}},
    "required": ["value"],
}
DEFS = {
    "$defs": {"pos": {"type": "integer", "minimum": 1}, "a/b": {"type": "string"},
              "t~x": {"type": "boolean"}, "50%": {"type": "null"}, "~1": {"const": 7}},
}
REFS = [
    (TREE, {"value": 1, "children": [{"value": 2, "children": []}, {"value": 3}]}, True),
    (TREE, {"value": 1, "children": [{"value": 2, "children": [{"value": "x"}]}]}, False),
    (TREE, {"value": 1, "children": [{"children": []}]}, False),
    ({**DEFS, "$ref": "#/$defs/pos"}, 3, True),
    ({**DEFS, "$ref": "#/$defs/pos"}, 0, False),
    ({**DEFS, "$ref": "#/$defs/a~1b"}, "s", True),  # ~1 is "/"
    ({**DEFS, "$ref": "#/$defs/a~1b"}, 1, False),
    ({**DEFS, "$ref": "#/$defs/t~0x"}, True, True),  # ~0 is "~"
    ({**DEFS, "$ref": "#/$defs/t~0x"}, "s", False),
    ({**DEFS, "$ref": "#/$defs/50%25"}, None, True),  # %25 is "%"
    ({**DEFS, "$ref": "#/$defs/50%25"}, 0, False),
    ({**DEFS, "$ref": "#/$defs/~01"}, 7, True),  # subtle: "~01" is "~1", not "/"
    ({**DEFS, "$ref": "#/$defs/~01"}, 8, False),
    ({**DEFS, "$ref": "#/$defs/pos", "maximum": 5}, 9, False),  # 2020-12: siblings of $ref apply
]

# --- Messages: (schema, value, path, fragments the first error must contain) ---

MESSAGES = [
    ({"type": "integer"}, "abc", "$", ["integer", "abc"]),
    ({"properties": {"name": {"type": "string"}}}, {"name": 5}, "$.name", ["string", "5"]),
    ({"properties": {"items": {"items": {"type": "integer"}}}}, {"items": ["x"]}, "$.items[0]", ["integer", "x"]),
    ({"properties": {"a b": {"type": "integer"}}}, {"a b": True}, '$["a b"]', ["integer", "true"]),
    ({"enum": ["low", "normal", "high"]}, "urgent", "$", ["low", "normal", "high", "urgent"]),
    ({"const": "on"}, "off", "$", ["on", "off"]),
    ({"required": ["team"]}, {}, "$", ["team"]),
    ({"minimum": 10}, 3, "$", ["10", "3"]),
    ({"exclusiveMaximum": 10}, 10, "$", ["10"]),
    ({"multipleOf": 4}, 6, "$", ["4", "6"]),
    ({"maxLength": 2}, "abcd", "$", ["2", "abcd"]),
    ({"pattern": "^[0-9]+$"}, "12a", "$", ["^[0-9]+$", "12a"]),
    ({"minItems": 3}, [1], "$", ["3", "1"]),
    ({"uniqueItems": True}, [7, 7], "$", ["unique", "7"]),
    ({"items": {"maximum": 2}}, [1, 5], "$[1]", ["2", "5"]),
    ({"dependentRequired": {"card": ["cvv"]}}, {"card": 1}, "$", ["card", "cvv"]),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, 4, "$", ["string", "null", "4"]),
]

WHOLE_MESSAGES = [  # (schema, value, every error, written out from the keyword's rule)
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
    ({"dependentRequired": {"card": ["cvv", "exp"]}}, {"card": 1}, ["$: property 'card' requires ['cvv', 'exp'] as well"]),
    ({"prefixItems": [{"type": "string"}], "items": False}, ["a", 1, 2], ["$: expected at most 1 items, got 3"]),
    ({"allOf": [False, {"type": "null"}]}, 0, ["$: no value is allowed here, got integer 0", "$: expected null, got integer 0"]),
    # contains tests each item at the array's own path: [] has no item, so [[]] has no matching one, nor [[[]]]
    ({"contains": {"$ref": "#"}}, [[[]]], ["$: expected at least 1 items matching 'contains' {\"$ref\": \"#\"}, got 0"]),
]


class ValidateTables(unittest.TestCase):
    def check(self, table):
        for schema, value, expected_valid in table:
            with self.subTest(schema=schema, value=value):
                errors = validate(schema, value)
                self.assertEqual(errors == [], expected_valid, errors)
                for error in errors:
                    self.assertTrue(error.startswith("$"), error)
                    self.assertIn(": ", error)

    def test_type(self):
        self.check(TYPE)

    def test_enum_and_const(self):
        self.check(ENUM_CONST)

    def test_object_keywords(self):
        self.check(OBJECTS)

    def test_array_keywords(self):
        self.check(ARRAYS)

    def test_numeric_keywords(self):
        self.check(NUMBERS)

    def test_string_keywords_format_and_unknown(self):
        self.check(STRINGS)

    def test_keywords_ignore_other_types(self):
        self.check(WRONG_TYPE_IGNORED)

    def test_combinators_conditionals_and_boolean_schemas(self):
        self.check(COMBINATORS)

    def test_refs(self):
        self.check(REFS)


class ValidateMessages(unittest.TestCase):
    """Every error names its path, what was expected and what was given; none is left out."""

    def test_message_names_path_expected_and_given(self):
        for schema, value, path, fragments in MESSAGES:
            with self.subTest(schema=schema, value=value):
                errors = validate(schema, value)
                self.assertEqual(len(errors), 1, errors)
                self.assertTrue(errors[0].startswith(path + ": "), errors[0])
                for fragment in fragments:
                    self.assertIn(fragment, errors[0])

    def test_whole_messages(self):
        for schema, value, expected in WHOLE_MESSAGES:
            with self.subTest(schema=schema, value=value):
                self.assertEqual(validate(schema, value), expected)

    def test_additional_properties_false_message(self):
        schema = {"properties": {"team": {}, "limit": {}}, "additionalProperties": False}
        errors = validate(schema, {"team": "a", "department": "b"})
        self.assertEqual(len(errors), 1, errors)
        self.assertTrue(errors[0].startswith("$: "), errors[0])
        self.assertIn("unexpected properties ['department'] (allowed: ['limit', 'team'])", errors[0])

    def test_every_error_is_reported(self):
        schema = {"type": "object", "required": ["team", "limit"],
                  "properties": {"team": {"type": "string"}, "limit": {"type": "integer"}}}
        errors = validate(schema, {"limit": "ten"})
        self.assertEqual(len(errors), 2, errors)
        self.assertEqual(sorted(e.split(": ")[0] for e in errors), ["$", "$.limit"])

    def test_errors_in_several_items(self):
        errors = validate({"items": {"type": "integer"}}, [1, "a", 2, None])
        self.assertEqual(sorted(e.split(": ")[0] for e in errors), ["$[1]", "$[3]"])

    def test_every_duplicate_is_reported_with_the_first_equal_item(self):
        u = "$: items must be unique, but "
        cases = [
            ([1, 2, 1, 1, 2], [u + "[0] and [2] are both 1", u + "[0] and [3] are both 1", u + "[1] and [4] are both 2"]),
            ([1, 1.0], [u + "[0] and [1] are both 1.0"]),  # 1 == 1.0 in JSON
            ([True, 1], []), ([1, True, 0, False], []),  # true != 1, false != 0
            ([1, True, 1.0, True], [u + "[0] and [2] are both 1.0", u + "[1] and [3] are both true"]),
            (["a", "b", "a", "c", "b", "a"], [u + '[0] and [2] are both "a"', u + '[1] and [4] are both "b"',
                                              u + '[0] and [5] are both "a"']),
            ([[1], {"a": 1}, [1.0], {"a": 1.0}, {"a": True}], [u + "[0] and [2] are both [1.0]",
                                                               u + '[1] and [3] are both {"a": 1.0}']),
            ([None, None, None], [u + "[0] and [1] are both null", u + "[0] and [2] are both null"]),
            ([], []), ([3], []),
        ]
        for value, expected in cases:
            with self.subTest(value=value):
                self.assertEqual(validate({"uniqueItems": True}, value), expected)
        nested = validate({"properties": {"ids": {"uniqueItems": True}}}, {"ids": [7, 7, 7]})
        self.assertEqual(nested, ["$.ids: items must be unique, but [0] and [1] are both 7",
                                  "$.ids: items must be unique, but [0] and [2] are both 7"])


class ValidateEdges(unittest.TestCase):
    def test_default_is_never_applied(self):
        schema = {"properties": {"limit": {"type": "integer", "default": 10}}, "required": ["limit"]}
        value = {"team": "grid"}
        before = copy.deepcopy(value)
        errors = validate(schema, value)
        self.assertEqual(len(errors), 1, errors)
        self.assertIn("limit", errors[0])
        self.assertEqual(value, before)  # validate does not mutate the value

    def test_broken_schema_raises_value_error(self):
        cases = [
            ({"$ref": "#/$defs/missing"}, 1),
            ({"$ref": "#/$defs/a~1b"}, 1),
            ({"pattern": "("}, "abc"),
            ({"patternProperties": {"[": {}}}, {"a": 1}),
            ({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}, 1),
            ({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}, 1),
            ({"multipleOf": 0}, 5), ({"minimum": "5"}, 3), ({"required": 5}, {}), ({"properties": 5}, {}),
            ({"properties": {"x": 5}}, {"x": 1}), ({"type": 5}, 1), ({"$ref": 5}, 1), ({"multipleOf": float("inf")}, 3),
            ({"pattern": "\\u{zz}"}, "a"),
            # a $ref loop is met even where another branch matches, or the loop's branch is taken
            ({"anyOf": [{"type": "string"}, {"$ref": "#"}]}, "x"), ({"if": {"type": "string"}, "else": {"$ref": "#"}}, 1),
            ({"contains": {"$ref": "#"}}, nested(120)),  # its items are tested at the array's path: 120 $refs there
        ]
        for schema, value in cases:
            with self.subTest(schema=schema):
                with self.assertRaises(ValueError):
                    validate(schema, value)

    def test_a_broken_part_no_value_reaches_is_not_an_error(self):
        cases = [({"pattern": "("}, 5), ({"minimum": "5"}, "x"), ({"properties": {"x": 5}}, {}),
                 ({"items": {"pattern": "(", "type": "integer"}}, []), ({"if": {"type": "string"}, "else": {"$ref": "#"}}, "x")]
        for schema, value in cases:
            with self.subTest(schema=schema, value=value):
                self.assertEqual(validate(schema, value), [])

    def test_moderately_deep_recursive_value_is_valid(self):
        value = 0
        for _ in range(110):  # deeper than a typical hand-written tree, far below Python's limit
            value = [value]
        self.assertEqual(validate({"items": {"$ref": "#"}}, value), [])

    def test_a_ref_followed_once_per_level_is_no_loop(self):
        tree = {"type": "object", "required": ["value"],
                "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}}}
        value = {"value": 0, "children": []}
        for level in range(110):  # deeper than MAX_REF_DEPTH, but one $ref per level of the value
            value = {"value": level, "children": [value, {"value": "x"}]}
        errors = validate(tree, value)
        self.assertEqual(len(errors), 110)  # every level's second child has a string value
        self.assertEqual(errors[-1], '$.children[1].value: expected integer, got string "x"')
        linked = {"type": "object", "properties": {"next": {"$ref": "#"}}}  # recursion through properties alone
        chain = {}
        for _ in range(110):
            chain = {"next": chain}
        self.assertEqual(validate(linked, chain), [])

    def test_very_deep_value_does_not_raise(self):
        for schema in ({"items": {"$ref": "#"}}, {"type": "array"}):
            with self.subTest(schema=schema):
                value = []
                for _ in range(5000):
                    value = [value]
                errors, raised = None, None
                try:
                    errors = validate(schema, value)
                except Exception as exc:  # noqa: BLE001 - any exception is the failure
                    raised = f"{type(exc).__name__}: {str(exc)[:80]}"
                self.assertIsNone(raised, "validate must return a list, never raise")
                self.assertIsInstance(errors, list)


def nested(depth: int, leaf=None) -> list:
    """Wrap a list in `depth` lists, with one leaf at the bottom or none. Example: (2, 'x') -> [[['x']]]; (1) -> [[]]"""
    value = [] if leaf is None else [leaf]
    for _ in range(depth):
        value = [value]
    return value


def typed(value):
    """Spell out every Python type in a value, so 1 and 1.0 compare unequal. Example: [1.0] -> ('list', [('float', 1.0)])"""
    if isinstance(value, dict):
        return ("dict", {k: typed(v) for k, v in value.items()})
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    return (type(value).__name__, value)


TREE = {"type": "object", "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#"}}}}
IF_COUNT = {"if": {"properties": {"kind": {"const": "count"}}},
            "then": {"properties": {"n": {"type": "integer"}}}, "else": {"properties": {"n": {"type": "number"}}}}

AS_SCHEMA_TYPES = [  # (schema, a valid value, what the tool receives): 1.0 -> 1 only where the schema says integer
    ({"type": "integer"}, 1.0, 1),
    ({"type": "integer"}, 1, 1),
    ({"type": "integer"}, -0.0, 0),
    ({"type": "integer"}, 1e20, 10 ** 20),
    ({"type": "number"}, 2.0, 2.0),
    ({"type": "number"}, 2.5, 2.5),
    ({"type": "number"}, 2, 2),
    ({}, 1.0, 1.0),
    ({"minimum": 0}, 1.0, 1.0),
    ({"type": ["integer", "null"]}, 3.0, 3),
    ({"type": ["integer", "null"]}, None, None),
    ({"type": ["integer", "boolean"]}, True, True),  # a bool is never turned into an int
    ({"type": ["string", "integer"]}, "1.0", "1.0"),
    ({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "number"}}},
     {"a": 1.0, "b": 1.0, "c": 1.0}, {"a": 1, "b": 1.0, "c": 1.0}),
    ({"patternProperties": {"^n_": {"type": "integer"}}}, {"n_x": 2.0, "other": 2.0}, {"n_x": 2, "other": 2.0}),
    ({"properties": {"a": {"type": "number"}}, "additionalProperties": {"type": "integer"}},
     {"a": 1.0, "b": 1.0}, {"a": 1.0, "b": 1}),
    # additionalProperties covers only names no property or pattern claims
    ({"patternProperties": {"^x": {"type": "number"}}, "additionalProperties": {"type": "integer"}},
     {"x1": 1.0, "y": 1.0}, {"x1": 1.0, "y": 1}),
    ({"properties": {"a": {"type": "number"}}, "patternProperties": {"a": {"type": "integer"}}}, {"a": 4.0}, {"a": 4}),
    ({"items": {"type": "integer"}}, [1.0, 2.0], [1, 2]),
    ({"items": {"items": {"type": "integer"}}}, [[1.0], [], [2.0, 3.0]], [[1], [], [2, 3]]),
    ({"prefixItems": [{"type": "integer"}, {"type": "number"}], "items": {"type": "integer"}},
     [1.0, 1.0, 1.0, 1.0], [1, 1.0, 1, 1]),
    ({"prefixItems": [{"type": "number"}, {"type": "integer"}]}, [1.0, 1.0, 1.0], [1.0, 1, 1.0]),
    ({"$defs": {"n": {"type": "integer"}}, "properties": {"k": {"$ref": "#/$defs/n"}}}, {"k": 4.0}, {"k": 4}),
    ({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"type": "integer"}}, "$ref": "#/$defs/a"}, 5.0, 5),
    (TREE, {"v": 1.0, "kids": [{"v": 2.0, "kids": [{"v": 3.0, "kids": []}]}]},
     {"v": 1, "kids": [{"v": 2, "kids": [{"v": 3, "kids": []}]}]}),
    ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, 5.0, 5),
    ({"anyOf": [{"type": "number"}, {"type": "integer"}]}, 5.0, 5.0),  # the first branch that matches types it
    ({"anyOf": [{"type": "integer"}, {"type": "number"}]}, 5.0, 5),
    ({"anyOf": [{"type": "integer", "maximum": 3}, {"type": "number"}]}, 5.0, 5.0),
    ({"oneOf": [{"type": "integer", "minimum": 10}, {"type": "number", "maximum": 5}]}, 12.0, 12),
    ({"oneOf": [{"type": "integer", "minimum": 10}, {"type": "number", "maximum": 5}]}, 3.0, 3.0),
    ({"oneOf": [{"type": "string"}, {"items": {"type": "integer"}, "type": "array"}]}, [1.0], [1]),
    ({"allOf": [{"type": "number"}, {"type": "integer"}]}, 2.0, 2),
    ({"allOf": [{"properties": {"a": {"type": "integer"}}}, {"properties": {"b": {"type": "integer"}}}]},
     {"a": 1.0, "b": 2.0}, {"a": 1, "b": 2}),
    (IF_COUNT, {"kind": "count", "n": 3.0}, {"kind": "count", "n": 3}),
    (IF_COUNT, {"kind": "size", "n": 3.0}, {"kind": "size", "n": 3.0}),
    ({"if": {"minimum": 10}, "then": {"type": "integer"}}, 12.0, 12),
    ({"if": {"minimum": 10}, "then": {"type": "integer"}}, 2.0, 2.0),
    ({"if": {"minimum": 10}, "else": {"type": "integer"}}, 2.0, 2),
    ({"properties": {"a": {"not": {"type": "integer", "maximum": 0}}}}, {"a": 1.0}, {"a": 1.0}),  # "not" types nothing
]


class FoundByFuzzing(unittest.TestCase):
    def test_a_huge_integer_against_multiple_of(self):
        # math.isfinite(10**400) raises OverflowError: an int is finite without asking
        huge = json.loads("1" + "0" * 400)
        self.assertEqual(validate({"multipleOf": 2}, huge), [])
        self.assertEqual(validate({"multipleOf": 0.5}, huge), [])
        self.assertEqual(len(validate({"multipleOf": 3}, huge)), 1)

    def test_branches_that_recurse_into_one_child_judge_it_once(self):
        # anyOf (or if/then/else, allOf) branches that each recurse through $ref into the same child
        # judged it once per branch, 2^depth times: a 40-byte value took 20 s
        schemas = [
            {"anyOf": [{"type": "array", "items": {"$ref": "#"}, "minItems": 1},
                       {"type": "array", "items": {"$ref": "#"}, "maxItems": 3}]},
            {"if": {"type": "array", "items": {"$ref": "#"}}, "then": {"type": "array", "items": {"$ref": "#"}},
             "else": {"type": "array", "items": {"$ref": "#"}}},
            {"allOf": [{"items": {"$ref": "#"}}, {"items": {"$ref": "#"}}], "not": {"type": "string"}},
        ]
        for n, schema in enumerate(schemas):
            with self.subTest(schema=n):
                self.assertEqual(validate(schema, nested(40)), [])  # 2^40 judgements: this would not finish
                errors = validate(schema, nested(40, "x"))
                self.assertTrue(errors)
                self.assertTrue(all("[0]" * 40 in e or "anyOf" in e or "not" in e for e in errors), errors)

    def test_nullable_leaves_a_ref_to_the_whole_schema(self):
        for sub in ({"$ref": "#/$defs/cat"}, {"anyOf": [{"$ref": "#/$defs/cat"}, {"$ref": "#/$defs/dog"}]},
                    {"type": "object", "properties": {"x": {"$ref": "#"}}}):
            with self.subTest(sub=sub):
                self.assertEqual(tool_core.nullable(sub), {"anyOf": [sub, {"type": "null"}]})
        self.assertEqual(tool_core.nullable({"enum": 5}), {"anyOf": [{"enum": 5}, {"type": "null"}]})  # validate raises

    def test_inside_a_ref_an_error_two_branches_find_is_listed_once(self):
        both = {"allOf": [{"required": ["a"]}, {"required": ["a"], "properties": {"b": {"type": "integer"}}}]}
        once = ["$: missing required properties ['a'] (required: ['a'])", "$.b: expected integer, got string \"x\""]
        self.assertEqual(validate(both, {"b": "x"}), [once[0], once[0], once[1]])  # at the root: as found
        through_ref = {"$ref": "#/$defs/both", "$defs": {"both": both}}
        self.assertEqual(validate(through_ref, {"b": "x"}), once)

    def test_a_long_chain_of_refs_is_not_only_called_a_loop(self):
        defs = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(120)} | {"d120": {"type": "integer"}}
        with self.assertRaisesRegex(ValueError, "in a loop, or chains more \\$refs than validate follows"):
            validate({"$ref": "#/$defs/d0", "$defs": defs}, 1)


class AsSchemaTypes(unittest.TestCase):
    """as_schema_types turns integral floats into int exactly where the schema says integer."""

    def test_table(self):
        for schema, value, expected in AS_SCHEMA_TYPES:
            with self.subTest(schema=schema, value=value):
                self.assertEqual(validate(schema, value), [])  # only valid values are converted
                before = typed(copy.deepcopy(value))
                self.assertEqual(typed(as_schema_types(schema, value)), typed(expected))
                self.assertEqual(typed(value), before)  # the input is left alone


class JsonHelpers(unittest.TestCase):
    def test_json_equal(self):
        table = [
            (1, 1.0, True), (True, 1, False), (False, 0, False), (None, None, True),
            (None, False, False), ("1", 1, False), ([1], [1.0], True), ([1, 2], [2, 1], False),
            ([1], [1, 1], False), ({"a": True}, {"a": 1}, False),
            ({"a": 1, "b": [2]}, {"b": [2.0], "a": 1}, True), ({"a": 1}, {"a": 1, "b": 2}, False),
        ]
        for a, b, expected in table:
            with self.subTest(a=a, b=b):
                self.assertEqual(json_equal(a, b), expected)
                self.assertEqual(json_equal(b, a), expected)

    def test_json_type(self):
        table = [(5, "integer"), (5.0, "integer"), (5.5, "number"), (True, "boolean"),
                 (None, "null"), ("x", "string"), ([], "array"), ({}, "object")]
        for value, expected in table:
            with self.subTest(value=value):
                self.assertEqual(json_type(value), expected)

    def test_is_json_type(self):
        table = [
            (1.0, "integer", True), (1.5, "integer", False), (True, "integer", False),
            (True, "number", False), (1, "number", True), (1.5, "number", True),
            (False, "boolean", True), (0, "boolean", False), (None, "null", True),
            ("1", "string", True), ([], "object", False), ({}, "object", True),
        ]
        for value, name, expected in table:
            with self.subTest(value=value, name=name):
                self.assertEqual(is_json_type(value, name), expected)


class EcmaPatterns(unittest.TestCase):
    """JSON Schema patterns are ECMA-262 regexes: \\d and \\w are ASCII-only there, unlike Python's."""

    def test_ecma_semantics(self):
        cases = [
            (r"^\d+$", "123", True), (r"^\d+$", "\u0661\u0662", False),  # Arabic-Indic digits are not ECMA \d
            (r"^\w+$", "abc_1", True), (r"^\w+$", "\u00e9", False),    # é is not ECMA \w
            (r"^\D$", "a", True), (r"^\W$", "\u00e9", True), (r"^[\d.]+$", "1.5", True),
            (r"^\p{L}+$", "\u03c0", True), (r"^\p{Letter}+$", "123", False), (r"^\P{L}+$", "12", True),
            (r"^\P{L}+$", "ab", False), (r"\.", "a.b", True), (r"[a\]]", "]", True), (r"^\s$", "\u00a0", True),
            (r"^[A-Z]{2}-\d+$", "SS-218\n", False),  # ECMA's $ does not match before a final newline
            (r"^a[$]$", "a$", True), (r"^a\$", "a$", True),
            (r"^\p{L}$", "\u00b2", False), (r"^\P{L}$", "\u00b2", True),  # superscript two is a number, not a letter
            (r"^\s$", "\ufeff", True), (r"^\s$", "\x1c", False), (r"^.$", "\r", False), (r"^.$", "a", True),
            (r"\bfoo", "\u00e9foo", True),  # ECMA's \b is an ASCII word boundary
            (r"(?<y>\d)\k<y>", "11", True), (r"(?<y>\d)\k<y>", "12", False), (r"^\cJ$", "\n", True),
            (r"^\u{1F600}$", "\U0001F600", True), (r"^[\b]$", "\x08", True), (r"(?<=a)b", "ab", True),
        ]
        for pattern, text, valid in cases:
            with self.subTest(pattern=pattern, text=text):
                self.assertEqual(validate({"pattern": pattern}, text) == [], valid)

    def test_unsupported_property_is_a_schema_error(self):
        with self.assertRaises(ValueError):
            validate({"pattern": r"\p{Greek}"}, "x")


if __name__ == "__main__":
    unittest.main()
