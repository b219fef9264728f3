"""Tools from functions, and ToolRegistry.call: the order of checks and what each failure says."""
import sys
import unittest
from pathlib import Path
from typing import Any, Literal, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tool_core import (ToolExecutionError, ToolRegistry, is_retryable, orrin_grid_registry,  # noqa: E402
                       parse_docstring, schema_for_type, tool_from_function)


def list_members(team: Literal["firmware", "people"], limit: int = 10, tags: Optional[list[str]] = None) -> list:
    """List the members of a team, newest first.

    Names only; call get_person for details.

    Args:
        team: the team's name
        limit (int): the most names to return,
            counted after filtering
        tags: only members with all of these tags
    """
    return [team, limit, tags]


class SchemaFromFunction(unittest.TestCase):
    def test_the_whole_schema_of_a_sample_function(self):
        tool = tool_from_function(list_members, read_only=True)
        self.assertEqual(tool.name, "list_members")
        self.assertEqual(tool.description, "List the members of a team, newest first.")
        self.assertTrue(tool.read_only)
        self.assertEqual(tool.parameters, {
            "type": "object",
            "properties": {
                "team": {"type": "string", "enum": ["firmware", "people"], "description": "the team's name"},
                "limit": {"type": "integer", "default": 10,
                          "description": "the most names to return, counted after filtering"},
                "tags": {"type": ["array", "null"], "items": {"type": "string"}, "default": None,
                         "description": "only members with all of these tags"},
            },
            "required": ["team"],
            "additionalProperties": False,
        })

    def test_type_hints(self):
        cases = [
            (str, {"type": "string"}), (int, {"type": "integer"}), (float, {"type": "number"}),
            (bool, {"type": "boolean"}), (dict, {"type": "object"}), (list, {"type": "array"}),
            (list[int], {"type": "array", "items": {"type": "integer"}}),
            (dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
            (Literal[1, 2], {"type": "integer", "enum": [1, 2]}),
            (Literal["a", 1], {"enum": ["a", 1]}),
            (Optional[int], {"type": ["integer", "null"]}),
            (int | None, {"type": ["integer", "null"]}),
            (int | str, {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
            (tuple[int, str], {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
                               "minItems": 2, "maxItems": 2}),
            (tuple[float, ...], {"type": "array", "items": {"type": "number"}}),
        ]
        for hint, expected in cases:
            with self.subTest(hint=hint):
                self.assertEqual(schema_for_type(hint), expected)

    def test_optional_without_default_is_not_required_and_gets_none(self):
        def find(meter_id: Optional[str], since: list[str] = None) -> list:
            """Find readings."""
            return [meter_id, since]

        tool = tool_from_function(find)
        self.assertEqual(tool.parameters["required"], [])
        self.assertEqual(tool.parameters["properties"]["meter_id"], {"type": ["string", "null"]})
        # a default of None admits null even without Optional, so the schema does not contradict itself
        self.assertEqual(tool.parameters["properties"]["since"],
                         {"type": ["array", "null"], "items": {"type": "string"}, "default": None})
        registry = ToolRegistry([tool])
        self.assertEqual(registry.call("find", {}).content, [None, None])
        self.assertEqual(registry.call("find", {"meter_id": "MT-123"}).content, ["MT-123", None])
        self.assertIs(tool.fn, find)  # the function itself, still callable as written

    def test_any_without_default_stays_required(self):
        def f(value: Any, flag: bool = False) -> object:
            """Echo a value."""
            return value

        self.assertEqual(tool_from_function(f).parameters["required"], ["value"])

    def test_programmer_mistakes_raise_type_error(self):
        def no_hint(x):
            """Do something."""

        def star(*names: str):
            """Do something."""

        def no_doc(x: int):
            pass

        def odd(x: complex):
            """Do something."""

        def positional_only(x: int, /):
            """Do something: but a model's arguments always come by name."""

        for fn in (no_hint, star, no_doc, odd, positional_only):
            with self.subTest(fn=fn.__name__):
                with self.assertRaises(TypeError):
                    tool_from_function(fn)

    def test_docstring_styles(self):
        sphinx = """Find a meter.

        :param str meter_id: the meter's id,
            e.g. MT-123
        :returns: the meter
        """
        self.assertEqual(parse_docstring(sphinx), ("Find a meter.", {"meter_id": "the meter's id, e.g. MT-123"}))
        self.assertEqual(parse_docstring(None), ("", {}))
        self.assertEqual(parse_docstring("One line."), ("One line.", {}))

    def test_duplicate_names_are_refused(self):
        registry = ToolRegistry([tool_from_function(list_members)])
        with self.assertRaises(ValueError):
            registry.register(tool_from_function(list_members))


class Counting:
    """A tool body that counts how often it really ran."""

    def __init__(self):
        self.runs = 0

    def __call__(self, team: str, limit: int = 5) -> list:
        """List members of a team.

        Args:
            team: the team
            limit: how many
        """
        self.runs += 1
        return ["ana", "bo"][:limit]


class RegistryCall(unittest.TestCase):
    def setUp(self):
        self.body = Counting()
        self.registry = ToolRegistry()
        self.registry.register(tool_from_function(self.body, name="list_members"))

    def test_order_of_checks(self):
        # each row breaks the earliest check it reaches; later problems in the same call are not reported
        cases = [
            ("list_membrs", "not even an object", "unknown_tool"),
            ("list_members", ["team", "firmware"], "invalid_arguments"),
            ("list_members", {"team": 5, "department": "x"}, "invalid_arguments"),
            ("list_members", {"team": "firmware", "limit": 1}, None),
        ]
        for name, arguments, kind in cases:
            with self.subTest(name=name, arguments=arguments):
                result = self.registry.call(name, arguments)
                self.assertEqual(result.error_kind, kind)
                self.assertEqual(result.ok, kind is None)

    def test_invalid_calls_never_execute(self):
        for arguments in ({}, {"team": 5}, {"team": "firmware", "department": "x"}, "{}", None, {"team": "a", "limit": "2"}):
            with self.subTest(arguments=arguments):
                self.assertFalse(self.registry.call("list_members", arguments).ok)
        self.assertEqual(self.body.runs, 0)
        self.assertTrue(self.registry.call("list_members", {"team": "firmware"}).ok)
        self.assertEqual(self.body.runs, 1)

    def test_unknown_tool_lists_tools_and_closest_name(self):
        registry, _ = orrin_grid_registry()
        message = registry.call("get_incidnet", {"code": "E-1474"}).message
        for name in ("create_ticket", "get_incident", "get_substation", "search_incidents"):
            self.assertIn(name, message)
        self.assertIn("Did you mean 'get_incident'?", message)
        self.assertIn("get_incidnet", message)
        unrelated = registry.call("get_weather", {"city": "Stanford"}).message
        self.assertIn("No listed tool has a similar name", unrelated)  # no nudge toward an irrelevant tool

    def test_invalid_arguments_message_names_parameter_expected_and_given(self):
        message = self.registry.call("list_members", {"team": "firmware", "department": "x"}).message
        self.assertIn("unexpected properties ['department'] (allowed: ['limit', 'team'])", message)
        registry, _ = orrin_grid_registry()
        message = registry.call("create_ticket", {"substation_id": "SS-218", "summary": "s", "priority": "urgent"}).message
        for part in ("priority", '"low"', '"normal"', '"high"', '"urgent"'):
            self.assertIn(part, message)
        message = self.registry.call("list_members", {}).message
        self.assertIn("missing required properties ['team']", message)

    def test_arguments_sent_as_a_json_string_get_a_hint(self):
        message = self.registry.call("list_members", '{"team": "firmware"}').message
        self.assertIn("must be a JSON object", message)
        self.assertIn("write the object itself", message)

    def test_execution_errors_carry_the_message_and_retry_advice(self):
        registry, _ = orrin_grid_registry()
        timeout = registry.call("get_incident", {"code": "E-0931"})
        missing = registry.call("get_incident", {"code": "E-9999"})
        self.assertEqual((timeout.error_kind, timeout.retryable), ("execution_error", True))
        self.assertEqual((missing.error_kind, missing.retryable), ("execution_error", False))
        self.assertIn("TimeoutError", timeout.message)
        self.assertIn("E-9999", missing.message)

    def test_retryable_exceptions(self):
        cases = [
            (TimeoutError("slow"), True), (ConnectionResetError("reset"), True),
            (ToolExecutionError("rate limited", status=429), True), (ToolExecutionError("down", status=503), True),
            (ToolExecutionError("gone", status=404), False), (ToolExecutionError("odd", retryable=True), True),
            (ValueError("bad"), False), (KeyError("k"), False),
        ]
        for exc, expected in cases:
            with self.subTest(exc=exc):
                self.assertEqual(is_retryable(exc), expected)

    def test_never_raises(self):
        def explode(x: int) -> int:
            """Raise something unusual."""
            raise RuntimeError("boom")

        registry = ToolRegistry([tool_from_function(explode)])
        broken = tool_from_function(explode, name="broken")
        broken.parameters = {"type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}}
        registry.register(broken)
        for name, arguments in [(None, None), (5, {}), ([], []), ("explode", {"x": 1}), ("broken", {"x": 1}),
                                ("explode", {"x": float("nan")}), ("", {}), ("explode", {"x": [[[[]]]]})]:
            with self.subTest(name=name, arguments=arguments):
                result = registry.call(name, arguments)
                self.assertFalse(result.ok)
                self.assertTrue(result.message)
        self.assertIn("broken schema", registry.call("broken", {"x": 1}).message)

    def test_never_raises_on_odd_schemas_and_results(self):
        def echo(x: float) -> object:
            """Echo x back in odd shapes."""
            if x == 1:
                cycle = [1]
                cycle.append(cycle)
                return cycle
            return float("inf")

        registry = ToolRegistry()
        for name, schema in [("even", {"type": "object", "properties": {"x": {"multipleOf": 2}}}),
                             ("typo", {"type": "object", "properties": {"x": {"minimum": "5"}}}),
                             ("odd_required", {"type": "object", "required": 5})]:
            tool = tool_from_function(echo, name=name)
            tool.parameters = schema
            registry.register(tool)
        cases = [("even", {"x": float("inf")}, False), ("typo", {"x": 3}, False), ("odd_required", {"x": 3}, False),
                 ("even", {"x": 4}, True)]
        for name, arguments, ok in cases:
            with self.subTest(name=name, arguments=arguments):
                self.assertEqual(registry.call(name, arguments).ok, ok)
        self.assertIn("broken schema", registry.call("typo", {"x": 3}).message)
        registry.register(tool_from_function(echo))
        # results with no JSON form (a cycle, Infinity) still reach the model as text
        self.assertEqual(registry.call("echo", {"x": 1}).text, "[1, [...]]")
        self.assertEqual(registry.call("echo", {"x": 2}).text, "Infinity")

    def test_never_raises_on_values_json_cannot_show(self):
        def grid(n: int) -> object:
            """Return odd values."""
            return {(0, 0): 1.5} if n == 1 else 10 ** 5000

        def lookup(code: str) -> str:
            """Look a code up."""
            return code

        registry = ToolRegistry([tool_from_function(grid), tool_from_function(lookup)])
        for name, arguments in [(10 ** 5000, {}), ({(1,): 2}, {}), ("grid", 10 ** 5000), ("lookup", {"code": 10 ** 5000})]:
            with self.subTest(name=type(name).__name__, arguments=type(arguments).__name__):
                result = registry.call(name, arguments)
                self.assertFalse(result.ok)
                self.assertNotEqual(result.error_kind, "execution_error")  # the model's mistake, not a broken tool
        self.assertEqual(registry.call("lookup", {"code": 10 ** 5000}).error_kind, "invalid_arguments")
        for n in (1, 2, 10 ** 5000):  # a huge int is a valid integer; the results have no JSON form
            with self.subTest(n=len(str(n)) if n < 10 ** 4000 else "5001 digits"):
                self.assertIsInstance(registry.call("grid", {"n": n}).text, str)

    def test_result_text_is_json_for_values(self):
        registry, _ = orrin_grid_registry()
        self.assertEqual(registry.call("search_incidents", {"filters": {"status": "open"}}).text, '["E-1502"]')


if __name__ == "__main__":
    unittest.main()
