"""Tools from functions, and ToolRegistry.call: the order of checks and what each failure says."""
import sys
import dataclasses
import functools
import unittest
from pathlib import Path
from typing import Any, Literal, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # for exercise_tables, however the tests are started

from tool_core import (OrrinGrid, Tool, ToolExecutionError, ToolRegistry, is_retryable,  # noqa: E402
                       orrin_grid_registry, parse_docstring, schema_for_type, schema_text, tool_from_function,
                       tool_signature)
from exercise_tables import CALLS, Counting, call_tools  # noqa: E402


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

    def test_context_parameters_are_the_harness_not_the_model(self):
        def lookup(db: dict, key: str, default: str = "") -> str:
            """Look a key up in the store.

            Args:
                key: the key
            """
            return db.get(key, default)

        tool = tool_from_function(lookup, context=("db",))
        self.assertEqual(tool.parameters, {"type": "object", "properties": {
            "key": {"type": "string", "description": "the key"}, "default": {"type": "string", "default": ""}},
            "required": ["key"], "additionalProperties": False})
        bound = ToolRegistry([dataclasses.replace(tool, fn=functools.partial(tool.fn, {"a": "1"}))])
        self.assertEqual(bound.call("lookup", {"key": "a"}).content, "1")
        self.assertEqual(bound.call("lookup", {"key": "a", "db": {}}).error_kind, "invalid_arguments")

    def test_duplicate_names_are_refused(self):
        registry = ToolRegistry([tool_from_function(list_members)])
        with self.assertRaises(ValueError):
            registry.register(tool_from_function(list_members))


class Signature(unittest.TestCase):
    """tool_signature: a tool's outer shape, name(typed inputs) -> typed output, read off its schema and return hint."""

    def test_schema_text(self):
        cases = [  # (schema, as a signature writes it)
            ({"type": "string"}, "string"), ({"type": ["integer", "null"]}, "integer | null"),
            ({"enum": ["low", "high"]}, '"low" | "high"'), ({"type": "string", "enum": ["a"]}, '"a"'),
            ({"anyOf": [{"type": "integer"}, {"type": "number"}]}, "integer | number"),
            ({"oneOf": [{"type": "string"}, {"enum": [1, 2]}]}, "string | 1 | 2"),
            ({"type": "array", "items": {"type": "integer"}}, "array of integer"), ({"type": "array"}, "array"),
            ({"type": "string", "contentMediaType": "image/png", "contentEncoding": "base64"},
             "string (image/png, base64)"),
            ({}, "any"), (True, "any"), ({"description": "no type"}, "any"),
        ]
        for schema, expected in cases:
            with self.subTest(schema=schema):
                self.assertEqual(schema_text(schema), expected)

    def test_signatures(self):
        def nothing() -> None:
            """Do nothing."""

        def bound(db: dict, key: str) -> dict[str, int]:
            """Look a key up.

            Args:
                key: the key
            """
            return db

        registry, _ = orrin_grid_registry()
        with_output = dataclasses.replace(tool_from_function(nothing), output_schema={"type": "object"})
        cases = [  # the tool's definition, read by hand -> its signature
            (registry.get("create_ticket"),
             'create_ticket(substation_id: string, summary: string, priority?: "low" | "normal" | "high") -> object'),
            (registry.get("search_incidents"), "search_incidents(filters: object, limit?: integer) -> array"),
            (tool_from_function(list_members),
             'list_members(team: "firmware" | "people", limit?: integer, tags?: array of string | null) -> array'),
            (tool_from_function(nothing), "nothing() -> null"),
            (with_output, "nothing() -> object"),  # an output_schema, where there is one, wins over the hint
            (tool_from_function(nothing, name="renamed"), "renamed() -> null"),  # the tool's name, not the function's
        ]
        tool = tool_from_function(bound, context=("db",))
        cases.append((dataclasses.replace(tool, fn=functools.partial(tool.fn, {})), "bound(key: string) -> object"))
        for tool, expected in cases:
            with self.subTest(tool=tool.name):
                self.assertEqual(tool_signature(tool), expected)



class RegistryCall(unittest.TestCase):
    """ToolRegistry.call: the order of checks, what each failure says, and which errors are retryable."""

    def setUp(self):
        self.body = Counting()
        self.registry = ToolRegistry()
        self.registry.register(tool_from_function(self.body, name="list_members"))

    def test_order_of_checks(self):
        # exercise_tables.CALLS: each row breaks the earliest check it reaches (`scripts/exercises.py --check 3` runs
        # the same rows); a call runs only when it passes every check
        for what, name, arguments, kind, content in CALLS:
            with self.subTest(what, name=name, arguments=arguments):
                tools, body = call_tools()
                result = ToolRegistry(tools.values()).call(name, arguments)
                self.assertEqual((result.ok, result.error_kind), (kind is None, kind))
                if kind is None:
                    self.assertEqual(result.content, content)
                else:
                    self.assertTrue(result.message)  # every refusal says why, for the model
                self.assertEqual(body.runs, int(kind is None and name == "list_members"))

    def test_invalid_calls_never_execute(self):
        refused = [(name, arguments) for _, name, arguments, kind, _ in CALLS if kind in ("unknown_tool",
                                                                                        "invalid_arguments")]
        self.assertGreaterEqual(len(refused), 10)
        for name, arguments in refused:
            with self.subTest(name=name, arguments=arguments):
                self.assertFalse(self.registry.call(name, arguments).ok)
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
        # timeouts, rate limits and server errors (408, 429, 5xx) may pass on retry; client errors will not
        cases = [
            (TimeoutError("slow"), True), (ConnectionError("down"), True), (ConnectionResetError("reset"), True),
            (ConnectionRefusedError("refused"), True), (ValueError("bad"), False), (KeyError("k"), False),
            (LookupError("no such code"), False), (RuntimeError("boom"), False),
        ]
        for exc, expected in cases:
            with self.subTest(exc=exc):
                self.assertEqual(is_retryable(exc), expected)

    def test_retryable_statuses(self):
        cases = [(500, True), (501, False), (502, True), (503, True), (504, True), (599, True), (600, False), (999, False),
                 (408, True), (429, True), (None, False), (200, False), (400, False), (401, False),
                 (403, False), (404, False), (407, False), (409, False), (422, False), (428, False),
                 (430, False), (499, False)]
        for status, expected in cases:
            with self.subTest(status=status):
                self.assertIs(is_retryable(ToolExecutionError("failed", status=status)), expected)

    def test_explicit_retryable_overrides_the_status(self):
        cases = [(503, False, False), (500, False, False), (429, False, False), (404, True, True),
                 (400, True, True), (None, True, True), (None, False, False), (503, None, True), (404, None, False)]
        for status, retryable, expected in cases:
            with self.subTest(status=status, retryable=retryable):
                self.assertIs(is_retryable(ToolExecutionError("failed", status=status, retryable=retryable)), expected)

    def test_a_tool_raising_a_status_reaches_the_model_with_its_advice(self):
        def fetch(status: int) -> str:
            """Fail with an HTTP status."""
            raise ToolExecutionError(f"HTTP {status}", status=status)

        registry = ToolRegistry([tool_from_function(fetch)])
        for status, retryable in [(500, True), (503, True), (429, True), (404, False), (400, False)]:
            with self.subTest(status=status):
                result = registry.call("fetch", {"status": status})
                self.assertEqual((result.error_kind, result.retryable), ("execution_error", retryable))
                self.assertIn(f"ToolExecutionError: HTTP {status}", result.message)
                self.assertIn("This is temporary" if retryable else "Retrying the same call will fail", result.message)

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


def typed(value):
    """Spell out every Python type in a value, so 1 and 1.0 compare unequal. Example: [1.0] -> ('list', [('float', 1.0)])"""
    if isinstance(value, dict):
        return ("dict", {k: typed(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [typed(v) for v in value])
    return (type(value).__name__, value)


class IntegersArriveAsInt(unittest.TestCase):
    """JSON counts 1.0 as an integer; a tool whose schema says integer gets a Python int."""

    def test_search_incidents_with_a_float_limit(self):
        registry, _ = orrin_grid_registry()
        result = registry.call("search_incidents", {"filters": {}, "limit": 1.0})
        self.assertTrue(result.ok, result.message)
        self.assertEqual(result.content, ["E-1474"])  # the first of the two incidents, in seed order
        self.assertEqual(len(result.content), 1)
        self.assertEqual(registry.call("search_incidents", {"filters": {}, "limit": 2.0}).content, ["E-1474", "E-1502"])
        refused = registry.call("search_incidents", {"filters": {}, "limit": 1.5})
        self.assertEqual(refused.error_kind, "invalid_arguments")
        self.assertIn("$.limit: expected integer, got number 1.5", refused.message)

    def test_replaced_parameters_take_effect_at_the_next_call(self):
        def count(n: float) -> str:
            """Return n with its Python type."""
            return f"{type(n).__name__} {n}"

        registry = ToolRegistry([tool_from_function(count)])
        tool = registry.get("count")
        for schema, expected in [({"type": "integer"}, "int 5"), ({"type": "number"}, "float 5.0"),
                                 ({"type": "integer"}, "int 5")]:
            tool.parameters = {"type": "object", "properties": {"n": schema}}
            with self.subTest(schema=schema):
                self.assertEqual(registry.call("count", {"n": 5.0}).content, expected)
        tool.parameters = {"type": "object", "properties": {"n": {"type": "string"}}}
        self.assertIn("$.n: expected string, got integer 5", registry.call("count", {"n": 5}).message)

    def test_types_from_hints_nested_included(self):
        received = {}

        def probe(a: int, b: list[int], c: dict[str, int], d: tuple[int, float], e: Optional[int],
                  f: int | str, g: float, h: list[list[int]], i: Optional[list[int]] = None) -> str:
            """Record what arrives."""
            received.update(a=a, b=b, c=c, d=d, e=e, f=f, g=g, h=h, i=i)
            return "ok"

        registry = ToolRegistry([tool_from_function(probe)])
        arguments = {"a": 1.0, "b": [1.0, 2], "c": {"k": 3.0}, "d": [4.0, 5.0], "e": 6.0, "f": 7.0, "g": 8.0,
                     "h": [[9.0], []], "i": [10.0]}
        sent = typed(arguments)
        result = registry.call("probe", arguments)
        self.assertTrue(result.ok, result.message)
        expected = {  # integer where the hint says int; float stays float (2.0 for a float stays 2.0)
            "a": ("int", 1), "b": ("list", [("int", 1), ("int", 2)]), "c": ("dict", {"k": ("int", 3)}),
            "d": ("list", [("int", 4), ("float", 5.0)]), "e": ("int", 6), "f": ("int", 7), "g": ("float", 8.0),
            "h": ("list", [("list", [("int", 9)]), ("list", [])]), "i": ("list", [("int", 10)]),
        }
        for name, want in expected.items():
            with self.subTest(parameter=name):
                self.assertEqual(typed(received[name]), want)
        self.assertEqual(typed(arguments), sent)  # the caller's dict is not changed

    def test_numbers_stay_as_written(self):
        received = []

        def scale(factor: float, text: int | str = "x") -> str:
            """Record what arrives."""
            received.append((factor, text))
            return "ok"

        registry = ToolRegistry([tool_from_function(scale)])
        for arguments, want in [({"factor": 2.5}, [("float", 2.5), ("str", "x")]),
                                ({"factor": 2.0}, [("float", 2.0), ("str", "x")]),
                                ({"factor": 2}, [("int", 2), ("str", "x")]),
                                ({"factor": 1.0, "text": "7.0"}, [("float", 1.0), ("str", "7.0")])]:
            with self.subTest(arguments=arguments):
                received.clear()
                self.assertTrue(registry.call("scale", arguments).ok)
                self.assertEqual([typed(v) for v in received[0]], want)

    def test_hand_written_schema_with_refs_and_one_of(self):
        received = []
        schema = {
            "type": "object",
            "$defs": {"count": {"type": "integer", "minimum": 0}},
            "properties": {
                "n": {"$ref": "#/$defs/count"},
                "v": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
                "w": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/count"}}]},
                "x": {"oneOf": [{"type": "integer", "minimum": 10}, {"type": "number", "maximum": 5}]},
            },
            "required": ["n"],
            "additionalProperties": False,
        }
        registry = ToolRegistry([Tool("record", "Record what arrives.", schema,
                                      lambda **kw: received.append(kw) or "ok")])
        cases = [
            ({"n": 2.0}, {"n": ("int", 2)}),
            ({"n": 2.0, "v": 3.0, "w": [1.0, 2.0]}, {"n": ("int", 2), "v": ("int", 3),
                                                   "w": ("list", [("int", 1), ("int", 2)])}),
            ({"n": 0, "v": "3.0", "w": "1.0"}, {"n": ("int", 0), "v": ("str", "3.0"), "w": ("str", "1.0")}),
            ({"n": 1.0, "x": 12.0}, {"n": ("int", 1), "x": ("int", 12)}),  # matched the integer branch
            ({"n": 1.0, "x": 3.0}, {"n": ("int", 1), "x": ("float", 3.0)}),  # matched the number branch
        ]
        for arguments, want in cases:
            with self.subTest(arguments=arguments):
                received.clear()
                sent = typed(arguments)
                result = registry.call("record", arguments)
                self.assertTrue(result.ok, result.message)
                self.assertEqual(typed(received[0]), ("dict", want))
                self.assertEqual(typed(arguments), sent)
        for arguments in ({"n": 1.5}, {"n": -1.0}, {"n": 1, "v": 2.5}, {"n": 1, "w": [0.5]}, {"n": 1, "x": 7.0}):
            with self.subTest(refused=arguments):
                self.assertEqual(registry.call("record", arguments).error_kind, "invalid_arguments")


class OrrinGridData(unittest.TestCase):
    """Each back end owns its data; the tools hand out copies, so a caller cannot change the records."""

    def test_mutating_a_result_changes_nothing(self):
        cases = [  # (tool, arguments, key to overwrite, its seed value)
            ("get_incident", {"code": "E-1474"}, "cause", "a tree branch across the 11 kV feeder"),
            ("get_incident", {"code": "E-1502"}, "status", "open"),
            ("get_substation", {"substation_id": "SS-218"}, "maintainer", "Dana Okafor"),
            ("get_substation", {"substation_id": "SS-031"}, "capacity_mw", 90),
        ]
        for name, arguments, key, seed in cases:
            with self.subTest(tool=name, key=key):
                registry, _ = orrin_grid_registry()
                first = registry.call(name, arguments).content
                self.assertEqual(first[key], seed)
                first[key] = "tampered"
                self.assertEqual(registry.call(name, arguments).content[key], seed)  # same registry
                self.assertEqual(orrin_grid_registry()[0].call(name, arguments).content[key], seed)  # a new one

    def test_mutating_a_ticket_changes_nothing(self):
        registry, grid = orrin_grid_registry()
        ticket = registry.call("create_ticket", {"substation_id": "SS-218", "summary": "relay trips",
                                                 "priority": "high"}).content
        self.assertEqual(ticket, {"ticket": "WO-5001", "substation_id": "SS-218", "summary": "relay trips",
                                  "priority": "high"})
        ticket["priority"] = "low"
        ticket["ticket"] = "WO-9999"
        self.assertEqual((grid.tickets[0]["ticket"], grid.tickets[0]["priority"]), ("WO-5001", "high"))
        second = registry.call("create_ticket", {"substation_id": "SS-031", "summary": "fan noise"}).content
        self.assertEqual((second["ticket"], second["priority"]), ("WO-5002", "normal"))
        self.assertEqual(orrin_grid_registry()[1].tickets, [])

    def test_two_registries_do_not_share_tickets_or_records(self):
        (one, grid_one), (two, grid_two) = orrin_grid_registry(), orrin_grid_registry()
        one.call("create_ticket", {"substation_id": "SS-218", "summary": "a"})
        one.call("create_ticket", {"substation_id": "SS-218", "summary": "b"})
        made = two.call("create_ticket", {"substation_id": "SS-031", "summary": "c"}).content
        self.assertEqual(made["ticket"], "WO-5001")  # numbering starts afresh on each back end
        self.assertEqual(([t["ticket"] for t in grid_one.tickets], [t["ticket"] for t in grid_two.tickets]),
                         (["WO-5001", "WO-5002"], ["WO-5001"]))
        grid_one.incidents["E-1474"]["status"] = "open"  # one back end's change stays there
        self.assertEqual(one.call("search_incidents", {"filters": {"status": "open"}}).content, ["E-1474", "E-1502"])
        self.assertEqual(two.call("search_incidents", {"filters": {"status": "open"}}).content, ["E-1502"])
        self.assertEqual(orrin_grid_registry()[0].call("get_incident", {"code": "E-1474"}).content["status"], "resolved")
        grid_one.substations["SS-218"]["maintainer"] = "Ivo Brandt"
        for registry, maintainer in [(one, "Ivo Brandt"), (two, "Dana Okafor"), (orrin_grid_registry()[0], "Dana Okafor")]:
            self.assertEqual(registry.call("get_substation", {"substation_id": "SS-218"}).content["maintainer"], maintainer)

    def test_a_given_back_end_is_shared_by_its_registries(self):
        grid = OrrinGrid()
        first, _ = orrin_grid_registry(grid)
        second, same = orrin_grid_registry(grid)
        first.call("create_ticket", {"substation_id": "SS-218", "summary": "a"})
        self.assertIs(same, grid)
        self.assertEqual(second.call("create_ticket", {"substation_id": "SS-218", "summary": "b"}).content["ticket"],
                         "WO-5002")


if __name__ == "__main__":
    unittest.main()
