"""bfcl_lab: grading one tool call the way the Berkeley Function-Calling Leaderboard does: by AST and by execution.

Contents (lecture 001 sections 7.1 and 9, handout code 06 demo 1 and code 07; lecture 000's three
BFCL examples), each chapter with the script and demo that show it:
  1. Nine questions in BFCL's format                           scripts/06 demo 1
     A question with its function documents; a possible answer listing every acceptable value
     per parameter ("" marking an optional parameter that may be left out); the five categories
     simple, multiple, parallel, parallel_multiple, irrelevance.
  2. The AST grader (2b: Java and JavaScript)                  scripts/06 demo 1; `bfcl_lab.py grade`
     `ast_grade(func_docs, possible_answer, model_calls, category)`: BFCL's AST checker rule
     for rule, quirks included (bfcl-eval, eval_checker/ast_eval/ast_checker.py, and the
     runner's decoder-format and irrelevance checks), on BFCL's own data shapes.
  3. Decoding (3b: BFCL's own decoders, per mode)              scripts/06 demo 1; `bfcl_lab.py grade`
  4. The execution grader                                      scripts/06 demo 1
     `exec_grade`: the calls run against real Python functions through a tool_core registry,
     results compared with the gold calls' results.
  5. Two hand-written models                                   scripts/06 demo 1
     They answer in the text protocol, read by tool_core's robust parser (a malformed call is
     its own outcome, never "no call").
  6. Real BFCL files                                           `bfcl_lab.py grade` (and --result-dir)
     Graded as `bfcl evaluate` grades them: each result read by BFCL's decoder
     for the model's format (prompt or fc), every line counted, a file it would stop on refused
     with a reason; one file (`python3 bfcl_lab.py grade QUESTIONS POSSIBLE_ANSWERS RESULTS`), or
     (6b) a result folder as `bfcl generate` writes it (`--result-dir`), with BFCL's score files
     and its data_non_live.csv and data_live.csv, each model under its display name (Appendix C).
  7. A real model through an HTTP API, no SDK                  scripts/07_real_llm.py
     The nine questions put to the Anthropic or any OpenAI-compatible API, replies read by
     interfaces' dialects; streamed or not (stream=True). 7b: each API's event stream, written
     from an answer and read back into it (read_anthropic_stream, read_openai_stream): a call seen
     complete before the reply ends, a stream cut short an error naming what is missing. 7c:
     StandIn, both APIs offline on 127.0.0.1, every request checked as the vendor checks it (the
     coupling rule included) and answered by a policy, the lab's scripted models on the wire.
     7d: APIModel, a backend as a model of tool_core's loop (run_agent, service_env's trials, an
     MCP host), natively or in the text protocol: the conversation rewritten in the vendor's form on
     each request, a request budget, token usage; keys from the environment or a .env file.
     7e: the real-model chapter of scripts/07 (demo_ask, demo_harness, demo_tau_real,
     demo_mcp_host): the lecture's loops on any model, offline on the stand-in.
     The one lab module imported is interfaces (its dialects, coupling rule, SSE reader and
     loopback server), inside the functions that need it.
  Appendices A-C: reading Java and JavaScript call text as BFCL's tree-sitter parsers do (A),
     the official SDKs' retry rules (B), and BFCL's model table (C: display names, each model's mode).

BFCL's behaviour, kept on purpose (each is a quirk of the official checker, so a grader that
differs is not a BFCL grader): only keyword arguments count (a positional argument is dropped
by the decoder); parallel calls are matched greedily, each expected call taking the first
unmatched output that passes, so a correct answer in an unusual order can fail
(`optimal=True` pairs them properly instead, an explicit departure); a bool is not an int,
5.0 is not an int, but an int passes for a float at the top level of a float parameter
only; strings are compared after dropping spaces and , . / - _ * ^ and lower-casing; a
nested type check passes as soon as "" is among the options, and an empty list passes where
"" marks a list parameter optional.

The decoders of `bfcl evaluate` (section 3b) keep their quirks too: every unary operator is read
as minus (+5 becomes -5), a **kwargs argument is kept under the key None, "" and [] are no call.
Model-written text is never evaluated here: where BFCL's decoder calls eval on arithmetic
(1 + 2, 'a' * 3), the lab computes the same value from the constants; a name, a call or a lambda
inside it fails to decode, as BFCL's eval fails on them. The lab's lenient reader
(`decode_result`, for the demos and --lenient) departs on purpose: it reads our text protocol
too, refuses +5, and drops **kwargs.

What it leaves out: multi-turn and agentic categories (state-based), BFCL's handlers' own decoders
(the lab has two, prompt and fc, chosen by the model table's is_fc_model, the model's name, or
--mode), and its CSVs other than data_non_live.csv and data_live.csv (data_overall.csv needs the
multi-turn and agentic scores). The stand-in (7c) leaves out images and documents (their text
only reaches the policy), extended thinking, server tools' results, the Responses API, more than
one choice, and a token budget of its own (a policy says when a turn is cut at max_tokens).
"""
from __future__ import annotations

import ast
import functools
import json
import math
import re
import textwrap
import time
import typing
from dataclasses import dataclass, field, replace

import tool_core
from tool_core import JSON, HandoutFigure, ParseError, ToolCall, ToolRegistry, format_table

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
              dots_to_underscores: bool = False, optimal: bool = False, language: str = "python") -> Verdict:
    """Grade decoded model output on BFCL's data shapes, as BFCL's AST checker does.

    model_calls: the decoded output [{name: {param: value}}] (or None when decoding failed).
    category: BFCL's (simple, multiple, parallel, parallel_multiple, irrelevance, live_...).
    dots_to_underscores: the function-calling models' name mapping (a.b -> a_b), BFCL's
    underscore_to_dot option. optimal=True pairs parallel calls optimally (a departure).
    language: "python", or "java" / "javascript" (language_of(category)), whose argument
    values are source text converted with the document's type first (section 2b).
    Example: ast_grade([ADD], [{"add": {"a": [2], "b": [3]}}], [{"add": {"a": 2, "b": 3}}], "simple") -> valid
    """
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; use one of {LANGUAGES}")
    if "irrelevance" in category or category.endswith("relevance"):
        called = model_calls is not None and not is_empty_output(model_calls)
        if "irrelevance" in category:
            return Verdict(False, "irrelevance_error:decoder_success",
                           "Valid syntax. Successfully decode AST when it should not.") if called else PASS
        return PASS if called else Verdict(False, "relevance_error:decoder_failed", "Invalid syntax. Failed to decode AST when it should have.")
    if model_calls is None:
        return Verdict(False, "ast_decoder:decoder_failed", "Invalid syntax. Failed to decode AST.")
    if not is_call_list(model_calls):
        return Verdict(False, "ast_decoder:decoder_wrong_output_format", "Did not output in the specified format. "
                       "Note: the model_result is wrapped in a string to ensure json serializability.")
    if "parallel" in category:
        return _parallel(func_docs, model_calls, possible_answer, dots_to_underscores, optimal, language)
    if "multiple" in category:
        if len(model_calls) != len(possible_answer):
            return Verdict(False, "multiple_function_checker:wrong_count", "Wrong number of functions.")
        expected = next(iter(possible_answer[0]))
        return check_call(_find_doc(func_docs, expected), model_calls[0], possible_answer[0], dots_to_underscores,
                          language)
    if len(model_calls) != 1:
        return Verdict(False, "simple_function_checker:wrong_count", "Wrong number of functions.")
    return check_call(func_docs[0], model_calls[0], possible_answer[0], dots_to_underscores, language)


def _find_doc(func_docs: list[dict] | dict, name: str) -> dict | None:
    if isinstance(func_docs, dict):
        return func_docs  # BFCL: a single document may stand alone
    return next((d for d in func_docs if d["name"] == name), None)


def _parallel(func_docs: list[dict], calls: list[dict], answers: list[dict], dots: bool, optimal: bool,
              language: str = "python") -> Verdict:
    """Match every expected call to a distinct output call: greedily, as BFCL does, or optimally if asked."""
    if len(calls) != len(answers):
        return Verdict(False, "parallel_function_checker_no_order:wrong_count", "Wrong number of functions.")
    if optimal:
        ok = [[check_call(_find_doc(func_docs, next(iter(a))), c, a, dots, language).valid for c in calls]
              for a in answers]
        if _perfect_matching(ok):
            return PASS
        return Verdict(False, "parallel_function_checker_no_order:cannot_find_match", "No pairing passes every call.")
    used: set[int] = set()
    for i, answer in enumerate(answers):
        doc = _find_doc(func_docs, next(iter(answer)))
        for j, call in enumerate(calls):
            if j not in used and check_call(doc, call, answer, dots, language).valid:
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


def check_call(doc: dict | None, call: dict, answer: dict, dots_to_underscores: bool = False,
               language: str = "python") -> Verdict:
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
        verdict = _check_value(param, value, properties[param], options[param], language)
        if not verdict.valid:
            return verdict
    for param, allowed in options.items():
        if param not in given and "" not in allowed:
            return Verdict(False, "simple_function_checker:missing_optional",
                           f"Optional parameter {param!r} not provided and not marked as optional.")
    return PASS


def _check_value(param: str, value: JSON, spec: dict, options: list, language: str = "python") -> Verdict:
    """Check one parameter's type, then its value against the acceptable options."""
    type_name = spec.get("type")
    if language != "python":  # Java and JavaScript values are source text, converted first (section 2b)
        typed = typed_value(param, value, spec, language)
        return typed if isinstance(typed, Verdict) else _check_typed(param, *typed, type_name, options)
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
    return _check_typed(param, value, expected, inner, type_name, options)


def _check_typed(param: str, value: JSON, expected: type, inner: type | None, type_name: str,
                 options: list) -> Verdict:
    """Type-check a value now in its Python form, then compare it with the options as BFCL does."""
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
# --- 2b. Java and JavaScript: BFCL's type rules ---
# ---------------------------------------------------------------------------------------------
# BFCL grades simple_java and simple_javascript with the checker above, after two steps of its own:
# the prompt-mode decoders (model_handler/parser/java_parser.py and js_parser.py, on tree-sitter)
# keep every argument as its source text, and the checker converts that text with the document's
# type (eval_checker/ast_eval/type_convertor/) before the type check. Both steps have quirks
# that decide verdicts; each is kept below, with its reason.

JAVA_TYPES = {"byte": int, "short": int, "integer": int, "long": int, "float": float, "double": float,
              "boolean": bool, "char": str, "String": str, "any": str, "Array": list, "ArrayList": list,
              "Queue": list, "Stack": list, "HashMap": dict, "Hashtable": dict, "Set": set}
JS_TYPES = {"String": str, "integer": int, "float": float, "Bigint": int, "Boolean": bool, "any": str,
            "array": list, "dict": dict}
LANGUAGES = ("python", "java", "javascript")
_ITEM_TYPED = ("Array", "ArrayList", "array")  # BFCL converts and type-checks the items of these with items.type
_JAVA_UNSUPPORTED = ("Set", "Hashtable", "Queue", "Stack")


def language_of(category: str) -> str:
    """Name the language BFCL grades a category in (its rule: a substring of the name).
    Example: 'simple_javascript' -> 'javascript'; 'simple_java' -> 'java'; 'multiple' -> 'python'"""
    if "javascript" in category:
        return "javascript"
    return "java" if "java" in category else "python"


# The converters: source text -> the Python value the checker compares (java/js_type_converter.py).

_JAVA_SCALARS = {  # type: (BFCL's pattern, the value of a matching text); a text that does not match stays text
    "byte": (r"^-?\d+$", int), "short": (r"^-?\d+$", int), "integer": (r"^-?\d+$", int),
    "long": (r"^-?\d+[lL]$", lambda t: int(re.sub(r"[lL]$", "", t))),  # the L is required: "5" stays "5"
    "float": (r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$", lambda t: float(re.sub(r"[fF]$", "", t))),  # f required
    "double": (r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$", float),
    "boolean": (r"(?:true|false)\Z", lambda t: t == "true"),  # exactly these two words
}


def java_value(text: str, java_type: str, items_type: str | None = None) -> JSON:
    """Convert a Java argument's source text as BFCL's java_type_converter does.

    A text that does not fit the type stays the text: the checker then reports a type error,
    unless the possible answer is itself a string (the "variable" rule of _type_check).
    Example: java_value("5L", "long") -> 5; java_value("5", "long") -> '5';
             java_value("new int[]{1, 2}", "Array", "integer") -> [1, 2]
    """
    if java_type not in JAVA_TYPES:
        raise ValueError(f"unknown Java type {java_type!r}; BFCL's are {sorted(JAVA_TYPES)}")
    if java_type in _JAVA_UNSUPPORTED:
        raise ValueError(f"the Java type {java_type} is not supported: BFCL's converter raises NotImplementedError "
                         f"for {', '.join(_JAVA_UNSUPPORTED)}, and bfcl evaluate stops")
    if java_type in _JAVA_SCALARS:
        return _by_pattern(_JAVA_SCALARS, java_type, text)
    if java_type == "Array":
        return _java_array(text, items_type)
    if java_type == "ArrayList":
        return _java_arraylist(text, items_type)
    if java_type == "HashMap":
        return _java_hashmap(text)
    return text  # String, any, and char: BFCL's char pattern ^'.$' can never match, so a char stays its text


def _java_array(text: str, items_type: str | None) -> JSON:
    """Read new T[]{a, b} as BFCL does: the first {...} split on commas (so nested braces break it).
    Example: _java_array('new String[]{"a", "b"}', "String") -> ['"a"', '"b"'] (the quotes stay: never a match)"""
    found = re.search(r"new\s+\w+\[\]\s*\{(.*?)\}", text)
    if not found:
        return text
    items = [item.strip() for item in found.group(1).split(",") if item.strip()]
    return [java_value(item, items_type) if items_type else _java_literal(item) for item in items]


def _java_arraylist(text: str, items_type: str | None) -> JSON:
    """Read new ArrayList<>(Arrays.asList(a, b)), new ArrayList<>() {{ add(a); }} or new ArrayList<>() as BFCL does.
    Example: _java_arraylist('new ArrayList<>(Arrays.asList("a", "b"))', "String") -> ['a', 'b']"""
    as_list = re.search(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)", text)
    adds = re.search(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", text, re.DOTALL)
    if as_list:
        items = [item.strip() for item in as_list.group(1).split(",")]
    elif adds:
        items = [item.strip() for item in re.findall(r"add\((.+?)\)", adds.group(1))]
    else:
        return [] if re.search(r"new\s+ArrayList<\w*>\(\)", text) else text
    return [_java_item(item, items_type) for item in items]


def _java_item(text: str, items_type: str | None) -> JSON:
    if items_type in ("String", "char"):
        return text[1:-1]  # subtle: BFCL drops the first and last character, quoted or not: 42 -> ''
    return java_value(text, items_type) if items_type else _java_literal(text)


def _java_hashmap(text: str) -> JSON:
    """Read new HashMap<..>() {{ put("k", v); }} as BFCL does: only string keys in double quotes count.
    Example: _java_hashmap('new HashMap<String, Object>() {{ put("limit", 50); }}') -> {'limit': 50}"""
    body = re.search(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", text, re.DOTALL)
    if body:
        pairs = re.findall(r"put\(\"(.*?)\",\s*(.*?)\)", body.group(1))
        return {key: _java_literal(value.strip()) for key, value in pairs}
    return {} if re.search(r"new\s+HashMap<.*?>\s*\(\)", text) else text


def _java_literal(text: str) -> JSON:
    """Read an item without a declared type as BFCL's parse_java_value does.
    Example: '5L' -> 5; '"a"' -> 'a'; 'x' -> 'x'"""
    if text in ("true", "false"):
        return text == "true"
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if re.match(r"^-?\d+[lL]$", text):
        return int(text[:-1])
    if re.match(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$", text):
        return float(re.sub(r"[fF]$", "", text))
    return _number_or_text(text)


def _number_or_text(text: str) -> JSON:
    for number in (int, float):  # Python's own readings, as BFCL's: "1_000" -> 1000, "nan" -> nan
        try:
            return number(text)
        except ValueError:
            pass
    return text


_JS_SCALARS = {"integer": (r"^-?\d+$", int), "float": (r"^-?\d+(\.\d+)?$", float),  # no exponent for a float
               "Bigint": (r"^-?\d+n$", lambda t: int(t[:-1])), "Boolean": _JAVA_SCALARS["boolean"]}


def _by_pattern(scalars: dict, kind: str, text: str) -> JSON:
    """Convert a scalar by its pattern, as BFCL's converters do: a text that does not match stays text."""
    pattern, read = scalars[kind]
    return read(text) if re.match(pattern, text) else text


def js_value(text: str, js_type: str, items_type: str | None = None) -> JSON:
    """Convert a JavaScript argument's source text as BFCL's js_type_converter does.

    Example: js_value("'urgent'", "String") -> 'urgent'; js_value("10n", "Bigint") -> 10;
             js_value("[1, 2]", "array", "integer") -> [1, 2]
    """
    if js_type not in JS_TYPES:
        raise ValueError(f"unknown JavaScript type {js_type!r}; BFCL's are {sorted(JS_TYPES)}")
    if js_type == "String":
        return _strip_quotes(text)
    if js_type in _JS_SCALARS:
        return _by_pattern(_JS_SCALARS, js_type, text)
    if js_type == "array":
        return _js_array(text, items_type)
    if js_type == "dict":
        return _js_dict(text)
    return text  # any


def _quoted(text: str) -> bool:
    return text[:1] in ("'", '"') and text.endswith(text[0])


def _strip_quotes(text: str) -> str:
    """Drop one pair of matching quotes. Example: '"a"' -> 'a'; '"a" + "b"' -> 'a" + "b' (BFCL's test, kept)"""
    return text[1:-1] if _quoted(text) else text


_JS_GRID = r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)"


def _js_array(text: str, items_type: str | None = None) -> JSON:
    """Read [a, b], new Array(a, b) or a 2-D [[..], [..]] as BFCL does: split on commas, so nesting breaks it.
    Example: _js_array('["a", "b"]', "String") -> ['a', 'b']; _js_array("[[1, 2], [3]]") -> [[1, 2], [3]]"""
    code = text.strip()
    if re.match(_JS_GRID, code):
        return [[_js_literal(item) for item in row.split(",")] for row in _js_rows(re.match(_JS_GRID, code).group(0))]
    found = re.match(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)", code)
    if not found:
        return code
    inner = (found.group(1) if found.group(1) is not None else found.group(2)).strip()
    items = [item.strip() for item in inner.split(",")] if inner else []
    if not items_type:
        return [_js_literal(item) for item in items]
    try:
        return [js_value(item, items_type, "String" if item.startswith(("'", '"')) else None) for item in items]
    except ValueError:
        return code  # BFCL returns the text on any failure inside (an unknown item type, say)


def _js_rows(grid: str) -> list[str]:
    rows = [row.strip() for row in re.findall(r"\[(.*?)\]", grid)]
    if rows and rows[0].startswith("["):
        rows[0] = rows[0][1:]  # the first lazy match starts at the outer bracket: "[[1, 2" -> "[1, 2"
    return rows


def _js_dict(text: str) -> JSON:
    """Read {k: v, ...} as BFCL does: up to the first "}", so a nested object breaks it; quoted "5" becomes 5.
    Example: _js_dict('{method: "GET", retries: 3}') -> {'method': 'GET', 'retries': 3}"""
    code = text.strip()
    if code == "{}":
        return {}
    found = re.match(r"\{(.*?)\}", code)
    if not found:
        return code
    out = {}
    for key, value in re.findall(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)", found.group(1)):
        value = value.strip()
        if value.startswith("[") and value.endswith("]"):
            out[key.strip().strip("'\"")] = _js_array(value)
        elif value.startswith("{") and value.endswith("}"):
            out[key.strip().strip("'\"")] = _js_dict(value)
        else:
            out[key.strip().strip("'\"")] = _js_literal(value.strip("'\""))
    return out


def _js_literal(text: str) -> JSON:
    """Read an item as BFCL's parse_js_value does. Example: ' true ' -> True; "'a'" -> 'a'; '2.5' -> 2.5"""
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    return text[1:-1] if _quoted(text) else _number_or_text(text)


def typed_value(param: str, value: JSON, spec: dict, language: str) -> tuple[JSON, type, type | None] | Verdict:
    """Convert a Java or JavaScript argument before the type check, as BFCL's checker does (ast_checker.py:387-425).

    Returns (value, expected type, item type) or the type_error verdict: the decoders give text,
    so a value that is not a str (typed JSON in FC mode, {"count": 5}) fails at once.
    Example: typed_value("count", "5", {"type": "integer"}, "java") -> (5, int, None)
    """
    table, convert, short = (JAVA_TYPES, java_value, "java") if language == "java" else (JS_TYPES, js_value, "js")
    type_name = spec.get("type")
    if type_name not in table:
        raise ValueError(f"unknown {language} parameter type {type_name!r} for {param!r}; BFCL's are {sorted(table)}")
    if type(value) is not str:
        return Verdict(False, f"type_error:{short}", f"Incorrect type for parameter {param!r}. Expected type String, "
                       f"got {type(value).__name__}. Parameter value: {value!r}.")
    if type_name not in _ITEM_TYPED:
        return convert(value, type_name), table[type_name], None
    items = spec.get("items", {}).get("type") if isinstance(spec.get("items"), dict) else None
    if items not in table:
        raise ValueError(f"parameter {param!r} is an {type_name} whose item type {items!r} is not one of "
                         f"{sorted(table)}")
    return convert(value, type_name, items), table[type_name], table[items]


# The prompt-mode readers of Java and JavaScript call text (decode_java_calls, decode_js_calls) stand
# in for BFCL's tree-sitter parsers; being machinery, not the lecture's idea, they are Appendix A.


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
    return {tool_core.dotted_name(call.func)[0]: {k.arg: _resolve_value(k.value) for k in call.keywords
                                                  if k.arg is not None}}


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


# --- 3b. BFCL's own decoders, per mode: what `bfcl evaluate` reads, quirk for quirk ---
# decode_result above is the lab's lenient reader (any format, for the demos and --lenient); bfcl
# evaluate reads each result with its handler's decode_ast, and only in the model's own format.

MODES = ("prompt", "fc")


def decode_ast(result: JSON, mode: str, language: str = "python") -> JSON:
    """Decode one result as bfcl's decode_ast does for the mode; raise DecodeError where its decoder fails.

    prompt: the text is stripped of backticks, newlines and spaces, put in [ ], and parsed as
    calls of the language (Python by its ast, Java and JavaScript as bfcl's tree-sitter parsers
    read them). fc: a list of {name: "<JSON arguments>"} (OpenAI's and Claude's handlers), each
    argument string decoded with json.loads; anything else fails. Text nested too deeply for a
    reader (MAX_NESTING for Java and JavaScript, Python's own parser limits) fails too, never a RecursionError.
    Example: decode_ast("[add(a=2, b=3)]", "prompt") -> [{'add': {'a': 2, 'b': 3}}]
    """
    if mode == "fc":
        return _decode_fc(result)
    if mode != "prompt":
        raise ValueError(f"unknown mode {mode!r}; use one of {MODES}")
    if not isinstance(result, str):  # bfcl calls .strip() on it: a list written for an FC model fails here
        raise DecodeError(f"a prompt-mode result must be text, got {tool_core.json_type(result)}")
    text = result.strip("`\n ")
    text = text if text.startswith("[") else "[" + text
    text = text if text.endswith("]") else text + "]"
    if language == "java":
        return decode_java_calls(text)
    if language == "javascript":
        return decode_js_calls(text)
    return _decode_bfcl_python(text)


def _decode_fc(result: JSON) -> list[dict]:
    """[{name: '{"a": 1}'}] -> [{name: {"a": 1}}], as bfcl's FC handlers read it: "" is no call at all, and
    a text result, dict arguments, an empty entry or arguments that are not JSON fail."""
    if isinstance(result, str) and not result:
        return []  # bfcl loops over the characters of "": no call
    if not isinstance(result, list):
        raise DecodeError(f"a function-calling result must be a list of {{name: arguments}}, got {tool_core.json_type(result)}")
    decoded = []
    for item in result:
        if not isinstance(item, dict) or not item:
            raise DecodeError(f"each call must be {{name: \"<JSON arguments>\"}}, got {tool_core.show(item, 80)}")
        name, arguments = next(iter(item.items()))  # bfcl reads the first key only
        if not isinstance(arguments, str):
            raise DecodeError(f"the arguments of {name} must be a JSON string, got {tool_core.json_type(arguments)}")
        try:
            decoded.append({name: json.loads(arguments)})  # NaN, Infinity and repeated keys pass, as in bfcl
        except (ValueError, RecursionError) as exc:
            raise DecodeError(f"the arguments of {name} are not JSON: {exc}") from None
    return decoded


def _decode_bfcl_python(text: str) -> list[dict]:
    """Parse "[f(a=1)]" as bfcl's ast_parse does: one call or a list of calls, keyword arguments only."""
    try:
        body = ast.parse(text.strip().strip("'"), mode="eval").body
        calls = [body] if isinstance(body, ast.Call) else list(body.elts)
        if not all(isinstance(c, ast.Call) for c in calls):
            raise DecodeError("an element of the list is not a call")
        return [_bfcl_call(c) for c in calls]
    except DecodeError:
        raise
    except Exception as exc:  # bfcl fails the line on any exception its decoder raises, and quotes it
        raise DecodeError(str(exc)[:300]) from None


def _bfcl_call(call: ast.Call) -> dict:
    """{dotted name: {keyword: value}}: positional arguments dropped, **kw kept under None, the last repeat wins."""
    return {tool_core.dotted_name(call.func)[0]: {k.arg: _bfcl_value(k.value) for k in call.keywords}}


def _bfcl_value(node: ast.AST) -> JSON:
    """Read an argument as bfcl's resolve_ast_by_type does, its quirks kept (see the table in the tests)."""
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):  # subtle: bfcl negates whatever the operator: +5 -> -5, not True -> -1
        return -node.operand.value
    if isinstance(node, ast.List):
        return [_bfcl_value(v) for v in node.elts]
    if isinstance(node, ast.Dict):
        return {_bfcl_value(k): _bfcl_value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.BinOp):
        return _binop(node)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return _bfcl_call(node) if node.keywords else ast.unparse(node)
    if isinstance(node, ast.Tuple):
        return tuple(_bfcl_value(v) for v in node.elts)
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) + "[" + ast.unparse(node.slice) + "]"
    raise DecodeError(f"Unsupported AST type: {type(node)}")  # Lambda fails too: bfcl's eval of it raises


_OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
              ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
              ast.Pow: lambda a, b: a ** b, ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
              ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b}
_UNARY = {ast.UAdd: lambda a: +a, ast.USub: lambda a: -a, ast.Invert: lambda a: ~a, ast.Not: lambda a: not a}


def _binop(node: ast.AST) -> JSON:
    """Compute what bfcl gets from eval(ast.unparse(node)) on constants (1 + 2, 'a' * 3, [1] + [2], 1 << 2),
    never evaluating model-written text: inside the expression Python's own rules hold (+1 is 1 there).
    A name fails, as bfcl's eval fails on it. Departure: a call (len('ab') + 1), which bfcl's eval would
    run, fails here: the lab runs nothing a model wrote."""
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_binop(node.operand))  # TypeError on -'x': a failed decode, as in bfcl
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):  # their elements by eval's rules too: a name fails, +5 is 5
        items = [_binop(v) for v in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {_binop(k): _binop(v) for k, v in zip(node.keys, node.values)}
    if not isinstance(node, ast.BinOp):
        raise DecodeError(f"cannot compute {ast.unparse(node)[:60]!r} without running it")
    operator = _OPERATORS.get(type(node.op))
    left, right = _binop(node.left), _binop(node.right)
    if operator is None:
        raise DecodeError(f"unsupported operator in {ast.unparse(node)[:60]!r}")
    if isinstance(node.op, (ast.Pow, ast.LShift)) and isinstance(right, (int, float)) and abs(right) > 10_000:
        raise DecodeError("an exponent or shift over 10,000: too large to compute")
    if isinstance(node.op, ast.Mult) and any(isinstance(x, (str, list, tuple)) for x in (left, right)) and \
            any(isinstance(x, int) and x > 100_000 for x in (left, right)):
        raise DecodeError("a repetition over 100,000: too large to compute")
    return operator(left, right)  # TypeError, ZeroDivisionError: a failed decode, caught by the caller


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


ERROR_WORDS = {  # BFCL's error_type (checker:kind) in words; exec:* are this lab's execution grader's
    "value_error:others": "a parameter's value (a number, a list, ...) is none of the listed acceptable values",
    "value_error:string": "a string matches none of the listed spellings, compared as standardize() writes them "
                          "(lower case; spaces and , . / - _ * ^ removed)",
    "type_error:simple": "a parameter has the wrong JSON type (a float where an integer is expected)",
    "simple_function_checker:wrong_func_name": "the call is to another function than the expected one",
    "simple_function_checker:missing_required": "a required parameter is missing",
    "simple_function_checker:unexpected_param": "the call has a parameter the function does not define",
    "parallel_function_checker_no_order:wrong_count": "the number of calls differs from the number expected",
    "parallel_function_checker_no_order:cannot_find_match": "an expected call matched none of the calls made",
    "ast_decoder:decoder_failed": "the output could not be decoded into calls at all",
    "irrelevance_error:decoder_success": "no function fits the question, yet the output decoded into a call: "
                                         "on an irrelevance question, decoding is the failure",
    "exec:called": "execution: a call was made where no function fits",
    "exec:decoder_failed": "execution: nothing to run, the output did not decode",
    "exec:wrong_result": "execution: the call ran, but its result is not the expected one",
    "exec:wrong_count": "execution: a different number of results than expected",
}


def _legend(verdicts: list[Verdict]) -> str:
    """Say in words what each FAIL label of the table stands for, in order of first appearance."""
    types = list(dict.fromkeys(v.error_type for v in verdicts if not v.valid))
    lines = [textwrap.fill(f"{t}: {ERROR_WORDS.get(t, 'see bfcl_lab section 2')}", 116,
                           initial_indent=f"  {t.split(':')[-1]:<16} ", subsequent_indent=" " * 19) for t in types]
    return "\n".join(["What the FAIL labels mean (the part after the colon of the error_type):", *lines])


DEMO_TERMS = textwrap.wrap(  # demo 1's words, for a reader who knows only the handout
    "Two hand-written models, A and B, answer each question in the text protocol. Two graders: AST compares each call as "
    "written (its syntax tree, read without running it) with the acceptable values the question lists; exec runs the "
    "calls and compares their results. A FAIL cell names the reason BFCL reports: the end of its error_type, "
    "category:reason. Decoding is reading the calls out of the model's text.", 116)


@tool_core.preformatted
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
        *DEMO_TERMS,
        format_table(["question", "asks", "A: AST", "A: exec", "B: AST", "B: exec", "why the graders disagree"], rows,
                     [20, 30, 16, 16, 16, 16, 52]),
        "",
        _legend([v for gs in graded.values() for g in gs for v in (g.ast, g.exec)]),
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


# Handout 001, figure by figure: what `scripts/06_evaluation.py --vs-handout` prints for demo 1 (service_env's
# HANDOUT_06 has demos 2 to 4), and README's table
HANDOUT_06: list[HandoutFigure] = [
    HandoutFigure(1, "§7.1", "BFCL questions", "9", r"Model A: AST \d+/(\d+)"),
    HandoutFigure(1, "§7.1", "model A, AST", "7/9", r"Model A: AST (\d+/\d+)"),
    HandoutFigure(1, "§7.1", "model A, execution", "8/9", r"Model A: AST \d+/\d+, execution (\d+/\d+)"),
    HandoutFigure(1, "§7.1", "model B, AST", "3/9", r"Model B: AST (\d+/\d+)"),
    HandoutFigure(1, "§7.1", "model B, execution", "5/9", r"Model B: AST \d+/\d+, execution (\d+/\d+)"),
]


# ---------------------------------------------------------------------------------------------
# --- 6. Real BFCL files: graded as `bfcl evaluate` grades them ---
# ---------------------------------------------------------------------------------------------
# bfcl evaluate counts every result line (total_count = the lines read), grades it with the
# model's own decoder, and stops the whole run on a file it cannot pair with its questions. The
# same rules here, with one difference: where bfcl stops with a traceback, this says why in a
# line and exits 2.

class GradeError(Exception):
    """A file that cannot be graded as bfcl evaluate grades it: the run stops, saying why in one line."""


@dataclass
class GradedLine:
    """One result line, graded: its verdict, what the model wrote and what the decoder made of it."""

    id: str
    verdict: Verdict
    raw: JSON
    decoded: JSON
    question: dict
    truth: list


@dataclass
class CategoryScore:
    """The lines of one category graded; total counts every line read, as bfcl's total_count does."""

    category: str
    lines: list[GradedLine]

    @property
    def correct(self) -> int:
        return sum(line.verdict.valid for line in self.lines)

    @property
    def total(self) -> int:
        return len(self.lines)

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0


RELEVANCE = ("irrelevance", "relevance")  # the categories graded without possible answers


def needs_answers(category: str) -> bool:
    """Say whether a category is graded against possible answers (irrelevance and relevance are not)."""
    return not any(category.endswith(word) for word in RELEVANCE)


def read_jsonl(path: str, what: str) -> list[dict]:
    """Read a BFCL JSON Lines file (one object with a string id per line); anything else is a GradeError."""
    import os
    if os.path.isdir(path):
        raise GradeError(f"{what} {path} is a folder; give a JSON Lines file (or --result-dir for a result folder)")
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise GradeError(f"{what} {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GradeError(f"{what} {path} cannot be read as UTF-8 text: {exc}") from None
    if text.lstrip().startswith("["):
        raise GradeError(f"{what} {path} holds a JSON array; bfcl's files hold one JSON object per line")
    lines = text.splitlines()  # a final line break ends the last line; a second one is an empty line
    entries = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            raise GradeError(f"{what} {path}, line {number}: an empty line (bfcl evaluate stops on it too)")
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError) as exc:
            problem = "nested too deeply" if isinstance(exc, RecursionError) else exc
            raise GradeError(f"{what} {path}, line {number}: not JSON ({problem})") from None
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise GradeError(f"{what} {path}, line {number}: each line must be an object with a string 'id'")
        entries.append(entry)
    return entries


def sort_key(entry_id: str) -> tuple:
    """Order ids as bfcl does within a category: by the number after the category. Example: 'simple_10' -> (0, 10)"""
    index = entry_id.rsplit("_", 1)[-1].split("-")[0]
    return (0, int(index), entry_id) if index.isdigit() else (1, 0, entry_id)


def grade_category(category: str, questions: list[dict], answers: list[dict], results: list[dict], *,
                   mode: str, partial: bool = False, lenient: bool = False, **options) -> CategoryScore:
    """Grade one category's result lines against its questions and possible answers, as bfcl evaluate does.

    Every result line counts. Without partial, the results must answer every question (bfcl's
    rule; its --partial-eval is partial here); with it, the lines present are graded alone.
    mode: "prompt" or "fc", the decoder of the model's format; lenient: the lab's reader instead.
    """
    _check_shapes(category, questions, answers, results)
    if not results:
        raise GradeError(f"{category}: the result file has no lines (bfcl evaluate divides by zero on it)")
    if len(results) != len(questions) and not partial:
        raise GradeError(f"{category}: {len(results)} results for {len(questions)} questions; bfcl evaluate stops "
                         f"here too: add --partial to grade the {len(results)} present (its --partial-eval)")
    by_id = {q["id"]: (q, answers[i] if answers else None) for i, q in enumerate(questions)}
    seen: set[str] = set()
    lines = []
    for result in sorted(results, key=lambda r: sort_key(r["id"])):
        entry_id = result["id"]
        if entry_id not in by_id or entry_id in seen:
            why = "appears twice" if entry_id in seen else "has no question in the question file"
            raise GradeError(f"{category}: the result {entry_id} {why} (bfcl evaluate stops on it too)")
        seen.add(entry_id)
        if "result" not in result:
            raise GradeError(f"{category}: the line of {entry_id} has no 'result' field")
        question, answer = by_id[entry_id]
        lines.append(_grade_line(category, question, answer, result["result"], mode, lenient, options))
    return CategoryScore(category, lines)


def _check_shapes(category: str, questions: list[dict], answers: list[dict], results: list[dict]) -> None:
    """Refuse files given in the wrong places, and answers that do not stand in their questions' order."""
    if any("result" in q and "function" not in q for q in questions[:5]):
        raise GradeError(f"{category}: the question file holds results ('result', no 'function'): are the "
                         "arguments in the order QUESTIONS POSSIBLE_ANSWERS RESULTS?")
    if any("ground_truth" in r and "result" not in r for r in results[:5]):
        raise GradeError(f"{category}: the result file holds possible answers: are the arguments in the order "
                         "QUESTIONS POSSIBLE_ANSWERS RESULTS?")
    if not needs_answers(category):
        return
    if len(answers) != len(questions):
        raise GradeError(f"{category}: {len(answers)} possible answers for {len(questions)} questions")
    for number, (question, answer) in enumerate(zip(questions, answers), 1):
        if question["id"] != answer["id"]:  # bfcl pairs them by position: a shuffled file would grade the wrong pairs
            raise GradeError(f"{category}: line {number} of the possible answers is {answer['id']}, but the question "
                             f"there is {question['id']}; bfcl pairs them by line")


def _grade_line(category: str, question: dict, answer: dict | None, raw: JSON, mode: str, lenient: bool,
                options: dict) -> GradedLine:
    """Decode one result in the model's format and grade it (a decode failure is a failed line, counted)."""
    language, failure = language_of(category), ""
    if lenient:
        decoded = decode_result(raw)[0]
    else:
        try:
            decoded = decode_ast(raw, mode, language)
        except DecodeError as exc:
            decoded, failure = None, str(exc)
    truth = answer.get("ground_truth", []) if answer else []
    functions = question.get("function", [])
    try:  # bfcl's JavaScript parser returns None for "no call": a wrong format, not a failed decode
        verdict = ast_grade(functions, truth, {} if decoded is None and not failure else decoded, category,
                            language=language, **options)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, StopIteration, RecursionError) as exc:
        raise GradeError(f"{category}: {question['id']} cannot be graded ({type(exc).__name__}: {exc}); "
                         "bfcl evaluate would stop on it too") from None
    if failure and verdict.error_type in ("ast_decoder:decoder_failed", "relevance_error:decoder_failed"):
        verdict = Verdict(False, verdict.error_type, f"{verdict.message} {failure}")  # bfcl appends the reason too
    return GradedLine(question["id"], verdict, raw, decoded, question, truth)


def grade_files(questions_path: str, answers_path: str | None, results_path: str, *, mode: str,
                partial: bool = False, lenient: bool = False, **options) -> CategoryScore:
    """Grade one result file against its question file and possible-answer file (None for irrelevance)."""
    questions = read_jsonl(questions_path, "the question file")
    answers = read_jsonl(answers_path, "the possible-answer file") if answers_path else []
    results = read_jsonl(results_path, "the result file")
    categories = {category_of(q["id"]) for q in questions}
    if not questions:
        raise GradeError(f"the question file {questions_path} has no lines")
    if len(categories) != 1:
        raise GradeError(f"the question file mixes categories {sorted(categories)}; grade one category a file")
    category = categories.pop()
    if needs_answers(category) and not answers_path:
        raise GradeError(f"{category} is graded against possible answers: give the possible-answer file")
    return grade_category(category, questions, answers, results, mode=mode, partial=partial, lenient=lenient,
                          **options)


# --- 6b. A result folder as bfcl generate writes it; score files and the table as bfcl evaluate writes them ---

RESULT_FILE = re.compile(r"BFCL_v\d+_(\w+?)_result\.json$")


def mode_of(model: str) -> str:
    """A model's mode: is_fc_model in bfcl's model table (Appendix C), else a guess from its name by bfcl's naming
    convention. Example: 'gpt-4o-2024-11-20-FC' -> 'fc'; 'Salesforce_xLAM-2-32b-fc-r' -> 'fc' (the table)

    A model outside the table that calls functions natively but has no FC in its name needs --mode fc
    (grade refuses to guess prompt when a result it reads is a list of calls: fc_output_advice).
    """
    entry = bfcl_model(model)
    if entry:
        return "fc" if entry[1] else "prompt"
    return "fc" if re.search(r"(^|[-_])FC($|[-_])", model) else "prompt"


def bfcl_model(model: str) -> tuple[str, bool, bool] | None:
    """Find a result folder's model in bfcl's table, as bfcl does (every _ read as /); None if it is not there.
    Example: 'Qwen_Qwen3-8B-FC' -> ('Qwen3-8B (FC)', True, False)"""
    return BFCL_MODELS.get(model.replace("_", "/"))


def display_name(model: str) -> str:
    """The name bfcl's CSV tables give a model (display_name in its table); outside the table, the folder's name
    (bfcl evaluate stops on such a model: a KeyError). Example: 'gpt-4o-2024-11-20-FC' -> 'GPT-4o-2024-11-20 (FC)'"""
    entry = bfcl_model(model)
    return entry[0] if entry else model


def is_fc_output(result: JSON) -> bool:
    """Say whether a result is a list of {name: arguments} calls, as bfcl's function-calling handlers write them.

    Its prompt-mode handlers write text, always; FC ones write a list, or text when the model
    answers in words. So one list in a file is enough to tell: prompt mode cannot read it.
    Example: [{"add": '{"a": 1}'}] -> True; [] -> True; "[add(a=1)]" -> False; [["add"]] -> False"""
    return isinstance(result, list) and all(isinstance(call, dict) and len(call) == 1 for call in result)


def fc_output_advice(score: CategoryScore, mode: str) -> str:
    """Say how many results prompt mode read that are function-calling output (each a decoder failure); else ""."""
    lists = sum(is_fc_output(line.raw) for line in score.lines)
    if mode != "prompt" or not lists:
        return ""
    return (f"{score.category}: {lists} of {score.total} results are lists of {{name: arguments}} calls, as a "
            "function-calling (FC) model writes them; prompt mode's decoder reads text, so each fails to decode")


def _refuse_guessed_prompt_mode(model: str, mode: str, scores: list[CategoryScore], how: str) -> None:
    """Stop with advice when a guessed prompt mode read FC output: its numbers would be the guess's, not bfcl's."""
    advice = next((a for a in (fc_output_advice(score, mode) for score in scores) if a), "")
    if advice:
        raise GradeError(f"{model}: {advice}. The mode prompt was a guess (no FC in the name, and not a model of "
                         f"bfcl's table): this looks like function-calling output; grade it with {how} (or --mode "
                         "prompt to read it as text all the same)")


def grade_result_dir(result_dir: str, data_dir: str, *, mode: str | None = None, partial: bool = False,
                     lenient: bool = False, models: list[str] | None = None, categories: list[str] | None = None,
                     **options) -> dict[str, list[CategoryScore]]:
    """Grade every result file of every model folder (at any depth), with the questions and answers of data_dir."""
    from pathlib import Path
    root, data = Path(result_dir), Path(data_dir)
    if not root.is_dir():
        raise GradeError(f"the result folder {result_dir} is not a folder")
    if not data.is_dir():
        raise GradeError(f"the data folder {data_dir} is not a folder (it holds BFCL_v4_<category>.json and "
                         "possible_answer/)")
    scores: dict[str, list[CategoryScore]] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and (not models or p.name in models)):
        files = sorted((m.group(1), f) for f in folder.rglob("BFCL_v*_result.json")
                       if (m := RESULT_FILE.search(f.name)) and (not categories or m.group(1) in categories))
        if not files:
            continue
        model_mode = mode or mode_of(folder.name)
        scores[folder.name] = []
        for category, path in files:
            prefix = path.name.split("_" + category)[0]
            questions = data / f"{prefix}_{category}.json"
            answers = data / "possible_answer" / f"{prefix}_{category}.json"
            if not questions.is_file():
                raise GradeError(f"{folder.name}: no question file {questions} for {path.name}")
            scores[folder.name].append(grade_files(str(questions), str(answers) if needs_answers(category) else None,
                                                   str(path), mode=model_mode, partial=partial, lenient=lenient,
                                                   **_options_for(folder.name, model_mode, options)))
        if not mode and not lenient and not bfcl_model(folder.name):
            _refuse_guessed_prompt_mode(folder.name, model_mode, scores[folder.name],
                                        f"--mode fc --model {folder.name}")
    if not scores:
        raise GradeError(f"no result files (BFCL_v4_<category>_result.json) under {result_dir}")
    return scores


def _options_for(model: str, mode: str, options: dict) -> dict:
    """FC models name a.b as a_b: underscore_to_dot in bfcl's table; outside it, on in FC mode; options override."""
    entry = bfcl_model(model)
    return {"dots_to_underscores": entry[2] if entry else mode == "fc"} | options


def group_of(category: str) -> str:
    """The score folder a category's file goes in. Example: 'live_simple' -> 'live'; 'simple_python' -> 'non_live'"""
    return "live" if category.startswith("live") else "multi_turn" if category.startswith("multi_turn") else "non_live"


def write_scores(score_dir: str, model: str, score: CategoryScore, prefix: str = "BFCL_v4") -> str:
    """Write a category's score file as bfcl evaluate lays it out: a summary line, then each failed line."""
    from pathlib import Path
    path = Path(score_dir) / model / group_of(score.category) / f"{prefix}_{score.category}_score.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [{"accuracy": score.accuracy, "correct_count": score.correct, "total_count": score.total}]
    lines += [_failure_record(model, score.category, line) for line in score.lines if not line.verdict.valid]
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False, default=str) for x in lines) + "\n", encoding="utf-8")
    return str(path)


def _failure_record(model: str, category: str, line: GradedLine) -> dict:
    """One failed line of a score file, with the keys bfcl writes for its kind of failure."""
    head = {"id": line.id, "model_name": model, "test_category": category, "valid": False}
    error = {"error": [line.verdict.message], "error_type": line.verdict.error_type}
    if not needs_answers(category):
        return head | {"prompt": line.question, "model_result": line.raw, "decoded_result": line.decoded} | error
    if line.verdict.error_type == "ast_decoder:decoder_failed":
        return head | error | {"prompt": line.question, "model_result_raw": line.raw, "possible_answer": line.truth}
    if line.verdict.error_type == "ast_decoder:decoder_wrong_output_format":  # bfcl writes both as str()
        return head | error | {"prompt": line.question, "model_result_raw": str(line.raw),
                               "model_result_decoded": str(line.decoded), "possible_answer": line.truth}
    return head | error | {"prompt": line.question, "model_result_raw": line.raw,
                           "model_result_decoded": line.decoded, "possible_answer": line.truth}


NON_LIVE = ["simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
            "irrelevance"]


def non_live_summary(scores: list[CategoryScore]) -> dict[str, float | None]:
    """bfcl's data_non_live.csv row: Simple AST = the mean of the three simple categories, Non-Live Overall = the
    mean of Simple, Multiple, Parallel, Parallel Multiple (a category not graded counts 0, as bfcl counts it)."""
    acc = {s.category: s.accuracy for s in scores}
    simple = sum(acc.get(c, 0.0) for c in NON_LIVE[:3]) / 3
    parts = [simple] + [acc.get(c, 0.0) for c in ("multiple", "parallel", "parallel_multiple")]
    return {"Non-Live Overall Acc": sum(parts) / 4, "Simple AST": simple,
            **{c: acc.get(c) for c in NON_LIVE}}


LIVE = ["live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance"]
LIVE_SIZES = {"live_simple": 258, "live_multiple": 1053, "live_parallel": 16, "live_parallel_multiple": 24,
              "live_irrelevance": 884, "live_relevance": 16}  # bfcl's own data (2026.3.23): what a missing one weighs


def live_summary(scores: list[CategoryScore]) -> dict[str, float | None]:
    """bfcl's data_live.csv row: Live Overall Acc = the four AST categories' accuracies weighted by their line
    counts (calculate_weighted_accuracy); a category not graded counts 0 over its size in bfcl's data (LIVE_SIZES)."""
    graded = {s.category: s for s in scores}
    parts = [(graded[c].accuracy, graded[c].total) if c in graded else (0.0, LIVE_SIZES[c]) for c in LIVE[:4]]
    return {"Live Overall Acc": sum(a * n for a, n in parts) / sum(n for _, n in parts),
            **{c: graded[c].accuracy if c in graded else None for c in LIVE}}


def format_scores(scores: dict[str, list[CategoryScore]], header: str, failures: int = 20) -> str:
    """Write each model's accuracy per category (bfcl's two decimals) and its non-live and live rows, then failures."""
    lines = [header, ""]
    for model, categories in scores.items():
        rows = [[s.category, s.correct, s.total, f"{s.accuracy * 100:.2f}%"] for s in categories]
        lines += [f"Model: {model}", format_table(["category", "correct", "total", "accuracy"], rows)]
        summary = non_live_summary(categories)
        if any(s.category in NON_LIVE for s in categories):
            lines.append(f"Non-Live Overall Acc {summary['Non-Live Overall Acc'] * 100:.2f}% (bfcl's mean of Simple AST "
                         f"{summary['Simple AST'] * 100:.2f}%, Multiple, Parallel and Parallel Multiple; a category "
                         "not graded counts 0)")
        if any(s.category in LIVE for s in categories):
            lines.append(f"Live Overall Acc {live_summary(categories)['Live Overall Acc'] * 100:.2f}% (bfcl's mean of "
                         "Live Simple, Multiple, Parallel and Parallel Multiple weighted by their line counts; a "
                         "category not graded counts 0 over its size in bfcl's data)")
        failed = [(s.category, line) for s in categories for line in s.lines if not line.verdict.valid]
        lines.append(f"{len(failed)} failure(s)" + (f", the first {failures}:" if len(failed) > failures else
                                                    ":" if failed else "."))
        lines += [f"  {line.id}: {line.verdict.error_type}: {line.verdict.message[:150]}" for _, line in failed[:failures]]
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def _percent(value: float | None) -> str:
    """A CSV cell as bfcl writes it. Example: 0.8181 -> '81.81%'; None (not graded) -> 'N/A'"""
    return "N/A" if value is None else f"{value * 100:.2f}%"


def _write_csv(score_dir: str, name: str, columns: list[str], rows: list[tuple[float, list[str]]]) -> str:
    """Write one of bfcl's CSV tables: ranked by the overall accuracy (first of each row), no final line break."""
    from pathlib import Path
    rows = sorted(rows, key=lambda r: -r[0])  # stable, as bfcl's sort(reverse=True): equal rows keep their order
    path = Path(score_dir) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([",".join(columns)] + [",".join([str(n)] + r) for n, (_, r) in enumerate(rows, 1)]),
                    encoding="utf-8")
    return str(path)


def write_non_live_csv(score_dir: str, scores: dict[str, list[CategoryScore]]) -> str:
    """Write data_non_live.csv in bfcl's columns (rank by overall accuracy, values as NN.NN%, N/A where not graded).

    Each summary column is N/A when one of its categories is missing (bfcl's display_na_if_category_missing):
    Simple AST without Java or JavaScript, AST Summary without any of the six; the overall never."""
    columns = ["Rank", "Model", "Non-Live Overall Acc", "AST Summary", "Simple AST", "Python Simple AST",
               "Java Simple AST", "JavaScript Simple AST", "Multiple AST", "Parallel AST", "Parallel Multiple AST",
               "Irrelevance Detection"]
    rows = []
    for model, categories in scores.items():
        s = non_live_summary(categories)
        simple = all(s[c] is not None for c in NON_LIVE[:3])
        complete = simple and all(s[c] is not None for c in NON_LIVE[3:6])
        rows.append((s["Non-Live Overall Acc"], [display_name(model), _percent(s["Non-Live Overall Acc"]),
                                                 _percent(s["Non-Live Overall Acc"] if complete else None),
                                                 _percent(s["Simple AST"] if simple else None),
                                                 *[_percent(s[c]) for c in NON_LIVE]]))
    return _write_csv(score_dir, "data_non_live.csv", columns, rows)


def write_live_csv(score_dir: str, scores: dict[str, list[CategoryScore]]) -> str:
    """Write data_live.csv in bfcl's columns (COLUMNS_LIVE; generate_leaderboard_csv's live rows).

    Live Overall Acc and AST Summary are the same weighted mean of the four AST categories; the summary
    is N/A when one of them is missing, the overall never (a missing one counts 0 over its size)."""
    columns = ["Rank", "Model", "Live Overall Acc", "AST Summary", "Python Simple AST", "Python Multiple AST",
               "Python Parallel AST", "Python Parallel Multiple AST", "Irrelevance Detection", "Relevance Detection"]
    rows = []
    for model, categories in scores.items():
        s = live_summary(categories)
        complete = all(s[c] is not None for c in LIVE[:4])
        rows.append((s["Live Overall Acc"], [display_name(model), _percent(s["Live Overall Acc"]),
                                             _percent(s["Live Overall Acc"] if complete else None),
                                             *[_percent(s[c]) for c in LIVE]]))
    return _write_csv(score_dir, "data_live.csv", columns, rows)


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


class LLMError(tool_core.ModelError):
    """A failure talking to a model's API, with what the API said (never the key). stops_run: a wrong key (401,
    403), nobody at the URL, or the run's budget spent, which no later request of the run would mend."""


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
    """What the two APIs share: a JSON POST with the SDKs' retries and back-off (see post), clear errors otherwise.

    stream=True asks for the answer as an event stream ("stream": true) and rebuilds from it the
    object the API returns unstreamed (section 7b), so the Reply is the same either way; on_event,
    if given, sees the stream's progress as it arrives (read_anthropic_stream's events).
    """

    def __init__(self, model: str, *, timeout: float = 60.0, max_tokens: int = 512, retries: int = 3,
                 sleep=time.sleep, stream: bool = False, on_event=None, max_requests: int | None = None):
        self.model, self.timeout, self.max_tokens, self.retries, self.sleep = model, timeout, max_tokens, retries, sleep
        self.stream, self.on_event = stream, on_event
        self.secret = ""
        self.max_requests, self.requests, self.usage = max_requests, 0, {}  # the run's budget, and what it spent

    def send(self, body: dict) -> dict:
        """POST one request to the model (streamed when self.stream) within the run's budget of max_requests; count
        it in `requests` and the tokens the API reports in `usage`. Every request of the lab's loops goes here."""
        if self.max_requests is not None and self.requests >= self.max_requests:
            raise LLMError(f"the budget of {self.max_requests} model requests is used up", stops_run=True)
        self.requests += 1
        if self.stream:
            fields, reader = self.stream_fields()
            answer = self.post(self.url, self.headers(), body | fields, reader)
        else:
            answer = self.post(self.url, self.headers(), body)
        for k, v in _usage(answer.get("usage")).items():
            self.usage[k] = self.usage.get(k, 0) + v
        return answer

    def post(self, url: str, headers: dict, body: dict, reader=None) -> dict:
        """POST JSON and return the decoded answer, retrying what the official SDKs retry; else LLMError.

        reader: a stream reader of section 7b (read_anthropic_stream, read_openai_stream) for a request
        that asked for a stream; the answer is then the object it rebuilds. Only the HTTP status
        decides a retry: a stream that breaks off after a 200 is an LLMError, not sent again.

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
                    payload = self._read_stream(response, url, reader) if reader else \
                        json.loads(response.read().decode("utf-8"))
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
                raise LLMError(self._clean(f"HTTP {exc.code} from {url}: {message}"),
                               stops_run=exc.code in (401, 403)) from None
            except (TimeoutError, urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                reason = getattr(exc, "reason", exc)
                if not last and not isinstance(reason, (ConnectionRefusedError, ValueError)):  # no one there: say so now
                    self.sleep(_retry_wait(None, attempt))
                    continue
                reason = getattr(exc, "reason", exc)  # HTTPException: a reply cut short (IncompleteRead) and the like
                raise LLMError(self._clean(f"could not get an answer from {url}: {reason}"),
                               stops_run=isinstance(reason, ConnectionRefusedError)) from None
            except ValueError as exc:
                raise LLMError(f"{url} answered with something that is not JSON: {exc}") from None
        raise LLMError(f"{url}: still failing after {self.retries} retries")

    def _read_stream(self, response, url: str, reader) -> JSON:
        """Rebuild the answer from the response's event stream, line by line as it arrives; a server that answered
        in one piece (application/json) is read as such. A dropped connection ends the lines: the reader then says
        what was left incomplete."""
        if "text/event-stream" not in (response.headers.get("content-type") or ""):
            return json.loads(response.read().decode("utf-8"))
        broken: list[BaseException] = []
        try:
            return reader(_lines_until_broken(response, broken), self.on_event)
        except LLMError as exc:
            why = f" (the connection broke: {type(broken[0]).__name__})" if broken else ""
            raise LLMError(self._clean(f"{url}: {exc}{why}")) from None

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


class AnthropicBackend(HTTPBackend):
    """The Anthropic Messages API over urllib: system + one user turn, stop at <tool_result, tools if native."""

    def __init__(self, key: str, model: str = ANTHROPIC_MODEL, base_url: str = ANTHROPIC_BASE_URL, *,
                 dialect=None, **options):
        if not key and base_url.rstrip("/") == ANTHROPIC_BASE_URL:  # a proxy elsewhere may need none
            raise LLMError("no API key: set ANTHROPIC_API_KEY, or run with --toy (offline) or --base-url")
        super().__init__(model, **options)
        self.secret, self.url = key or "", base_url.rstrip("/") + "/v1/messages"
        self.dialect = dialect or _dialect("Anthropic")

    def headers(self) -> dict:
        return {"anthropic-version": "2023-06-01"} | ({"x-api-key": self.secret} if self.secret else {})

    def stream_fields(self) -> tuple[dict, typing.Callable]:
        return {"stream": True}, read_anthropic_stream

    def complete(self, system: str, user: str, tools: list[dict] | None = None, tool_choice: str | dict | None = None,
                 parallel: bool | None = None) -> Reply:
        """Send one question; return the reply's text, native calls (read by the Anthropic dialect) and stop reason."""
        body = {"model": self.model, "max_tokens": self.max_tokens, "system": system,
                "messages": [{"role": "user", "content": user}], "stop_sequences": tool_core.STOP_SEQUENCES}
        if tools:
            body |= {"tools": tools} | _choice_fields(self.dialect, tool_choice, parallel)
        data = self.send(body)
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

    def headers(self) -> dict:
        return {"authorization": f"Bearer {self.secret}"} if self.secret else {}

    def stream_fields(self) -> tuple[dict, typing.Callable]:
        """include_usage: the last chunk carries the token counts the unstreamed answer has."""
        return {"stream": True, "stream_options": {"include_usage": True}}, read_openai_stream

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
        data = self.send(body)
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
    with the dialects; issue 34's stand-in reuses interfaces' coupling rule, SSE reader and loopback server)."""
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


@tool_core.preformatted
def demo_real(backend, dialect=None, tool_choice: str | dict | None = None, parallel: bool | None = None) -> str:
    """Grade a model's answers to the nine questions with both graders, in demo 1's table layout."""
    answers, notes = ask_model(backend, dialect, tool_choice, parallel)
    graded = grade_model(answers)
    rows = [[g.question, _cell(g.ast), _cell(g.exec), g.how + (f" ({notes[g.question]})" if notes[g.question] else "")]
            for g in graded]
    mode = "native tool calling" if dialect is not None else "the text protocol"
    refused = sum(note.startswith("refused") for note in notes.values())
    return "\n".join([
        f"Model: {backend.model}, through {mode}. No SDK to install: a real API is called with plain HTTP (urllib).",
        format_table(["question", "AST", "exec", "what came back"], rows),
        f"AST {sum(g.ast.valid for g in graded)}/9, execution {sum(g.exec.valid for g in graded)}/9. A reply cut at "
        "max_tokens is graded as the truncated call it holds, never as 'no call'."]
        + ([f"{refused} repl{'y was a refusal' if refused == 1 else 'ies were refusals'}: graded as no call, as BFCL "
            "would (a pass only where no tool fits), but no evidence that the model can call tools."] if refused else []))


# Handout 001, figure by figure: what `scripts/07_real_llm.py --vs-handout` prints, and README's table
HANDOUT_07: list[HandoutFigure] = [
    HandoutFigure(3, "§9", "what to install", "pip install anthropic", r"(No SDK) to install: a real API",
                  "the lab calls the Anthropic and OpenAI-compatible APIs over urllib, so nothing needs installing"),
    HandoutFigure(3, "§9", "questions put to the model", "the nine of §7.1", r"AST \d+/(\d+), execution"),
    HandoutFigure(3, "§9", "how the tools are offered",
                  "the text protocol of §5.5 (not native function calling)", r"through (the text protocol)\."),
    HandoutFigure(3, "§9", "the question to watch for two calls at once (the handout: C4)",
                  "C4", r"(?m)^(parallel_\d)\s",
                  "the lab names BFCL's questions by category and index (simple_0 ... irrelevance_1); parallel_0 is "
                  "the sixth, so not even the position is 4"),
    HandoutFigure(3, "§9", "the questions to watch for holding back (the handout: C6 and C9)",
                  "C6, C9", r"(?m)^(irrelevance_0)\s",
                  "the same naming; irrelevance_0 and irrelevance_1 are the eighth and ninth questions"),
]


# ---------------------------------------------------------------------------------------------
# --- 7b. Streaming: each API's event stream, written from a reply and read back into it ---
# ---------------------------------------------------------------------------------------------
# With "stream": true both APIs answer with Server-Sent Events instead of one JSON object: Anthropic's
# "Streaming Messages" (message_start, content blocks as start / deltas / stop, message_delta with the
# stop reason and usage, message_stop; ping and error events), OpenAI's chat.completion.chunk objects
# (choices[0].delta: content, or tool_calls pieces keyed by index; finish_reason; data: [DONE]). The
# lecture's point: a call arrives in pieces, its arguments as partial JSON, so a harness sees each
# call complete before the reply ends; and a stream cut short must never pass for a shorter reply.
# Each writer sits beside its reader: read(write(answer)) == answer is what the tests check.

STREAM_PIECE = 16  # characters per text or JSON delta the writers send (a real API sends a few tokens each)


def sse_event(data: JSON, event: str | None = None) -> str:
    """Write one Server-Sent Event: an event line if named, one data line, a blank line.

    Example: ({"type": "ping"}, "ping") -> 'event: ping\\ndata: {"type": "ping"}\\n\\n'
    """
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)  # json escapes CR and LF
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # subtle: a lone surrogate ("\ud800", echoed) has no UTF-8 form; escape it
            text = json.dumps(data)
    return (f"event: {event}\n" if event else "") + f"data: {text}\n\n"


def _pieces(text: str, size: int = STREAM_PIECE) -> list[str]:
    """Cut text into deltas. Example: 'abcdef', 4 -> ['abcd', 'ef']"""
    return [text[i:i + size] for i in range(0, len(text), size)]


def _sse_data(lines) -> typing.Iterator[str]:
    """Yield the data of each event of a text/event-stream, read from its lines (bytes or str, line breaks kept)
    or any pieces of it: interfaces' SSEReader, the WHATWG rules. An event with no blank line after it never ends."""
    import codecs
    import interfaces
    reader, decoder = interfaces.SSEReader(), codecs.getincrementaldecoder("utf-8")("replace")
    for piece in lines:
        yield from reader.feed_text(decoder.decode(piece) if isinstance(piece, (bytes, bytearray)) else piece)


def _lines_until_broken(response, broken: list) -> typing.Iterator[bytes]:
    """Yield a response's lines as they arrive; a connection that breaks off ends them (the reason kept in broken)."""
    import http.client
    try:
        yield from response
    except (OSError, http.client.HTTPException) as exc:  # a timeout, a reset, a chunked body cut short
        broken.append(exc)


def _event_json(data: str) -> dict:
    """Decode one event's data; what is no JSON object is an LLMError (the stream is broken, not the model)."""
    try:
        event = json.loads(data)
    except ValueError:
        raise LLMError(f"an event of the stream is not JSON: {tool_core.show(data, 120)}") from None
    if not isinstance(event, dict):
        raise LLMError(f"an event of the stream is not a JSON object: {tool_core.show(data, 120)}")
    return event


def _stream_error(event: dict) -> LLMError:
    """Say what the API's error event said, as both APIs write it: {"error": {"type", "message"}}."""
    error = event.get("error") if isinstance(event.get("error"), dict) else {}
    kind = error.get("type") or error.get("code") or "error"
    return LLMError(f"the stream broke off with an error from the API: {kind}: {error.get('message', tool_core.show(event))}")


def _arguments_of(raw: str, empty: JSON) -> JSON:
    """Decode a call's concatenated partial JSON; what does not decode stays the string the model wrote (the
    dialect then reads it as a ParseError: a malformed call is its own outcome, never 'no call')."""
    if not raw:
        return empty
    try:
        return tool_core.loads_strict(raw)
    except ValueError:
        return raw


def _index(item: dict) -> int:
    """Return an item's "index" (a content block's, a choice's, a call's), which must be a whole number."""
    if not isinstance(item["index"], int) or isinstance(item["index"], bool):
        raise ValueError(f"an index must be a whole number, got {tool_core.show(item['index'])}")
    return item["index"]


def _decodes(raw: str) -> bool:
    try:
        json.loads(raw)
        return True
    except ValueError:
        return False


# --- Anthropic: message_start, content_block_start / _delta / _stop, message_delta, message_stop ---

def anthropic_events(message: dict) -> list[str]:
    """Write a Messages API response as the stream that carries it, one SSE event per item.

    message_start holds the message with no content, no stop_reason yet and output_tokens 1; a ping;
    each content block as content_block_start (a text block with "", a tool_use block with input {}),
    its deltas (text_delta; input_json_delta, the input's JSON cut anywhere, even inside a string) and
    content_block_stop; message_delta with stop_reason, stop_sequence and the output tokens; message_stop.
    """
    head = message | {"content": [], "stop_reason": None, "stop_sequence": None,
                      "usage": message["usage"] | {"output_tokens": 1}}
    events = [("message_start", {"type": "message_start", "message": head}), ("ping", {"type": "ping"})]
    for i, block in enumerate(message["content"]):
        events += _block_events(i, block)
    ending = {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"]}
    events += [("message_delta", {"type": "message_delta", "delta": ending,
                                  "usage": {"output_tokens": message["usage"]["output_tokens"]}}),
               ("message_stop", {"type": "message_stop"})]
    return [sse_event(data, name) for name, data in events]


def _block_events(i: int, block: dict) -> list[tuple[str, dict]]:
    """Write one content block as its start, deltas and stop."""
    if block["type"] == "tool_use":
        start = block | {"input": {}}
        deltas = [{"type": "input_json_delta", "partial_json": p}
                  for p in _pieces(json.dumps(block["input"], ensure_ascii=False))]
    else:
        start = block | {"text": ""}
        deltas = [{"type": "text_delta", "text": p} for p in _pieces(block["text"])]
    return ([("content_block_start", {"type": "content_block_start", "index": i, "content_block": start})]
            + [("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d}) for d in deltas]
            + [("content_block_stop", {"type": "content_block_stop", "index": i})])


def read_anthropic_stream(lines, on_event=None) -> dict:
    """Rebuild, from a Messages API event stream, the message "stream": false returns; or raise LLMError.

    lines: the stream as read (a response, a file, a list of lines with their line breaks).
    on_event(kind, info), if given, is told as the stream goes: ("text", {"index", "text"}) for each
    piece of text, ("call_start", {"index", "id", "name"}) and ("call_done", {"index", "id", "name",
    "arguments"}) for each tool_use block, the moment its block stops, before the reply ends.
    A stream that ends before message_stop is an LLMError naming what was left incomplete (a block
    cut inside its input's JSON, no stop reason); an error event is an LLMError with the API's message.
    Ping and event types it does not know are skipped, as Anthropic's versioning policy asks.
    Example: the events of anthropic_events(m) -> m
    """
    stream = _MessageStream(on_event)
    for data in _sse_data(lines):
        stream.take(_event_json(data))
        if stream.done:
            break
    return stream.result()


class _MessageStream:
    """What read_anthropic_stream has read so far: the message, its blocks, each tool_use's partial JSON."""

    def __init__(self, on_event=None):
        self.message: dict | None = None
        self.blocks: dict[int, dict] = {}
        self.partial: dict[int, list[str]] = {}  # tool_use block -> its input_json_delta pieces
        self.open: set[int] = set()
        self.ended = self.done = False  # message_delta came (the stop reason); message_stop came
        self.on_event = on_event or (lambda kind, info: None)

    def take(self, event: dict) -> None:
        """Apply one event; an error event, or one out of order, is an LLMError."""
        kind = event.get("type")
        if kind == "error":
            raise _stream_error(event)
        handler = {"message_start": self.message_start, "content_block_start": self.block_start,
                   "content_block_delta": self.block_delta, "content_block_stop": self.block_stop,
                   "message_delta": self.message_delta, "message_stop": self.message_stop}.get(kind)
        if handler is None:  # ping, and event types added after this reader was written
            return
        if kind != "message_start" and self.message is None:
            raise LLMError(f"the stream sent {kind} before message_start")
        try:
            handler(event)
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise LLMError(f"the stream sent a {kind} event the reader cannot read ({type(exc).__name__}: {exc}): "
                           f"{tool_core.show(event, 160)}") from None

    def message_start(self, event: dict) -> None:
        self.message = dict(event["message"])

    def block_start(self, event: dict) -> None:
        i, block = _index(event), dict(event["content_block"])
        self.blocks[i] = block
        self.open.add(i)
        if block["type"] == "tool_use":
            self.partial[i] = []
            self.on_event("call_start", {"index": i, "id": block["id"], "name": block["name"]})

    def block_delta(self, event: dict) -> None:
        i, delta = event["index"], event["delta"]
        if i not in self.open:
            raise LLMError(f"the stream sent a delta for content block {i}, which is not open")
        block, kind = self.blocks[i], delta["type"]
        if kind == "text_delta":
            block["text"] = block.get("text", "") + delta["text"]
            self.on_event("text", {"index": i, "text": delta["text"]})
        elif kind == "input_json_delta":
            self.partial[i].append(delta["partial_json"])
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta["thinking"]
        elif kind == "signature_delta":
            block["signature"] = delta["signature"]
        elif kind == "citations_delta":
            block.setdefault("citations", []).append(delta["citation"])

    def block_stop(self, event: dict) -> None:
        i = event["index"]
        if i not in self.open:
            raise LLMError(f"the stream stopped content block {i}, which is not open")
        self.open.discard(i)
        block = self.blocks[i]
        if block["type"] == "tool_use":
            block["input"] = _arguments_of("".join(self.partial.pop(i)), block.get("input", {}))
            self.on_event("call_done", {"index": i, "id": block["id"], "name": block["name"], "arguments": block["input"]})

    def message_delta(self, event: dict) -> None:
        self.message.update(event["delta"])
        self.message["usage"] = dict(self.message.get("usage") or {}) | (event.get("usage") or {})
        self.ended = True

    def message_stop(self, event: dict) -> None:
        self.done = True

    def result(self) -> dict:
        """Return the rebuilt message, or raise LLMError naming what the stream left incomplete."""
        if self.message is None:
            raise LLMError("the stream ended before message_start: no message came")
        if not self.done:
            cut = [self._cut(i) for i in sorted(self.open)]
            after = f" after content block {max(self.blocks)}" if self.blocks else " (no content block had come)"
            cut += [] if self.ended else [f"no message_delta came: the stop reason is unknown, and more may have "
                                          f"followed{after}"]
            raise LLMError("the stream stopped before message_stop: " + "; ".join(
                cut or ["the message_delta came, but the stream never said the message was done"]))
        return self.message | {"content": [self.blocks[i] for i in sorted(self.blocks)]}

    def _cut(self, i: int) -> str:
        block = self.blocks[i]
        if block["type"] == "tool_use":
            raw = "".join(self.partial[i])
            where = f"inside its input, after {len(raw)} characters of JSON: {tool_core.show(raw, 60)}" \
                if not _decodes(raw) else "after its input, before the block's stop"
            return f"content block {i}, the call {block['name']} ({block['id']}), was cut {where}"
        if block["type"] == "text":
            return f"content block {i} (text) was cut after {len(block.get('text', ''))} characters"
        return f"content block {i} ({block['type']}) was cut"


# --- OpenAI: chat.completion.chunk objects, then data: [DONE] ---

def openai_chunks(completion: dict, include_usage: bool = False) -> list[str]:
    """Write a Chat Completions response as the stream that carries it, one SSE event per chunk.

    The first delta has the role ("content": "" for a text answer, null when there is none); the
    text goes as content pieces (a refusal as refusal pieces); each call as a delta with its index,
    id, type and name and "arguments": "", then its arguments' JSON string in pieces; a last delta {}
    with the finish_reason. With include_usage every chunk has "usage": null and one more chunk,
    with no choices, has the usage; then data: [DONE].
    """
    base = {k: v for k, v in completion.items() if k not in ("choices", "usage")} | {"object": "chat.completion.chunk"}
    extra = {"usage": None} if include_usage else {}
    choice = completion["choices"][0]
    message = choice["message"]

    def chunk(delta: dict, finish: str | None = None) -> str:
        return sse_event(base | {"choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
                         | extra)

    first = {"role": "assistant", "content": None if message.get("content") is None else "",
             "refusal": None if message.get("refusal") is None else ""}
    out = [chunk(first)]
    out += [chunk({"content": p}) for p in _pieces(message.get("content") or "")]
    out += [chunk({"refusal": p}) for p in _pieces(message.get("refusal") or "")]
    for k, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        out.append(chunk({"tool_calls": [{"index": k, "id": call["id"], "type": call["type"],
                                          "function": {"name": function["name"], "arguments": ""}}]}))
        out += [chunk({"tool_calls": [{"index": k, "function": {"arguments": p}}]}) for p in _pieces(function["arguments"])]
    out.append(chunk({}, choice["finish_reason"]))
    if include_usage:
        out.append(sse_event(base | {"choices": [], "usage": completion["usage"]}))
    return out + [sse_event("[DONE]")]


def read_openai_stream(lines, on_event=None) -> dict:
    """Rebuild, from a Chat Completions event stream, the chat.completion "stream": false returns; or raise LLMError.

    Each choice's message is put together from its deltas: the content (null if none came), the
    refusal, and tool_calls assembled by index from the first delta of each call (id, type, name)
    and the pieces of its arguments after; the finish_reason; the usage from the last chunk (sent
    only with stream_options.include_usage). on_event as in read_anthropic_stream; a call is done
    when the next one starts or the choice finishes. A stream that ends before data: [DONE] is an
    LLMError naming what was left incomplete (a call cut inside its arguments, no finish_reason);
    a chunk that is an error ({"error": {...}}) is an LLMError with the API's message.
    Example: the chunks of openai_chunks(c, include_usage=True) -> c
    """
    stream = _CompletionStream(on_event)
    for data in _sse_data(lines):
        if data == "[DONE]":
            stream.done = True
            break
        stream.take(_event_json(data))
    return stream.result()


@dataclass
class _ChoiceSoFar:
    """One choice as its deltas have built it so far."""

    role: str | None = None
    content: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    calls: dict[int, dict] = field(default_factory=dict)  # index -> {"id", "type", "name", "arguments": [pieces]}
    running: list[int] = field(default_factory=list)  # calls started and not yet reported done
    finish: str | None = None


class _CompletionStream:
    """What read_openai_stream has read so far: the fields of the first chunk, each choice, the usage."""

    def __init__(self, on_event=None):
        self.head: dict | None = None
        self.choices: dict[int, _ChoiceSoFar] = {}
        self.usage: dict | None = None
        self.done = False
        self.on_event = on_event or (lambda kind, info: None)

    def take(self, chunk: dict) -> None:
        """Apply one chunk; an error chunk is an LLMError."""
        if "error" in chunk:
            raise _stream_error(chunk)
        try:
            if self.head is None:
                self.head = {k: v for k, v in chunk.items() if k not in ("choices", "usage")}
            if chunk.get("usage"):
                self.usage = chunk["usage"]
            for choice in chunk.get("choices") or []:
                self._choice(choice)
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise LLMError(f"the stream sent a chunk the reader cannot read ({type(exc).__name__}: {exc}): "
                           f"{tool_core.show(chunk, 160)}") from None

    def _choice(self, choice: dict) -> None:
        so_far = self.choices.setdefault(_index(choice | {"index": choice.get("index", 0)}), _ChoiceSoFar())
        delta = choice.get("delta") or {}
        so_far.role = so_far.role or delta.get("role")
        if delta.get("content") is not None:
            so_far.content.append(delta["content"])
            if delta["content"]:
                self.on_event("text", {"index": choice.get("index", 0), "text": delta["content"]})
        if delta.get("refusal") is not None:
            so_far.refusal.append(delta["refusal"])
        for piece in delta.get("tool_calls") or []:
            self._call_piece(so_far, piece)
        if choice.get("finish_reason") is not None:
            so_far.finish = choice["finish_reason"]
            self._calls_done(so_far, len(so_far.calls))

    def _call_piece(self, so_far: _ChoiceSoFar, piece: dict) -> None:
        k, function = _index(piece), piece.get("function") or {}
        if k not in so_far.calls:  # a call's first delta: a new index, with its id and name
            self._calls_done(so_far, k)
            so_far.calls[k] = {"id": piece.get("id"), "type": piece.get("type", "function"),
                               "name": function.get("name"), "arguments": []}
            so_far.running.append(k)
            self.on_event("call_start", {"index": k, "id": piece.get("id"), "name": function.get("name")})
        call = so_far.calls[k]
        call["id"], call["name"] = call["id"] or piece.get("id"), call["name"] or function.get("name")
        call["arguments"].append(function.get("arguments") or "")

    def _calls_done(self, so_far: _ChoiceSoFar, before: int) -> None:
        """Report every running call with an index below `before` as done: a later one started, or the choice ended."""
        for k in [k for k in so_far.running if k < before]:
            so_far.running.remove(k)
            call = so_far.calls[k]
            self.on_event("call_done", {"index": k, "id": call["id"], "name": call["name"],
                                        "arguments": _arguments_of("".join(call["arguments"]), {})})

    def result(self) -> dict:
        """Return the rebuilt chat.completion, or raise LLMError naming what the stream left incomplete."""
        if self.head is None:
            raise LLMError("the stream ended before its first chunk: no reply came")
        unfinished = [i for i, c in sorted(self.choices.items()) if c.finish is None]
        if not self.done or unfinished or not self.choices:
            cut = [line for i in unfinished for line in self._cut(i)] + ([] if self.choices else ["no choice came"])
            head = "the stream sent data: [DONE] too early" if self.done else "the stream stopped before data: [DONE]"
            raise LLMError(f"{head}: " + "; ".join(cut or ["every choice finished, but what follows (the usage "
                                                           "chunk, data: [DONE]) never came"]))
        out = self.head | {"object": "chat.completion",
                           "choices": [self._built(i, c) for i, c in sorted(self.choices.items())]}
        return out | ({"usage": self.usage} if self.usage is not None else {})

    def _built(self, i: int, c: _ChoiceSoFar) -> dict:
        message = {"role": c.role or "assistant", "content": "".join(c.content) if c.content else None,
                   "refusal": "".join(c.refusal) if c.refusal else None}
        if c.calls:
            message["tool_calls"] = [{"id": call["id"], "type": call["type"],
                                      "function": {"name": call["name"], "arguments": "".join(call["arguments"])}}
                                     for _, call in sorted(c.calls.items())]
        return {"index": i, "message": message, "logprobs": None, "finish_reason": c.finish}

    def _cut(self, i: int) -> list[str]:
        c = self.choices[i]
        lines = [f"choice {i} has no finish_reason: the reply was cut"]
        for k, call in sorted(c.calls.items()):
            raw = "".join(call["arguments"])
            if not _decodes(raw):
                lines.append(f"call {k}, {call['name']} ({call['id']}), was cut inside its arguments, after "
                             f"{len(raw)} characters: {tool_core.show(raw, 60)}")
        return lines


# --- Demo 6's reply, natively: when each API's stream says a call is complete ---

def streamed_reply_natively() -> tuple[dict, dict]:
    """tool_core.STREAMED_REPLY as each API answers it natively: its prose as text, its two <tool_call>s as calls
    (Anthropic's message, OpenAI's chat.completion; the prose after the calls, which a native turn has no place
    for, is left out)."""
    prose = tool_core.STREAMED_REPLY.split(tool_core.OPEN)[0].strip()
    calls = tool_core.parse_tool_calls(tool_core.STREAMED_REPLY).items
    message = {"id": "msg_demo6", "type": "message", "role": "assistant", "model": "stand-in",
               "content": [{"type": "text", "text": prose}] + [
                   {"type": "tool_use", "id": f"toolu_0{k}", "name": c.name, "input": c.arguments}
                   for k, c in enumerate(calls, 1)],
               "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}}
    completion = {"id": "chatcmpl-demo6", "object": "chat.completion", "created": 0, "model": "stand-in",
                  "choices": [{"index": 0, "logprobs": None, "finish_reason": "tool_calls", "message": {
                      "role": "assistant", "content": prose, "refusal": None, "tool_calls": [
                          {"id": f"call_0{k}", "type": "function",
                           "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                          for k, c in enumerate(calls, 1)]}}]}
    return message, completion


def call_done_events(events: list[str], reader) -> tuple[list[tuple[str, int]], dict]:
    """Read a stream (SSE events, as the writers above make them) event by event: ([(call, the event number at which
    the reader reported it done)], the answer it rebuilt)."""
    done, at = [], [0]

    def lines():
        for n, event in enumerate(events, 1):
            at[0] = n
            yield event
    answer = reader(lines(), lambda kind, info: done.append((info["name"], at[0])) if kind == "call_done" else None)
    return done, answer


@tool_core.preformatted
def demo_native_streams() -> str:
    """Demo 6's reply streamed natively by each API: the event at which each call is complete, before the end."""
    message, completion = streamed_reply_natively()
    rows, same = [], []
    for api, events, reader, marks in (
            ("Anthropic", anthropic_events(message), read_anthropic_stream, "its content_block_stop"),
            ("OpenAI", openai_chunks(completion), read_openai_stream,
             "the next call's first chunk; the last, the finish_reason chunk")):
        done, answer = call_done_events(events, reader)
        same.append(answer == (message if api == "Anthropic" else completion))
        rows.append([api, len(events)] + [f"event {n}" for _, n in done] + [marks])
    names = [item["name"] for item in message["content"] if item["type"] == "tool_use"]
    return "\n".join([
        f"Natively, the same reply streamed {STREAM_PIECE} characters a delta: the prose as text, the two calls in the "
        "API's own blocks,", "each call's arguments as pieces of JSON. The readers (read_anthropic_stream, "
        "read_openai_stream) report a call done:", "",
        format_table(["API", "events", *(f"{name} done" for name in names), "what marks it done"], rows), "",
        "Both report each call before the stream ends, and rebuild the answer the API gives unstreamed: "
        + ("yes" if all(same) else "NO") + "."])


# ---------------------------------------------------------------------------------------------
# --- 7c. A stand-in for both APIs, offline: every request checked as the vendor checks it ---
# ---------------------------------------------------------------------------------------------
# StandIn serves POST /v1/messages (Anthropic) and POST <base>/chat/completions (OpenAI) on 127.0.0.1,
# streamed or not, so the backends above, script 07 and a student's own client run against the real
# wire formats with no key and no network. A policy plays the model: it is handed the conversation in
# one neutral form (Conversation) and returns the next assistant turn (tool_core.Turn). Before the policy sees
# anything, the request is checked against the vendor's rules and a malformed one is refused as the
# vendor refuses it (HTTP 400 in the vendor's error shape, saying what was wrong; 401 for a missing or
# wrong key): the API, not the model, is where a harness learns that it broke the coupling rule.
# Where this departs from the live APIs: it reports every problem of a request, not the first; it
# refuses consecutive turns of one role, which the Messages API now merges into one; it checks no
# model name and counts no budget itself (a policy says when a turn is cut at max_tokens); and it
# writes one choice (n must be 1).

STANDIN_CREATED = 1767225600  # OpenAI's "created" (2026-01-01): a fixed clock, so a demo prints the same bytes


@dataclass
class Conversation:
    """A request as the stand-in's policy sees it, the same for both APIs.

    messages are tool_core's messages ({"role", "content"}), roles system, user, assistant, tool;
    an assistant message that calls has "calls" (ToolCalls, with the ids the API gave them); a tool
    message answers one call: "id", "name", "content" (the result's text) and "error" (True for a
    failed call). tools are {"name", "description", "parameters"}; tool_choice is run_agent's word
    (auto, required, none, or a tool's name); parallel False means at most one call.
    """

    api: str  # "anthropic" or "openai": the wire format the request came in
    model: str
    messages: list[dict]
    tools: list[dict] = field(default_factory=list)
    tool_choice: str = "auto"
    parallel: bool = True
    max_tokens: int | None = None
    stop: list[str] = field(default_factory=list)
    input_tokens: int = 0  # count_tokens of the request's system, messages and tools

    def last_user(self) -> str:
        """Return the text of the last user message ('' if none)."""
        return next((m["content"] for m in reversed(self.messages) if m["role"] == "user"), "")


@dataclass
class Logged:
    """One request the stand-in received and what it answered (keys redacted from the headers).

    response is the JSON answer; for a stream, the object the stream carries (what "stream": false
    would have returned), and stream is the event stream as sent.
    """

    api: str | None
    path: str
    headers: dict
    request: JSON
    status: int
    response: JSON
    stream: str | None = None


def anthropic_error(kind: str, message: str) -> dict:
    """Write an error as the Messages API does. Example: ('invalid_request_error', 'x') -> {"type": "error", ...}"""
    return {"type": "error", "error": {"type": kind, "message": message}}


def openai_error(message: str, kind: str = "invalid_request_error", param: str | None = None,
                 code: str | None = None) -> dict:
    """Write an error as Chat Completions does. Example: ('x') -> {"error": {"message": "x", "type": ..., ...}}"""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


# --- The vendors' rules: every problem of a request, as (where, what) ---

JSON_TYPES = ["object", "array", "string", "number", "integer", "boolean", "null"]
# The part of JSON Schema 2020-12's meta-schema a tool's parameters use, checked by tool_core.validate:
# a BFCL document sent as it is ("type": "dict", "float") is refused here, as the APIs refuse it.
TOOL_SCHEMA_META = {
    "$ref": "#/$defs/schema",
    "$defs": {"schema": {"type": ["object", "boolean"], "properties": {
        "type": {"if": {"type": "string"}, "then": {"enum": JSON_TYPES},
                 "else": {"type": "array", "items": {"enum": JSON_TYPES}}},
        "properties": {"type": "object", "additionalProperties": {"$ref": "#/$defs/schema"}},
        "items": {"$ref": "#/$defs/schema"},
        "additionalProperties": {"$ref": "#/$defs/schema"},
        "required": {"type": "array", "items": {"type": "string"}},
        "enum": {"type": "array"},
        "description": {"type": "string"},
        "anyOf": {"type": "array", "items": {"$ref": "#/$defs/schema"}},
        "oneOf": {"type": "array", "items": {"$ref": "#/$defs/schema"}},
        "allOf": {"type": "array", "items": {"$ref": "#/$defs/schema"}},
        "$defs": {"type": "object", "additionalProperties": {"$ref": "#/$defs/schema"}}}}}}
TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")  # both APIs' rule for a tool's name


def schema_problems(where: str, schema: JSON) -> list[str]:
    """Say why a tool's parameters are no usable JSON Schema ([]: fine): an object schema of type "object",
    with JSON's type names, that tool_core's validator can use (patterns compile, $refs resolve).

    Example: ('tools.0.input_schema', {"type": "dict"}) -> ['tools.0.input_schema.type: must be "object" ...']
    """
    if not isinstance(schema, dict):
        return [f"{where}: expected a JSON Schema object, got {tool_core.describe(schema)}"]
    if schema.get("type") != "object":
        return [f'{where}.type: must be "object" (a tool takes an object of named arguments), got '
                f"{tool_core.show(schema.get('type'))}"]
    found = [f"{where}{error[1:]}" for error in tool_core.validate(TOOL_SCHEMA_META, schema)]
    try:
        tool_core.check_schema(schema)
    except ValueError as exc:
        found.append(f"{where}: JSON schema is invalid: {exc}")
    return found


def _positive_int(value: JSON) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0  # subtle: True is an int in Python


def _text_of(content: JSON) -> str:
    """Return the text of a content: a string, or its text blocks (parts) joined. Example: [{"type": "text", "text": "a"}] -> 'a'"""
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


ANTHROPIC_FIELDS = ("model", "messages", "max_tokens", "system", "metadata", "stop_sequences", "stream", "temperature",
                    "top_k", "top_p", "tools", "tool_choice", "thinking", "service_tier", "container", "mcp_servers")
ANTHROPIC_BLOCKS = ("text", "image", "document", "search_result", "tool_use", "tool_result", "thinking",
                    "redacted_thinking", "server_tool_use", "web_search_tool_result")


def anthropic_problems(body: JSON) -> list[tuple[str, str]]:
    """List every way a request breaks the Messages API's rules, as (where, what); [] when the API would take it.

    model and max_tokens present; no unknown field; messages non-empty, starting with user and
    alternating; content non-empty (but for a final assistant prefill) with known, well-formed
    blocks; the coupling rule (interfaces.coupling_problems: every tool_use answered by a tool_result
    with its id in the very next user message, no tool_result without its tool_use); system a string
    or text blocks; each custom tool a valid name, unique, with an input_schema of type object;
    tool_choice valid, with tools, naming one of them; stream a boolean, stop_sequences strings.
    """
    if not isinstance(body, dict):
        return [("body", f"the request body must be a JSON object, got {tool_core.describe(body)}")]
    found = [(k, f"{k}: Extra inputs are not permitted") for k in body if k not in ANTHROPIC_FIELDS]
    if not isinstance(body.get("model"), str) or not body["model"]:
        found.append(("model", "model: Field required" if "model" not in body else
                      f"model: expected a model name (a string), got {tool_core.show(body['model'])}"))
    if not _positive_int(body.get("max_tokens")):
        found.append(("max_tokens", "max_tokens: Field required" if "max_tokens" not in body else
                      f"max_tokens: expected a positive integer, got {tool_core.show(body['max_tokens'])}"))
    found += _anthropic_messages(body.get("messages"))
    system = body.get("system", "")
    if not isinstance(system, str) and not (isinstance(system, list) and all(
            isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str) for b in system)):
        found.append(("system", f"system: expected a string or an array of text blocks, got {tool_core.show(system)}"))
    names = []
    if "tools" in body:
        found += _anthropic_tools(body["tools"], names)
    if "tool_choice" in body:
        found += _anthropic_choice(body["tool_choice"], names, "tools" in body)
    if not isinstance(body.get("stream", False), bool):
        found.append(("stream", f"stream: expected a boolean, got {tool_core.show(body['stream'])}"))
    stops = body.get("stop_sequences", [])
    if not isinstance(stops, list) or not all(isinstance(s, str) and s.strip() for s in stops):
        found.append(("stop_sequences", f"stop_sequences: expected an array of non-blank strings, got {tool_core.show(stops)}"))
    return found


def _anthropic_messages(messages: JSON) -> list[tuple[str, str]]:
    """Check the conversation: non-empty, user first, roles alternating, each message's blocks, the coupling rule."""
    import interfaces
    if not isinstance(messages, list) or not messages:
        return [("messages", "messages: Field required" if messages is None else
                 f"messages: expected a non-empty array of messages, got {tool_core.show(messages)}")]
    found = []
    for i, m in enumerate(messages):
        found += _anthropic_message(i, m, last=i == len(messages) - 1)
    roles = [m.get("role") if isinstance(m, dict) else None for m in messages]
    if roles[0] == "assistant":
        found.append(("messages.0.role", "messages.0.role: the first message must use the user role"))
    for i in range(1, len(roles)):
        if roles[i] == roles[i - 1] and roles[i] in ("user", "assistant"):
            found.append((f"messages.{i}.role", f"messages.{i}.role: roles must alternate between user and assistant, "
                          f"but messages.{i - 1} and messages.{i} are both {roles[i]}"))
    return found + [("messages", problem) for problem in interfaces.coupling_problems(interfaces.Anthropic(), messages)]


def _anthropic_message(i: int, m: JSON, last: bool) -> list[tuple[str, str]]:
    """Check one message's fields and blocks (its role, shape and pairing are coupling_problems' to report)."""
    if not isinstance(m, dict):
        return []
    where, content = f"messages.{i}", m.get("content")
    found = [(f"{where}.{k}", f"{where}.{k}: Extra inputs are not permitted") for k in m if k not in ("role", "content")]
    if content in ("", []) and not (last and m.get("role") == "assistant"):
        found.append((f"{where}.content", f"{where}: all messages must have non-empty content except for the "
                      "optional final assistant message"))
    for k, block in enumerate(content if isinstance(content, list) else []):
        found += _anthropic_block(f"{where}.content.{k}", block)
    return found


def _anthropic_block(where: str, block: JSON) -> list[tuple[str, str]]:
    """Check one content block: a known type; text non-empty; a tool_use's name and input; a tool_result's content."""
    if not isinstance(block, dict):
        return []
    kind = block.get("type")
    if kind not in ANTHROPIC_BLOCKS:
        return [(f"{where}.type", f"{where}.type: unknown content block type {tool_core.show(kind)}; expected one of "
                 f"{', '.join(ANTHROPIC_BLOCKS)}")]
    if kind == "text" and (not isinstance(block.get("text"), str) or not block["text"]):
        return [(f"{where}.text", f"{where}.text: text content blocks must be non-empty strings, got "
                 f"{tool_core.show(block.get('text'))}")]
    found = []
    if kind == "tool_use":
        if not isinstance(block.get("name"), str) or not block["name"]:
            found.append((f"{where}.name", f"{where}.name: Field required (the name of the tool called)"))
        if not isinstance(block.get("input"), dict):
            found.append((f"{where}.input", f"{where}.input: Input should be a valid dictionary (the call's arguments "
                          f"as an object), got {tool_core.describe(block.get('input'))}"))
    if kind == "tool_result":
        inner = block.get("content", "")
        if not isinstance(inner, (str, list)) or isinstance(inner, list) and any(
                not isinstance(b, dict) or b.get("type") not in ("text", "image", "document", "search_result")
                or b.get("type") == "text" and not isinstance(b.get("text"), str) for b in inner):
            found.append((f"{where}.content", f"{where}.content: expected a string or an array of text, image or "
                          f"document blocks, got {tool_core.show(inner)}"))
        if not isinstance(block.get("is_error", False), bool):
            found.append((f"{where}.is_error", f"{where}.is_error: expected a boolean, got {tool_core.show(block['is_error'])}"))
    return found


def _anthropic_tools(tools: JSON, names: list[str]) -> list[tuple[str, str]]:
    """Check the tools (their names go into `names`): each custom tool a valid, unique name and an object schema."""
    if not isinstance(tools, list):
        return [("tools", f"tools: expected an array of tools, got {tool_core.describe(tools)}")]
    found = []
    for i, tool in enumerate(tools):
        where = f"tools.{i}"
        if not isinstance(tool, dict):
            found.append((where, f"{where}: expected a tool object, got {tool_core.describe(tool)}"))
            continue
        if tool.get("type") not in (None, "custom"):  # a server tool (web_search_..., bash_...): Anthropic's schema
            names.append(tool.get("name"))
            continue
        name = tool.get("name")
        if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
            found.append((f"{where}.name", f"{where}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$', "
                          f"got {tool_core.show(name)}"))
        if not isinstance(tool.get("description", ""), str):
            found.append((f"{where}.description", f"{where}.description: expected a string"))
        if "input_schema" not in tool:
            found.append((f"{where}.input_schema", f"{where}.input_schema: Field required"))
        else:
            found += [(f"{where}.input_schema", p) for p in schema_problems(f"{where}.input_schema", tool["input_schema"])]
        names.append(name)
    twice = sorted({n for n in names if isinstance(n, str) and names.count(n) > 1})
    return found + ([("tools", f"tools: Tool names must be unique; {', '.join(twice)} appears more than once")]
                    if twice else [])


def _anthropic_choice(choice: JSON, names: list[str], with_tools: bool) -> list[tuple[str, str]]:
    """Check tool_choice: {"type": auto | any | tool | none}, a tool's name among those sent, a boolean parallel flag."""
    kinds = ("auto", "any", "tool", "none")
    if not isinstance(choice, dict) or choice.get("type") not in kinds:
        return [("tool_choice", f"tool_choice: expected an object with type one of {', '.join(kinds)}, got "
                 f"{tool_core.show(choice)}")]
    found = []
    if not with_tools and choice["type"] != "none":
        found.append(("tool_choice", "tool_choice: tool_choice may only be specified while providing tools"))
    if choice["type"] == "tool" and choice.get("name") not in names:
        found.append(("tool_choice.name", f"tool_choice.name: {tool_core.show(choice.get('name'))} is not among the "
                      f"tools sent ({', '.join(str(n) for n in names) or 'none'})"))
    if not isinstance(choice.get("disable_parallel_tool_use", False), bool):
        found.append(("tool_choice.disable_parallel_tool_use", "tool_choice.disable_parallel_tool_use: expected a "
                      f"boolean, got {tool_core.show(choice['disable_parallel_tool_use'])}"))
    return found


OPENAI_FIELDS = ("model", "messages", "audio", "frequency_penalty", "function_call", "functions", "logit_bias", "logprobs",
                 "max_completion_tokens", "max_tokens", "metadata", "modalities", "n", "parallel_tool_calls",
                 "prediction", "presence_penalty", "prompt_cache_key", "reasoning_effort", "response_format",
                 "safety_identifier", "seed", "service_tier", "stop", "store", "stream", "stream_options",
                 "temperature", "tool_choice", "tools", "top_logprobs", "top_p", "user", "verbosity",
                 "web_search_options")
OPENAI_PARTS = ("text", "image_url", "input_audio", "file", "refusal")


def openai_problems(body: JSON) -> list[tuple[str, str]]:
    """List every way a request breaks Chat Completions' rules, as (param, what); [] when the API would take it.

    model and a non-empty messages array present; no unknown argument; each message's content as its
    role needs it (an assistant's may be null only when it calls), tool_calls with string arguments;
    the coupling rule (interfaces.coupling_problems: after an assistant's tool_calls, one tool message
    per call id before anything else; no tool message without its call); tools of type function with a
    valid name and an object schema (strict ones as strict mode needs them); tool_choice and
    parallel_tool_calls only with tools, a forced function among them; stream_options only with
    stream; max_tokens and max_completion_tokens positive; stop at most 4 strings; n 1.
    """
    if not isinstance(body, dict):
        return [("body", "We could not parse the JSON body of your request: it must be a JSON object, got "
                 f"{tool_core.describe(body)}")]
    found = [(k, f"Unrecognized request argument supplied: {k}") for k in body if k not in OPENAI_FIELDS]
    if not isinstance(body.get("model"), str) or not body["model"]:
        found.append(("model", "Missing required parameter: 'model'." if "model" not in body else
                      f"Invalid type for 'model': expected a string, got {tool_core.show(body['model'])}."))
    found += _openai_messages(body.get("messages"))
    names = []
    if "tools" in body:
        found += _openai_tools(body["tools"], names)
    found += _openai_choice(body, names)
    found += _openai_stream_fields(body)
    for key in ("max_tokens", "max_completion_tokens"):
        if key in body and body[key] is not None and not _positive_int(body[key]):
            found.append((key, f"Invalid '{key}': expected a positive integer, got {tool_core.show(body[key])}."))
    stop = body.get("stop")
    if stop is not None and not isinstance(stop, str) and not (
            isinstance(stop, list) and len(stop) <= 4 and all(isinstance(s, str) for s in stop)):
        found.append(("stop", f"Invalid 'stop': expected a string or an array of at most 4 strings, got {tool_core.show(stop)}."))
    if body.get("n", 1) != 1:
        found.append(("n", f"Invalid 'n': the stand-in writes one choice, so n must be 1, got {tool_core.show(body['n'])}."))
    return found


def _openai_messages(messages: JSON) -> list[tuple[str, str]]:
    """Check the conversation: non-empty, each message's content and tool_calls, the coupling rule."""
    import interfaces
    if not isinstance(messages, list) or not messages:
        return [("messages", "Missing required parameter: 'messages'." if messages is None else
                 f"Invalid 'messages': expected a non-empty array of messages, got {tool_core.show(messages)}.")]
    found = [p for i, m in enumerate(messages) for p in _openai_message(f"messages[{i}]", m)]
    return found + [("messages", problem) for problem in interfaces.coupling_problems(interfaces.OpenAI(), messages)]


def _openai_message(where: str, m: JSON) -> list[tuple[str, str]]:
    """Check one message's content for its role and an assistant's tool_calls (roles and pairing: coupling_problems)."""
    if not isinstance(m, dict):
        return []
    role, content, calls = m.get("role"), m.get("content"), m.get("tool_calls")
    if content is None and not (role == "assistant" and (calls or m.get("refusal"))):
        if role in ("system", "developer", "user", "tool", "assistant"):
            return [(f"{where}.content", f"Missing required parameter: '{where}.content' (only an assistant message "
                     "that calls may leave it null).")]
        return []
    found = []
    if content is not None and not isinstance(content, str) and not (isinstance(content, list) and all(
            isinstance(p, dict) and p.get("type") in OPENAI_PARTS and (p["type"] != "text" or isinstance(p.get("text"), str))
            for p in content)):
        found.append((f"{where}.content", f"Invalid type for '{where}.content': expected a string or an array of content "
                      f"parts, got {tool_core.show(content)}."))
    if role == "assistant" and calls is not None:
        found += _openai_calls(where, calls)
    return found


def _openai_calls(where: str, calls: JSON) -> list[tuple[str, str]]:
    """Check an assistant's tool_calls: a non-empty array of {id, type: function, function: {name, arguments}}, the
    arguments a JSON *string*, as the API wrote them (an object here is the commonest mistake)."""
    if not isinstance(calls, list) or not calls:
        return [(f"{where}.tool_calls", f"Invalid '{where}.tool_calls': expected a non-empty array, got "
                 f"{tool_core.show(calls)}.")]
    found = []
    for k, call in enumerate(calls):
        at = f"{where}.tool_calls[{k}]"
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(call, dict) or call.get("type") != "function" or not isinstance(function, dict):
            found.append((at, f"Invalid '{at}': expected {{\"id\", \"type\": \"function\", \"function\": {{\"name\", "
                          f"\"arguments\"}}}}, got {tool_core.show(call)}."))
            continue
        if not isinstance(function.get("name"), str):
            found.append((f"{at}.function.name", f"Missing required parameter: '{at}.function.name'."))
        if not isinstance(function.get("arguments"), str):
            found.append((f"{at}.function.arguments", f"Invalid type for '{at}.function.arguments': expected a string, "
                          f"but got {tool_core.describe(function.get('arguments'))} instead."))
    return found


def _openai_tools(tools: JSON, names: list[str]) -> list[tuple[str, str]]:
    """Check the tools (their names go into `names`): type function, a valid name, an object schema; strict ones
    must already be what strict mode needs (interfaces.strict_schema would change nothing, strict_blockers none)."""
    import interfaces
    if not isinstance(tools, list):
        return [("tools", f"Invalid type for 'tools': expected an array, got {tool_core.describe(tools)}.")]
    found = []
    for i, tool in enumerate(tools):
        where = f"tools[{i}]"
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(function, dict):
            found.append((where, f"Invalid '{where}': expected {{\"type\": \"function\", \"function\": {{...}}}}, got "
                          f"{tool_core.show(tool)}."))
            continue
        name = function.get("name")
        names.append(name)
        if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
            found.append((f"{where}.function.name", f"Invalid '{where}.function.name': string does not match pattern. "
                          f"Expected a string that matches the pattern '^[a-zA-Z0-9_-]{{1,64}}$', got {tool_core.show(name)}."))
        if "parameters" in function:
            problems = schema_problems("parameters", function["parameters"])
            found += [(f"{where}.function.parameters", f"Invalid schema for function {tool_core.show(name)}: {p}")
                      for p in problems]
            if function.get("strict") is True and not problems:
                changes = interfaces.strict_schema(function["parameters"])[1] + interfaces.strict_blockers(function["parameters"])
                found += [(f"{where}.function.parameters", f"Invalid schema for function {tool_core.show(name)}: strict "
                           f"mode needs every property required and additionalProperties false at every level: {c}")
                          for c in changes]
    return found


def _openai_choice(body: dict, names: list[str]) -> list[tuple[str, str]]:
    """Check tool_choice ("none" | "auto" | "required" | a function among the tools) and parallel_tool_calls."""
    found, with_tools = [], bool(body.get("tools"))
    if "tool_choice" in body:
        choice = body["tool_choice"]
        forced = choice.get("function", {}).get("name") if isinstance(choice, dict) and choice.get("type") == "function" \
            and isinstance(choice.get("function"), dict) else None
        if not with_tools:
            found.append(("tool_choice", "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' "
                          "are specified."))
        elif choice not in ("none", "auto", "required") and not isinstance(forced, str):
            found.append(("tool_choice", "Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or "
                          f'{{"type": "function", "function": {{"name": ...}}}}, got {tool_core.show(choice)}.'))
        elif isinstance(forced, str) and forced not in names:
            found.append(("tool_choice", f"Invalid value for 'tool_choice': the function {forced!r} is not among the "
                          f"tools sent ({', '.join(str(n) for n in names)})."))
    if "parallel_tool_calls" in body:
        if not isinstance(body["parallel_tool_calls"], bool):
            found.append(("parallel_tool_calls", "Invalid type for 'parallel_tool_calls': expected a boolean, got "
                          f"{tool_core.show(body['parallel_tool_calls'])}."))
        elif not with_tools:
            found.append(("parallel_tool_calls", "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is "
                          "only allowed when 'tools' are specified."))
    return found


def _openai_stream_fields(body: dict) -> list[tuple[str, str]]:
    """Check stream (a boolean) and stream_options (an object, and only with stream true)."""
    found = []
    if not isinstance(body.get("stream", False), bool) and body.get("stream") is not None:
        found.append(("stream", f"Invalid type for 'stream': expected a boolean, got {tool_core.show(body['stream'])}."))
    options = body.get("stream_options")
    if options is not None:
        if body.get("stream") is not True:
            found.append(("stream_options", "The 'stream_options' parameter is only allowed when 'stream' is enabled."))
        elif not isinstance(options, dict) or not isinstance(options.get("include_usage", False), bool):
            found.append(("stream_options", "Invalid 'stream_options': expected {\"include_usage\": true or false}, got "
                          f"{tool_core.show(options)}."))
    return found


# --- A checked request in the neutral form, and a turn written back in the vendor's ---

def _input_tokens(body: dict) -> int:
    """Count a request's input as the stand-in bills it: count_tokens of its system, messages and tools as JSON."""
    return tool_core.count_tokens(json.dumps({k: body[k] for k in ("system", "messages", "tools") if k in body},
                                             ensure_ascii=False))


def anthropic_conversation(body: dict) -> Conversation:
    """Read a checked Messages request as a Conversation: system first, tool_results as tool messages (in their
    order, before the user's text), tool_choice in run_agent's words."""
    messages = [{"role": "system", "content": _text_of(body["system"])}] if body.get("system") else []
    names: dict[str, str] = {}  # call id -> tool name: a tool_result names only the id
    for m in body["messages"]:
        content = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        if m["role"] == "assistant":
            calls = [ToolCall(b["name"], b["input"], id=b["id"]) for b in content if b["type"] == "tool_use"]
            names |= {c.id: c.name for c in calls}
            messages.append({"role": "assistant", "content": _text_of(content)} | ({"calls": calls} if calls else {}))
            continue
        results = [b for b in content if b["type"] == "tool_result"]
        messages += [{"role": "tool", "id": b["tool_use_id"], "name": names.get(b["tool_use_id"], ""),
                      "content": _text_of(b.get("content", "")), "error": bool(b.get("is_error"))} for b in results]
        if _text_of(content) or not results:
            messages.append({"role": "user", "content": _text_of(content)})
    choice = body.get("tool_choice") or {"type": "auto"}
    return Conversation("anthropic", body["model"], messages,
                        [{"name": t["name"], "description": t.get("description", ""), "parameters": t["input_schema"]}
                         for t in body.get("tools", []) if "input_schema" in t],
                        {"any": "required", "tool": choice.get("name")}.get(choice["type"], choice["type"]),
                        not choice.get("disable_parallel_tool_use", False), body["max_tokens"],
                        list(body.get("stop_sequences", [])), _input_tokens(body))


def openai_conversation(body: dict) -> Conversation:
    """Read a checked Chat Completions request as a Conversation: developer messages as system, a tool message's
    "Error: " prefix (the OpenAI dialect's convention for a failed call) as error."""
    messages, names = [], {}
    for m in body["messages"]:
        role, text = {"developer": "system"}.get(m["role"], m["role"]), _text_of(m.get("content"))
        if role == "assistant":
            calls = [ToolCall(e["function"]["name"], _arguments_of(e["function"]["arguments"], {}), id=e["id"])
                     for e in m.get("tool_calls") or []]
            names |= {c.id: c.name for c in calls}
            messages.append({"role": "assistant", "content": text} | ({"calls": calls} if calls else {}))
        elif role == "tool":
            failed = text.startswith("Error: ")
            messages.append({"role": "tool", "id": m["tool_call_id"], "name": names.get(m["tool_call_id"], ""),
                             "content": text[len("Error: "):] if failed else text, "error": failed})
        else:
            messages.append({"role": role, "content": text})
    tools = [{"name": t["function"]["name"], "description": t["function"].get("description", ""),
              "parameters": t["function"].get("parameters", {"type": "object", "properties": {}})}
             for t in body.get("tools", [])]
    choice = body.get("tool_choice", "auto" if tools else "none")  # the API's defaults
    stop = body.get("stop")
    return Conversation("openai", body["model"], messages, tools,
                        choice if isinstance(choice, str) else choice["function"]["name"],
                        body.get("parallel_tool_calls", True), body.get("max_completion_tokens", body.get("max_tokens")),
                        [stop] if isinstance(stop, str) else list(stop or []), _input_tokens(body))


def constrained(turn: tool_core.Turn, conversation: Conversation) -> tool_core.Turn:
    """Hold a turn to the request's tool_choice and parallel setting, as the APIs do while decoding (a model
    cannot write a call they rule out): none drops every call, a forced tool the calls of other tools, and
    parallel calls off all calls after the first. Example: Turn('', [add, mult]), tool_choice 'mult' -> Turn('', [mult])
    """
    calls = [(c.name, c.arguments) if isinstance(c, ToolCall) else tuple(c) for c in turn.calls]
    if conversation.tool_choice == "none":
        calls = []
    elif conversation.tool_choice not in ("auto", "required"):
        calls = [c for c in calls if c[0] == conversation.tool_choice]
    return replace(turn, calls=calls if conversation.parallel else calls[:1])


def turn_problems(turn: JSON, conversation: Conversation) -> list[str]:
    """Say why a policy's turn cannot be the API's answer to the request ([]: it can). What constrained decoding
    would prevent is a bug in the policy, not a model's mistake: native calls when no tools were sent, and no
    call where tool_choice requires one (or forces a tool) and the turn was neither cut nor refused."""
    if not isinstance(turn, tool_core.Turn):
        return [f"the policy must return a Turn or a str, got {type(turn).__name__}"]
    calls = [(c.name, c.arguments) if isinstance(c, ToolCall) else c for c in turn.calls]
    found = [f"call {k} is {tool_core.show(c)}; write (name, arguments) with the arguments an object" for k, c in
             enumerate(calls) if not (isinstance(c, tuple) and len(c) == 2 and isinstance(c[0], str) and isinstance(c[1], dict))]
    if found:
        return found
    if calls and not conversation.tools:
        return ["the turn makes native calls, but the request sent no tools (a text-protocol call is text)"]
    choice, kept = conversation.tool_choice, constrained(turn, conversation).calls
    if kept or turn.cut or turn.refused or choice in ("auto", "none"):
        return []
    made = ", ".join(name for name, _ in calls) or "nothing"
    return ["tool_choice is required (any), but the turn makes no call" if choice == "required" else
            f"tool_choice forces {choice}, but the turn calls {made}"]


def _ending(turn: tool_core.Turn, conversation: Conversation) -> tuple[str, list[tuple[str, dict]], str, str | None]:
    """Apply the request's stop sequences: (text, calls, why it ended, the stop sequence met). A text that meets one
    is cut there and the calls after it are never written; why is end, calls, max, refusal or stop."""
    calls = [(c.name, c.arguments) if isinstance(c, ToolCall) else tuple(c) for c in turn.calls]
    met = sorted((turn.text.find(s), s) for s in conversation.stop if s in turn.text)
    if met:
        return turn.text[:met[0][0]], [], "stop", met[0][1]
    if turn.stop_sequence:
        return turn.text, [], "stop", turn.stop_sequence
    why = "refusal" if turn.refused else "max" if turn.cut else "calls" if calls else "end"
    return turn.text, calls, why, None


def _output_tokens(text: str, calls: list[tuple[str, dict]]) -> int:
    return tool_core.count_tokens(text) + sum(tool_core.count_tokens(n + json.dumps(a, ensure_ascii=False)) for n, a in calls)


def _id(digest: str, k: int) -> str:
    """A call's id, the same for the same request (streamed or not) and different for every other."""
    import hashlib
    return hashlib.sha256(f"{digest}/{k}".encode()).hexdigest()[:24]


ANTHROPIC_STOPS = {"end": "end_turn", "calls": "tool_use", "max": "max_tokens", "refusal": "refusal", "stop": "stop_sequence"}
OPENAI_STOPS = {"end": "stop", "calls": "tool_calls", "max": "length", "refusal": "stop", "stop": "stop"}


def anthropic_message(turn: tool_core.Turn, conversation: Conversation, digest: str) -> dict:
    """Write a turn as the Messages API's answer: a text block, tool_use blocks with their ids, the stop reason, usage."""
    text, calls, why, sequence = _ending(turn, conversation)
    blocks = [{"type": "text", "text": text}] if text else []
    blocks += [{"type": "tool_use", "id": f"toolu_{_id(digest, k)}", "name": n, "input": a} for k, (n, a) in enumerate(calls)]
    return {"id": f"msg_{digest[:24]}", "type": "message", "role": "assistant", "model": conversation.model,
            "content": blocks, "stop_reason": ANTHROPIC_STOPS[why], "stop_sequence": sequence,
            "usage": {"input_tokens": conversation.input_tokens, "output_tokens": _output_tokens(text, calls)}}


def openai_completion(turn: tool_core.Turn, conversation: Conversation, digest: str) -> dict:
    """Write a turn as Chat Completions' answer: content (null when it only calls), refusal, tool_calls with their
    ids and arguments as a JSON string, the finish_reason, usage."""
    text, calls, why, _ = _ending(turn, conversation)
    refused = why == "refusal"
    message = {"role": "assistant", "content": None if refused or (calls and not text) else text,
               "refusal": text if refused else None}
    if calls:
        message["tool_calls"] = [{"id": f"call_{_id(digest, k)}", "type": "function",
                                  "function": {"name": n, "arguments": json.dumps(a, ensure_ascii=False)}}
                                 for k, (n, a) in enumerate(calls)]
    used = _output_tokens(text, calls)
    return {"id": f"chatcmpl-{digest[:24]}", "object": "chat.completion", "created": STANDIN_CREATED,
            "model": conversation.model, "choices": [{"index": 0, "message": message, "logprobs": None,
                                                      "finish_reason": OPENAI_STOPS[why]}],
            "usage": {"prompt_tokens": conversation.input_tokens, "completion_tokens": used,
                      "total_tokens": conversation.input_tokens + used}}


# --- Policies: the lab's scripted models as the stand-in's model ---

def turn_from_text(text: str, native: bool) -> tool_core.Turn:
    """Read a text-protocol reply as a turn: as it is in text mode; in native mode its <tool_call>s become native
    calls and the text around them the turn's text (a call the parser cannot read stays in the text, as written).

    Example: ('<tool_call>{"name": "add", "arguments": {"a": 2, "b": 3}}</tool_call>', True) -> Turn('', [('add', {...})])
    """
    if not native:
        return tool_core.Turn(text)
    parsed = tool_core.parse_tool_calls(text)
    broken = [e.raw for e in parsed.errors]
    return tool_core.Turn("\n".join([parsed.text] + broken).strip(), [(c.name, c.arguments) for c in parsed.calls])


def lm_messages(conversation: Conversation) -> list[dict]:
    """Write a conversation as a text model of the lab reads it (tool_core's messages, the text protocol): calls as
    <tool_call> text, a call's results as one tool message of <tool_result> blocks (also where a text-protocol
    client sent them as a user turn, as it must over a chat API); in native mode the tools (and a tool_choice
    other than auto) go in the system prompt."""
    out, system = [], ""
    if conversation.tools:
        tools = [tool_core.Tool(t["name"], t["description"], t["parameters"], lambda **a: a) for t in conversation.tools]
        system = tool_core.render_tool_prompt(tools, conversation.tool_choice)
    for m in conversation.messages:
        if m["role"] == "tool" and out and out[-1]["role"] == "tool":
            out[-1]["content"] += "\n" + _result_text(m)
        elif m["role"] == "tool":
            out.append({"role": "tool", "content": _result_text(m)})
        elif m["role"] == "assistant":
            written = [m["content"]] + [tool_core.call_text(c.name, c.arguments) for c in m.get("calls", [])]
            out.append({"role": "assistant", "content": "\n".join(w for w in written if w)})
        elif m["role"] == "user" and tool_core.parse_tool_results(m["content"] or "") and \
                (m["content"] or "").lstrip().startswith("<tool_result"):
            out.append({"role": "tool", "content": m["content"]})  # the text protocol sends results as a user turn
        else:
            out.append({"role": m["role"], "content": m["content"]})
    if system and out and out[0]["role"] == "system":
        out[0] = {"role": "system", "content": out[0]["content"] + "\n\n" + system}
    elif system:
        out.insert(0, {"role": "system", "content": system})
    return out


def _result_text(m: dict) -> str:
    call = ToolCall(m["name"], {}, id=m["id"])
    result = tool_core.ToolResult(False, error_kind="execution_error", message=m["content"]) if m["error"] \
        else tool_core.ToolResult(True, m["content"])
    return tool_core.render_tool_results([(call, result)])


def policy_from_lm(lm) -> typing.Callable[[Conversation], tool_core.Turn]:
    """Let a text model of the lab (a ScriptedLM, any lm(messages, stop) -> str) play the stand-in's model.

    It reads lm_messages(conversation); its reply is cut at the request's first stop sequence (the
    stand-in reports stop_sequence, as the APIs do); in native mode its <tool_call>s become native calls.
    """
    def policy(conversation: Conversation) -> tool_core.Turn:
        reply = lm(lm_messages(conversation), stop=[])
        met = sorted((reply.find(s), s) for s in conversation.stop if s in reply)
        turn = turn_from_text(reply[:met[0][0]] if met else reply, bool(conversation.tools))
        turn.stop_sequence = met[0][1] if met else None
        return turn
    return policy


def answers_policy(answers: dict[str, str] | None = None) -> typing.Callable[[Conversation], tool_core.Turn]:
    """Play hand-written answers to the nine questions (model A's by default) as the stand-in's model: ToyBackend's
    answers, on the wire. The question is found by its user turn and, where two ask the same, by the tools offered
    (in the tools field, or in the system prompt's <tools> block); native requests get its <tool_call>s as calls."""
    answers = answers or MODEL_A

    def policy(conversation: Conversation) -> tool_core.Turn:
        offered = {t["name"] for t in conversation.tools} or set(re.findall(
            r'^\{"name": "([^"]+)"', conversation.messages[0]["content"] if conversation.messages else "", re.M))
        asked = [q for q in QUESTIONS if q["question"][0][0]["content"] == conversation.last_user()]
        if not asked:
            raise ValueError(f"none of the nine questions is {tool_core.show(conversation.last_user())}")
        question = next((q for q in asked if {d["name"] for d in q["function"]} == offered), asked[0])
        return turn_from_text(answers[question["id"]], bool(conversation.tools))
    return policy


# --- The server ---

class StandIn:
    """Both APIs on 127.0.0.1, offline: the Messages API at POST /v1/messages, Chat Completions at POST
    <base>/chat/completions (/v1/chat/completions, or under any base), "stream": true answered as SSE.

    `with StandIn(policy) as server:` then AnthropicBackend(key, base_url=server.url) or
    OpenAIBackend(server.url + "/v1"). Each request is checked (anthropic_problems, openai_problems)
    and refused in the vendor's error shape if malformed: 400, or 401 when a key is set and the
    request's is missing or wrong. A checked request goes to policy(Conversation) -> tool_core.Turn (or str);
    the answer gets ids (toolu_..., call_...; the same for the same request, streamed or not) and
    usage by count_tokens. The turn is held to tool_choice and parallel_tool_calls as the APIs hold a
    model while decoding (constrained); a policy that raises, or whose turn cannot answer the request
    (turn_problems: no call where one is required, native calls with no tools sent), is a 500 the
    backends do not retry (x-should-retry: false), saying why. Every request and answer is kept in
    `log` (Logged), keys redacted. cut_after=n ends each stream after n events: a dropped connection.
    The HTTP machinery is interfaces' LoopbackServer (its Appendix A).
    """

    def __init__(self, policy, *, key: str | None = None, cut_after: int | None = None):
        self.policy, self.key, self.cut_after = policy, key, cut_after
        self.log: list[Logged] = []
        self._server = None

    @property
    def url(self) -> str:
        """Return the base URL, e.g. 'http://127.0.0.1:54321' (Anthropic's base; OpenAI's is this + '/v1')."""
        if self._server is None:
            raise RuntimeError("the stand-in is not running: call start() or use it in a with block")
        return self._server.url

    def start(self) -> "StandIn":
        """Serve on a free port of 127.0.0.1 in a daemon thread; return self."""
        if self._server is None:
            self._server = _loopback_server(self.respond).start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port (safe to call twice)."""
        if self._server is not None:
            self._server.stop()
            self._server = None

    def __enter__(self) -> "StandIn":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        """Say where it serves and how many requests it has logged (never the key)."""
        where = f"running at {self.url}" if self._server is not None else "stopped"
        return f"StandIn({where}; {len(self.log)} requests logged)"

    def respond(self, method: str, target: str, headers, body: bytes) -> tuple[int, dict, typing.Any]:
        """Answer one HTTP request (LoopbackServer's hook) and log it: JSON bytes, or an iterator of SSE events."""
        from urllib.parse import urlsplit
        path = urlsplit(target).path
        api = "anthropic" if path == "/v1/messages" else "openai" if path.endswith("/chat/completions") else None
        try:
            request = json.loads(body) if body else None
        except ValueError:
            request = body.decode("utf-8", "replace")
        status, payload, events, extra = self._answer(api, method, path, headers, request)
        seen = {k.lower(): "[redacted]" if k.lower() in ("x-api-key", "authorization") else v for k, v in headers.items()}
        self.log.append(Logged(api, path, seen, request, status, payload, "".join(events) if events is not None else None))
        if events is None:
            import interfaces
            return status, {"Content-Type": "application/json"} | extra, interfaces.wire_bytes(payload)
        return status, {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}, (e.encode() for e in events)

    def _answer(self, api: str | None, method: str, path: str, headers, request: JSON) -> tuple:
        """Decide the answer: (status, JSON payload, SSE events or None, extra headers)."""
        if api is None:
            return 404, anthropic_error("not_found_error", f"no endpoint at {path}: the stand-in serves POST "
                                        "/v1/messages and POST <base>/chat/completions"), None, {}
        if method != "POST":
            return 405, self._error(api, 405, f"{path} takes POST, not {method}"), None, {"Allow": "POST"}
        refused = self._refusal(api, headers, request)
        if refused is not None:
            return (*refused, None, {})
        conversation = (anthropic_conversation if api == "anthropic" else openai_conversation)(request)
        try:
            turn = self.policy(conversation)
        except Exception as exc:  # a bug in the policy: the caller's, said as the API's 500, not a dead server
            return 500, self._error(api, 500, f"the policy raised {type(exc).__name__}: {exc}"), None, \
                {"x-should-retry": "false"}
        turn = tool_core.Turn(turn) if isinstance(turn, str) else turn
        problems = turn_problems(turn, conversation)
        if problems:
            return 500, self._error(api, 500, "the policy's turn cannot answer the request: " + "; ".join(problems)), \
                None, {"x-should-retry": "false"}
        turn = constrained(turn, conversation)
        import hashlib  # the request without its stream fields: a streamed and an unstreamed request get the same ids
        digest = hashlib.sha256(json.dumps({k: v for k, v in request.items() if k not in ("stream", "stream_options")},
                                           sort_keys=True).encode()).hexdigest()
        if api == "anthropic":
            answer = anthropic_message(turn, conversation, digest)
            events = anthropic_events(answer) if request.get("stream") else None
        else:
            answer = openai_completion(turn, conversation, digest)
            usage = bool((request.get("stream_options") or {}).get("include_usage"))
            events = openai_chunks(answer, usage) if request.get("stream") else None
        return 200, answer, events[:self.cut_after] if events and self.cut_after is not None else events, {}

    def _refusal(self, api: str, headers, request: JSON) -> tuple[int, dict] | None:
        """Refuse a request as the vendor does (401 for the key, then 400 for the body), or return None."""
        if self.key:
            given = headers.get("x-api-key") if api == "anthropic" else \
                (headers.get("authorization") or "").removeprefix("Bearer ") or None
            if given is None:
                return 401, self._error(api, 401, "x-api-key header is required" if api == "anthropic" else
                                        "You didn't provide an API key. You need to provide your API key in an "
                                        "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).")
            import hmac
            if not hmac.compare_digest(given.encode(), self.key.encode()):  # never says what was sent: no key in errors
                return 401, self._error(api, 401, "invalid x-api-key" if api == "anthropic" else
                                        "Incorrect API key provided.", code="invalid_api_key")
        if api == "anthropic" and not headers.get("anthropic-version"):
            return 400, self._error(api, 400, "anthropic-version: header is required")
        if isinstance(request, str) or request is None:
            return 400, self._error(api, 400, "the request body is not valid JSON" + (f": {tool_core.show(request)}"
                                                                                      if request else " (it is empty)"))
        problems = (anthropic_problems if api == "anthropic" else openai_problems)(request)
        if problems:
            return 400, self._error(api, 400, "; ".join(what for _, what in problems), param=problems[0][0])
        return None

    @staticmethod
    def _error(api: str, status: int, message: str, param: str | None = None, code: str | None = None) -> dict:
        """Write an error in the API's shape, the type as each names it for this status."""
        if api == "anthropic":
            return anthropic_error({401: "authentication_error", 404: "not_found_error", 500: "api_error"}.get(
                status, "invalid_request_error"), message)
        return openai_error(message, "server_error" if status == 500 else "invalid_request_error", param, code)


def _loopback_server(respond):
    """Build interfaces' LoopbackServer answering with `respond` (imported here: importing bfcl_lab starts nothing
    and imports no other lab module until a server or a dialect is needed)."""
    import interfaces

    class Served(interfaces.LoopbackServer):
        software = "StandIn/1.0"

        def respond(self, method: str, target: str, headers, body: bytes):
            return respond(method, target, headers, body)

    return Served()


# ---------------------------------------------------------------------------------------------
# --- 7d. A real model in any loop of the lab: APIModel, the conversation in each vendor's form ---
# ---------------------------------------------------------------------------------------------
# run_agent (tool_core) asks a model for its next Turn. APIModel is that model on an API: natively, the tools go
# in the vendor's field and the conversation is rewritten in the vendor's form on every request (the assistant
# turn echoed as the API sent it, every call answered by its id in the next message); in the text protocol, the
# API only ever sees text, and a tool result is a user message.

class APIModel:
    """A backend (AnthropicBackend, OpenAIBackend) as a model of tool_core's loop: .turn(messages, tools, choice).

    native=True: tool calling through the vendor's fields; native=False: the text protocol (the tools in the
    system prompt, <tool_call> tags, stopped at <tool_result). `requests` counts this model's requests; the
    backend holds the run's budget and what every model on it spent (HTTPBackend.send).
    """

    def __init__(self, backend: HTTPBackend, native: bool = True):
        if not isinstance(backend, (AnthropicBackend, OpenAIBackend)):
            raise TypeError(f"APIModel needs an AnthropicBackend or OpenAIBackend, got {type(backend).__name__}")
        self.backend, self.native, self.requests = backend, native, 0
        self.exchanges: list[tuple[dict, dict]] = []  # (request body, answer) of every request: no key is in them
        self.anthropic = isinstance(backend, AnthropicBackend)

    def __repr__(self) -> str:
        backend = self.backend
        budget = f"/{backend.max_requests}" if backend.max_requests is not None else ""
        return (f"APIModel({backend.model}, {'native' if self.native else 'text protocol'}"
                f"{', streamed' if backend.stream else ''}, {backend.requests}{budget} requests)")

    def turn(self, messages: list[dict], tools: list[tool_core.Tool] = (), tool_choice: str = "auto") -> tool_core.Turn:
        """Send the conversation so far; return the model's next turn (an LLMError when the API fails)."""
        dialect = self.backend.dialect
        system, history = vendor_messages(dialect, messages, self.native)
        body = {"model": self.backend.model, "max_tokens": self.backend.max_tokens}
        if self.native and tools:
            body["tools"] = [dialect.tool(t) for t in tools]
            if tool_choice != "auto":
                body |= dialect.tool_choice(tool_choice if tool_choice in tool_core.TOOL_CHOICES else {"name": tool_choice})
        elif not self.native:
            body["stop_sequences" if self.anthropic else "stop"] = tool_core.STOP_SEQUENCES
        if not self.anthropic and _REASONING_MODEL.match(self.backend.model):  # they refuse max_tokens and stop
            body["max_completion_tokens"] = body.pop("max_tokens")
            body.pop("stop", None)
        if self.anthropic:
            body |= {"system": system, "messages": history}
            data = self._send(body)
            raw = {"role": "assistant", "content": data.get("content")}
            stop = data.get("stop_reason") or ""
        else:
            body["messages"] = [{"role": "system", "content": system}] + history
            data = self._send(body)
            choice = (data.get("choices") or [{}])[0] if isinstance(data.get("choices"), list) else {}
            message = choice.get("message") if isinstance(choice, dict) and isinstance(choice.get("message"), dict) else {}
            raw = {"role": "assistant", "content": message.get("content")} | (
                {"tool_calls": message["tool_calls"]} if message.get("tool_calls") else {})
            finish = (choice.get("finish_reason") or "") if choice else ""
            stop = "refusal" if message.get("refusal") or finish == "content_filter" else finish
        usage = _usage(data.get("usage"))
        if not self.native:
            text = "".join(b.get("text", "") for b in raw["content"] if isinstance(b, dict)) \
                if isinstance(raw["content"], list) else raw["content"] or ""
            turn = tool_core.TextModel(lambda m, stop=None: text).turn(messages)
            return tool_core.Turn(turn.text, turn.calls, stop or turn.stop_reason, usage, text)
        text, calls = _read_native(dialect, raw, self.backend.url)
        return tool_core.Turn(text, calls, stop, usage, raw)

    def _send(self, body: dict) -> dict:
        """Send the request through the backend (its budget, its stream setting); keep the exchange."""
        answer = self.backend.send(body)
        self.requests += 1
        self.exchanges.append((body, answer))
        return answer


def vendor_messages(dialect, messages: list[dict], native: bool) -> tuple[str, list[dict]]:
    """Write the loop's conversation as a vendor's request expects it: (the system prompt, the messages).

    An assistant turn the API sent is echoed as it came (raw), so nothing it held is lost; a native tool
    message becomes the dialect's results (Anthropic: one user message of tool_result blocks; OpenAI: one
    tool message per call), answering every call by its id. In the text protocol a tool result is a user
    message. Consecutive user messages (results, then a harness note) are joined, as Anthropic alternates.
    """
    system, out = "", []
    for m in messages:
        role = m.get("role")
        if role == "system":
            system = m["content"]
            continue
        if role == "assistant":
            raw = m.get("raw")
            if native and isinstance(raw, dict):
                out.append(raw)
            elif native and m.get("calls"):
                out.append(dialect.calls([c for c in m["calls"]], m.get("content") or ""))
            else:
                out.append({"role": "assistant", "content": raw if isinstance(raw, str) else m.get("content") or ""})
        elif role == "tool" and native:
            written = dialect.results(m["results"])
            out += written if isinstance(written, list) else [written]
        else:  # user, a harness note, or a text-protocol tool result
            out.append({"role": "user", "content": m["content"]})
    return system, _join_users(out)


def _join_users(messages: list[dict]) -> list[dict]:
    joined = []
    for m in messages:
        if joined and m["role"] == "user" and joined[-1]["role"] == "user":
            blocks = [b for part in (joined[-1]["content"], m["content"])
                      for b in (part if isinstance(part, list) else [{"type": "text", "text": part}])]
            joined[-1] = {"role": "user", "content": blocks}
        else:
            joined.append(m)
    return joined


def _read_native(dialect, raw: dict, url: str) -> tuple[str, list]:
    """Read a native turn's text and calls, keeping each call's id (LLMError for a turn the dialect cannot read)."""
    try:
        return dialect.read_calls(raw)
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        raise LLMError(f"{url} answered with a turn the {dialect.name} reader cannot read "
                       f"({type(exc).__name__}: {exc}): {tool_core.show(raw, 200)}") from None


def _usage(usage: JSON) -> dict[str, int]:
    """The API's token counts in one vocabulary: input_tokens and output_tokens (OpenAI says prompt/completion)."""
    if not isinstance(usage, dict):
        return {}
    pairs = (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens"))
    return {ours: usage.get(ours, usage.get(theirs)) for ours, theirs in pairs
            if isinstance(usage.get(ours, usage.get(theirs)), int)}


def read_dotenv(path: str = ".env") -> dict[str, str]:
    """Read KEY=VALUE lines of a .env file (quotes stripped, # comments and blank lines skipped); {} if none.

    The values are keys: nothing here prints them, and a malformed line is reported by its number only.
    """
    import os
    if not os.path.exists(path):
        return {}
    found = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, sep, value = line.removeprefix("export ").partition("=")
            if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name.strip()):
                raise ValueError(f"{path}, line {n}: expected NAME=value (the value is not shown)")
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            found[name.strip()] = value
    return found


# ---------------------------------------------------------------------------------------------
# --- 7e. The real-model chapter (scripts/07_real_llm.py): the lecture's loops on any model ---
# ---------------------------------------------------------------------------------------------
# Each part takes an APIModel (a live API, a local server, or the stand-in) and `play`, which hands the stand-in
# the scripted model a part needs (a no-op when the model is live): the same code runs offline and for real.

ASK = "New papers on constrained decoding?"


def ask_lm(question: str):
    """The offline model of part 1: search the offline arXiv for the question's topic, then answer citing ids."""
    topic = re.sub(r"^(new |recent |the newest )?papers? (on|about) ", "", question.strip().lower()).rstrip("?. ")

    def reply(messages: list[dict]) -> str:
        if messages[-1]["role"] != "tool":
            return tool_core.call_text("arxiv_search", {"query": topic, "max_results": 3})
        found = re.findall(r"(?m)^(\d{4}\.\d{4,5})\s+(.+?) \((\d{4})\)", messages[-1]["content"])
        if not found:
            return f"I found no paper on {topic} in the archive."
        return "The newest I found: " + "; ".join(f"{title} ({pid}, {year})" for pid, title, year in found) + "."
    return tool_core.ScriptedLM(reply)


@tool_core.preformatted
def demo_ask(model: APIModel, play=lambda lm: None, question: str = ASK) -> str:
    """Part 1, the round trip of slides 003's demonstration 1: a question, the offline arXiv as the tool, every
    request and answer as the exact JSON on the wire, and the ids the answer cites checked against the results."""
    import interfaces
    store = interfaces.PaperStore()
    registry = ToolRegistry([interfaces.search_tools(store)[1], interfaces.abstract_tool(store)])
    play(ask_lm(question))
    start = len(model.exchanges)
    t = tool_core.run_agent(model, registry, question)
    out = [f"question: {question}   ({model!r})"]
    for n, (request, answer) in enumerate(model.exchanges[start:], 1):
        out += [f"request {n}: " + json.dumps(request, ensure_ascii=False), f"answer {n}: "
                + json.dumps(answer, ensure_ascii=False)]
    shown = " ".join(m["content"] for m in t.messages if m["role"] == "tool")
    cited = re.findall(r"\b\d{4}\.\d{4,5}\b", t.final_answer or "")
    real = [i for i in cited if i in shown]
    return "\n".join(out + [
        f"answer: {t.final_answer}" if t.final_answer is not None else f"no answer: {t.stop_reason}",
        f"{t.steps} requests, {len(t.calls)} call(s); the answer cites {len(cited)} id(s), {len(real)} of them in the "
        "search results it was given (an id it was not given would be invented)."])


HARNESS_TASKS = [  # (what it shows, the question, the offline model's replies: tool_core's demo 3 of script 03)
    ("parallel calls", "What caused E-1474, and who maintains SS-218?",
     [tool_core.call_text("get_incident", {"code": "E-1474"}) + "\n"
      + tool_core.call_text("get_substation", {"substation_id": "SS-218"}),
      "E-1474 was a relay fault at SS-218, now resolved; Dana Okafor maintains SS-218."]),
    ("relevance", "What's the weather in Stanford tomorrow?",
     ["I can't check the weather: none of my tools gives forecasts."]),
    ("correction", "Open an urgent ticket for SS-218: the relay trips twice an hour.",
     [tool_core.call_text("create_ticket", {"substation_id": "SS-218", "summary": "relay trips twice an hour",
                                            "priority": "urgent"}),
      tool_core.call_text("create_ticket", {"substation_id": "SS-218", "summary": "relay trips twice an hour",
                                            "priority": "high"}),
      "Done: a ticket is open for SS-218 with high priority."]),
]


@tool_core.preformatted
def demo_harness(models: dict[str, APIModel], play=lambda lm: None) -> str:
    """Part 2, script 03's harness tasks on the model in each mode: what it called, what came back, how it ended."""
    rows = []
    for what, question, replies in HARNESS_TASKS:
        for mode, model in models.items():
            registry, grid = tool_core.orrin_grid_registry()
            play(tool_core.ScriptedLM(list(replies)))
            t = tool_core.run_agent(model, registry, question)
            calls = ", ".join(f"{c.name} {'ok' if c.ok else c.error_kind}" for c in t.calls) or "none"
            rows.append([what, mode, t.steps, calls, f"{t.stop_reason}; tickets: {len(grid.tickets)}"])
    return "\n".join([format_table(["task", "mode", "requests", "calls", "how it ended"], rows, [0, 0, 0, 44, 0]),
                      "Natively the calls come in the API's own fields, with its ids; in the text protocol the lab's "
                      "parser reads them\nfrom the reply. Either way every call of a reply is answered in the next "
                      "message, and a wrong one gets its error to correct."])


@tool_core.preformatted
def demo_tau_real(model: APIModel, play=lambda lm: None, trials: int = 2, seed: int = 0) -> str:
    """Part 4, the mini tau-bench with this model as the agent: trials per task graded by the final state, pass^k,
    and the failure modes read off each trajectory (the simulated customer stays scripted)."""
    import random
    import service_env
    runs = {}
    for task in service_env.TASKS:
        runs[task.id] = []
        for trial in range(trials):
            play(tool_core.ScriptedLM(service_env.ToyAgent(task, service_env.Knobs(),
                                                           random.Random(f"{seed}:{task.id}:{trial}"))))
            runs[task.id].append(service_env.run_trial(task, service_env.Knobs(), seed, trial, model=model))
    rows = [[task.id, task.title, f"{sum(t.success for t in runs[task.id])}/{trials}",
             ", ".join(sorted({m for t in runs[task.id] for m in t.modes})) or "none"] for task in service_env.TASKS]
    total = sum(len(ts) for ts in runs.values())
    wins = sum(t.success for ts in runs.values() for t in ts)
    return "\n".join([format_table(["task", "what", "state-based", "failure modes"], rows),
                      f"Success by final database state: {wins}/{total}; mean pass^{trials} = "
                      f"{float(service_env.mean_estimate(runs, trials, service_env.pass_hat_k)):.2f}, pass^1 = "
                      f"{float(service_env.mean_estimate(runs, 1, service_env.pass_hat_k)):.2f}."])


def cardinal_over_stdio() -> tuple:
    """Launch `python3 interfaces.py serve` (the Cardinal MCP server) with a backend key of our own; return the
    transport and the key. It starts at once: a caller may launch it early and do other work while it boots."""
    import interfaces
    import os
    import secrets
    import sys
    key = secrets.token_urlsafe(18)  # the backend key the server is launched with, to look for in every request
    return interfaces.Stdio([sys.executable, interfaces.__file__, "serve"], env=dict(os.environ, CARDINAL_API_KEY=key)), key


@tool_core.preformatted
def demo_mcp_host(model: APIModel, play=lambda lm: None, launched: tuple | None = None) -> str:
    """Part 5, an MCP host: the model uses the Cardinal MCP server's tools through the lab's MCPClient over stdio
    (`python3 interfaces.py serve`, or the one cardinal_over_stdio launched); the server holds the backend key,
    which no message to the model carries."""
    import interfaces
    transport, key = launched or cardinal_over_stdio()
    client = interfaces.MCPClient(transport)
    try:
        client.initialize()
        client.list_tools()
        play(tool_core.ScriptedLM([tool_core.call_text("list_people", {"team": "firmware"}),
                                   "Two people: Ada Quist and Bo Lindqvist."]))
        start = len(model.exchanges)
        t = tool_core.run_agent(model, client.registry(), "Who is on the firmware team?")
    finally:
        client.close()
    key_seen = key in json.dumps([request for request, _ in model.exchanges[start:]])
    return "\n".join([
        f"MCP server: {client.server_info.get('name', '?')} over stdio, {len(client.tools)} tools: "
        f"{', '.join(tool['name'] for tool in client.tools)}",
        f"answer: {t.final_answer}",
        f"{t.steps} requests to the model, {len(t.calls)} tools/call; the backend key in a request to the model: "
        f"{'yes' if key_seen else 'no'}."])


# ---------------------------------------------------------------------------------------------
# --- Appendix A. Reading Java and JavaScript call text as BFCL's tree-sitter parsers do (section 2b) ---
# ---------------------------------------------------------------------------------------------

# The prompt-mode decoders: what BFCL's tree-sitter parsers make of "[Obj.method(a=1, b="x")]".
# A small tokenizer and recursive-descent parser per language stands in for tree-sitter; it
# accepts what tree-sitter parses without an ERROR node on the inputs models write, and fails
# (DecodeError, BFCL's decoder_failed) where tree-sitter reports one.


@dataclass
class _Node:
    """A token or a syntax node: tree-sitter's node type where BFCL's reading depends on it, the span, the children."""

    kind: str
    start: int
    end: int
    parts: list = field(default_factory=list)
    fields: dict = field(default_factory=dict)
    text: str = ""  # a token's own text
    line_break: bool = False  # a token preceded by a line break (JavaScript's semicolon insertion)


def _node(kind: str, parts: list, **fields) -> _Node:
    return _Node(kind, parts[0].start, parts[-1].end, parts, fields)


def _unbracket(text: str) -> str:
    """Remove the [ ] around BFCL's prompting output, as its ast_parse does (result[1:-1])."""
    return text[1:-1] if text.startswith("[") and text.endswith("]") else text


_SPACE = r"(?P<space>\s+|//[^\n]*|/\*.*?\*/)"
_NAME = r"(?P<name>(?:[^\W\d]|\$)[\w$]*)"
_JAVA_TOKEN = re.compile("|".join([
    _SPACE, r'(?P<string>""".*?"""|"(?:[^"\\]|\\.)*")', r"(?P<char>'(?:[^'\\\n]|\\.)+')",
    r"(?P<number>0[xX][\da-fA-F_]+[lL]?|0[bB][01_]+[lL]?"
    r"|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?[fFdDlL]?)",
    _NAME, r"(?P<op>>>>=|<<=|>>=|->|::|\+\+|--|&&|\|\||[=!<>+\-*/%&|^]=|<<|\.\.\.|[(){}\[\];,.@=<>!~?:+\-*/&|^%])"]),
    re.DOTALL)  # subtle: ">>" is two tokens, so that List<List<Integer>> closes two type argument lists
_JS_TOKEN = re.compile("|".join([
    _SPACE, r"""(?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""",
    r"(?P<number>0[xXoObB][\da-fA-F_]+n?|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?n?)", _NAME,
    r"(?P<op>>>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|&&=|\|\|=|\?\?=|=>|[=!<>+\-*/%&|^]=|&&|\|\||\?\?|\?\.(?!\d)"
    r"|\+\+|--|\*\*|<<|>>|[(){}\[\];,.=<>!~?:+\-*/&|^%])"]), re.DOTALL)
_TINY = 10  # probed: tree-sitter reads a first statement of at most 10 characters that lacks its ";" as an ERROR
# subtle: the flags are tree-sitter-javascript's regex_flags, /[a-z]+/: lower case letters, any and repeated
# (/p/x and /p/gg parse; ECMAScript's d g i m s u v y, each once, is not checked). A capital or a digit
# after the closing / is a name with no operator before it, an ERROR: /p/A, dir=/projects/myApp/node_modules.
_JS_REGEX = re.compile(r"/(?:[^/\\\[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/[a-z]*")
_JS_VALUE_END = {")", "]", "}"}  # after these (or a name or a literal) a "/" divides; elsewhere it starts a regex
_JS_VALUE_WORDS = {"typeof", "void", "delete", "await", "new", "in", "instanceof", "return", "throw", "case",
                   "do", "else", "extends"}  # words a value follows: typeof /x/g is a regex, void <p/> JSX


def _tokenize(source: str, language: str, shift: int = 0) -> list[_Node]:
    """Split source text into tokens; an unknown character or an unclosed string is a DecodeError.
    shift: where source begins in the text the caller gave (for the error's position).
    Example: _tokenize('A.b(x=1)', "java") -> tokens A . b ( x = 1 )"""
    tokens = list(_scan(source, language, 0, shift))
    return tokens + [_Node("end", len(source), len(source), text="", line_break=True)]


def _scan(source: str, language: str, at: int, shift: int, nesting: int = 0):
    """Yield the tokens of source from at on, each marked when a line break precedes it (see _tokenize)."""
    pattern, tokens, line_break = (_JAVA_TOKEN if language == "java" else _JS_TOKEN), [], False
    while at < len(source):
        end, kind = _js_special(source, at, tokens, shift, nesting) if language == "javascript" else (None, "")
        if end is None:
            found = pattern.match(source, at)
            if not found:
                raise DecodeError(f"{language}: cannot read {source[at:at + 20]!r} at character {at + shift}")
            end, kind = found.end(), found.lastgroup
        if kind == "space":
            line_break = line_break or "\n" in source[at:end]
        else:
            tokens.append(_Node(kind, at, end, text=source[at:end], line_break=line_break))
            line_break = False
            yield tokens[-1]
        at = end


def _js_special(source: str, at: int, tokens: list[_Node], shift: int = 0, nesting: int = 0) -> tuple[int | None, str]:
    """Read a template string, a regex literal or a JSX element, which one pattern cannot: (end, kind) or (None, "")."""
    if source[at] == "`":
        return _template_end(source, at, nesting), "template"
    if source[at] == "/" and not source.startswith(("//", "/*"), at) and _value_expected(tokens):
        found = _JS_REGEX.match(source, at)
        if found:
            return found.end(), "regex"
    if source[at] == "<" and _value_expected(tokens):  # where a value begins, < opens JSX (a<b compares)
        return _jsx_end(source, at, shift, nesting), "jsx"
    return None, ""


def _value_expected(tokens: list[_Node]) -> bool:
    """Say whether a value may begin after these tokens: then / starts a regex and < a JSX element, else both are
    operators. Example: after "f ( a =" or "typeof" -> True; after "a", ")" or "x.in" -> False"""
    if not tokens:
        return True
    previous = tokens[-1]
    if previous.kind == "name":  # a property name after . is no keyword: x.in / 2 divides
        return previous.text in _JS_VALUE_WORDS and not (len(tokens) > 1 and tokens[-2].text in (".", "?."))
    return previous.kind == "op" and previous.text not in _JS_VALUE_END


def _template_end(source: str, at: int, nesting: int = 0) -> int:
    """Return where the template string starting at source[at] ends; ${...} may hold strings and templates."""
    _refuse_deep_nesting(nesting, "javascript: template strings")
    at += 1
    while at < len(source):
        if source[at] == "\\":
            at += 2
        elif source[at] == "`":
            return at + 1
        elif source.startswith("${", at):
            at = _substitution_end(source, at + 2, nesting + 1)
        else:
            at += 1
    raise DecodeError("javascript: a template string is not closed")


def _substitution_end(source: str, at: int, nesting: int = 0) -> int:
    depth = 0
    while at < len(source):
        char = source[at]
        if char in "\"'":
            found = _JS_TOKEN.match(source, at)
            if not found or found.lastgroup != "string":
                raise DecodeError("javascript: a string inside a template is not closed")
            at = found.end()
            continue
        if char == "`":
            at = _template_end(source, at, nesting)
            continue
        if char == "}" and depth == 0:
            return at + 1
        depth += {"{": 1, "}": -1}.get(char, 0)
        at += 1
    raise DecodeError("javascript: a template substitution ${...} is not closed")


# JSX, as tree-sitter-javascript 0.21.4 reads it (grammar.js: jsx_element ... jsx_expression): bfcl's parser
# knows it, so f(a=<div className="x">{y}</div>) decodes to the source text, as any other value does. Read
# here as one token, as a template string is: its text is not JavaScript's, so the tokenizer cannot split it.
_JSX_IDENTIFIER = re.compile(r"[a-zA-Z_$][a-zA-Z\d_$]*-[a-zA-Z\d_$-]*|" + _NAME)  # data-id, aria-label, or a name
_JSX_PLAIN_NAME = re.compile(_NAME)
_JSX_EXTRAS = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)
_JSX_REFERENCE = r"&(?:#(?:[xX][0-9a-fA-F]{1,6}|[0-9]{1,5})|[A-Za-z]{1,30});"  # &amp; &#123; &#x7B;
_JSX_CHILD_TEXT = re.compile(r"[^{}<>&]+|" + _JSX_REFERENCE)  # subtle: a bare & or a > or } in the text is an ERROR
_JSX_STRING = re.compile(r'"(?:[^"&]|&[^#A-Za-z]|{0})*"|\'(?:[^\'&]|&[^#A-Za-z]|{0})*\''.format(_JSX_REFERENCE))


def _jsx_end(source: str, at: int, shift: int = 0, nesting: int = 0) -> int:
    """Return where the JSX element or fragment starting at source[at] ("<") ends; malformed JSX is a DecodeError.

    The closing tag's name is not compared with the opening one's (<a></b> parses in tree-sitter).
    Example: _jsx_end('<p a="1">hi {x}</p>, b=2', 0) -> 19"""
    _refuse_deep_nesting(nesting, "javascript: JSX elements")
    at = _jsx_skip(source, at + 1)
    if not source.startswith(">", at):  # <> opens a fragment; anything else opens an element, named
        at = _jsx_skip(source, _jsx_name(source, at, shift, members=True))
        while not source.startswith((">", "/>"), at):
            at = _jsx_skip(source, _jsx_attribute_end(source, at, shift, nesting))
        if source.startswith("/>", at):
            return at + 2
    at += 1
    while True:  # the children, up to </...>
        at = _jsx_skip(source, at)  # subtle: // or /* first in a child is a comment (// runs to the line's end)
        if source.startswith("</", at):
            at = _jsx_skip(source, at + 2)
            if not source.startswith(">", at):
                at = _jsx_skip(source, _jsx_name(source, at, shift, members=True))
            return _jsx_expect(source, at, ">", shift) + 1
        if source.startswith("<", at):
            at = _jsx_end(source, at, shift, nesting + 1)
        elif source.startswith("{", at):
            at = _jsx_expression_end(source, at, shift, nesting + 1)
        elif found := _JSX_CHILD_TEXT.match(source, at):
            at = found.end()
        else:
            _jsx_fail(source, at, shift, "text, an element or {...} (a > or } in JSX text is written {'>'}, "
                                         "an & begins an entity such as &amp;)")


def _jsx_attribute_end(source: str, at: int, shift: int, nesting: int) -> int:
    """Return where an attribute ends: {...spread}, or a name (x, data-id, xlink:href), then = and a value or none."""
    if source.startswith("{", at):
        return _jsx_expression_end(source, at, shift, nesting + 1)
    at = _jsx_name(source, at, shift, members=False)
    after = _jsx_skip(source, at)
    if not source.startswith("=", after):
        return at
    at = _jsx_skip(source, after + 1)
    if source.startswith("{", at):
        return _jsx_expression_end(source, at, shift, nesting + 1)
    if source.startswith("<", at):
        return _jsx_end(source, at, shift, nesting + 1)
    found = _JSX_STRING.match(source, at)  # no escapes: "a\" is the text a\ ; an & must begin an entity or be &;
    return found.end() if found else _jsx_fail(source, at, shift, "an attribute value: a string, {...} or an element")


def _jsx_name(source: str, at: int, shift: int, members: bool) -> int:
    """Return where a JSX name ends: a name or data-id, ns:name, or (an element's) a.b.c of plain names."""
    found = _JSX_IDENTIFIER.match(source, at) or _jsx_fail(source, at, shift, "a JSX name")
    at, dashed, after = found.end(), "-" in found.group(), _jsx_skip(source, found.end())
    if source.startswith(":", after):
        second = _JSX_IDENTIFIER.match(source, _jsx_skip(source, after + 1))
        return second.end() if second else _jsx_fail(source, after + 1, shift, "a name after ':'")
    while members and not dashed and source.startswith(".", after):
        part = _JSX_PLAIN_NAME.match(source, _jsx_skip(source, after + 1))
        if not part or "-" in source[part.end():part.end() + 1]:
            _jsx_fail(source, after + 1, shift, "a plain name after '.' (a.b.c)")
        at, after = part.end(), _jsx_skip(source, part.end())
    return at


def _jsx_expression_end(source: str, at: int, shift: int, nesting: int) -> int:
    """Return where the {...} at source[at] ends; it holds nothing, an expression, a sequence or a ...spread,
    read by the JavaScript parser itself (tree-sitter's jsx_expression)."""
    _refuse_deep_nesting(nesting, "javascript: JSX elements")
    tokens, depth = [], 0
    for token in _scan(source, "javascript", at + 1, shift, nesting):
        if token.kind == "op" and token.text == "}" and depth == 0:
            tokens.append(_Node("end", token.start, token.start, text="", line_break=True))
            _JsParser.over(source, tokens, shift, depth=nesting).jsx_expression()
            return token.end
        if token.kind == "op":
            depth += (token.text in ("(", "[", "{")) - (token.text in (")", "]", "}"))
        tokens.append(token)
    raise DecodeError(f"javascript: a JSX expression {{...}} at character {at + shift} is not closed")


def _jsx_skip(source: str, at: int) -> int:
    """Skip white space and comments, which may stand between the parts of a tag. Example: ('a /* c */ b', 1) -> 10"""
    if source.startswith("/*", at) and source.find("*/", at + 2) < 0:
        raise DecodeError("javascript: a comment /* is not closed")
    return _JSX_EXTRAS.match(source, at).end()


def _jsx_expect(source: str, at: int, text: str, shift: int) -> int:
    """Return at if text stands there; else a DecodeError saying so."""
    return at if source.startswith(text, at) else _jsx_fail(source, at, shift, repr(text))


def _jsx_fail(source: str, at: int, shift: int, expected: str):
    """Raise the DecodeError of malformed JSX: what was expected where, and what stands there."""
    got = repr(source[at:at + 10]) if at < len(source) else "the end"
    raise DecodeError(f"javascript: in JSX, expected {expected} at character {at + shift}, got {got}")


# Hardening: how deep a text may nest. Recursive descent spends Python frames on every level, so
# "[" * 170 reached the recursion limit (1,000 frames) as a RecursionError where a DecodeError was
# promised. As CPython's parser counts its level in every rule (and refuses 200 nested brackets),
# these readers count theirs: the parser rules open at once, the templates inside templates, the
# levels of a Java value's tree (written back by recursion). A rule costs 3 to 5 frames, so 100
# rules stay under 500 frames, half the limit; a bracket opens two or three rules (a value, an
# operand), so about 33 brackets pass, and BFCL's data nests under 10. A departure: tree-sitter
# reads deeper text.
MAX_NESTING = 100


def _refuse_deep_nesting(depth: int, where: str) -> None:
    """Raise DecodeError when depth passes MAX_NESTING. Example: (101, "java: at character 9") -> DecodeError"""
    if depth > MAX_NESTING:
        raise DecodeError(f"{where}: nested more than {MAX_NESTING} levels deep, too deep for this reader")


def _nesting_limited(rule):
    """Count a parser rule that can recur while it runs; past MAX_NESTING open at once, a DecodeError.

    Prevents: "[" * 170 (javascript), "(" * 200 (java) or "!" * 5000 escaping decode_ast as a
    RecursionError, which `bfcl_lab.py grade` printed as a traceback. Every rule on a cycle of
    the grammar carries it. Rows: DeepNesting in tests/test_bfcl_lab_languages.py."""
    @functools.wraps(rule)
    def counted(self, *args):
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:  # (the message is written only then: this runs for every rule)
                _refuse_deep_nesting(self.depth, f"{self.language}: at character {self.tok.start + self.shift}")
            return rule(self, *args)
        finally:
            self.depth -= 1  # a rule that fails may be retried another way (is_declaration, cast_ahead)
    return counted


def _tree_depth(node: _Node) -> int:
    """Count the levels of a syntax tree, without recursion. Example: a node, its child, the child's child -> 3"""
    deepest, stack = 0, [(node, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((part, depth + 1) for part in node.parts)
    return deepest


class _Parser:
    """What both languages' parsers share: a token cursor, bracket groups, and errors that say where."""

    language = ""

    def __init__(self, text: str):
        self.source = _unbracket(text)
        self.shift = (len(text) - len(self.source)) // 2  # positions in errors count in the text given
        self.tokens, self.i = _tokenize(self.source, self.language, self.shift), 0
        self.depth = 0  # the rules open now (_nesting_limited)

    @classmethod
    def over(cls, source: str, tokens: list[_Node], shift: int, depth: int = 0) -> "_Parser":
        """A parser of tokens already read from source (what a JSX {...} holds), its rules counted from depth."""
        parser = cls.__new__(cls)
        parser.source, parser.shift, parser.tokens, parser.i, parser.depth, parser.first = \
            source, shift, tokens, 0, depth, False
        return parser

    def program(self) -> _Node:
        """Read statements to the end; each language's parser says what a statement is."""
        statements = []
        while self.tok.kind != "end":
            self.first = not statements
            statements.append(self.statement())
        return _Node("program", 0, len(self.source), statements)

    @property
    def tok(self) -> _Node:
        return self.tokens[self.i]

    def peek(self, k: int = 1) -> _Node:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def at(self, *texts: str, k: int = 0) -> bool:
        token = self.peek(k)
        return token.kind in ("op", "name") and token.text in texts

    def take(self, kind: str = "") -> _Node:
        token = self.tok
        if token.kind == "end":
            self.fail("more text")
        self.i += 1
        return _Node(kind or token.kind, token.start, token.end, text=token.text)

    def expect(self, text: str) -> _Node:
        if not self.at(text):
            self.fail(repr(text))
        return self.take()

    def fail(self, expected: str):
        got = "the end" if self.tok.kind == "end" else repr(self.tok.text)
        self.error(f"expected {expected} at character {self.tok.start + self.shift}, got {got}")

    def error(self, message: str):
        raise DecodeError(f"{self.language}: {message}")

    def missing_semicolon(self, statement: _Node):
        """Refuse where tree-sitter, needing a MISSING ";" here, reads some text as an ERROR instead.

        Observed on grids of inputs (NOTES 4a; its error recovery weighs a missing token against
        the length of the text it would skip): it skips short text, the first statement if it has
        at most 10 characters (A.b(x=1)), or a name of at most 9 characters that begins the next
        statement, whose rest it reads as a continuation of the first: A.b(x=1) Intro.step(w=8) is
        A.b(x=1) [ERROR Intro] .step(w=8). In Java a name alone after such a statement fails too.
        """
        if self.first and statement.kind == "expression_statement" and statement.end - statement.start <= _TINY:
            self.error(f"no ';' after {self.source[statement.start:statement.end]!r}: tree-sitter reads a first "
                       f"statement this short as an ERROR")
        name, after = self.tok, self.peek()
        if name.kind != "name" or after.kind == "name" and self.language == "java":  # Type name: a declaration
            return
        if self.language == "java" and after.kind == "end":
            self.error(f"{name.text!r} at character {name.start + self.shift} follows a statement without ';': "
                       "tree-sitter reads a name alone there as an ERROR")
        continues = after.kind != "end" and not (self.language == "java" and after.text == "(")
        if continues and len(name.text) < _TINY:
            self.error(f"{name.text!r} at character {name.start + self.shift} follows a statement without ';': "
                       "tree-sitter reads so short a name as an ERROR, and the rest as a continuation")

    def closing(self, i: int) -> int:
        """Return the index of the token that closes the bracket at token i (-1 if it is never closed)."""
        depth = 0
        for j in range(i, len(self.tokens) - 1):
            if self.tokens[j].kind == "op" and self.tokens[j].text in "([{":
                depth += 1
            elif self.tokens[j].kind == "op" and self.tokens[j].text in ")]}":
                depth -= 1
                if depth == 0:
                    return j
        return -1

    def group(self, kind: str) -> _Node:
        """Take a bracketed group whole, unread (a lambda's parameters, an anonymous class body)."""
        end = self.closing(self.i)
        if end < 0:
            self.fail("a closing bracket")
        parts = [self.take() for _ in range(end - self.i + 1)]
        return _node(kind, parts)  # its tokens as leaves: BFCL writes a lambda's (a, b) as "(a,b)"


def _first(node: _Node, kind: str) -> _Node | None:
    """Find the first node of a kind, depth first in source order, as BFCL's traverse does."""
    stack = [node]  # a stack, not recursion: a.b.c... or 1+1+1... builds a tree as deep as it is long
    while stack:
        node = stack.pop()
        if node.kind == kind:
            return node
        stack.extend(reversed(node.parts))
    return None


def _named_arguments(pairs: list[tuple[str | None, str]]) -> dict:
    """Collect (name, text) pairs; a repeated name fails, as in BFCL's parsers (two positional ones share None)."""
    out = {}
    for name, text in pairs:
        if name in out:
            raise DecodeError(f"Error: Multiple arguments with the same name are not supported ({name!r} repeated)")
        out[name] = text
    return out


# Java: tree-sitter-java reads a program of statements; BFCL takes its first method_invocation.

_JAVA_PRIMITIVES = {"int", "long", "short", "byte", "char", "float", "double", "boolean", "void"}
_JAVA_LITERAL_WORDS = {"true", "false", "null", "this", "super"}
_JAVA_KEYWORDS = _JAVA_PRIMITIVES | _JAVA_LITERAL_WORDS | {
    "new", "instanceof", "class", "return", "switch", "if", "else", "for", "while", "do", "try", "catch", "finally",
    "throw", "throws", "case", "default", "break", "continue", "import", "package", "public", "private",
    "protected", "static", "final", "abstract", "synchronized", "volatile", "transient", "native", "strictfp",
    "interface", "enum", "extends", "implements", "assert", "goto", "const"}
_JAVA_VALUE_WORDS = _JAVA_PRIMITIVES | _JAVA_LITERAL_WORDS | {"new", "instanceof", "switch", "class"}
# subtle: tree-sitter lexes a keyword as a plain name where the keyword cannot stand, so put(limit, public)
# reads public as an identifier; only the words above keep a meaning inside a value
_JAVA_BINARY = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7, "<=": 7, ">=": 7,
                "instanceof": 7, "<<": 8, ">>": 8, ">>>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}
_JAVA_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ">>>="}
_JAVA_ASSIGNABLE = ("identifier", "field_access", "array_access")


def decode_java_calls(text: str) -> list[dict] | dict:
    """Read Java call text as BFCL's Java parser does: the first method call, every argument as its source text.

    text: BFCL's prompting output after its strip and bracket steps ("[...]"; a bare call works too).
    Returns [{"Obj.method": {name: text}}], or {} when the text holds no call (then BFCL's runner
    says decoder_wrong_output_format); raises DecodeError where tree-sitter reports a syntax
    error or BFCL's reader fails (decoder_failed).
    The values keep BFCL's quirks: a string literal loses its quotes but is not unescaped;
    new T[]{1, 2} is written without spaces (new T[]{1,2}); new T(..) {{ body }} loses its body;
    a positional identifier or class literal goes under the key None, a positional literal is
    dropped; a repeated name fails; two calls separated by a comma fail; f(a=1, b=2, ) gains
    None: "" (tree-sitter's MISSING identifier), f(a=1, ) fails.
    Departures: tree-sitter repairs broken text by cost; where it would insert a missing ";"
    this reader follows the rules it was observed to keep (_Parser.missing_semicolon: a first
    call of at most 10 characters without ";", A.b(x=1), fails), and other repairs (a MISSING
    ")") are not made. Comments, and an anonymous class's members other than its {{ }} blocks,
    are skipped unread; rare statements (if, for, ...), switch expressions and generic
    constructors (new <T>Foo()) fail here.
    Example: decode_java_calls('[Intro.step(w=800, h="6")]') -> [{'Intro.step': {'w': '800', 'h': '6'}}]
    """
    parser = _JavaParser(text)
    program, source = parser.program(), parser.source
    call = _first(program, "method_invocation")
    return [{_java_call_name(call, source): _java_arguments(call, source)}] if call else {}


def _java_slice(source: str, node: _Node) -> str:
    """A node's text as BFCL's get_text takes it: the str cut at tree-sitter's *byte* offsets.
    Example: with 'A.b(x="é")' the value reads 'é"' (é is 2 bytes), as in BFCL"""
    start, end = (len(source[:at].encode()) for at in (node.start, node.end))
    return source[start:end]


def _java_call_name(call: _Node, source: str) -> str:
    name = _java_slice(source, call.fields["name"])
    target = call.fields.get("object")
    return f"{_java_slice(source, target)}.{name}" if target else name


def _java_arguments(call: _Node, source: str) -> dict:
    """name=value arguments by name; a positional identifier or class literal under None; other positionals dropped."""
    pairs = []
    for argument in call.fields["arguments"]:
        _refuse_deep_nesting(_tree_depth(argument), "java: an argument")  # _java_text recurs once a level
        if argument.kind == "assignment_expression":
            pairs.append((_java_slice(source, argument.parts[0]), _java_text(argument.parts[2], source)))
        elif argument.kind in ("identifier", "class_literal"):
            pairs.append((None, _java_text(argument, source)))
    return _named_arguments(pairs)


_JAVA_RAW = {"identifier", "class_literal", "method_invocation", "type_identifier"}


def _java_text(node: _Node, source: str, nested: bool = False) -> str:
    """Write a value back as BFCL's traverse_node does (java_parser.py:22-80).
    Example: new int[] {1, 2} -> 'new int[]{1,2}'; "a" -> 'a' at the top, '"a"' inside; x + 1 -> 'x+1'"""
    if node.kind in ("string_literal", "character_literal"):
        return _java_slice(source, node) if nested else _java_slice(source, node)[1:-1]
    if node.kind in _JAVA_RAW or not node.parts:
        return _java_slice(source, node)
    if node.kind == "array_creation_expression":
        if node.fields["value"] is None:  # new int[5]: BFCL's reader fails on the missing initializer
            raise DecodeError("AttributeError: 'NoneType' object has no attribute 'type' (an array without {...})")
        return f"new {_java_text(node.fields['type'], source, True)}[]{_java_text(node.fields['value'], source, True)}"
    if node.kind == "object_creation_expression":  # subtle: the anonymous class body {{ put(..); }} is dropped
        arguments = ", ".join(_java_text(a, source, True) for a in node.fields["arguments"])
        return f"new {_java_text(node.fields['type'], source, True)}({arguments})"
    return "".join(_java_text(part, source, True) for part in node.parts)  # children joined without spaces


class _JavaParser(_Parser):
    """A recursive-descent parser for the Java that call text holds: statements, expressions, types."""

    language = "java"

    @_nesting_limited
    def statement(self) -> _Node:
        if self.at(";"):
            return self.take("empty_statement")
        if self.at("{"):
            return self.block()
        if self.tok.kind == "name" and self.at(":", k=1):  # Answer: A.b(x=1) reads as a labeled statement
            label = self.take("identifier")
            return _node("labeled_statement", [label, self.take(), self.statement()])
        if self.at("return"):
            keyword = self.take()
            parts = [keyword] if self.at(";") else [keyword, self.expression()]
            return self.finish(_node("return_statement", parts))
        if self.at(*_JAVA_KEYWORDS - _JAVA_VALUE_WORDS):
            self.fail(f"a call (a {self.tok.text} statement is beyond this reader)")
        if self.is_declaration():
            return self.declaration()
        expression = self.expression()
        if expression.kind == "field_access" and not self.at(";"):
            self.fail("'('")  # tree-sitter reads a bare A.b as a type name, then reports an ERROR
        return self.finish(_node("expression_statement", [expression]))

    def finish(self, statement: _Node) -> _Node:
        """End a statement at its ";", or where tree-sitter would insert a MISSING one."""
        if self.at(";"):
            statement.parts.append(self.take())
            statement.end = statement.parts[-1].end
            return statement
        if not (self.tok.kind in ("end", "name") or self.at("}")):
            self.fail("';'")
        self.missing_semicolon(statement)
        return statement

    def block(self) -> _Node:
        parts, first = [self.expect("{")], self.first
        while not self.at("}"):
            if self.tok.kind == "end":
                self.fail("'}'")
            self.first = False
            parts.append(self.statement())
        self.first = first
        return _node("block", parts + [self.take()])

    def is_declaration(self) -> bool:
        """Say whether a local variable declaration starts here (Type name ...): "hello world" is one."""
        start = self.i
        try:
            self.type()
            return self.tok.kind == "name" and self.tok.text not in _JAVA_KEYWORDS
        except DecodeError:
            return False
        finally:
            self.i = start

    def declaration(self) -> _Node:
        parts = [self.type()]
        while True:
            parts.append(self.take("identifier") if self.tok.kind == "name" else self.fail("a variable name"))
            if self.at("="):
                parts += [self.take(), self.initializer() if self.at("{") else self.expression()]
            if not self.at(","):
                return self.finish(_node("local_variable_declaration", parts))
            parts.append(self.take())

    @_nesting_limited
    def type(self) -> _Node:
        """Type := primitive | Name(.Name)* with <type arguments>, then [] dimensions."""
        if self.tok.kind != "name" or (self.tok.text in _JAVA_KEYWORDS and self.tok.text not in _JAVA_PRIMITIVES):
            self.fail("a type")
        parts = [self.take("type_identifier")]
        if parts[0].text not in _JAVA_PRIMITIVES:
            parts += self.type_arguments()
            while self.at(".") and self.peek().kind == "name" and self.peek().text not in _JAVA_KEYWORDS:
                parts += [self.take(), self.take("type_identifier")] + self.type_arguments()
        while self.at("[") and self.at("]", k=1):
            parts += [self.take(), self.take()]
        return _node("type", parts)

    def type_arguments(self) -> list[_Node]:
        if not self.at("<"):
            return []
        parts = [self.take()]
        while not self.at(">"):
            if self.at("?"):
                parts.append(self.take())
                if self.at("extends", "super"):
                    parts += [self.take(), self.type()]
            else:
                parts.append(self.type())
            if not self.at(">"):
                parts.append(self.expect(","))
        return parts + [self.take()]

    @_nesting_limited
    def expression(self) -> _Node:
        if self.lambda_ahead():
            parameters = self.take("identifier") if self.tok.kind == "name" else self.group("parameters")
            arrow = self.expect("->")
            return _node("lambda_expression", [parameters, arrow, self.block() if self.at("{") else self.expression()])
        left = self.ternary()
        if self.tok.kind == "op" and self.tok.text in _JAVA_ASSIGN and left.kind not in _JAVA_ASSIGNABLE:
            self.fail("an expression (this one cannot be assigned to)")
        return self.operand(left)

    def operand(self, node: _Node) -> _Node:
        """Let an operand be an assignment, as tree-sitter's grammar does: a-b=1 reads a - (b=1), not name a-b."""
        if self.tok.kind == "op" and self.tok.text in _JAVA_ASSIGN and node.kind in _JAVA_ASSIGNABLE:
            operator = self.take()
            return _node("assignment_expression", [node, operator, self.expression()])
        return node

    def lambda_ahead(self) -> bool:
        if self.tok.kind == "name" and self.at("->", k=1):
            return True
        end = self.closing(self.i) if self.at("(") else -1
        return end > 0 and self.tokens[end + 1].text == "->"

    def ternary(self) -> _Node:
        condition = self.binary(0)
        if not self.at("?"):
            return condition
        question, then = self.take(), self.expression()
        return _node("ternary_expression", [condition, question, then, self.expect(":"), self.expression()])

    def operator(self) -> str:
        """The binary operator here, with adjacent > tokens read as one (a >> 2): "" if there is none."""
        if self.at(">") and self.at(">", k=1) and self.peek().start == self.tok.end:
            third = self.at(">", k=2) and self.peek(2).start == self.peek().end
            return ">>>" if third else ">>"
        return self.tok.text if self.tok.kind in ("op", "name") and self.tok.text in _JAVA_BINARY else ""

    def binary(self, floor: int) -> _Node:
        left = self.unary()
        while (op := self.operator()) and _JAVA_BINARY[op] > floor:
            first = self.take()
            for _ in range(len(op) - 1 if op.startswith(">>") else 0):
                self.take()
            operator = _Node("op", first.start, first.start + len(op), text=op)
            right = self.type() if op == "instanceof" else self.operand(self.binary(_JAVA_BINARY[op]))
            left = _node("binary_expression", [left, operator, right])
        return left

    @_nesting_limited
    def unary(self) -> _Node:
        if self.at("+", "-", "!", "~", "++", "--"):
            operator = self.take()
            return _node("unary_expression", [operator, self.operand(self.unary())])
        if self.at("(") and self.cast_ahead():
            opening, kind = self.take(), self.type()
            return _node("cast_expression", [opening, kind, self.expect(")"), self.unary()])
        return self.postfix(self.primary())

    def cast_ahead(self) -> bool:
        """Say whether (Type) starts a cast here: (int) -5 and (String) y are casts, (a) + b is not."""
        start = self.i
        try:
            self.take()
            kind = self.type()
            if not self.at(")"):
                return False
            after = self.peek()
            operand = after.kind in ("name", "number", "string", "char") and after.text != "instanceof"
            primitive = kind.parts[0].text in _JAVA_PRIMITIVES
            return operand or after.text in (("(", "!", "~") + (("-", "+", "++", "--") if primitive else ()))
        except DecodeError:
            return False
        finally:
            self.i = start

    def primary(self) -> _Node:
        token = self.tok
        if token.kind == "number":
            return self.take("number")
        if token.kind in ("string", "char"):
            return self.take("string_literal" if token.kind == "string" else "character_literal")
        if token.kind == "name" and token.text in _JAVA_LITERAL_WORDS:
            return self.take(token.text)
        if token.kind == "name" and token.text in _JAVA_PRIMITIVES:
            return self.class_literal(self.type())  # int.class, int[].class
        if token.kind == "name" and token.text == "new":
            return self.creation()
        if token.kind == "name" and token.text not in _JAVA_VALUE_WORDS:
            name = self.take("identifier")
            if self.at("("):
                arguments, values = self.arguments()
                return _node("method_invocation", [name, arguments], name=name, arguments=values)
            return name
        if self.at("("):
            opening, inner = self.take(), self.expression()
            return _node("parenthesized_expression", [opening, inner, self.expect(")")])
        self.fail("a value")  # "{1, 2}" alone (not after new T[]) is an ERROR in tree-sitter too

    def class_literal(self, kind: _Node) -> _Node:
        dot = self.expect(".")
        return _node("class_literal", [kind, dot, self.expect("class")])

    def arguments(self) -> tuple[_Node, list[_Node]]:
        """( expression, ... ): the argument_list node and the arguments in it."""
        parts, arguments = [self.expect("(")], []
        while not self.at(")"):
            arguments.append(self.expression())
            parts.append(arguments[-1])
            if not self.at(")"):
                parts.append(self.expect(","))
                if self.at(")") and len(arguments) < 2:
                    self.fail("an argument")  # f(a=1, ) is an ERROR
                if self.at(")"):  # f(a=1, b=2, ): tree-sitter inserts a MISSING identifier, read as None: ""
                    arguments.append(_Node("identifier", self.tok.start, self.tok.start))
                    parts.append(arguments[-1])
        return _node("argument_list", parts + [self.take()]), arguments

    def postfix(self, node: _Node) -> _Node:
        while True:
            if self.at(".") and self.at("class", k=1):
                node = self.class_literal(node)
            elif self.at("."):
                dot = self.take()
                generic = self.type_arguments()
                if self.tok.kind != "name" or self.tok.text in ("new", "class"):
                    self.fail("a member name")
                name = self.take("identifier")
                if self.at("(") or generic:
                    arguments, values = self.arguments()
                    node = _node("method_invocation", [node, dot] + generic + [name, arguments], object=node,
                                 name=name, arguments=values)
                else:
                    node = _node("field_access", [node, dot, name])
            elif self.at("[") and self.at("]", k=1):
                while self.at("[") and self.at("]", k=1):
                    node = _node("array_type", [node, self.take(), self.take()])
                node = self.class_literal(node)  # String[].class
            elif self.at("["):
                opening, index = self.take(), self.expression()
                node = _node("array_access", [node, opening, index, self.expect("]")])
            elif self.at("::"):
                colons = self.take()
                node = _node("method_reference", [node, colons, self.take()])
            elif self.at("++", "--"):
                node = _node("update_expression", [node, self.take()])
            else:
                return node

    def creation(self) -> _Node:
        """new T(args) [class body] or new T[]{...} / new T[n]."""
        keyword, kind = self.take(), self.creation_type()
        if self.at("["):
            parts = [keyword, kind]
            while self.at("["):
                opening = self.take()
                parts += [opening] + ([] if self.at("]") else [self.expression()]) + [self.expect("]")]
            value = self.initializer() if self.at("{") else None
            return _node("array_creation_expression", parts + ([value] if value else []), type=kind, value=value)
        arguments, values = self.arguments()
        parts = [keyword, kind, arguments]
        if self.at("{"):
            parts.append(self.class_body())  # BFCL's reader drops it, but a syntax error in it still fails
        return _node("object_creation_expression", parts, type=kind, arguments=values)

    def class_body(self) -> _Node:
        """An anonymous class body: instance initializers {{ put("k", v); }} are parsed as blocks; other
        members (fields, methods) are taken whole, up to their ";" or their body, unread."""
        parts = [self.expect("{")]
        while not self.at("}"):
            if self.at("{"):
                parts.append(self.block())
                continue
            member = []
            while not self.at(";", "{", "}"):
                member += self.group("group").parts if self.at("(", "[") else [self.take()]
            member.append(self.take() if self.at(";") else self.group("block") if self.at("{") else self.fail("';'"))
            parts.append(_node("member", member))
        return _node("class_body", parts + [self.take()])

    def creation_type(self) -> _Node:
        if self.tok.kind != "name" or (self.tok.text in _JAVA_KEYWORDS and self.tok.text not in _JAVA_PRIMITIVES):
            self.fail("a type after new")
        parts = [self.take("type_identifier")]
        parts += self.type_arguments()
        while self.at(".") and self.peek().kind == "name":
            parts += [self.take(), self.take("type_identifier")] + self.type_arguments()
        return _node("type", parts)

    @_nesting_limited
    def initializer(self) -> _Node:
        """{a, b, {c}} after new T[] (a trailing comma allowed)."""
        parts = [self.expect("{")]
        while not self.at("}"):
            parts.append(self.initializer() if self.at("{") else self.expression())
            if not self.at("}"):
                parts.append(self.expect(","))
        return _node("array_initializer", parts + [self.take()])


# JavaScript: tree-sitter-javascript reads a program; BFCL takes the first call that is a whole statement.

_JS_LEAF_WORDS = {"true", "false", "null", "undefined", "this", "super"}  # not identifiers to BFCL's reader
_JS_BINARY = {"??": 1, "||": 2, "&&": 3, "|": 4, "^": 5, "&": 6, "==": 7, "!=": 7, "===": 7, "!==": 7, "<": 8,
              ">": 8, "<=": 8, ">=": 8, "instanceof": 8, "in": 8, "<<": 9, ">>": 9, ">>>": 9, "+": 10, "-": 10,
              "*": 11, "/": 11, "%": 11, "**": 12}
_JS_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", ">>>=", "&=", "|=", "^=", "&&=", "||=", "??="}
_JS_ASSIGNABLE = ("identifier", "member_expression", "subscript_expression", "object", "array")
_JS_UNARY = {"!", "~", "+", "-", "++", "--", "typeof", "void", "delete", "await"}
_JS_UNSUPPORTED = {"if", "for", "while", "do", "switch", "try", "throw", "return", "import", "export",
                   "break", "continue", "with", "yield"}


def decode_js_calls(text: str) -> list[dict] | None:
    """Read JavaScript call text as BFCL's JavaScript parser does: the first call that is a statement of its own.

    text: BFCL's prompting output after its strip and bracket steps ("[...]"; a bare call works too).
    Returns [{"callee": {name: text}}], or None when no statement is a bare call: "", "[]" and
    two calls f(a=1), g(b=2) (one comma expression) give None, which BFCL's runner reports as
    decoder_wrong_output_format. Raises DecodeError where tree-sitter reports a syntax error
    (prose, for one) or BFCL's reader fails (a repeated name).
    The values are the source text of the right side, with one pair of quotes removed:
    "a" + "b" reads a" + "b. A positional identifier or true goes under the key None; other
    positional values are dropped.
    JSX and regex literals are read as tree-sitter-javascript reads them: f(a=<div/>) decodes,
    f(a=/p/A) fails (a flag is a lower case letter), and so does dir=/projects/myApp/x.
    Departures: function, arrow and class bodies are skipped unread (tree-sitter checks them);
    statements other than expressions, declarations, labels and blocks (if, for, return, ...)
    fail here; tree-sitter's repairs of broken text (a MISSING "]") are not made.
    Example: decode_js_calls('[setText(newText="Hi", start=5.0)]') -> [{'setText': {'newText': 'Hi', 'start': '5.0'}}]
    """
    parser = _JsParser(text)
    program, source = parser.program(), parser.source
    for statement in program.parts:
        if statement.kind == "expression_statement" and statement.parts[0].kind == "call_expression":
            call = statement.parts[0]
            return [{source[call.fields["callee"].start:call.fields["callee"].end]: _js_arguments(call, source)}]
    return None


def _js_arguments(call: _Node, source: str) -> dict:
    pairs = []
    for argument in call.fields["arguments"]:
        if argument.kind == "assignment_expression":
            left, right = argument.parts[0], argument.parts[2]
            pairs.append((source[left.start:left.end], _strip_quotes(source[right.start:right.end])))
        elif argument.kind in ("identifier", "true"):  # subtle: BFCL's reader knows true, but not false
            pairs.append((None, source[argument.start:argument.end]))
    return _named_arguments(pairs)


class _JsParser(_Parser):
    """A recursive-descent parser for the JavaScript that call text holds; bodies of functions are skipped."""

    language = "javascript"

    @_nesting_limited
    def statement(self) -> _Node:
        if self.at(";"):
            return self.take("empty_statement")
        if self.at("{") and self.peek().kind == "string" and self.at(":", k=2):
            # subtle: {"k": v} cannot be a block (a label is never a string); tree-sitter recovers it as an
            # object in an expression statement, which holds no call: BFCL's wrong output format, not a failure
            return self.finish(_node("expression_statement", [self.sequence()]))
        if self.at("{"):
            parts, first = [self.take()], self.first
            while not self.at("}"):
                self.first = False
                parts.append(self.statement() if self.tok.kind != "end" else self.fail("'}'"))
            self.first = first
            return _node("statement_block", parts + [self.take()])
        if self.at("let", "const", "var") and (self.peek().kind == "name" or self.at("[", "{", k=1)):
            return self.finish(self.declaration())
        if self.at("function") or (self.at("async") and self.at("function", k=1)):
            return self.function("function_declaration")
        if self.tok.kind == "name" and self.at(":", k=1):  # a labeled statement: not an expression_statement to BFCL
            label = self.take("statement_identifier")
            return _node("labeled_statement", [label, self.take(), self.statement()])
        if self.at(*_JS_UNSUPPORTED):
            self.fail(f"an expression (a {self.tok.text} statement is beyond this reader)")
        return self.finish(_node("expression_statement", [self.sequence()]))

    def finish(self, statement: _Node) -> _Node:
        """End a statement at ";", a line break, a "}" or the end (JavaScript's automatic semicolon insertion)."""
        if self.at(";"):
            statement.parts.append(self.take())
            statement.end = statement.parts[-1].end
        elif not (self.tok.line_break or self.at("}")):
            self.missing_semicolon(statement)  # two statements on one line: tree-sitter inserts a MISSING ";"
        return statement

    def declaration(self) -> _Node:
        parts = [self.take()]
        while True:
            parts.append(self.take("identifier") if self.tok.kind == "name" else self.group("pattern"))
            if self.at("="):
                parts += [self.take(), self.assignment()]
            if not self.at(","):
                return _node("lexical_declaration", parts)
            parts.append(self.take())

    def function(self, kind: str) -> _Node:
        parts = [self.take()] + ([self.take()] if self.at("function") else [])
        if self.at("*"):
            parts.append(self.take())
        if self.tok.kind == "name":
            parts.append(self.take())
        if not self.at("("):
            self.fail("'('")
        parts.append(self.group("formal_parameters"))
        if not self.at("{"):
            self.fail("'{'")
        return _node(kind, parts + [self.group("statement_block")])

    def sequence(self) -> _Node:
        first = self.assignment()
        if not self.at(","):
            return first
        parts = [first]
        while self.at(","):
            parts += [self.take(), self.assignment()]
        return _node("sequence_expression", parts)

    @_nesting_limited
    def assignment(self) -> _Node:
        if self.arrow_ahead():
            return self.arrow()
        left = self.ternary()
        if self.tok.kind == "op" and self.tok.text in _JS_ASSIGN:
            if left.kind not in _JS_ASSIGNABLE:
                self.fail("an expression (this one cannot be assigned to)")
            return self.operand(left)
        return left

    def operand(self, node: _Node) -> _Node:
        """Let an operand be an assignment, as tree-sitter's grammar does: a+b=1 reads a + (b=1)."""
        if self.tok.kind == "op" and self.tok.text in _JS_ASSIGN and node.kind in _JS_ASSIGNABLE:
            operator = self.take()
            kind = "assignment_expression" if operator.text == "=" else "augmented_assignment_expression"
            return _node(kind, [node, operator, self.assignment()])
        return node

    def arrow_ahead(self) -> bool:
        k = 1 if self.at("async") and (self.peek().kind == "name" or self.at("(", k=1)) else 0
        if self.peek(k).kind == "name" and self.at("=>", k=k + 1):
            return True
        end = self.closing(self.i + k) if self.at("(", k=k) else -1
        return end > 0 and self.tokens[end + 1].text == "=>"

    def arrow(self) -> _Node:
        parts = [self.take()] if self.at("async") and not self.at("=>", k=1) else []
        parts.append(self.take("identifier") if self.tok.kind == "name" else self.group("formal_parameters"))
        parts.append(self.expect("=>"))
        parts.append(self.group("statement_block") if self.at("{") else self.assignment())
        return _node("arrow_function", parts)

    def ternary(self) -> _Node:
        condition = self.binary(0)
        if not self.at("?"):
            return condition
        question, then = self.take(), self.assignment()
        return _node("ternary_expression", [condition, question, then, self.expect(":"), self.assignment()])

    @_nesting_limited  # 2 ** 2 ** 2 ...: ** groups to the right, so this rule recurs
    def binary(self, floor: int) -> _Node:
        left = self.unary()
        while self.tok.kind in ("op", "name") and _JS_BINARY.get(self.tok.text, 0) > floor:
            operator = self.take()
            right_floor = _JS_BINARY[operator.text] - (operator.text == "**")  # ** groups to the right
            left = _node("binary_expression", [left, operator, self.operand(self.binary(right_floor))])
        return left

    @_nesting_limited
    def unary(self) -> _Node:
        if self.tok.kind in ("op", "name") and self.tok.text in _JS_UNARY:
            operator = self.take()
            return _node("await_expression" if operator.text == "await" else "unary_expression",
                         [operator, self.operand(self.unary())])
        return self.postfix(self.primary())

    def postfix(self, node: _Node, calls: bool = True) -> _Node:
        while True:
            if self.at(".", "?."):
                dot = self.take()
                if dot.text == "?." and self.at("("):  # f?.(x): BFCL reads the ?. as the arguments, so none
                    arguments, _ = self.arguments()
                    node = _node("call_expression", [node, dot, arguments], callee=node, arguments=[])
                    continue
                if dot.text == "?." and self.at("["):
                    continue  # a?.[i]: read on as a subscript
                node = _node("member_expression", [node, dot, self.take("property_identifier")
                                                   if self.tok.kind == "name" else self.fail("a property name")])
            elif self.at("["):
                opening, index = self.take(), self.sequence()
                node = _node("subscript_expression", [node, opening, index, self.expect("]")])
            elif self.at("(") and calls:
                arguments, values = self.arguments()
                node = _node("call_expression", [node, arguments], callee=node, arguments=values)
            elif self.tok.kind == "template" and calls:  # a tagged template: BFCL reads no argument from it
                node = _node("call_expression", [node, self.take("template_string")], callee=node, arguments=[])
            elif self.at("++", "--") and not self.tok.line_break:
                node = _node("update_expression", [node, self.take()])
            else:
                return node

    def arguments(self) -> tuple[_Node, list[_Node]]:
        parts, values = [self.expect("(")], []
        while not self.at(")"):
            if self.at(","):  # f(,x=1) and f(x=1,) parse in tree-sitter-javascript
                parts.append(self.take())
                continue
            values.append(_node("spread_element", [self.take(), self.assignment()]) if self.at("...")
                          else self.assignment())
            parts.append(values[-1])
            if not self.at(")"):
                parts.append(self.expect(","))
        return _node("arguments", parts + [self.take()]), values

    def primary(self) -> _Node:
        token = self.tok
        if token.kind in ("number", "string", "regex"):
            return self.take(token.kind)
        if token.kind == "jsx":  # read whole by the tokenizer (_jsx_end)
            return self.take("jsx_element")
        if token.kind == "template":
            return self.take("template_string")
        if token.kind == "name":
            return self.word()
        if self.at("("):
            opening, inner = self.take(), self.sequence()
            return _node("parenthesized_expression", [opening, inner, self.expect(")")])
        if self.at("["):
            return self.array()
        if self.at("{"):
            return self.object()
        self.fail("a value")

    @_nesting_limited  # new new new X, class extends class extends ...
    def word(self) -> _Node:
        text = self.tok.text
        if text in _JS_LEAF_WORDS:
            return self.take(text)
        if text == "function" or (text == "async" and self.at("function", k=1)):
            return self.function("function_expression")
        if text == "new":
            keyword = self.take()
            if self.at("new"):
                constructor = self.word()
            elif self.tok.kind == "jsx":  # new <p/> is an ERROR: JSX is an expression, not the primary new takes
                self.fail("a constructor")
            else:
                constructor = self.postfix(self.primary(), calls=False)
            parts = [keyword, constructor]
            if self.at("("):
                arguments, _ = self.arguments()
                parts.append(arguments)
            return _node("new_expression", parts)
        if text == "class":
            parts = [self.take()] + ([self.take()] if self.tok.kind == "name" and not self.at("extends") else [])
            if self.at("extends"):
                parts += [self.take(), self.postfix(self.primary())]
            return _node("class", parts + [self.group("class_body") if self.at("{") else self.fail("'{'")])
        return self.take("identifier")

    def jsx_expression(self) -> None:
        """Read what a JSX {...} holds, to the end: nothing, an expression or a sequence, or a ...spread."""
        if self.at("..."):
            self.take()
            self.assignment()
        elif self.tok.kind != "end":
            self.sequence()
        if self.tok.kind != "end":
            self.fail("'}'")

    def array(self) -> _Node:
        parts = [self.take()]
        while not self.at("]"):
            if self.at(","):
                parts.append(self.take())  # a hole: [1, , 3]
                continue
            parts.append(_node("spread_element", [self.take(), self.assignment()]) if self.at("...")
                         else self.assignment())
            if not self.at("]"):
                parts.append(self.expect(","))
        return _node("array", parts + [self.take()])

    def object(self) -> _Node:
        parts = [self.take()]
        while not self.at("}"):
            parts.append(self.entry())
            if not self.at("}"):
                parts.append(self.expect(","))
        return _node("object", parts + [self.take()])

    @_nesting_limited  # {get get get ...}
    def entry(self) -> _Node:
        """key: value, shorthand, ...spread, [computed]: value, or a method key(..) {..}."""
        if self.at("..."):
            return _node("spread_element", [self.take(), self.assignment()])
        if self.at("get", "set", "async") and (self.peek().kind in ("name", "string", "number") or self.at("[", k=1)):
            modifier = self.take()
            return _node("method_definition", [modifier, self.entry()])
        if self.at("["):
            opening, key = self.take(), self.assignment()
            parts = [opening, key, self.expect("]")]
        elif self.tok.kind in ("name", "string", "number"):
            parts = [self.take()]
        else:
            self.fail("a property")
        if self.at(":"):
            return _node("pair", parts + [self.take(), self.assignment()])
        if self.at("("):
            arguments = self.group("formal_parameters")
            if not self.at("{"):
                self.fail("'{'")
            return _node("method_definition", parts + [arguments, self.group("statement_block")])
        if len(parts) == 1 and parts[0].kind == "name" and self.at("=", ",", "}"):
            if self.at("="):  # {a = 1}: a pattern's default
                parts += [self.take(), self.assignment()]
            return _node("shorthand_property", parts)
        self.fail("':'")


# ---------------------------------------------------------------------------------------------
# --- Appendix B. The official SDKs' retry rules, used by HTTPBackend.post (section 7) ---
# ---------------------------------------------------------------------------------------------
# Which failures of a model's API are worth the same request again, and how long to wait: what
# the official Python SDKs do (openai and anthropic, _base_client.py), with two departures named
# in HTTPBackend.post. The lecture's point is only that a harness retries transient failures.

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


# ---------------------------------------------------------------------------------------------
# --- Appendix C. BFCL's model table: display names and formats (section 6b) ---
# ---------------------------------------------------------------------------------------------
# bfcl evaluate looks each result folder up in MODEL_CONFIG_MAPPING (bfcl-eval 2026.3.23,
# bfcl_eval/constants/model_config.py): display_name heads the model's row in every data_*.csv,
# is_fc_model picks its decoder (the lab's mode), underscore_to_dot whether a.b is expected as a_b.
# Copied field for field; a model outside it is graded by its name (mode_of) and shown by it.

BFCL_MODELS = {  # model id: (display name, is_fc_model, underscore_to_dot), in bfcl's order
    "gorilla-openfunctions-v2": ("Gorilla-OpenFunctions-v2 (FC)", True, False),
    "DeepSeek-V3.2-Exp": ("DeepSeek-V3.2-Exp (Prompt)", False, False),
    "DeepSeek-V3.2-Exp-FC": ("DeepSeek-V3.2-Exp (FC)", True, True),
    "DeepSeek-V3.2-Exp-thinking": ("DeepSeek-V3.2-Exp (Prompt + Thinking)", False, False),
    "gpt-5.2-2025-12-11-FC": ("GPT-5.2-2025-12-11 (FC)", True, True),
    "gpt-5.2-2025-12-11": ("GPT-5.2-2025-12-11 (Prompt)", False, False),
    "gpt-5-mini-2025-08-07-FC": ("GPT-5-mini-2025-08-07 (FC)", True, True),
    "gpt-5-mini-2025-08-07": ("GPT-5-mini-2025-08-07 (Prompt)", False, False),
    "gpt-5-nano-2025-08-07-FC": ("GPT-5-nano-2025-08-07 (FC)", True, True),
    "gpt-5-nano-2025-08-07": ("GPT-5-nano-2025-08-07 (Prompt)", False, False),
    "gpt-4.1-2025-04-14-FC": ("GPT-4.1-2025-04-14 (FC)", True, True),
    "gpt-4.1-2025-04-14": ("GPT-4.1-2025-04-14 (Prompt)", False, False),
    "gpt-4.1-mini-2025-04-14-FC": ("GPT-4.1-mini-2025-04-14 (FC)", True, True),
    "gpt-4.1-mini-2025-04-14": ("GPT-4.1-mini-2025-04-14 (Prompt)", False, False),
    "gpt-4.1-nano-2025-04-14-FC": ("GPT-4.1-nano-2025-04-14 (FC)", True, True),
    "gpt-4.1-nano-2025-04-14": ("GPT-4.1-nano-2025-04-14 (Prompt)", False, False),
    "gpt-4o-2024-11-20": ("GPT-4o-2024-11-20 (Prompt)", False, False),
    "gpt-4o-2024-11-20-FC": ("GPT-4o-2024-11-20 (FC)", True, True),
    "gpt-4o-mini-2024-07-18": ("GPT-4o-mini-2024-07-18 (Prompt)", False, False),
    "gpt-4o-mini-2024-07-18-FC": ("GPT-4o-mini-2024-07-18 (FC)", True, True),
    "o3-2025-04-16": ("o3-2025-04-16 (Prompt)", False, False),
    "o3-2025-04-16-FC": ("o3-2025-04-16 (FC)", True, True),
    "o4-mini-2025-04-16": ("o4-mini-2025-04-16 (Prompt)", False, False),
    "o4-mini-2025-04-16-FC": ("o4-mini-2025-04-16 (FC)", True, True),
    "claude-opus-4-5-20251101": ("Claude-Opus-4-5-20251101 (Prompt)", False, False),
    "claude-opus-4-5-20251101-FC": ("Claude-Opus-4-5-20251101 (FC)", True, True),
    "claude-sonnet-4-5-20250929": ("Claude-Sonnet-4-5-20250929 (Prompt)", False, False),
    "claude-sonnet-4-5-20250929-FC": ("Claude-Sonnet-4-5-20250929 (FC)", True, True),
    "claude-haiku-4-5-20251001": ("Claude-Haiku-4-5-20251001 (Prompt)", False, False),
    "claude-haiku-4-5-20251001-FC": ("Claude-Haiku-4-5-20251001 (FC)", True, True),
    "nova-pro-v1.0": ("Amazon-Nova-Pro-v1:0 (FC)", True, True),
    "nova-2-lite-v1.0": ("Amazon-Nova-2-Lite-v1:0 (FC)", True, True),
    "nova-micro-v1.0": ("Amazon-Nova-Micro-v1:0 (FC)", True, True),
    "open-mistral-nemo-2407": ("Open-Mistral-Nemo-2407 (Prompt)", False, False),
    "open-mistral-nemo-2407-FC": ("Open-Mistral-Nemo-2407 (FC)", True, True),
    "mistral-large-2411": ("mistral-large-2411 (Prompt)", False, False),
    "mistral-large-2411-FC": ("mistral-large-2411 (FC)", True, True),
    "mistral-small-2506": ("Mistral-Small-2506 (Prompt)", False, False),
    "mistral-small-2506-FC": ("Mistral-small-2506 (FC)", True, True),
    "mistral-medium-2505": ("Mistral-Medium-2505", False, False),
    "mistral-medium-2505-FC": ("Mistral-Medium-2505 (FC)", True, True),
    "firefunction-v2-FC": ("FireFunction-v2 (FC)", True, False),
    "gemini-2.5-flash-lite-FC": ("Gemini-2.5-Flash-Lite (FC)", True, True),
    "gemini-2.5-flash-lite": ("Gemini-2.5-Flash-Lite (Prompt)", False, False),
    "gemini-2.5-flash-FC": ("Gemini-2.5-Flash (FC)", True, True),
    "gemini-2.5-flash": ("Gemini-2.5-Flash (Prompt)", False, False),
    "gemini-3-pro-preview-FC": ("Gemini-3-Pro-Preview (FC)", True, True),
    "gemini-3-pro-preview": ("Gemini-3-Pro-Preview (Prompt)", False, False),
    "gemini-3.1-flash-lite-preview-FC": ("Gemini-3.1-Flash-Lite-Preview (FC)", True, True),
    "gemini-3.1-flash-lite-preview": ("Gemini-3.1-Flash-Lite-Preview (Prompt)", False, False),
    "meetkai/functionary-small-v3.1-FC": ("Functionary-Small-v3.1 (FC)", True, True),
    "meetkai/functionary-medium-v3.1-FC": ("Functionary-Medium-v3.1 (FC)", True, True),
    "command-r7b-12-2024-FC": ("Command R7B (FC)", True, True),
    "command-a-03-2025-FC": ("Command A (FC)", True, True),
    "command-a-reasoning-08-2025-FC": ("Command A Reasoning (FC)", True, True),
    "nvidia/llama-3.1-nemotron-ultra-253b-v1": ("Llama-3.1-Nemotron-Ultra-253B-v1 (FC)", True, False),
    "nvidia/nemotron-4-340b-instruct": ("Nemotron-4-340b-instruct (Prompt)", False, False),
    "BitAgent/GoGoAgent": ("GoGoAgent", False, False),
    "palmyra-x-004": ("palmyra-x-004 (FC)", True, False),
    "grok-4-0709-FC": ("Grok-4-0709 (FC)", True, True),
    "grok-4-0709": ("Grok-4-0709 (Prompt)", False, False),
    "grok-4-1-fast-reasoning-FC": ("Grok-4-1-fast-reasoning (FC)", True, True),
    "grok-4-1-fast-non-reasoning-FC": ("Grok-4-1-fast-non-reasoning (FC)", True, True),
    "qwen3-0.6b-FC": ("Qwen3-0.6B (FC)", True, True),
    "qwen3-0.6b": ("Qwen3-0.6B (Prompt)", False, False),
    "qwen3-1.7b-FC": ("Qwen3-1.7B (FC)", True, True),
    "qwen3-1.7b": ("Qwen3-1.7B (Prompt)", False, False),
    "qwen3-4b-FC": ("Qwen3-4B (FC)", True, True),
    "qwen3-4b": ("Qwen3-4B (Prompt)", False, False),
    "qwen3-8b-FC": ("Qwen3-8B (FC)", True, True),
    "qwen3-8b": ("Qwen3-8B (Prompt)", False, False),
    "qwen3-14b-FC": ("Qwen3-14B (FC)", True, True),
    "qwen3-14b": ("Qwen3-14B (Prompt)", False, False),
    "qwen3-32b-FC": ("Qwen3-32B (FC)", True, True),
    "qwen3-32b": ("Qwen3-32B (Prompt)", False, False),
    "qwen3-30b-a3b-instruct-2507-FC": ("Qwen3-30B-A3B-Instruct-2507 (FC)", True, True),
    "qwen3-30b-a3b-instruct-2507": ("Qwen3-30B-A3B-Instruct-2507 (Prompt)", False, False),
    "qwen3-235b-a22b-instruct-2507-FC": ("Qwen3-235B-A22B-Instruct-2507 (FC)", True, False),
    "qwen3-235b-a22b-instruct-2507": ("Qwen3-235B-A22B-Instruct-2507 (Prompt)", False, False),
    "qwq-32b-FC": ("QwQ-32B (FC)", True, True),
    "qwq-32b": ("QwQ-32B (Prompt)", False, False),
    "xiaoming-14B": ("xiaoming-14B (FC)", True, False),
    "DM-Cito-8B-v3": ("DM-Cito-8B-v3 (Prompt)", False, False),
    "DM-Cito-32B-v1": ("DM-Cito-32B-v1 (Prompt)", False, False),
    "Ling/ling-lite-v1.5": ("ling-lite-v1.5 (Prompt)", False, False),
    "glm-4.6-FC": ("GLM-4.6 (FC thinking)", True, True),
    "glm-4.5-FC": ("GLM-4.5 (FC)", True, True),
    "glm-4.5-air-FC": ("GLM-4.5-Air (FC)", True, True),
    "kimi-k2-0905-preview-FC": ("Moonshotai-Kimi-K2-Instruct (FC)", True, True),
    "kimi-k2-0905-preview": ("Moonshotai-Kimi-K2-Instruct (Prompt)", False, False),
    "Nanbeige3.5-Pro-Thinking-FC": ("Nanbeige3.5-Pro-Thinking (FC)", True, True),
    "deepseek-ai/DeepSeek-R1": ("DeepSeek-R1 (Prompt) (Local)", False, False),
    "google/gemma-3-1b-it": ("Gemma-3-1b-it (Prompt)", False, False),
    "google/gemma-3-4b-it": ("Gemma-3-4b-it (Prompt)", False, False),
    "google/gemma-3-12b-it": ("Gemma-3-12b-it (Prompt)", False, False),
    "google/gemma-3-27b-it": ("Gemma-3-27b-it (Prompt)", False, False),
    "google/functiongemma-270m-it-FC": ("FunctionGemma-270m-it (FC)", True, False),
    "meta-llama/Llama-3.1-8B-Instruct-FC": ("Llama-3.1-8B-Instruct (FC)", True, False),
    "meta-llama/Llama-3.1-8B-Instruct": ("Llama-3.1-8B-Instruct (Prompt)", False, False),
    "meta-llama/Llama-3.1-70B-Instruct-FC": ("Llama-3.1-70B-Instruct (FC)", True, False),
    "meta-llama/Llama-3.1-70B-Instruct": ("Llama-3.1-70B-Instruct (Prompt)", False, False),
    "meta-llama/Llama-3.2-1B-Instruct-FC": ("Llama-3.2-1B-Instruct (FC)", True, False),
    "meta-llama/Llama-3.2-3B-Instruct-FC": ("Llama-3.2-3B-Instruct (FC)", True, False),
    "meta-llama/Llama-3.3-70B-Instruct-FC": ("Llama-3.3-70B-Instruct (FC)", True, False),
    "meta-llama/Llama-4-Scout-17B-16E-Instruct-FC": ("Llama-4-Scout-17B-16E-Instruct (FC)", True, False),
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8-FC":
        ("Llama-4-Maverick-17B-128E-Instruct-FP8 (FC)", True, False),
    "Salesforce/Llama-xLAM-2-70b-fc-r": ("xLAM-2-70b-fc-r (FC)", True, False),
    "Salesforce/Llama-xLAM-2-8b-fc-r": ("xLAM-2-8b-fc-r (FC)", True, False),
    "Salesforce/xLAM-2-32b-fc-r": ("xLAM-2-32b-fc-r (FC)", True, False),
    "Salesforce/xLAM-2-3b-fc-r": ("xLAM-2-3b-fc-r (FC)", True, False),
    "Salesforce/xLAM-2-1b-fc-r": ("xLAM-2-1b-fc-r (FC)", True, False),
    "mistralai/Ministral-8B-Instruct-2410": ("Ministral-8B-Instruct-2410 (FC)", False, False),
    "microsoft/phi-4": ("Phi-4 (Prompt)", False, False),
    "microsoft/Phi-4-mini-instruct": ("Phi-4-mini-instruct (Prompt)", False, False),
    "microsoft/Phi-4-mini-instruct-FC": ("Phi-4-mini-instruct (FC)", True, False),
    "ibm-granite/granite-3.2-8b-instruct": ("Granite-3.2-8B-Instruct (FC)", True, False),
    "ibm-granite/granite-3.1-8b-instruct": ("Granite-3.1-8B-Instruct (FC)", True, False),
    "ibm-granite/granite-4.0-350m": ("Granite-4.0-350m (FC)", True, False),
    "ibm-granite/granite-20b-functioncalling": ("Granite-20b-FunctionCalling (FC)", True, True),
    "MadeAgents/Hammer2.1-7b": ("Hammer2.1-7b (FC)", True, False),
    "MadeAgents/Hammer2.1-3b": ("Hammer2.1-3b (FC)", True, False),
    "MadeAgents/Hammer2.1-1.5b": ("Hammer2.1-1.5b (FC)", True, False),
    "MadeAgents/Hammer2.1-0.5b": ("Hammer2.1-0.5b (FC)", True, False),
    "THUDM/glm-4-9b-chat": ("GLM-4-9b-Chat (FC)", True, True),
    "Qwen/Qwen3-0.6B-FC": ("Qwen3-0.6B (FC)", True, False),
    "Qwen/Qwen3-0.6B": ("Qwen3-0.6B (Prompt)", False, False),
    "Qwen/Qwen3-1.7B-FC": ("Qwen3-1.7B (FC)", True, False),
    "Qwen/Qwen3-1.7B": ("Qwen3-1.7B (Prompt)", False, False),
    "Qwen/Qwen3-4B-Instruct-2507-FC": ("Qwen3-4B-Instruct-2507 (FC)", True, False),
    "Qwen/Qwen3-4B-Instruct-2507": ("Qwen3-4B-Instruct-2507 (Prompt)", False, False),
    "Qwen/Qwen3-8B-FC": ("Qwen3-8B (FC)", True, False),
    "Qwen/Qwen3-8B": ("Qwen3-8B (Prompt)", False, False),
    "Qwen/Qwen3-14B-FC": ("Qwen3-14B (FC)", True, False),
    "Qwen/Qwen3-14B": ("Qwen3-14B (Prompt)", False, False),
    "Qwen/Qwen3-32B-FC": ("Qwen3-32B (FC)", True, False),
    "Qwen/Qwen3-32B": ("Qwen3-32B (Prompt)", False, False),
    "Qwen/Qwen3-30B-A3B-Instruct-2507-FC": ("Qwen3-30B-A3B-Instruct-2507 (FC)", True, False),
    "Qwen/Qwen3-30B-A3B-Instruct-2507": ("Qwen3-30B-A3B-Instruct-2507 (Prompt)", False, False),
    "Qwen/Qwen3-235B-A22B-Instruct-2507-FC": ("Qwen3-235B-A22B-Instruct-2507 (FC)", True, False),
    "Qwen/Qwen3-235B-A22B-Instruct-2507": ("Qwen3-235B-A22B-Instruct-2507 (Prompt)", False, False),
    "X-Humanoid/Pelican1.0-VL-235B-A22B-FC": ("Pelican1.0-VL-235B-A22 (FC)", True, False),
    "X-Humanoid/Pelican1.0-VL-30B-A3B-FC": ("Pelican1.0-VL-30B-A3B (FC)", True, False),
    "Team-ACE/ToolACE-2-8B": ("ToolACE-2-8B (FC)", False, False),
    "openbmb/MiniCPM3-4B": ("MiniCPM3-4B (Prompt)", False, False),
    "openbmb/MiniCPM3-4B-FC": ("MiniCPM3-4B-FC (FC)", True, True),
    "openbmb/MiniCPM-SALA-FC": ("MiniCPM-SALA (FC)", True, True),
    "watt-ai/watt-tool-8B": ("watt-tool-8B (FC)", False, False),
    "watt-ai/watt-tool-70B": ("watt-tool-70B (FC)", False, False),
    "ZJared/Haha-7B": ("Haha-7B", False, False),
    "speakleash/Bielik-11B-v2.3-Instruct": ("Bielik-11B-v2.3-Instruct (Prompt)", False, False),
    "NovaSky-AI/Sky-T1-32B-Preview": ("Sky-T1-32B-Preview (Prompt)", False, False),
    "tiiuae/Falcon3-10B-Instruct-FC": ("Falcon3-10B-Instruct (FC)", True, False),
    "tiiuae/Falcon3-7B-Instruct-FC": ("Falcon3-7B-Instruct (FC)", True, False),
    "tiiuae/Falcon3-3B-Instruct-FC": ("Falcon3-3B-Instruct (FC)", True, False),
    "tiiuae/Falcon3-1B-Instruct-FC": ("Falcon3-1B-Instruct (FC)", True, False),
    "uiuc-convai/CoALM-8B": ("CoALM-8B", False, False),
    "uiuc-convai/CoALM-70B": ("CoALM-70B", False, False),
    "uiuc-convai/CoALM-405B": ("CoALM-405B", False, False),
    "katanemo/Arch-Agent-1.5B": ("Arch-Agent-1.5B", True, False),
    "katanemo/Arch-Agent-3B": ("Arch-Agent-3B", True, False),
    "katanemo/Arch-Agent-7B": ("Arch-Agent-7B", True, False),
    "katanemo/Arch-Agent-32B": ("Arch-Agent-32B", True, False),
    "BitAgent/BitAgent-8B": ("BitAgent-8B", False, False),
    "BitAgent/BitAgent-Bounty-8B": ("BitAgent-Bounty-8B", True, False),
    "ThinkAgents/ThinkAgent-1B": ("ThinkAgent-1B (FC)", True, False),
    "phronetic-ai/RZN-T": ("RZN-T (Prompt)", False, False),
    "Nanbeige/Nanbeige4-3B-Thinking-2511": ("Nanbeige4-3B-Thinking-2511 (FC)", True, False),
    "meta-llama/llama-4-maverick-17b-128e-instruct-fp8-novita":
        ("Llama-4-Maverick-17B-128E-Instruct-FP8 (Prompt) (Novita)", False, False),
    "meta-llama/llama-4-maverick-17b-128e-instruct-fp8-FC-novita":
        ("Llama-4-Maverick-17B-128E-Instruct-FP8 (FC) (Novita)", True, True),
    "meta-llama/llama-4-scout-17b-16e-instruct-novita":
        ("Llama-4-Scout-17B-16E-Instruct (Prompt) (Novita)", False, False),
    "meta-llama/llama-4-scout-17b-16e-instruct-FC-novita": ("Llama-4-Scout-17B-16E-Instruct (FC) (Novita)", True, True),
    "qwen/qwq-32b-FC-novita": ("Qwen/QwQ-32B (FC) (Novita)", True, True),
    "qwen/qwq-32b-novita": ("Qwen/QwQ-32B (Prompt) (Novita)", False, False),
    "qwen3-4b-think-FC": ("Qwen3-4B-Think (FC)", True, True),
    "qwen3-4b-nothink-FC": ("Qwen3-4B-NoThink (FC)", True, True),
}


def main(argv: list[str] | None = None) -> int:
    """The command line: grade one result file, or a whole result folder, as bfcl evaluate does (see --help)."""
    import argparse
    import os
    import sys
    # the command as the user typed it: bfcl_lab.py, or the console command tool-use-lab-bfcl (sys.argv[0], when the
    # arguments come from sys.argv)
    prog = os.path.basename(sys.argv[0]) if argv is None else "bfcl_lab.py"
    parser = argparse.ArgumentParser(prog=prog, description="Grade BFCL results as bfcl evaluate does.")
    sub = parser.add_subparsers(dest="command", required=True)
    grade = sub.add_parser("grade", help="grade result files (one file, or a folder as bfcl generate writes it)",
                           description="python3 bfcl_lab.py grade QUESTIONS POSSIBLE_ANSWERS RESULTS (POSSIBLE_ANSWERS "
                                       "'-' for irrelevance), or: grade --result-dir DIR --data-dir DIR [--score-dir DIR]")
    grade.add_argument("files", nargs="*", metavar="FILE", help="QUESTIONS POSSIBLE_ANSWERS RESULTS")
    grade.add_argument("--result-dir", help="a result folder: <model>/**/BFCL_v4_<category>_result.json")
    grade.add_argument("--data-dir", help="with --result-dir: the folder of BFCL_v4_<category>.json and possible_answer/")
    grade.add_argument("--score-dir", help="write bfcl's score files (and data_non_live.csv, data_live.csv) there")
    grade.add_argument("--model", action="append", help="the model's name (its mode: bfcl's model table, else -FC "
                                                         "means fc); with --result-dir, grade only these folders")
    grade.add_argument("--category", action="append", help="with --result-dir: grade only this category (repeatable)")
    grade.add_argument("--mode", choices=MODES, help="the model's format: prompt (Python-call text) or fc (function-"
                                                     "calling lists); default: from bfcl's model table, else the "
                                                     "model's name")
    grade.add_argument("--partial", action="store_true", help="grade a result file that answers only some questions "
                                                              "(bfcl evaluate's --partial-eval)")
    grade.add_argument("--lenient", action="store_true", help="read any format with the lab's reader, not bfcl's "
                                                              "decoder (the accuracies then differ from bfcl's)")
    grade.add_argument("--optimal", action="store_true", help="pair parallel calls optimally (bfcl pairs greedily)")
    dots = grade.add_mutually_exclusive_group()
    dots.add_argument("--dots-to-underscores", dest="dots", action="store_true", default=None,
                      help="expect a.b as a_b (the default in fc mode)")
    dots.add_argument("--keep-dots", dest="dots", action="store_false", help="expect a.b as written (prompt mode's default)")
    grade.add_argument("--failures", type=int, default=20, help="how many failures to list (default 20)")
    args = parser.parse_args(argv)
    try:
        scores, header, modes = _run_grade(args)
        if args.score_dir:
            for model, categories in scores.items():
                for score in categories:
                    write_scores(args.score_dir, model, score)
            write_non_live_csv(args.score_dir, scores)
            write_live_csv(args.score_dir, scores)
    except GradeError as exc:
        print(f"{prog} grade: {exc}", file=sys.stderr)
        return 2
    for model, categories in scores.items():  # a mode given or bfcl's: graded as bfcl grades it, with a note
        for advice in filter(None, (fc_output_advice(s, modes[model]) for s in categories if not args.lenient)):
            print(f"{prog} grade: note: {model}: {advice}, as bfcl grades them in this mode; --mode fc reads them "
                  "as function calls", file=sys.stderr)
    print(format_scores(scores, header, args.failures))
    return 0


def _run_grade(args) -> tuple[dict[str, list[CategoryScore]], str, dict[str, str]]:
    """Grade what the command line names; return the scores, the report's header and each model's mode."""
    options = {"optimal": args.optimal} | ({"dots_to_underscores": args.dots} if args.dots is not None else {})
    reader = "the lab's lenient reader (--lenient): not bfcl's decoder, so accuracies may differ from bfcl evaluate" \
        if args.lenient else "bfcl's decoder for the model's format"
    if args.result_dir:
        if args.files or not args.data_dir:
            raise GradeError("--result-dir takes --data-dir (the questions and possible answers) and no file arguments")
        scores = grade_result_dir(args.result_dir, args.data_dir, mode=args.mode, partial=args.partial,
                                  lenient=args.lenient, models=args.model, categories=args.category, **options)
        modes = {m: args.mode or mode_of(m) for m in scores}
        said = ", ".join(f"{m}: {modes[m]}" for m in scores)
        how = "as given" if args.mode else "from bfcl's model table, or else each name"
        return scores, f"Graded with {reader}; mode {how} ({said}).", modes
    if len(args.files) != 3:
        raise GradeError(f"give three files, QUESTIONS POSSIBLE_ANSWERS RESULTS (got {len(args.files)}), "
                         "or --result-dir and --data-dir")
    questions, answers, results = args.files
    model = (args.model or [None])[0]
    if args.mode:
        mode, why = args.mode, "as given"
    elif model and bfcl_model(model):
        mode, why = mode_of(model), f"from bfcl's model table: {model}"
    elif model:
        mode, why = mode_of(model), f"from the model name {model}"
    else:
        from pathlib import Path
        named = next((part for part in reversed(Path(results).resolve().parts[:-1]) if mode_of(part) == "fc"), None)
        mode, why = ("fc", f"from the folder {named}") if named else ("prompt", "the default; --mode fc for "
                                                                                "function-calling results")
    score = grade_files(questions, None if answers == "-" else answers, results, mode=mode, partial=args.partial,
                        lenient=args.lenient, **_options_for(model or "", mode, options))
    if not args.mode and not args.lenient and not bfcl_model(model or ""):
        _refuse_guessed_prompt_mode(model or results, mode, [score], "--mode fc")
    return {model or "results": [score]}, f"Graded with {reader}; mode {mode} ({why}).", {model or "results": mode}


if __name__ == "__main__":
    import sys
    sys.exit(main())
