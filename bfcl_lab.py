"""bfcl_lab: grading one tool call the way the Berkeley Function-Calling Leaderboard does: by AST and by execution.

What it implements (lecture 001 section 7.1, handout code 06 demo 1; lecture 000's three BFCL examples):
  1. Nine questions in BFCL's own data format (a question with its function documents; a
     possible answer listing every acceptable value per parameter, "" marking an optional
     parameter that may be left out), over the five categories: simple, multiple, parallel,
     parallel_multiple, irrelevance.
  2. `ast_grade(func_docs, possible_answer, model_calls, category)`: BFCL's AST checker rule
     for rule, quirks included (bfcl-eval, eval_checker/ast_eval/ast_checker.py, and the
     runner's decoder-format and irrelevance checks), on BFCL's own data shapes.
  3. `exec_grade`: the calls run against real Python functions through a tool_core registry,
     results compared with the gold calls' results.
  4. Two hand-written models answering in the text protocol, parsed by tool_core's robust
     parser (a malformed call is its own outcome, never "no call").
  5. A loader and grader for real BFCL files: `python3 bfcl_lab.py grade QUESTIONS
     POSSIBLE_ANSWERS RESULTS`.
  6. The demo behind scripts/06_evaluation.py (demo 1).

BFCL's behaviour, kept on purpose (each is a quirk of the official checker, so a grader that
differs is not a BFCL grader): only keyword arguments count (a positional argument is dropped
by the decoder); parallel calls are matched greedily, each expected call taking the first
unmatched output that passes, so a correct answer in an unusual order can fail
(`optimal=True` pairs them properly instead, an explicit departure); a bool is not an int,
5.0 is not an int, but an int passes for a float at the top level of a float parameter
only; strings are compared after dropping spaces and , . / - _ * ^ and lower-casing; a
nested type check passes as soon as "" is among the options, and an empty list passes where
"" marks a list parameter optional.

What it leaves out: Java and JavaScript entries (their type converters), multi-turn and
agentic categories (state-based), and the decoder's eval of arithmetic and lambdas in
arguments: model-written text is never evaluated here (arithmetic goes through
tool_core.calculate; a lambda is a decode failure). Two more departures in the decoder: BFCL
reads every unary operator as minus (+5 becomes -5, a bug); we read only minus and refuse the
rest; and a **kwargs argument is dropped instead of kept under the key None.
"""
from __future__ import annotations

import ast
import json
import math
import re
import time
from dataclasses import dataclass, field

import tool_core
from tool_core import JSON, ParseError, ToolCall, ToolRegistry, format_table

# ---------------------------------------------------------------------------------------------
# --- 1. Nine questions in BFCL's format ---
# ---------------------------------------------------------------------------------------------

def _doc(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {"name": name, "description": description,
            "parameters": {"type": "dict", "properties": properties, "required": required}}


ADD = _doc("add", "Add two integers.", {"a": {"type": "integer", "description": "the first number"},
                                        "b": {"type": "integer", "description": "the second number"}}, ["a", "b"])
MULT = _doc("mult", "Multiply two integers.", {"a": {"type": "integer", "description": "the first factor"},
                                               "b": {"type": "integer", "description": "the second factor"}}, ["a", "b"])
CONVERT = _doc("convert_temperature", "Convert a temperature between Fahrenheit and Celsius.",
               {"value": {"type": "float", "description": "the temperature to convert"},
                "from_unit": {"type": "string", "enum": ["fahrenheit", "celsius"]},
                "to_unit": {"type": "string", "enum": ["fahrenheit", "celsius"]}}, ["value", "from_unit", "to_unit"])
WEATHER = _doc("get_weather", "Get today's weather in a city.",
               {"city": {"type": "string", "description": "the city, e.g. 'San Francisco, CA'"},
                "unit": {"type": "string", "enum": ["fahrenheit", "celsius"], "description": "default fahrenheit"}},
               ["city"])

QUESTIONS = [  # BFCL's question format: id, the user turn, the function documents
    {"id": "simple_0", "question": [[{"role": "user", "content": "What is 2 + 3?"}]], "function": [ADD]},
    {"id": "simple_1", "question": [[{"role": "user", "content": "Convert 100 degrees Fahrenheit to Celsius."}]],
     "function": [CONVERT]},
    {"id": "simple_2", "question": [[{"role": "user", "content": "What's the weather in San Francisco?"}]],
     "function": [WEATHER]},
    {"id": "multiple_0", "question": [[{"role": "user", "content": "What is 2 + 3?"}]], "function": [ADD, MULT]},
    {"id": "multiple_1", "question": [[{"role": "user", "content": "What is 6 times 7?"}]], "function": [ADD, MULT]},
    {"id": "parallel_0", "question": [[{"role": "user", "content": "What are (2 + 3) and (4 + 5)?"}]], "function": [ADD]},
    {"id": "parallel_multiple_0", "question": [[{"role": "user", "content": "What is 2 + 3, and what is 4 times 5?"}]],
     "function": [ADD, MULT]},
    {"id": "irrelevance_0", "question": [[{"role": "user", "content": "What is 2 x 3?"}]], "function": [ADD]},
    {"id": "irrelevance_1", "question": [[{"role": "user", "content": "Will it rain in Paris tomorrow?"}]],
     "function": [ADD, MULT]},
]
POSSIBLE_ANSWERS = [  # BFCL's possible-answer format: per parameter every acceptable value; "" = may be left out
    {"id": "simple_0", "ground_truth": [{"add": {"a": [2], "b": [3]}}]},
    {"id": "simple_1", "ground_truth": [{"convert_temperature": {"value": [100.0], "from_unit": ["fahrenheit"],
                                                                 "to_unit": ["celsius"]}}]},
    {"id": "simple_2", "ground_truth": [{"get_weather": {"city": ["San Francisco", "San Francisco, CA", "SF"],
                                                         "unit": ["", "fahrenheit"]}}]},
    {"id": "multiple_0", "ground_truth": [{"add": {"a": [2], "b": [3]}}]},
    {"id": "multiple_1", "ground_truth": [{"mult": {"a": [6], "b": [7]}}]},
    {"id": "parallel_0", "ground_truth": [{"add": {"a": [2], "b": [3]}}, {"add": {"a": [4], "b": [5]}}]},
    {"id": "parallel_multiple_0", "ground_truth": [{"add": {"a": [2], "b": [3]}}, {"mult": {"a": [4], "b": [5]}}]},
    {"id": "irrelevance_0", "ground_truth": []},
    {"id": "irrelevance_1", "ground_truth": []},
]


def category_of(entry_id: str) -> str:
    """Read the category from a BFCL id. Example: 'parallel_multiple_12' -> 'parallel_multiple'; 'live_simple_3-2-1' -> 'live_simple'"""
    return entry_id.split(":")[0].rsplit("_", 1)[0]


# ---------------------------------------------------------------------------------------------
# --- 2. The AST grader, as BFCL's checker decides ---
# ---------------------------------------------------------------------------------------------

PYTHON_TYPES = {"string": str, "integer": int, "float": float, "boolean": bool, "array": list, "tuple": list,
                "dict": dict, "any": str}


@dataclass
class Verdict:
    """A grader's decision on one entry: valid, BFCL's error type, and a message saying why."""

    valid: bool
    error_type: str = ""
    message: str = ""


PASS = Verdict(True)


def is_call_list(decoded: JSON) -> bool:
    """Say whether decoded output has BFCL's shape [{name: {param: value}}] (an empty list counts)."""
    return isinstance(decoded, list) and all(
        isinstance(item, dict) and len(item) == 1 and isinstance(next(iter(item.values())), dict) for item in decoded)


def is_empty_output(decoded: JSON) -> bool:
    """Say whether decoded output holds no call: [], [{}], or anything not in the call-list shape (BFCL's rule)."""
    return not is_call_list(decoded) or len(decoded) == 0 or (len(decoded) == 1 and len(decoded[0]) == 0)


def ast_grade(func_docs: list[dict], possible_answer: list[dict], model_calls: JSON, category: str, *,
              dots_to_underscores: bool = False, optimal: bool = False) -> Verdict:
    """Grade decoded model output on BFCL's data shapes, as BFCL's AST checker does.

    model_calls: the decoded output [{name: {param: value}}] (or None when decoding failed).
    category: BFCL's (simple, multiple, parallel, parallel_multiple, irrelevance, live_...).
    dots_to_underscores: the function-calling models' name mapping (a.b -> a_b), BFCL's
    underscore_to_dot option. optimal=True pairs parallel calls optimally (a departure).
    Example: ast_grade([ADD], [{"add": {"a": [2], "b": [3]}}], [{"add": {"a": 2, "b": 3}}], "simple") -> valid
    """
    if "irrelevance" in category or category.endswith("relevance"):
        called = model_calls is not None and not is_empty_output(model_calls)
        if "irrelevance" in category:
            return Verdict(False, "irrelevance_error:decoder_success",
                           "Valid syntax. Successfully decode AST when it should not.") if called else PASS
        return PASS if called else Verdict(False, "relevance_error:decoder_failed", "Failed to decode a call.")
    if model_calls is None:
        return Verdict(False, "ast_decoder:decoder_failed", "Invalid syntax. Failed to decode AST.")
    if not is_call_list(model_calls):
        return Verdict(False, "ast_decoder:decoder_wrong_output_format", "Did not output in the specified format.")
    if "parallel" in category:
        return _parallel(func_docs, model_calls, possible_answer, dots_to_underscores, optimal)
    if "multiple" in category:
        if len(model_calls) != len(possible_answer):
            return Verdict(False, "multiple_function_checker:wrong_count", "Wrong number of functions.")
        expected = next(iter(possible_answer[0]))
        return check_call(_find_doc(func_docs, expected), model_calls[0], possible_answer[0], dots_to_underscores)
    if len(model_calls) != 1:
        return Verdict(False, "simple_function_checker:wrong_count", "Wrong number of functions.")
    return check_call(func_docs[0], model_calls[0], possible_answer[0], dots_to_underscores)


def _find_doc(func_docs: list[dict] | dict, name: str) -> dict | None:
    if isinstance(func_docs, dict):
        return func_docs  # BFCL: a single document may stand alone
    return next((d for d in func_docs if d["name"] == name), None)


def _parallel(func_docs: list[dict], calls: list[dict], answers: list[dict], dots: bool, optimal: bool) -> Verdict:
    """Match every expected call to a distinct output call: greedily, as BFCL does, or optimally if asked."""
    if len(calls) != len(answers):
        return Verdict(False, "parallel_function_checker_no_order:wrong_count", "Wrong number of functions.")
    if optimal:
        ok = [[check_call(_find_doc(func_docs, next(iter(a))), c, a, dots).valid for c in calls] for a in answers]
        if _perfect_matching(ok):
            return PASS
        return Verdict(False, "parallel_function_checker_no_order:cannot_find_match", "No pairing passes every call.")
    used: set[int] = set()
    for i, answer in enumerate(answers):
        doc = _find_doc(func_docs, next(iter(answer)))
        for j, call in enumerate(calls):
            if j not in used and check_call(doc, call, answer, dots).valid:
                used.add(j)  # subtle: the first output that passes is taken, even if a later expected call needed it
                break
        else:
            left = [j for j in range(len(calls)) if j not in used]
            return Verdict(False, "parallel_function_checker_no_order:cannot_find_match",
                           f"Could not find a matching function among index {left} of model output for index {i} "
                           "of possible answers.")
    return PASS


def _perfect_matching(ok: list[list[bool]]) -> bool:
    """Say whether every expected call i can have its own output call j with ok[i][j] (Kuhn's augmenting paths).

    Polynomial where trying every pairing is factorial: 10 calls were 3.6 million orders.
    Example: [[True, True], [True, False]] -> True (expected 1 takes output 0, so expected 0 takes output 1)
    """
    owner: dict[int, int] = {}  # output call -> the expected call it is paired with

    def place(i: int, seen: set[int]) -> bool:
        for j, fits in enumerate(ok[i]):
            if fits and j not in seen:
                seen.add(j)
                if j not in owner or place(owner[j], seen):
                    owner[j] = i
                    return True
        return False
    return all(place(i, set()) for i in range(len(ok)))


def check_call(doc: dict | None, call: dict, answer: dict, dots_to_underscores: bool = False) -> Verdict:
    """Check one output call {name: {param: value}} against one expected call (BFCL's simple function checker)."""
    if doc is None:
        return Verdict(False, "simple_function_checker:wrong_func_name", "No function document for the expected name.")
    options = next(iter(answer.values()))
    name = doc["name"].replace(".", "_") if dots_to_underscores else doc["name"]
    if name not in call:
        return Verdict(False, "simple_function_checker:wrong_func_name", f"Function name {name!r} not found in model output.")
    given, properties = call[name], doc["parameters"]["properties"]
    for param in doc["parameters"].get("required", []):  # required by the document wins over "" in the answer
        if param not in given:
            return Verdict(False, "simple_function_checker:missing_required", f"Missing required parameter: {param!r}.")
    for param, value in given.items():
        if param not in properties or param not in options:
            return Verdict(False, "simple_function_checker:unexpected_param", f"Unexpected parameter: {param!r}.")
        verdict = _check_value(param, value, properties[param], options[param])
        if not verdict.valid:
            return verdict
    for param, allowed in options.items():
        if param not in given and "" not in allowed:
            return Verdict(False, "simple_function_checker:missing_optional",
                           f"Optional parameter {param!r} not provided and not marked as optional.")
    return PASS


def _check_value(param: str, value: JSON, spec: dict, options: list) -> Verdict:
    """Check one parameter's type, then its value against the acceptable options."""
    type_name = spec.get("type")
    if type_name not in PYTHON_TYPES:
        raise ValueError(f"unknown parameter type {type_name!r} for {param!r}; BFCL's Python types are {sorted(PYTHON_TYPES)}")
    expected = PYTHON_TYPES[type_name]
    inner = None
    if type_name in ("array", "tuple"):  # BFCL reads the item type too, and cannot grade without a known one
        item_type = spec.get("items", {}).get("type") if isinstance(spec.get("items"), dict) else None
        if item_type not in PYTHON_TYPES:
            raise ValueError(f"parameter {param!r} is an {type_name} whose item type {item_type!r} is not one of "
                             f"{sorted(PYTHON_TYPES)}")
        inner = PYTHON_TYPES[item_type]
    if type_name == "tuple" and type(value) is tuple:
        value = list(value)
    if type_name == "float" and type(value) is int:
        value = float(value)  # Python's own int -> float promotion, at the top level only
    verdict, is_variable = _type_check(param, value, options, type_name, expected, inner)
    if not verdict.valid:
        return verdict
    if not is_variable:
        if expected is dict:
            return _dict_check(param, value, options)
        if expected is list and inner is dict:
            return _list_of_dicts_check(param, value, options)
        if expected is str:
            return _string_check(param, value, options)
        if expected is list:
            return _list_check(param, value, options)
    if value not in options:
        return Verdict(False, "value_error:others", f"Invalid value for parameter {param!r}: {value!r}. Expected one of {options}.")
    return PASS


def _answer_type(options: list) -> type | None:
    return next((type(o) for o in options if o != ""), None)


def _type_check(param: str, value: JSON, options: list, type_name: str, expected: type,
                inner: type | None) -> tuple[Verdict, bool]:
    """Return (verdict, is_variable). A "variable" is an answer whose options have another type than the
    document's; then a value of the options' type passes and is compared exactly."""
    answer_type = _answer_type(options)
    is_variable = answer_type is not None and answer_type is not expected
    if type(value) is expected:
        if inner is None:
            return PASS, is_variable
        for option in options:
            # subtle: BFCL's nested check passes as soon as an option is not a list (e.g. "" listed first)
            if type(option) is not list or all(_type_check(param, item, option, str(inner), inner, None)[0].valid
                                               for item in value):
                return PASS, is_variable
        nested = Verdict(False, "type_error:nested", f"Nested type checking failed for parameter {param!r}. Expected "
                         f"outer type {type_name} with inner type {inner}. Parameter value: {value!r}.")
        return (nested, True) if type(value) is answer_type else (Verdict(
            False, "type_error:simple", f"{nested.message} Incorrect type for parameter {param!r}. Expected type "
            f"{type_name}, got {type(value).__name__}. Parameter value: {value!r}."), False)
    if answer_type is not None and type(value) is answer_type:
        return PASS, True
    return Verdict(False, "type_error:simple", f"Incorrect type for parameter {param!r}. Expected type {type_name}, "
                   f"got {type(value).__name__}. Parameter value: {value!r}."), False


_STRIP = re.compile(r"[ ,./\-_*^]")


def standardize(text: str) -> str:
    """Normalise a string as BFCL compares them. Example: "San Francisco, CA" -> 'sanfranciscoca'"""
    return _STRIP.sub("", text).lower().replace("'", '"')


def _string_check(param: str, value: str, options: list) -> Verdict:
    if standardize(value) not in [standardize(o) for o in options if type(o) is str]:
        return Verdict(False, "value_error:string", f"Invalid value for parameter {param!r}: {value!r}. "
                       f"Expected one of {options}. Case insensitive.")
    return PASS


def _list_check(param: str, value: list, options: list) -> Verdict:
    norm = [standardize(v) if type(v) is str else v for v in value]
    # subtle: BFCL walks every option item by item, so the optional marker "" becomes [] and an empty list passes
    candidates = [[standardize(x) if type(x) is str else x for x in o] for o in options if isinstance(o, (list, str))]
    if norm not in candidates:
        return Verdict(False, "value_error:list/tuple", f"Invalid value for parameter {param!r}: {value!r}. "
                       f"Expected one of {options}.")
    return PASS


def _dict_check(param: str, value: dict, options: list) -> Verdict:
    """Compare a dict one level deep with each option; a key may be missing only if "" is among its options."""
    verdict = Verdict(False, "dict_checker:unclear", "")
    for option in options:
        if option == "":
            continue
        verdict = _dict_against(value, option)
        if verdict.valid:
            return PASS
    return verdict


def _dict_against(value: dict, option: dict) -> Verdict:
    verdict = PASS
    for key, item in value.items():
        if key not in option:
            verdict = Verdict(False, "value_error:dict_key", f"Unexpected dict key parameter: {key!r}.")
            break
        allowed = [standardize(x) if type(x) is str else x for x in option[key]]
        if (standardize(item) if type(item) is str else item) not in allowed:
            verdict = Verdict(False, "value_error:dict_value", f"Invalid value for parameter {key!r}: {item!r}. "
                              f"Expected one of {allowed}.")
            break
    for key, allowed in option.items():  # subtle: BFCL checks for missing keys even after a bad value, and says so last
        if key not in value and "" not in allowed:
            return Verdict(False, "value_error:dict_key", f"Missing dict key parameter: {key!r}.")
    return verdict


def _list_of_dicts_check(param: str, value: list, options: list) -> Verdict:
    verdict = Verdict(False, "list_dict_checker:unclear", "")
    for option in options:
        if not isinstance(option, (list, str)) or len(value) != len(option):  # "" has length 0: [] passes it
            verdict = Verdict(False, "value_error:list_dict_count", "Wrong number of dictionaries in the list.")
            continue
        for item, expected in zip(value, option):
            verdict = _dict_check(param, item, [expected]) if isinstance(item, dict) else Verdict(
                False, "value_error:dict_value", f"Expected a dict in {param!r}, got {item!r}.")
            if not verdict.valid:
                break
        else:
            return PASS
    return verdict


# ---------------------------------------------------------------------------------------------
# --- 3. Decoding what a model wrote: BFCL's Python-call strings, FC lists, our text protocol ---
# ---------------------------------------------------------------------------------------------

class DecodeError(ValueError):
    """Raised when model output cannot be read as calls (BFCL: ast_decoder:decoder_failed)."""


def decode_python_calls(text: str) -> list[dict]:
    """Read BFCL's prompting format "[f(a=1), g(b='x')]" into [{f: {a: 1}}, ...], as its decoder does, never evaluating.

    Only keyword arguments count (BFCL drops positional ones). A bare name becomes its text (a
    "variable"); arithmetic is computed by tool_core.calculate; a call without keywords becomes
    its source text; lambdas and other expressions are a DecodeError.
    Example: "[add(a=2, b=3)]" -> [{'add': {'a': 2, 'b': 3}}]
    """
    cleaned = text.strip().strip("`\n ")
    if not cleaned.startswith("["):
        cleaned = "[" + cleaned
    if not cleaned.endswith("]"):
        cleaned += "]"
    try:
        tree = ast.parse(cleaned, mode="eval").body
    except (SyntaxError, ValueError, RecursionError) as exc:
        raise DecodeError(f"not Python call syntax: {exc}") from None
    elements = tree.elts if isinstance(tree, (ast.List, ast.Tuple)) else [tree]
    out = []
    for element in elements:
        try:
            if not isinstance(element, ast.Call):
                raise DecodeError(f"expected a call, got {ast.unparse(element)[:60]!r}")
            out.append(_resolve_call(element))
        except (TypeError, AttributeError, RecursionError) as exc:  # {[1]: 2}, {**x}, 500 nested operators, ...
            raise DecodeError(f"cannot read the call: {type(exc).__name__}: {str(exc)[:80]}") from None
    return out


def _resolve_call(call: ast.Call) -> dict:
    parts, node = [], call.func
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return {".".join(reversed(parts)): {k.arg: _resolve_value(k.value) for k in call.keywords if k.arg is not None}}


def _resolve_value(node: ast.AST) -> JSON:
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) in (int, float, complex):
        return -node.operand.value
    if isinstance(node, ast.List):
        return [_resolve_value(v) for v in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_resolve_value(v) for v in node.elts)
    if isinstance(node, ast.Dict):
        return {_resolve_value(k): _resolve_value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return _resolve_call(node) if node.keywords else ast.unparse(node)
    if isinstance(node, ast.Subscript):
        return ast.unparse(node)
    if isinstance(node, ast.BinOp):
        try:
            return tool_core.calculate(ast.unparse(node))  # BFCL evaluates it; we compute arithmetic safely
        except ValueError as exc:
            raise DecodeError(f"cannot read {ast.unparse(node)[:60]!r} as a value: {exc}") from None
    raise DecodeError(f"unsupported argument {ast.unparse(node)[:60]!r} ({type(node).__name__})")


_LOOKS_LIKE_CALLS = re.compile(r"\s*`*\s*\[?\s*[A-Za-z_][\w.]*\s*\(")


def decode_result(result: JSON) -> tuple[list[dict] | None, str]:
    """Decode one model result into BFCL's call list; return (calls or None, what happened).

    Accepts our text protocol (<tool_call> blocks, read by tool_core's robust parser: a
    malformed call makes the whole output a decode failure, never "no call"), BFCL's
    prompting strings, and function-calling lists [{name: "<JSON arguments>"}].
    """
    if isinstance(result, list):
        if not result:
            return [], "no call (no tool call in the reply)"
        calls = []
        for item in result:
            if isinstance(item, ParseError):  # a native call the vendor's dialect could not read
                return None, f"malformed call ({item.kind}: {item.message})"
            if not (isinstance(item, dict) and len(item) == 1):
                return None, f"a function-calling result must be a list of one-key objects, got {tool_core.show(item)}"
            name, arguments = next(iter(item.items()))
            if isinstance(arguments, str):
                try:
                    arguments = json.loads(arguments or "{}")  # some compatible servers send "" for no arguments
                except (ValueError, RecursionError) as exc:
                    return None, f"the arguments of {name} are not JSON: {exc}"
            calls.append({name: arguments})
        return calls, "function-calling list"
    if not isinstance(result, str):
        return None, f"a result must be a string or a list, got {tool_core.describe(result)}"
    if tool_core.OPEN in result:
        parsed = tool_core.parse_tool_calls(result)
        if parsed.errors:
            return None, f"malformed call ({parsed.errors[0].kind})"
        return [{c.name: c.arguments} for c in parsed.calls], "text protocol"
    if not _LOOKS_LIKE_CALLS.match(result):
        return None, "no call (plain text)"  # BFCL's decoder would fail on it too: the same verdicts
    try:
        return decode_python_calls(result), "Python calls"
    except DecodeError as exc:
        return None, f"no call ({exc})"


# ---------------------------------------------------------------------------------------------
# --- 4. The execution grader: run the calls, compare the results ---
# ---------------------------------------------------------------------------------------------

FORECASTS = {"sanfrancisco": 64, "paris": 59}  # today's high in Fahrenheit, by normalised city name


def bfcl_registry() -> ToolRegistry:
    """Build real Python implementations of the nine questions' functions as a tool_core registry."""
    registry = ToolRegistry()

    @registry.tool(read_only=True)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @registry.tool(read_only=True)
    def mult(a: int, b: int) -> int:
        """Multiply two integers."""
        return a * b

    @registry.tool(read_only=True)
    def convert_temperature(value: float, from_unit: str, to_unit: str) -> float:
        """Convert a temperature between Fahrenheit and Celsius."""
        if from_unit == to_unit:
            return value
        return round((value - 32) * 5 / 9, 2) if from_unit == "fahrenheit" else round(value * 9 / 5 + 32, 2)

    @registry.tool(read_only=True)
    def get_weather(city: str, unit: str = "fahrenheit") -> dict:
        """Get today's weather in a city."""
        key = standardize(city.split(",")[0])  # 'San Francisco, California' -> 'sanfrancisco'
        key = {"sf": "sanfrancisco"}.get(key, key)
        if key not in FORECASTS:
            raise LookupError(f"no forecast for {city!r}")
        high = FORECASTS[key]
        return {"city": key, "high": high if unit == "fahrenheit" else round((high - 32) * 5 / 9), "unit": unit}

    return registry


def gold_calls(possible_answer: list[dict]) -> list[dict]:
    """Pick one concrete call per expected call: each parameter's first acceptable value ("" = left out)."""
    out = []
    for expected in possible_answer:
        name, options = next(iter(expected.items()))
        out.append({name: {p: next(v for v in values if v != "") for p, values in options.items()
                           if any(v != "" for v in values)}})
    return out


def _run(registry: ToolRegistry, calls: list[dict]) -> list[tool_core.ToolResult]:
    return [registry.call(name, arguments) for call in calls for name, arguments in call.items()]


def _same(a: JSON, b: JSON) -> bool:
    """Compare results: numbers within 1e-6 relative (a float result may round differently), the rest exactly."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
    return tool_core.json_equal(a, b)


def exec_grade(possible_answer: list[dict], model_calls: list[dict] | None, category: str,
               registry: ToolRegistry | None = None) -> Verdict:
    """Run the model's calls and the gold calls; pass when every result matches (in any order for parallel)."""
    registry = registry or bfcl_registry()
    empty = model_calls is None or is_empty_output(model_calls)
    if "irrelevance" in category:
        return PASS if empty else Verdict(False, "exec:called", "A call was made where no function fits.")
    if model_calls is None:
        return Verdict(False, "exec:decoder_failed", "Nothing could be executed: the output did not decode.")
    got = _run(registry, model_calls)
    failed = [r for r in got if not r.ok]
    if failed:
        return Verdict(False, "exec:execution_error", failed[0].message)
    want = [r.content for r in _run(registry, gold_calls(possible_answer))]
    if len(got) != len(want):
        return Verdict(False, "exec:wrong_count", f"{len(got)} results, expected {len(want)}.")
    left = list(want)
    for result in (r.content for r in got):
        match = next((i for i, w in enumerate(left) if _same(result, w)), None)
        if match is None:
            return Verdict(False, "exec:wrong_result", f"result {tool_core.show(result)} is not among {tool_core.show(want)}.")
        left.pop(match)
    return PASS


# ---------------------------------------------------------------------------------------------
# --- 5. Two hand-written models, and why the graders disagree on them ---
# ---------------------------------------------------------------------------------------------

def _calls(*calls: tuple[str, dict]) -> str:
    return "\n".join(tool_core.call_text(name, arguments) for name, arguments in calls)


# Each response is in the text protocol; the comment says what it is built to show.
MODEL_A = {
    "simple_0": _calls(("add", {"a": 2, "b": 3})),
    "simple_1": _calls(("convert_temperature", {"value": 100, "from_unit": "fahrenheit", "to_unit": "celsius"})),
    "simple_2": _calls(("get_weather", {"city": "San Francisco, California"})),  # right city, unlisted spelling
    "multiple_0": _calls(("add", {"a": 2, "b": 3})),
    "multiple_1": _calls(("mult", {"a": 6, "b": 7})),
    "parallel_0": _calls(("add", {"a": 4, "b": 5}), ("add", {"a": 2, "b": 3})),  # any order is fine
    "parallel_multiple_0": _calls(("add", {"a": 2, "b": 3}), ("mult", {"a": 4, "b": 5})),
    "irrelevance_0": "I can only add here, and 2 x 3 is a multiplication, so I can't compute it with these tools.",
    "irrelevance_1": _calls(("add", {"a": 0, "b": 0})),  # calls something when nothing fits
}
MODEL_B = {
    "simple_0": _calls(("add", {"a": 3, "b": 2})),  # wrong arguments, right result by coincidence
    "simple_1": '<tool_call>{"name": "convert_temperature", "arguments": {"value": 100, "from_unit": "fahr',  # cut off
    "simple_2": _calls(("get_weather", {"city": "SF", "unit": "celsius"})),  # an unlisted unit
    "multiple_0": _calls(("add", {"a": 2, "b": 3})),
    "multiple_1": _calls(("add", {"a": 35, "b": 7})),  # the wrong function, the right number
    "parallel_0": _calls(("add", {"a": 2, "b": 3})),  # one call where two were asked
    "parallel_multiple_0": _calls(("add", {"a": 2, "b": 3}), ("mult", {"a": 4, "b": 5})),
    "irrelevance_0": _calls(("add", {"a": 3, "b": 3})),  # makes 6 out of an addition: a call all the same
    "irrelevance_1": "There is no weather tool here, so I can't tell; a forecast service would know.",
}
REASONS = {  # why the two graders disagree, per (model, question)
    ("A", "simple_2"): "AST: 'San Francisco, California' is not among the listed spellings; execution: same forecast",
    ("B", "simple_0"): "AST: a=3, b=2 is not the listed answer; execution: 3 + 2 = 5 all the same (coincidence)",
    ("B", "multiple_1"): "AST: add is the wrong function; execution: 35 + 7 = 42 = 6 x 7 (coincidence)",
}


@dataclass
class Graded:
    """One model's answer to one question under both graders."""

    question: str
    decoded: list[dict] | None
    how: str
    ast: Verdict
    exec: Verdict


def grade_model(responses: dict[str, str], questions: list[dict] = QUESTIONS,
                answers: list[dict] = POSSIBLE_ANSWERS) -> list[Graded]:
    """Decode and grade a model's responses to the questions with both graders."""
    truth = {a["id"]: a["ground_truth"] for a in answers}
    registry = bfcl_registry()
    out = []
    for q in questions:
        decoded, how = decode_result(responses.get(q["id"], ""))
        category = category_of(q["id"])
        out.append(Graded(q["id"], decoded, how, ast_grade(q["function"], truth[q["id"]], decoded, category),
                          exec_grade(truth[q["id"]], decoded, category, registry)))
    return out


def _cell(v: Verdict) -> str:
    return "pass" if v.valid else "FAIL " + v.error_type.split(":")[-1]


def demo_bfcl() -> str:
    """Grade two hand-written models on nine questions with the AST and the execution grader, side by side."""
    graded = {"A": grade_model(MODEL_A), "B": grade_model(MODEL_B)}
    rows = []
    for i, q in enumerate(QUESTIONS):
        a, b = graded["A"][i], graded["B"][i]
        why = [f"{m}: {REASONS[(m, q['id'])]}" for m, g in (("A", a), ("B", b))
               if g.ast.valid != g.exec.valid and (m, q["id"]) in REASONS]
        malformed = [f"{m}: {g.how}, graded as such, not as 'no call'" for m, g in (("A", a), ("B", b))
                     if g.how.startswith("malformed")]
        rows.append([q["id"], q["question"][0][0]["content"], _cell(a.ast), _cell(a.exec), _cell(b.ast), _cell(b.exec),
                     "; ".join(why + malformed)])
    totals = {m: (sum(g.ast.valid for g in gs), sum(g.exec.valid for g in gs)) for m, gs in graded.items()}
    greedy = ast_grade([ADD], GREEDY_CASE[0], GREEDY_CASE[1], "parallel")
    optimal = ast_grade([ADD], GREEDY_CASE[0], GREEDY_CASE[1], "parallel", optimal=True)
    return "\n".join([
        format_table(["question", "asks", "A: AST", "A: exec", "B: AST", "B: exec", "why the graders disagree"], rows,
                     [20, 30, 16, 16, 16, 16, 52]),
        "",
        f"Model A: AST {totals['A'][0]}/9, execution {totals['A'][1]}/9.   Model B: AST {totals['B'][0]}/9, "
        f"execution {totals['B'][1]}/9.",
        "AST is only as lenient as the acceptable values listed; execution is fooled by coincidence, and running the",
        "calls for real costs money and can have side effects, which is why BFCL mostly grades by AST.",
        "",
        "BFCL matches parallel calls greedily: expected add(a in [2, 4], b in [3, 5]) then add(a=2, b=3), output",
        f"[add(2, 3), add(4, 5)]: the first expected call takes add(2, 3), the second finds nothing -> "
        f"{greedy.error_type or 'pass'}; an optimal pairing passes ({'pass' if optimal.valid else optimal.error_type})."])


GREEDY_CASE = ([{"add": {"a": [2, 4], "b": [3, 5]}}, {"add": {"a": [2], "b": [3]}}],
               [{"add": {"a": 2, "b": 3}}, {"add": {"a": 4, "b": 5}}])


# ---------------------------------------------------------------------------------------------
# --- 6. Real BFCL files: load, grade, report ---
# ---------------------------------------------------------------------------------------------

@dataclass
class Problem:
    """A line that could not be graded: where it is and what is wrong (counted apart, never a pass or a fail)."""

    file: str
    line: int
    id: str
    message: str


@dataclass
class Report:
    """The outcome of grading BFCL files: verdicts per id, problems, and how long it took."""

    verdicts: dict[str, Verdict] = field(default_factory=dict)
    categories: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    seconds: float = 0.0

    def accuracy(self) -> dict[str, tuple[int, int]]:
        """Return {category: (passed, graded)}."""
        out: dict[str, tuple[int, int]] = {}
        for entry_id, verdict in self.verdicts.items():
            passed, total = out.get(self.categories[entry_id], (0, 0))
            out[self.categories[entry_id]] = (passed + verdict.valid, total + 1)
        return out


def read_jsonl(path: str, report: Report) -> dict[str, tuple[int, dict]]:
    """Read a JSON-lines file into {id: (line number, entry)}; every bad line becomes a Problem."""
    entries: dict[str, tuple[int, dict]] = {}
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        report.problems.append(Problem(path, 0, "", f"cannot read the file as UTF-8 text: {exc}"))
        return entries
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError) as exc:
            report.problems.append(Problem(path, number, "", f"not JSON: {'nested too deeply' if isinstance(exc, RecursionError) else exc}"))
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            report.problems.append(Problem(path, number, "", "each line must be an object with a string 'id'"))
            continue
        if entry["id"] in entries:
            report.problems.append(Problem(path, number, entry["id"], f"the id appears again (first on line "
                                                                       f"{entries[entry['id']][0]})"))
            continue
        entries[entry["id"]] = (number, entry)
    return entries


def grade_files(questions_path: str, answers_path: str, results_path: str, **options) -> Report:
    """Grade a BFCL result file against BFCL question and possible-answer files."""
    report = Report()
    began = time.perf_counter()
    questions = read_jsonl(questions_path, report)
    answers = read_jsonl(answers_path, report)
    results = read_jsonl(results_path, report)
    for entry_id, (number, result) in results.items():
        problem = _grade_entry(entry_id, result, questions, answers, report, options)
        if problem:
            report.problems.append(Problem(results_path, number, entry_id, problem))
    for entry_id, (number, _) in questions.items():
        if entry_id not in results:
            report.problems.append(Problem(questions_path, number, entry_id, "no model result for this question"))
    for entry_id, (number, _) in answers.items():
        if entry_id not in questions:
            report.problems.append(Problem(answers_path, number, entry_id, "an answer with no question"))
    report.seconds = time.perf_counter() - began
    return report


def _grade_entry(entry_id: str, result: dict, questions: dict, answers: dict, report: Report, options: dict) -> str | None:
    """Grade one result; return a problem message instead when it cannot be graded."""
    category = category_of(entry_id)
    if entry_id not in questions:
        return "a result with no question"
    if any(lang in category for lang in ("java", "javascript")) or "multi_turn" in category or category in ("sql", "chatable"):
        return f"category {category!r} is not graded here (Python AST categories only)"
    question = questions[entry_id][1]
    if "irrelevance" not in category and not category.endswith("relevance") and entry_id not in answers:
        return "no possible answer for this id"
    if "result" not in result:
        return "the result line has no 'result' field"
    decoded, how = decode_result(result["result"])
    if decoded is None and how.startswith("a "):
        return f"unknown result shape: {how}"
    truth = answers[entry_id][1].get("ground_truth", []) if entry_id in answers else []
    functions = question.get("function", [])
    if not (isinstance(functions, list) and functions and all(isinstance(f, dict) for f in functions)):
        return "the question must list its functions: 'function' is a non-empty list of function documents"
    if "irrelevance" not in category and not category.endswith("relevance") and not (
            isinstance(truth, list) and truth and all(isinstance(t, dict) and len(t) == 1 for t in truth)):
        return "the possible answer must list its calls: 'ground_truth' is a non-empty list of {function: {parameter: [values]}}"
    try:
        verdict = ast_grade(functions, truth, decoded, category, **options)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, StopIteration, RecursionError) as exc:
        return f"cannot grade: {type(exc).__name__}: {exc}"
    report.verdicts[entry_id], report.categories[entry_id] = verdict, category
    return None


def format_report(report: Report, failures: int = 20) -> str:
    """Write the accuracy per category, the failures with their error types, and every problem line."""
    accuracy = report.accuracy()
    rows = [[c, f"{p}/{t}", f"{p / t:.1%}"] for c, (p, t) in sorted(accuracy.items())]
    passed, total = sum(p for p, _ in accuracy.values()), sum(t for _, t in accuracy.values())
    rows.append(["all", f"{passed}/{total}", f"{passed / total:.1%}" if total else "-"])
    failed = [(i, v) for i, v in report.verdicts.items() if not v.valid]
    lines = [format_table(["category", "passed", "accuracy"], rows), "",
             f"{len(failed)} failure(s)" + (f", the first {failures}:" if len(failed) > failures else ":")]
    lines += [f"  {i}: {v.error_type}: {v.message[:150]}" for i, v in failed[:failures]]
    lines += ["", f"{len(report.problems)} line(s) not graded:"]
    lines += [f"  {p.file}:{p.line}: {p.id or '-'}: {p.message}" for p in report.problems]
    rate = total / report.seconds if report.seconds else 0
    lines += ["", f"graded {total} entries in {report.seconds:.3f} s ({rate:,.0f} per second)"]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# --- 7. A real model: the nine questions through an HTTP API, no SDK (scripts/07_real_llm.py) ---
# ---------------------------------------------------------------------------------------------

ANTHROPIC_MODEL = "claude-sonnet-4-5"  # one constant per API: retired ids break course notebooks; --model overrides
OPENAI_MODEL = "gpt-4o-mini"
# The official SDKs' default bases and rule: a request goes to base_url + its path, nothing inserted.
# OpenAI's base holds the version (.../v1; a compatible server's may be .../v1beta/openai or
# .../api/paas/v4); Anthropic's does not (its path is /v1/messages).
OPENAI_BASE_URL = "https://api.openai.com/v1"
ANTHROPIC_BASE_URL = "https://api.anthropic.com"
_SCHEMA_TYPES = {"dict": "object", "float": "number", "integer": "integer", "string": "string",
                 "boolean": "boolean", "array": "array", "tuple": "array", "any": None}


def bfcl_schema(params: dict) -> dict:
    """Translate a BFCL parameter document into JSON Schema. Example: {"type": "float"} -> {"type": "number"}"""
    kind = params.get("type")
    if kind not in _SCHEMA_TYPES:
        raise ValueError(f"unknown BFCL type {kind!r}; known: {sorted(_SCHEMA_TYPES)}")
    out = {k: v for k, v in params.items() if k in ("description", "enum", "default")}
    if _SCHEMA_TYPES[kind]:
        out["type"] = _SCHEMA_TYPES[kind]
    if "properties" in params:
        out["properties"] = {name: bfcl_schema(sub) for name, sub in params["properties"].items()}
        out["required"] = list(params.get("required", []))
    if isinstance(params.get("items"), dict):
        out["items"] = bfcl_schema(params["items"])
    return out


def bfcl_tools(docs: list[dict], registry: ToolRegistry | None = None) -> list[tool_core.Tool]:
    """Turn BFCL function documents into Tools (what a model is shown), run by the registry's functions where known."""
    registry = registry or bfcl_registry()
    out = []
    for doc in docs:
        known = registry.get(doc["name"])
        out.append(tool_core.Tool(doc["name"], doc.get("description", ""), bfcl_schema(doc["parameters"]),
                                  known.fn if known else (lambda **a: a), read_only=True))
    return out


class LLMError(Exception):
    """A failure talking to a model's API, with what the API said (never the key)."""


@dataclass
class Reply:
    """One model reply: its text, its native calls (when tools went in the vendor's format), and why it stopped."""

    text: str
    calls: list[dict | ParseError] | None = None  # [{name: arguments}] from native tool calling, as the dialect read
    stop_reason: str = ""                         # them; a call it could not read stays in the list as its ParseError
    truncated: bool = False  # cut at max_tokens (or the context window): a call in it may be incomplete
    refused: bool = False  # the model or the API's filter declined: no answer to grade, only its absence
    paused: bool = False  # Anthropic's pause_turn: a long turn stopped midway, to be sent back to go on

    def note(self) -> str:
        """Say how the reply ended when that matters for its grade ('' for a normal end)."""
        if self.refused:
            return f"refused: {self.stop_reason}" + (f", {tool_core.show(self.text, 60)}" if self.text else "")
        if self.paused:
            return "paused (pause_turn): the API stopped a long turn midway; graded as far as it got"
        if not self.truncated:
            return ""
        return "cut at max_tokens" if self.stop_reason in ("max_tokens", "length") else f"cut: {self.stop_reason}"


class HTTPBackend:
    """What the two APIs share: a JSON POST with the SDKs' retries and back-off (see post), clear errors otherwise."""

    def __init__(self, model: str, *, timeout: float = 60.0, max_tokens: int = 512, retries: int = 3,
                 sleep=time.sleep):
        self.model, self.timeout, self.max_tokens, self.retries, self.sleep = model, timeout, max_tokens, retries, sleep
        self.secret = ""

    def post(self, url: str, headers: dict, body: dict) -> dict:
        """POST JSON and return the decoded answer, retrying what the official SDKs retry; else LLMError.

        Retried, with back-off (0.5 s, 1 s, 2 s, ...): 408, 409, 429 and 5xx except 501 (409 is a
        lock timeout at these APIs), a timeout or a dropped connection; not a 429 that says the
        quota or spending limit is used up, and never what an x-should-retry header forbids. A
        retry-after (seconds, or an HTTP date) or retry-after-ms of at most 60 s is obeyed. A refused
        connection (nothing listening at the URL) fails at once. Where this departs from the official
        SDKs: they also retry 501 and every 429; a 501 (not implemented) will not change, and a
        used-up quota does not mend by waiting.
        """
        import http.client
        import urllib.error
        import urllib.request
        data = json.dumps(body).encode("utf-8")
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            request = urllib.request.Request(url, data=data, headers=headers | {"content-type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    payload = json.loads(response.read().decode("utf-8"))
                if not isinstance(payload, dict):
                    raise LLMError(f"{url} answered with JSON that is not an object: {tool_core.show(payload)}")
                if "error" in payload and not ({"choices", "content"} & payload.keys()):  # a 200 that is an error
                    raise LLMError(self._clean(f"{url} answered with an error: {self._api_message(payload)}"))
                return payload
            except urllib.error.HTTPError as exc:
                payload = self._decode(exc.read())
                message = self._api_message(payload)
                if not last and _should_retry(exc.code, exc.headers, payload):
                    self.sleep(_retry_wait(exc.headers, attempt))
                    continue
                raise LLMError(self._clean(f"HTTP {exc.code} from {url}: {message}")) from None
            except (TimeoutError, urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                reason = getattr(exc, "reason", exc)
                if not last and not isinstance(reason, (ConnectionRefusedError, ValueError)):  # no one there: say so now
                    self.sleep(_retry_wait(None, attempt))
                    continue
                reason = getattr(exc, "reason", exc)  # HTTPException: a reply cut short (IncompleteRead) and the like
                raise LLMError(self._clean(f"could not get an answer from {url}: {reason}")) from None
            except ValueError as exc:
                raise LLMError(f"{url} answered with something that is not JSON: {exc}") from None
        raise LLMError(f"{url}: still failing after {self.retries} retries")

    def _decode(self, raw: bytes) -> JSON:
        try:
            return json.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            return self._clean(raw.decode("utf-8", "replace"))[:300]  # redact before cutting: no half a key

    def _api_message(self, payload: JSON) -> str:
        error = payload.get("error", payload) if isinstance(payload, dict) else payload
        return error.get("message", json.dumps(error)) if isinstance(error, dict) else str(error)

    def _clean(self, text: str) -> str:
        return text.replace(self.secret, "[redacted]") if self.secret else text


_USED_UP = ("insufficient_quota", "spend_limit", "billing")  # a 429 that waiting does not mend


def _should_retry(status: int, headers, payload: JSON) -> bool:
    """Say whether an HTTP error from a model's API is worth the same request again (see HTTPBackend.post)."""
    said = (headers.get("x-should-retry") or "").lower() if headers else ""
    if said in ("true", "false"):
        return said == "true"
    error = payload.get("error") if isinstance(payload, dict) else None
    kind = " ".join(str(error.get(k, "")) for k in ("type", "code")) if isinstance(error, dict) else ""
    if status == 429 and any(word in kind for word in _USED_UP):
        return False
    return status == 409 or tool_core.is_retryable(tool_core.ToolExecutionError("", status=status))


def _retry_wait(headers, attempt: int) -> float:
    """Return how long to wait before retry `attempt` + 1: the server's word if at most 60 s, else 0.5 s x 2^attempt."""
    import email.utils
    wait = None
    if headers is not None:
        millis, after = headers.get("retry-after-ms"), headers.get("retry-after")
        try:
            if millis:
                wait = float(millis) / 1000
            elif after:
                try:
                    wait = float(after)
                except ValueError:
                    wait = email.utils.parsedate_to_datetime(after).timestamp() - time.time()
        except (ValueError, TypeError, OverflowError):
            wait = None
    return wait if wait is not None and 0 < wait <= 60 else 0.5 * 2 ** attempt


class AnthropicBackend(HTTPBackend):
    """The Anthropic Messages API over urllib: system + one user turn, stop at <tool_result, tools if native."""

    def __init__(self, key: str, model: str = ANTHROPIC_MODEL, base_url: str = ANTHROPIC_BASE_URL, *,
                 dialect=None, **options):
        if not key and base_url.rstrip("/") == ANTHROPIC_BASE_URL:  # a proxy elsewhere may need none
            raise LLMError("no API key: set ANTHROPIC_API_KEY, or run with --toy (offline) or --base-url")
        super().__init__(model, **options)
        self.secret, self.url = key or "", base_url.rstrip("/") + "/v1/messages"
        self.dialect = dialect or _dialect("Anthropic")

    def complete(self, system: str, user: str, tools: list[dict] | None = None, tool_choice: str | dict | None = None,
                 parallel: bool | None = None) -> Reply:
        """Send one question; return the reply's text, native calls (read by the Anthropic dialect) and stop reason."""
        body = {"model": self.model, "max_tokens": self.max_tokens, "system": system,
                "messages": [{"role": "user", "content": user}], "stop_sequences": tool_core.STOP_SEQUENCES}
        if tools:
            body |= {"tools": tools} | _choice_fields(self.dialect, tool_choice, parallel)
        headers = {"anthropic-version": "2023-06-01"} | ({"x-api-key": self.secret} if self.secret else {})
        data = self.post(self.url, headers, body)
        text, calls = _read_turn(self.dialect, data, self.url)
        stop = data.get("stop_reason") or ""
        return Reply(text, calls if tools else None, stop, stop in ("max_tokens", "model_context_window_exceeded"),
                     refused=stop == "refusal", paused=stop == "pause_turn")


_REASONING_MODEL = re.compile(r"(o\d|gpt-5)")  # OpenAI's model ids that refuse max_tokens and stop


class OpenAIBackend(HTTPBackend):
    """Any OpenAI-compatible Chat Completions endpoint (OpenAI, vLLM, llama.cpp, Ollama) over urllib.

    The URL is base_url + "/chat/completions", the SDK's rule: the base holds the version, e.g.
    http://127.0.0.1:11434/v1 (Ollama), http://127.0.0.1:8000/v1 (vLLM, llama.cpp's server).
    """

    def __init__(self, base_url: str = OPENAI_BASE_URL, key: str | None = None, model: str = OPENAI_MODEL, *,
                 dialect=None, **options):
        super().__init__(model, **options)
        self.secret = key or ""
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.dialect = dialect or _dialect("OpenAI")

    def complete(self, system: str, user: str, tools: list[dict] | None = None, tool_choice: str | dict | None = None,
                 parallel: bool | None = None) -> Reply:
        """Send one question; return the reply's text, native calls (read by the OpenAI dialect) and stop reason.

        OpenAI's reasoning models (o1, o3, o4-mini, gpt-5, ...) take max_completion_tokens and no
        stop sequences; the others, and most compatible servers, take max_tokens and stop.
        """
        body = {"model": self.model, "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
        if _REASONING_MODEL.match(self.model):
            body["max_completion_tokens"] = self.max_tokens
        else:
            body |= {"max_tokens": self.max_tokens, "stop": tool_core.STOP_SEQUENCES}
        if tools:
            body |= {"tools": tools} | _choice_fields(self.dialect, tool_choice, parallel)
        headers = {"authorization": f"Bearer {self.secret}"} if self.secret else {}
        data = self.post(self.url, headers, body)
        choices = data.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
        if choice is None:
            raise LLMError(f"{self.url} answered without a choice to read: {tool_core.show(data, 200)}")
        message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
        text, calls = _read_turn(self.dialect, message, self.url)
        stop, refusal = choice.get("finish_reason") or "", message.get("refusal")
        return Reply(refusal if isinstance(refusal, str) and refusal else text, calls if tools else None,
                     "refusal" if refusal else stop, stop == "length", refused=bool(refusal) or stop == "content_filter")


def _dialect(name: str):
    """Return interfaces' reader of a vendor's format (imported here: issue 21 has the backends read their replies
    with the dialects, the one place bfcl_lab uses another lab module)."""
    import interfaces
    return getattr(interfaces, name)()


def _choice_fields(dialect, tool_choice: str | dict | None, parallel: bool | None) -> dict:
    """Write tool_choice and parallel-call control in the vendor's own form; nothing when neither is asked for."""
    if tool_choice is None and parallel is None:
        return {}
    return dialect.tool_choice(tool_choice or "auto", parallel)


def _read_turn(dialect, turn: JSON, url: str) -> tuple[str, list[dict | ParseError]]:
    """Read a reply's text and calls with the vendor's dialect; a reply it cannot read is an LLMError, never a crash."""
    if not isinstance(turn, dict):
        raise LLMError(f"{url} answered with a reply that is not an object: {tool_core.show(turn, 200)}")
    try:
        text, items = dialect.read_calls(turn)
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        raise LLMError(f"{url} answered with a reply the {dialect.name} reader cannot read "
                       f"({type(exc).__name__}: {exc}): {tool_core.show(turn, 200)}") from None
    return text, [item if isinstance(item, ParseError) else {item.name: item.arguments} for item in items]


class ToyBackend:
    """Offline: answers with model A's hand-written replies (the default when no key or base URL is given)."""

    model = "toy (model A of demo 1)"

    def __init__(self, answers: dict[str, str] | None = None):
        self.answers = answers or MODEL_A

    def complete(self, system: str, user: str, tools: list[dict] | None = None) -> Reply:
        """Look the question up and return model A's reply to it."""
        question = next(q for q in QUESTIONS if q["question"][0][0]["content"] == user)
        return Reply(self.answers[question["id"]], None, "end_turn")


NATIVE_SYSTEM = ("Use the tools you are given when one fits the request, with their exact names and arguments. "
                 "If none fits, answer in plain text without calling any.")


def ask_model(backend, dialect=None, tool_choice: str | dict | None = None,
              parallel: bool | None = None) -> tuple[dict[str, JSON], dict[str, str]]:
    """Put the nine questions to a model; return each answer (text, or native calls) and how it ended.

    dialect None: the text protocol (the tools in the system prompt, calls as <tool_call> text);
    otherwise a dialect of interfaces (e.g. interfaces.Anthropic()) renders the tools natively,
    and tool_choice / parallel go in the vendor's own fields.
    """
    if dialect is None and (tool_choice is not None or parallel is not None):
        raise ValueError("tool_choice and parallel are sent natively: they need a dialect (--native)")
    answers, notes = {}, {}
    for q in QUESTIONS:
        tools = bfcl_tools(q["function"])
        if dialect is None:
            reply = backend.complete(tool_core.render_tool_prompt(tools), q["question"][0][0]["content"])
            answers[q["id"]] = reply.text
        else:  # the tools go in the vendor's own field; only its tool calls count as calls (BFCL's FC mode)
            reply = backend.complete(NATIVE_SYSTEM, q["question"][0][0]["content"], [dialect.tool(t) for t in tools],
                                     **({"tool_choice": tool_choice} if tool_choice is not None else {}),
                                     **({"parallel": parallel} if parallel is not None else {}))
            answers[q["id"]] = reply.calls or []
        notes[q["id"]] = reply.note()
    return answers, notes


def demo_real(backend, dialect=None, tool_choice: str | dict | None = None, parallel: bool | None = None) -> str:
    """Grade a model's answers to the nine questions with both graders, in demo 1's table layout."""
    answers, notes = ask_model(backend, dialect, tool_choice, parallel)
    graded = grade_model(answers)
    rows = [[g.question, _cell(g.ast), _cell(g.exec), g.how + (f" ({notes[g.question]})" if notes[g.question] else "")]
            for g in graded]
    mode = "native tool calling" if dialect is not None else "the text protocol"
    refused = sum(note.startswith("refused") for note in notes.values())
    return "\n".join([
        f"Model: {backend.model}, through {mode}.",
        format_table(["question", "AST", "exec", "what came back"], rows),
        f"AST {sum(g.ast.valid for g in graded)}/9, execution {sum(g.exec.valid for g in graded)}/9. A reply cut at "
        "max_tokens is graded as the truncated call it holds, never as 'no call'."]
        + ([f"{refused} repl{'y was a refusal' if refused == 1 else 'ies were refusals'}: graded as no call, as BFCL "
            "would (a pass only where no tool fits), but no evidence that the model can call tools."] if refused else []))


def main(argv: list[str] | None = None) -> int:
    """The command line: python3 bfcl_lab.py grade QUESTIONS POSSIBLE_ANSWERS RESULTS [--optimal] [--dots-to-underscores]."""
    import argparse
    parser = argparse.ArgumentParser(prog="bfcl_lab.py", description="Grade BFCL-format results with BFCL's AST rules.")
    sub = parser.add_subparsers(dest="command", required=True)
    grade = sub.add_parser("grade", help="grade a result file against question and possible-answer files")
    grade.add_argument("questions")
    grade.add_argument("possible_answers")
    grade.add_argument("results")
    grade.add_argument("--optimal", action="store_true", help="pair parallel calls optimally (BFCL pairs greedily)")
    grade.add_argument("--dots-to-underscores", action="store_true", help="expect a.b as a_b (function-calling models)")
    grade.add_argument("--failures", type=int, default=20, help="how many failures to list (default 20)")
    args = parser.parse_args(argv)
    report = grade_files(args.questions, args.possible_answers, args.results, optimal=args.optimal,
                         dots_to_underscores=args.dots_to_underscores)
    print(format_report(report, args.failures))
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main())
