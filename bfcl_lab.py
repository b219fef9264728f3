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
     and its data_non_live.csv and data_live.csv, each model under its display name (Appendix C);
     a category the lab does not grade as bfcl does is left out by name, never scored. (6c) The
     multi-turn categories, graded as bfcl's multi_turn_checker: state and responses checked after
     every turn, on the lab's ports of bfcl's API classes (Appendix M); demo_multi_turn, scripts/06 demo 7.
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
  Appendix M: BFCL's multi-turn API classes, ported (the data of section 6c's grader).

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
import copy
import decimal
import functools
import json
import math
import random
import re
import textwrap
import time
import typing
from copy import deepcopy
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Dict, List, Optional, Union

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
SINGLE_TURN = ["simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
               "irrelevance", "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
               "live_irrelevance", "live_relevance"]  # BFCL v4's categories the lab grades as bfcl does
NOT_GRADED = {  # BFCL v4's other categories (bfcl_eval/constants/category_mapping.py), and why the lab leaves them out
    "web_search": "an agentic category: bfcl checks that the expected answer appears in the model's last message "
                  "(agentic_checker), not the calls it made on the way",
    "memory": "an agentic category: bfcl checks the model's last message against the expected answer "
              "(agentic_checker) after its memory prerequisites ran",
    "format_sensitivity": "bfcl does not score it (NON_SCORING_CATEGORY): it reruns single-turn entries under "
                          "varied prompt formats and reports each format apart",
}


def not_graded(category: str) -> str:
    """Why the lab does not grade this category ('' for one it grades as bfcl does)."""
    if category in SINGLE_TURN:
        return ""
    if category.endswith("_prereq"):
        return "a memory prerequisite: bfcl evaluate skips it too"
    if category in MULTI_TURN:
        return ""  # graded entry by entry (section 6c), if the lab has ported every class its entries use
    prefix = next((p for p in NOT_GRADED if category.startswith(p)), None)
    return NOT_GRADED[prefix] if prefix else f"not a BFCL v4 category (the lab grades {', '.join(SINGLE_TURN)})"


MULTI_TURN = ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"]


def multi_turn_refusal(questions: list[dict]) -> str:
    """Why a multi-turn question file cannot be graded ('' when it can): classes of its entries the lab has not
    ported, named with the entries that use them (bfcl's accuracy counts every entry, so one refused entry refuses
    the category)."""
    missing: dict[str, list[str]] = {}
    for question in questions:
        for name in unported(question):
            missing.setdefault(name, []).append(question["id"])
    if not missing:
        return ""
    said = "; ".join(f"{name} ({len(ids)} entries, e.g. {ids[0]})" for name, ids in sorted(missing.items()))
    return (f"bfcl grades multi-turn entries by running their calls on its API classes, and the lab has no port of "
            f"{said} yet")


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
        if category.startswith("multi_turn"):
            lines.append(_grade_multi_turn_line(question, answer, result["result"], mode))
        else:
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
    if why := not_graded(category) or multi_turn_refusal(questions):
        raise GradeError(f"{category} is not graded here: {why}")
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
                     left_out: list | None = None, **options) -> dict[str, list[CategoryScore]]:
    """Grade every result file of every model folder (at any depth), with the questions and answers of data_dir.

    A category the lab does not grade as bfcl does (not_graded) is left out, never scored: it goes into
    `left_out` as (model, category, why), and the rest of the folder is graded."""
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
            why = not_graded(category)
            if not why and category in MULTI_TURN and questions.is_file():
                why = multi_turn_refusal(read_jsonl(str(questions), "the question file"))
            if why:
                if left_out is not None:
                    left_out.append((folder.name, category, why))
                continue
            if not questions.is_file():
                raise GradeError(f"{folder.name}: no question file {questions} for {path.name}")
            scores[folder.name].append(grade_files(str(questions), str(answers) if needs_answers(category) else None,
                                                   str(path), mode=model_mode, partial=partial, lenient=lenient,
                                                   **_options_for(folder.name, model_mode, options)))
        if not scores[folder.name]:
            del scores[folder.name]
        elif not mode and not lenient and not bfcl_model(folder.name):
            _refuse_guessed_prompt_mode(folder.name, model_mode, scores[folder.name],
                                        f"--mode fc --model {folder.name}")
    if not scores:
        skipped = f"; left out: {', '.join(sorted({c for _, c, _ in left_out}))}" if left_out else ""
        raise GradeError(f"no result file (BFCL_v4_<category>_result.json) under {result_dir} that the lab grades"
                         f"{skipped}")
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
    if category in MULTI_TURN:  # the checker's own dict under "error", and the function docs left out of the prompt
        prompt = {k: v for k, v in line.question.items() if k != "function"}
        return head | {"error": {"error_message": line.verdict.message, "error_type": line.verdict.error_type},
                       "prompt": prompt, "model_result_raw": line.raw, "model_result_decoded": line.decoded,
                       "possible_answer": line.truth}
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
        if any(s.category in MULTI_TURN for s in categories):
            lines.append(f"Multi Turn Overall Acc {multi_turn_summary(categories)['Multi Turn Overall Acc'] * 100:.2f}% "
                         "(bfcl's mean of Base, Miss Func, Miss Param and Long Context; a category not graded counts 0)")
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


def multi_turn_summary(scores: list[CategoryScore]) -> dict[str, float | None]:
    """bfcl's data_multi_turn.csv row: Multi Turn Overall Acc = the plain mean of the four categories' accuracies,
    a category not graded counting 0 (calculate_unweighted_accuracy, never shown as N/A)."""
    graded = {s.category: s.accuracy for s in scores}
    return {"Multi Turn Overall Acc": sum(graded.get(c, 0.0) for c in MULTI_TURN) / len(MULTI_TURN),
            **{c: graded.get(c) for c in MULTI_TURN}}


def write_multi_turn_csv(score_dir: str, scores: dict[str, list[CategoryScore]]) -> str:
    """Write data_multi_turn.csv in bfcl's columns (COLUMNS_MULTI_TURN), ranked by the overall accuracy."""
    columns = ["Rank", "Model", "Multi Turn Overall Acc", "Base", "Miss Func", "Miss Param", "Long Context"]
    rows = []
    for model, categories in scores.items():
        s = multi_turn_summary(categories)
        rows.append((s["Multi Turn Overall Acc"], [display_name(model), _percent(s["Multi Turn Overall Acc"]),
                                                   *[_percent(s[c]) for c in MULTI_TURN]]))
    return _write_csv(score_dir, "data_multi_turn.csv", columns, rows)


# ---------------------------------------------------------------------------------------------
# --- 6c. Multi-turn: graded by state and by response after every turn, as bfcl's multi_turn_checker ---
# ---------------------------------------------------------------------------------------------
# A multi-turn entry is a conversation over two API classes (a file system and a messenger, a trading bot and a
# ticket desk, ...) whose starting state it gives. The model answers each user turn in steps of calls. bfcl runs
# them, and the gold calls of the same turn, on instances of the classes kept for the whole entry (one set for the
# model, one for the gold), and after every turn that has gold calls it requires:
#   - the state check: each public attribute of each model instance equals the gold instance's;
#   - the response check: each result of this turn's gold calls is among the results of all the model's calls so
#     far (each used once, in any order), so a value the model fetched in an earlier turn still counts.
# A turn with gold calls where the model made none fails (empty turn); an entry whose turns are fewer or more
# than the gold's was force-terminated at inference. A call is never evaluated as text: the lab's reader decodes
# it, and it is dispatched by name to a method of the entry's instances. The classes are data for this grader:
# plain standard-library ports of bfcl's (Appendix M), registered in MULTI_TURN_CLASSES; an entry whose classes are
# not ported is refused by name, never scored.

MULTI_TURN_CLASSES: dict[str, type] = {}  # BFCL's class name -> the lab's port (Appendix M)
STATELESS_CLASSES = ("MathAPI",)  # bfcl builds them without a scenario
NOT_ALLOWED = ("kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run")  # bfcl refuses these names


@dataclass
class TurnTrace:
    """One turn of a multi-turn entry as the grader ran it: the calls and results on each side, and the check."""

    turn: int
    model_calls: list
    gold_calls: list
    model_results: list[str]
    gold_results: list[str]
    model_state: dict
    gold_state: dict
    verdict: Verdict


def unported(entry: dict, classes: dict[str, type] | None = None) -> list[str]:
    """The classes of a multi-turn entry the lab has no port of (an entry with any is refused, never scored)."""
    known = MULTI_TURN_CLASSES if classes is None else classes
    return [name for name in entry.get("involved_classes", []) if name not in known]


def grade_multi_turn(entry: dict, gold: list[list[str]], model: JSON, mode: str,
                     classes: dict[str, type] | None = None, through: bool = False) -> tuple[Verdict, list[TurnTrace]]:
    """Grade one multi-turn entry as bfcl does: (the verdict, each turn as it ran). `model` is the result's list of
    turns, each a list of steps (a step: one reply, in the model's format); `gold` the turns of gold call strings.
    bfcl stops at the first failed turn; through=True runs every turn (the verdict is still the first failure)."""
    classes = MULTI_TURN_CLASSES if classes is None else classes
    if not isinstance(model, list):
        return Verdict(False, "multi_turn:inference_error", "Error during inference phase. Model did not output a "
                       "list of model responses."), []
    if len(model) != len(gold):
        return Verdict(False, "multi_turn:force_terminated", f"Model was force-terminated during inference phase. "
                       f"The length of the model result turns ({len(model)}) does not match the length of the "
                       f"ground truth turns ({len(gold)})."), []
    long_context = "long_context" in entry["id"] or "composite" in entry["id"]
    sides = {side: _instances(entry, classes, long_context) for side in ("model", "gold")}
    so_far, traces, first = [], [], PASS
    for turn, (gold_calls, steps) in enumerate(zip(gold, model)):
        model_calls = [calls for step in (steps if isinstance(steps, list) else []) if (calls := _decoded(step, mode))]
        model_results = [result for calls in model_calls for result in run_calls(sides["model"], calls)]
        gold_parsed = [gold_call(text) for text in gold_calls]
        gold_results = run_calls(sides["gold"], gold_parsed)
        so_far += model_results
        verdict = _turn_verdict(turn, gold_calls, model_calls, sides, so_far, gold_results)
        traces.append(TurnTrace(turn, model_calls, gold_parsed, model_results, gold_results,  # states as they are now
                                copy.deepcopy(public_state(sides["model"])), copy.deepcopy(public_state(sides["gold"])),
                                verdict))
        if not verdict.valid:
            first = first if not first.valid else verdict
            if not through:
                break
    return first, traces


DEMO_ENTRY = {  # a made-up multi-turn entry in BFCL's shape, over two of the ported classes
    "id": "multi_turn_base_demo", "involved_classes": ["GorillaFileSystem", "TicketAPI"],
    "initial_config": {"GorillaFileSystem": {"root": {"alex": {"type": "directory", "contents": {
        "report.txt": {"type": "file", "content": "Q3 budget draft"}}}}},
        "TicketAPI": {"ticket_queue": [], "ticket_counter": 1, "current_user": "alex"}},
    "question": [[{"role": "user", "content": "What does report.txt say?"}],
                 [{"role": "user", "content": "Put the report in a new folder, archive."}],
                 [{"role": "user", "content": "File a ticket 'Report archived', priority 2."}],
                 [{"role": "user", "content": "Close that ticket."}]]}
DEMO_GOLD = [["cat(file_name='report.txt')"], ["mkdir(dir_name='archive')", "mv(source='report.txt', destination='archive')"],
             ["create_ticket(title='Report archived', priority=2)"], ["close_ticket(ticket_id=1)"]]
DEMO_MODEL = [["[cat(file_name='report.txt')]"],  # a model that copies where it should move, and tidies up later
              ["Sure.", "[mkdir(dir_name='archive'), cp(source='report.txt', destination='archive')]"],
              ["[create_ticket(title='Report archived', priority=2)]"],
              ["[rm(file_name='report.txt'), close_ticket(ticket_id=1)]"]]


@tool_core.preformatted
def demo_multi_turn() -> str:
    """One multi-turn entry graded turn by turn as bfcl grades it, beside what a final-state grader would see."""
    verdict, traces = grade_multi_turn(DEMO_ENTRY, DEMO_GOLD, DEMO_MODEL, "prompt", through=True)
    calls = lambda made: "; ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})"  # noqa: E731
                                   for step in made for call in step for n, a in call.items()) or "none"
    rows = [[t.turn, DEMO_ENTRY["question"][t.turn][0]["content"], calls(t.model_calls), "ok" if t.verdict.valid else
             t.verdict.error_type.split(":")[1]] for t in traces]
    first = next(t for t in traces if not t.verdict.valid)
    where = [f"{name} in {path}" for name, path in _files(first.model_state["GorillaFileSystem"]["root"])]
    gold_where = [f"{name} in {path}" for name, path in _files(first.gold_state["GorillaFileSystem"]["root"])]
    same_end = traces[-1].model_state == traces[-1].gold_state
    return "\n".join([
        f"Entry {DEMO_ENTRY['id']} (made up, in BFCL's shape): {' and '.join(DEMO_ENTRY['involved_classes'])}, "
        f"{len(traces)} turns.",
        "After every turn bfcl runs the model's calls and the gold calls on instances of their own, then checks the "
        "state", "(every public attribute equal) and the responses (the gold results among the model's so far).", "",
        format_table(["turn", "the user asks", "the model calls", "check"], rows), "",
        f"The state first differs after turn {first.turn}:",
        f"  the model's files: {', '.join(where)}", f"  the gold's files:  {', '.join(gold_where)}",
        f"bfcl's verdict: {verdict.error_type} at turn {first.turn} (it stops there; the rows after it run on, to "
        "show the end).",
        f"The final states are equal: {'yes' if same_end else 'no'}. A grader of the final state only (tau-bench's) "
        f"{'passes' if same_end else 'fails'} this entry:",
        "it cannot see the detour (a copy left behind for two turns) that a turn-by-turn grader catches where it "
        "happened."])


def _files(directory, path: str = "") -> list[tuple[str, str]]:
    """(file name, folder path) of every file under a ported GorillaFileSystem directory."""
    here = f"{path}/{directory.name}"
    found = []
    for name, item in directory.contents.items():
        found += _files(item, here) if hasattr(item, "contents") else [(name, here)]
    return found


def _grade_multi_turn_line(question: dict, answer: dict, raw: JSON, mode: str) -> GradedLine:
    """One result line of a multi-turn category, graded as bfcl grades it."""
    truth = answer.get("ground_truth", []) if answer else []
    try:
        verdict, traces = grade_multi_turn(question, truth, raw, mode)
    except (ValueError, SyntaxError, KeyError, TypeError) as exc:  # the data, not the model: bfcl would stop too
        raise GradeError(f"{question['id']} cannot be graded: its question or gold calls are malformed "
                         f"({type(exc).__name__}: {exc})") from None
    return GradedLine(question["id"], verdict, raw, [t.model_calls for t in traces], question, truth)


def _turn_verdict(turn: int, gold_calls: list, model_calls: list, sides: dict, so_far: list[str],
                  gold_results: list[str]) -> Verdict:
    """bfcl's checks after one turn, in its order: an empty answer, the state, the responses."""
    if not gold_calls:
        return PASS  # a turn the model should not (or cannot) act on: not checked here
    if not model_calls:
        return Verdict(False, "multi_turn:empty_turn_model_response", f"Model response list is empty for turn {turn}")
    for name, gold_instance in sides["gold"].items():
        differences = {attribute: {"model": getattr(sides["model"][name], attribute, None), "ground_truth": value}
                       for attribute, value in public_state({name: gold_instance})[name].items()
                       if getattr(sides["model"][name], attribute, None) != value}
        if differences:
            return Verdict(False, "multi_turn:instance_state_mismatch", f"Model instance for {name} does not match "
                           f"the state with ground truth instance. Differences: {tool_core.show(differences, limit=300)}")
    missing, pool = [], list(so_far)
    for result in gold_results:
        if result in pool:
            pool.remove(result)
        else:
            missing.append(result)
    if missing:
        return Verdict(False, "multi_turn:execution_response_mismatch", f"Model response execution results so far "
                       f"does not contain all the ground truth response execution results for turn {turn}. "
                       f"Missing: {tool_core.show(missing, limit=300)}")
    return PASS


def _instances(entry: dict, classes: dict[str, type], long_context: bool) -> dict[str, object]:
    """Fresh instances of the entry's classes, each loaded with its part of the entry's initial_config."""
    made = {}
    for name in entry["involved_classes"]:
        instance = classes[name]()
        if name not in STATELESS_CLASSES:
            instance._load_scenario(copy.deepcopy(entry.get("initial_config", {}).get(name, {})),
                                    long_context=long_context)
        made[name] = instance
    return made


def _decoded(step: JSON, mode: str) -> list[dict]:
    """One step's calls; a step that does not decode is left out, as bfcl leaves it (the model was chatting)."""
    try:
        calls = decode_ast(step, mode)
    except DecodeError:
        return []
    return calls if isinstance(calls, list) else []


def gold_call(text: str) -> tuple[str, list, dict]:
    """Read one gold call string as bfcl runs it (it evaluates the text, so positional arguments count there): its
    name, positional and keyword values, read by Python's ast as literals, never evaluated.
    Example: "cd(folder='document')" -> ('cd', [], {'folder': 'document'})"""
    node = ast.parse(text.strip(), mode="eval").body
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        raise ValueError(f"a gold call must be name(arguments): {text!r}")
    return (node.func.id, [ast.literal_eval(a) for a in node.args],
            {k.arg: ast.literal_eval(k.value) for k in node.keywords})


def run_calls(instances: dict[str, object], calls: list) -> list[str]:
    """Run calls on the instances, as bfcl's execute_multi_turn_func_call: a name goes to the method of that name
    (the later class wins where two have it), each result written as a string (a dict as JSON), a failure as
    "Error during execution: ..." in its place. A call: the decoder's {name: arguments}, or gold_call's triple."""
    methods = {}
    for instance in instances.values():
        methods |= {name: getattr(instance, name) for name in dir(instance)
                    if not name.startswith("_") and callable(getattr(instance, name))}
    results = []
    for call in calls:
        if isinstance(call, tuple):
            name, positional, keywords = call
        else:
            (name, keywords), positional = next(iter(call.items())), []
        try:
            if name in NOT_ALLOWED:
                raise PermissionError(f"Function call {name} is not allowed.")
            if name not in methods:
                raise NameError(f"name '{name}' is not defined")
            results.append(_as_result(methods[name](*positional, **keywords)))
        except Exception as exc:  # noqa: BLE001 - bfcl records any failure as the call's result
            results.append(f"Error during execution: {exc}")
    return results


def _as_result(value: JSON) -> str:
    """A call's result as bfcl writes it: a str as it is, a dict as JSON (else its str), anything else its str."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def public_state(instances: dict[str, object]) -> dict[str, dict]:
    """Each instance's public attributes (the state bfcl compares): {class name: {attribute: value}}."""
    return {name: {k: v for k, v in vars(instance).items() if not k.startswith("_")}
            for name, instance in instances.items()}


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
    return [where + problem for problem in _schema_problems(json.dumps(schema))]


@functools.lru_cache(maxsize=1024)
def _schema_problems(schema_text: str) -> tuple[str, ...]:
    """schema_problems' checks, once per distinct schema: a loop sends the same tools with every request."""
    schema = json.loads(schema_text)
    found = [error[1:] for error in tool_core.validate(TOOL_SCHEMA_META, schema)]
    try:
        tool_core.check_schema(schema)
    except ValueError as exc:
        found.append(f": JSON schema is invalid: {exc}")
    return tuple(found)


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
    left_out: list[tuple[str, str, str]] = []
    try:
        scores, header, modes = _run_grade(args, left_out)
        if args.score_dir:
            for model, categories in scores.items():
                for score in categories:
                    write_scores(args.score_dir, model, score)
            write_non_live_csv(args.score_dir, scores)
            write_live_csv(args.score_dir, scores)
            write_multi_turn_csv(args.score_dir, scores)
    except GradeError as exc:
        print(f"{prog} grade: {exc}", file=sys.stderr)
        return 2
    for model, categories in scores.items():  # a mode given or bfcl's: graded as bfcl grades it, with a note
        for advice in filter(None, (fc_output_advice(s, modes[model]) for s in categories if not args.lenient)):
            print(f"{prog} grade: note: {model}: {advice}, as bfcl grades them in this mode; --mode fc reads them "
                  "as function calls", file=sys.stderr)
    print(format_scores(scores, header, args.failures))
    if left_out:  # said on both streams: the report shows it, and a script sees it on stderr and in the exit code
        print("\n" + format_left_out(left_out))
        print(f"{prog} grade: {len(left_out)} result file(s) left out, not graded (see above); the rest is graded",
              file=sys.stderr)
        return 1
    return 0


def format_left_out(left_out: list[tuple[str, str, str]]) -> str:
    """Say which result files were left out, and why: no number is given for a category not graded as bfcl grades."""
    lines = ["Left out (no score, no score file):"]
    for why in dict.fromkeys(why for _, _, why in left_out):
        named = ", ".join(f"{category} ({model})" for model, category, said in left_out if said == why)
        lines.append(f"  {named}: {why}")
    return "\n".join(lines)


def _run_grade(args, left_out: list) -> tuple[dict[str, list[CategoryScore]], str, dict[str, str]]:
    """Grade what the command line names; return the scores, the report's header and each model's mode (left_out:
    see grade_result_dir)."""
    options = {"optimal": args.optimal} | ({"dots_to_underscores": args.dots} if args.dots is not None else {})
    reader = "the lab's lenient reader (--lenient): not bfcl's decoder, so accuracies may differ from bfcl evaluate" \
        if args.lenient else "bfcl's decoder for the model's format"
    if args.result_dir:
        if args.files or not args.data_dir:
            raise GradeError("--result-dir takes --data-dir (the questions and possible answers) and no file arguments")
        scores = grade_result_dir(args.result_dir, args.data_dir, mode=args.mode, partial=args.partial,
                                  lenient=args.lenient, models=args.model, categories=args.category,
                                  left_out=left_out, **options)
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


# ---------------------------------------------------------------------------------------------
# --- Appendix M. BFCL's multi-turn API classes, ported: the data of section 6c's grader ---
# ---------------------------------------------------------------------------------------------
# Each class behaves as bfcl's of the same name (bfcl_eval/eval_checker/multi_turn_eval/func_source_code): the same
# public methods and signatures, results, error strings and public state, the same default and long-context data,
# its quirks kept (marked "subtle"). Each was checked against bfcl's original outside this repository: every gold
# call of BFCL v4's four multi-turn files replayed on both, and thousands of edge calls (wrong arguments, wrong
# types, unknown ids, boundary values), with 0 differences in results or public state. The module-level names of
# a port carry its prefix (_FS_..., _TRADE_...), so that two ports' DEFAULT_STATE do not meet.

# --- M1. GorillaFileSystem, bfcl's gorilla_file_system.py ---
# GorillaFileSystem: BFCL's toy Unix-like file system, ported to the standard library.

_FS_FILE_CONTENT_EXTENSION = (
    "The company's financials for the year reflect a period of steady growth and consistent revenue "
    "generation, with both top-line and bottom-line figures showing improvement compared to the previous "
    "year. Total revenue increased at a modest pace, driven primarily by strong performance in the "
    "company’s core markets. Despite some fluctuations in demand, the business maintained healthy "
    "margins, with cost controls and efficiency measures helping to offset any increase in operational "
    "expenses. As a result, gross profit grew at a stable rate, keeping in line with management’s "
    "expectations. The company’s operating income saw an uptick, indicating that the firm was able to "
    "manage its administrative and selling expenses effectively, while also benefiting from a more "
    "streamlined supply chain. This contributed to a higher operating margin, suggesting that the "
    "company’s core operations were becoming more efficient and profitable. Net income also rose, "
    "bolstered by favorable tax conditions and reduced interest expenses due to a restructuring of "
    "long-term debt. The company managed to reduce its financial leverage, leading to an improvement in "
    "its interest coverage ratio. On the balance sheet, the company maintained a solid financial "
    "position, with total assets increasing year over year. The growth in assets was largely due to "
    "strategic investments in new technology and facilities, aimed at expanding production capacity and "
    "improving operational efficiency. Cash reserves remained robust, supported by positive cash flow "
    "from operations. The company also reduced its short-term liabilities, improving its liquidity "
    "ratios, and signaling a stronger ability to meet near-term obligations.Shareholders’ equity grew as "
    "a result of retained earnings, reflecting the company’s profitability and its strategy of "
    "reinvesting profits back into the business rather than paying out large dividends. The company "
    "maintained a conservative approach to debt, with its debt-to-equity ratio remaining within industry "
    "norms, which reassured investors about the company’s long-term solvency and risk management "
    "practices. The cash flow statement highlighted the company’s ability to generate cash from its core "
    "operations, which remained a strong indicator of the business's health. Cash from operating "
    "activities was sufficient to cover both investing and financing needs, allowing the company to "
    "continue its capital expenditure plans without increasing its reliance on external financing. The "
    "company’s investment activities included expanding its production facilities and acquiring new "
    "technology to improve future productivity and efficiency. Meanwhile, the company’s financing "
    "activities reflected a balanced approach, with some debt repayments and a modest issuance of new "
    "equity, allowing for flexible capital management.Overall, the company's financials indicate a "
    "well-managed business with a clear focus on sustainable growth. Profitability remains strong, "
    "operational efficiency is improving, and the company’s balance sheet reflects a stable, low-risk "
    "financial structure. The management’s strategy of cautious expansion, combined with a disciplined "
    "approach to debt and investment, has positioned the company well for future growth and "
    "profitability."
)

_FS_POPULATE_FILE_EXTENSION = [
    "image_344822349461074042.jpg",
    "image_8219547643081662353.jpg",
    "image_5421509146842474663.jpg",
    "image_185391401034246046.jpg",
    "image_6824007961180780019.jpg",
    "image_2994974694593273051.jpg",
    "image_2537728455072851196.jpg",
    "image_2164918946836800275.jpg",
    "image_1745133864906284051.jpg",
    "image_7707563551789432679.jpg",
    "image_8190489168166590809.jpg",
    "image_2385660725381355820.jpg",
    "image_4771211633166048374.jpg",
    "image_3443718094055823214.jpg",
    "image_6838087561356843690.jpg",
    "image_605952633285970710.jpg",
    "image_6341510244180179744.jpg",
    "image_4119241148692325954.jpg",
    "image_5651066601163181955.jpg",
    "image_3747091333751395055.jpg",
    "image_4623743619379194431.jpg",
    "image_5072742684386583099.jpg",
    "image_1978458056362464778.jpg",
    "image_3090346927968358019.jpg",
    "image_7193806748674265039.jpg",
    "image_7169516574395086720.jpg",
    "image_8618240224293913315.jpg",
    "image_5514683852355062444.jpg",
    "image_8749630317332649147.jpg",
    "image_1912245706439755759.jpg",
]

_FS_FILES_TAIL_USED = [
    "log.txt",
    "report.txt",
    "report.csv",
    "DataSet1.csv",
    "file1.txt",
    "finance_report.txt",
    "config.py",
    "Q4_summary.doc",
    "file3.txt",
]


# The tree: files and directories

# Characters a name given to mkdir, touch, echo or cat may not contain.
_FS_INVALID_NAME_CHARACTERS = '|/\\?%*:"><'


class File:
    """A named file holding its content (normally a str)."""

    def __init__(self, name: str, content: str = "") -> None:
        self.name = name
        self.content = content

    def _write(self, new_content: str) -> None:
        """Replace the content."""
        self.content = new_content

    def _read(self) -> str:
        """Return the content."""
        return self.content

    def _append(self, additional_content: str) -> None:
        """Add text at the end of the content."""
        self.content += additional_content

    def __repr__(self) -> str:
        return f"<<File: {self.name}, Content: {self.content}>>"

    def __eq__(self, other: object) -> bool:
        # The grader's state check relies on this: name and content, nothing else.
        if not isinstance(other, File):
            return False
        return self.name == other.name and self.content == other.content


class Directory:
    """A named directory: a parent link and an ordered name -> item dict."""

    def __init__(self, name: str, parent: Optional["Directory"] = None) -> None:
        self.name = name
        self.parent = parent
        self.contents: Dict[str, Union[File, "Directory"]] = {}

    def _add_file(self, file_name: str, content: str = "") -> None:
        """Create a file here; raise ValueError if the name is taken."""
        if file_name in self.contents:
            raise ValueError(f"File '{file_name}' already exists in directory '{self.name}'.")
        self.contents[file_name] = File(file_name, content)

    def _add_directory(self, dir_name: str) -> None:
        """Create an empty subdirectory here; raise ValueError if the name is taken."""
        if dir_name in self.contents:
            raise ValueError(f"Directory '{dir_name}' already exists in directory '{self.name}'.")
        self.contents[dir_name] = Directory(dir_name, self)

    def _get_item(self, item_name: str) -> Union[File, "Directory", None]:
        """Return the named child, this directory itself for ".", or None."""
        # subtle: "." wins over a child *named* "." (touch('.') makes one), so
        # cat('.') then reports "Is a directory" and echo(..., '.') fails.
        if item_name == ".":
            return self
        return self.contents.get(item_name)

    def _list_contents(self) -> List[str]:
        """Return the child names in insertion order."""
        return list(self.contents.keys())

    def __repr__(self) -> str:
        parent_name = self.parent.name if self.parent else None
        return f"<Directory: {self.name}, Parent: {parent_name}, Contents: {self.contents}>"

    def __eq__(self, other: object) -> bool:
        # Compares name and contents recursively; the parent link is ignored.
        if not isinstance(other, Directory):
            return False
        return self.name == other.name and self.contents == other.contents


# The API class


class GorillaFileSystem:
    """BFCL's file-system API: shell-like commands on one in-memory tree."""

    def __init__(self) -> None:
        self.root: Directory
        self._current_dir: Directory
        self._api_description = (
            "This tool belongs to the Gorilla file system. It is a simple file system that "
            "allows users to perform basic file operations such as navigating directories, "
            "creating files and directories, reading and writing to files, etc."
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GorillaFileSystem):
            return False
        return self.root == other.root

    # --- 3a. Loading a scenario ---

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Build the tree from an entry's initial_config and cd to its root.

        Example: {"root": {"alex": {"type": "directory", "contents": {}}}}
        -> root Directory("alex"), empty (plus 30 image files if long_context).
        """
        self.long_context = long_context
        self.root = Directory("/", None)
        if "root" in scenario:
            # Only the first key under "root" counts; it names the root directory.
            root_name = list(scenario["root"].keys())[0]
            root_dir = Directory(root_name, None)
            self.root = self._load_directory(scenario["root"][root_name]["contents"], root_dir)
        self._current_dir = self.root

    def _load_directory(self, current: dict, parent: Optional[Directory] = None) -> Directory:
        """Fill `parent` from a {name: {"type": ..., ...}} dict and return it."""
        is_bottommost = True
        for item_name, item_data in current.items():
            if item_data["type"] == "directory":
                is_bottommost = False
                child = self._load_directory(item_data["contents"], Directory(item_name, parent))
                parent.contents[item_name] = child
            elif item_data["type"] == "file":
                content = item_data["content"]
                # Long context pads every file whose tail a task reads with filler text.
                if self.long_context and item_name not in _FS_FILES_TAIL_USED:
                    content += _FS_FILE_CONTENT_EXTENSION
                parent.contents[item_name] = File(item_name, content)
        if is_bottommost and self.long_context:
            self._populate_directory(parent)
        return parent

    def _populate_directory(self, directory: Directory) -> None:
        """Add the long-context image files (empty) to a directory with no subdirectories."""
        for file_name in _FS_POPULATE_FILE_EXTENSION:
            directory._add_file(file_name)

    # --- 3b. Helpers shared by the commands ---

    def _validate_file_or_directory_name(self, dir_name: str) -> bool:
        """Return False if the name holds a character from INVALID_NAME_CHARACTERS."""
        # subtle: `c in dir_name` also runs on a list or dict, so only an int-like
        # name raises here (TypeError), as in BFCL.
        return not any(c in dir_name for c in _FS_INVALID_NAME_CHARACTERS)

    def _navigate_to_directory(self, path: Optional[str]) -> Union[Directory, Dict[str, str]]:
        """Resolve a relative or absolute path to a Directory, or an error dict.

        Example: "/alex/docs" -> Directory("docs"); "nope" -> {"error": "cd: 'nope': ..."}
        """
        if path is None or path == ".":
            return self._current_dir
        elif path == "/":
            return self.root
        dir_names = path.strip("/").split("/")
        directory = self.root if path.startswith("/") else self._current_dir
        # subtle: ".." is not special here; it is looked up as a child name.
        for dir_name in dir_names:
            next_dir = directory._get_item(dir_name)
            if not isinstance(next_dir, Directory):
                return {"error": f"cd: '{path}': No such file or directory"}
            directory = next_dir
        return directory

    def _local_file(self, file_name: str) -> Optional[File]:
        """Return the File named `file_name` in the current directory, else None."""
        if file_name in self._current_dir.contents:
            item = self._current_dir._get_item(file_name)
            if isinstance(item, File):
                return item
        return None

    # --- 3c. Navigation ---

    def pwd(self):
        """Return the path from the root's name down to the current directory."""
        names = []
        directory = self._current_dir
        # subtle: BFCL also tests `name != self.root` (a str against a Directory,
        # always unequal), so the walk always ends above the root and the
        # root's own name starts the path: "/alex/docs", or "//" for a bare "/".
        while directory is not None:
            names.append(directory.name)
            directory = directory.parent
        return {"current_working_directory": "/" + "/".join(reversed(names))}

    def ls(self, a: bool = False) -> Dict[str, List[str]]:
        """List the current directory; hide names starting with "." unless `a`."""
        contents = self._current_dir._list_contents()
        if not a:
            contents = [item for item in contents if not item.startswith(".")]
        return {"current_directory_content": contents}

    def cd(self, folder: str) -> Union[None, Dict[str, str]]:
        """Move one level: into a child, up with "..", or to the root with "/"."""
        folder = folder.rstrip("/")  # "../" -> "..", "/" -> ""
        if folder == "":
            folder = "/"
        if folder not in {".", "..", "/"} and "/" in folder:
            return {
                "error": f"cd: {folder}: Unsupported path. Only one folder level at a time is supported."
            }
        if folder == "..":
            if self._current_dir.parent:
                self._current_dir = self._current_dir.parent
            elif self.root == self._current_dir:
                return {"error": "Current directory is already the root. Cannot go back."}
            else:
                return {"error": "cd: ..: No such directory"}
            return {}
        target_dir = self._navigate_to_directory(folder)
        if isinstance(target_dir, dict):
            return target_dir
        self._current_dir = target_dir
        return {"current_working_directory": target_dir.name}

    # --- 3d. Creating and writing ---

    def mkdir(self, dir_name: str) -> Union[None, Dict[str, str]]:
        """Create an empty directory in the current directory."""
        if not self._validate_file_or_directory_name(dir_name):
            return {"error": f"mkdir: cannot create directory '{dir_name}': Invalid character"}
        if dir_name in self._current_dir.contents:
            return {"error": f"mkdir: cannot create directory '{dir_name}': File exists"}
        self._current_dir._add_directory(dir_name)
        return None

    def touch(self, file_name: str) -> Union[None, Dict[str, str]]:
        """Create an empty file in the current directory."""
        if not self._validate_file_or_directory_name(file_name):
            return {"error": f"touch: cannot touch '{file_name}': Invalid character"}
        if file_name in self._current_dir.contents:
            return {"error": f"touch: cannot touch '{file_name}': File exists"}
        self._current_dir._add_file(file_name)
        return None

    def echo(self, content: str, file_name: Optional[str] = None) -> Union[Dict[str, str], None]:
        """Overwrite an existing local file with `content`, or print it if no file is named."""
        if file_name is None:
            return {"terminal_output": content}
        if not self._validate_file_or_directory_name(file_name):
            return {"error": f"echo: cannot write to '{file_name}': Invalid character"}
        if not file_name:  # subtle: "" (or any falsy name) prints instead of writing
            return {"terminal_output": content}
        if file_name not in self._current_dir.contents:
            return {"error": f"echo: cannot write to '{file_name}': No such file"}
        # subtle: a directory has no _write, so echo onto one raises AttributeError.
        self._current_dir._get_item(file_name)._write(content)
        return None

    # --- 3e. Reading files ---

    def cat(self, file_name: str) -> Dict[str, str]:
        """Return a local file's content."""
        if not self._validate_file_or_directory_name(file_name):
            return {"error": f"cat: '{file_name}': Invalid character"}
        if file_name not in self._current_dir.contents:
            return {"error": f"cat: '{file_name}': No such file or directory"}
        item = self._current_dir._get_item(file_name)
        if isinstance(item, File):
            return {"file_content": item._read()}
        return {"error": f"cat: '{file_name}': Is a directory"}

    def wc(self, file_name: str, mode: str = "l") -> Dict[str, Union[int, str]]:
        """Count a local file's lines ("l"), words ("w") or characters ("c")."""
        if mode not in ["l", "w", "c"]:
            return {"error": f"wc: invalid mode '{mode}'"}
        file = self._local_file(file_name)
        if file is None:
            return {"error": f"wc: {file_name}: No such file or directory"}
        content = file._read()
        if mode == "l":
            return {"count": len(content.splitlines()), "type": "lines"}
        if mode == "w":
            return {"count": len(content.split()), "type": "words"}
        return {"count": len(content), "type": "characters"}

    def sort(self, file_name: str) -> Dict[str, str]:
        """Return a local file's lines sorted, joined by newlines."""
        file = self._local_file(file_name)
        if file is None:
            return {"error": f"sort: {file_name}: No such file or directory"}
        return {"sorted_content": "\n".join(sorted(file._read().splitlines()))}

    def grep(self, file_name: str, pattern: str) -> Dict[str, List[str]]:
        """Return the lines of a local file that contain `pattern` (plain substring)."""
        file = self._local_file(file_name)
        if file is None:
            return {"error": f"grep: {file_name}: No such file or directory"}
        return {"matching_lines": [line for line in file._read().splitlines() if pattern in line]}

    def tail(self, file_name: str, lines: int = 10) -> Dict[str, str]:
        """Return the last `lines` lines of a local file."""
        file = self._local_file(file_name)
        if file is None:
            return {"error": f"tail: {file_name}: No such file or directory"}
        content = file._read().splitlines()
        if lines > len(content):
            lines = len(content)
        # subtle: lines=0 slices [-0:], i.e. the whole file; a negative n drops n lines.
        return {"last_lines": "\n".join(content[-lines:])}

    def diff(self, file_name1: str, file_name2: str) -> Dict[str, str]:
        """Pair the two local files' lines by position and list the pairs that differ."""
        contents = self._current_dir.contents
        if file_name1 in contents and file_name2 in contents:
            file1 = self._current_dir._get_item(file_name1)
            file2 = self._current_dir._get_item(file_name2)
            if isinstance(file1, File) and isinstance(file2, File):
                lines1 = file1._read().splitlines()
                lines2 = file2._read().splitlines()
                # zip stops at the shorter file: extra lines never show up.
                diff_lines = [
                    f"- {line1}\n+ {line2}" for line1, line2 in zip(lines1, lines2) if line1 != line2
                ]
                return {"diff_lines": "\n".join(diff_lines)}
        return {"error": f"diff: {file_name1} or {file_name2}: No such file or directory"}

    # --- 3f. Searching and sizing ---

    def find(self, path: str = ".", name: Optional[str] = None) -> Dict[str, List[str]]:
        """List every item under `path` (depth first) whose name contains `name`."""
        matches = []
        target_dir = self._navigate_to_directory(path)
        if isinstance(target_dir, dict):
            return {"error": target_dir["error"].replace("cd:", "find:", 1)}

        def recursive_search(directory: Directory, base_path: str) -> None:
            for item_name, item in directory.contents.items():
                item_path = f"{base_path}/{item_name}"
                if name is None or name in item_name:
                    matches.append(item_path)
                if isinstance(item, Directory):
                    recursive_search(item, item_path)

        recursive_search(target_dir, path.rstrip("/"))
        return {"matches": matches}

    def du(self, human_readable: bool = False) -> Dict[str, str]:
        """Return the UTF-8 size of all files under the current directory.

        Example: 1536 bytes -> "1536 bytes", or "1.50 KB" when human_readable.
        """

        def get_size(item: Union[File, Directory]) -> int:
            if isinstance(item, File):
                return len(item._read().encode("utf-8"))
            elif isinstance(item, Directory):
                return sum(get_size(child) for child in item.contents.values())
            return 0

        total_size = get_size(self._current_dir)
        if not human_readable:
            return {"disk_usage": f"{total_size} bytes"}
        for unit in ["B", "KB", "MB", "GB", "TB"]:
            if total_size < 1024:
                return {"disk_usage": f"{total_size:.2f} {unit}"}
            total_size /= 1024
        return {"disk_usage": f"{total_size:.2f} PB"}

    # --- 3g. Moving, copying, removing ---

    def mv(self, source: str, destination: str) -> Dict[str, str]:
        """Move a local item into a local directory, or rename it."""
        contents = self._current_dir.contents
        if source not in contents:
            return {"error": f"mv: cannot move '{source}': No such file or directory"}
        item = self._current_dir._get_item(source)
        if not isinstance(item, (File, Directory)):
            return {"error": f"mv: cannot move '{source}': Not a file or directory"}
        if "/" in destination:
            return {
                "error": "mv: path not allowed in destination. Provide only a file or directory name."
            }
        if destination not in contents:  # a rename
            contents.pop(source)
            self._place_copy(self._current_dir, destination, item, share_contents=True)
            return {"result": f"'{source}' moved to '{destination}'"}
        dest_item = self._current_dir._get_item(destination)
        if not isinstance(dest_item, Directory):
            return {"error": f"mv: cannot move '{source}' to '{destination}': Not a directory"}
        if source in dest_item.contents:
            return {
                "error": f"mv: cannot move '{source}' to '{destination}/{source}': File exists"
            }
        contents.pop(source)
        self._place_copy(dest_item, source, item, share_contents=True)
        return {"result": f"'{source}' moved to '{destination}/{source}'"}

    def cp(self, source: str, destination: str) -> Dict[str, str]:
        """Copy a local item into a local directory, or under a new local name."""
        contents = self._current_dir.contents
        if source not in contents:
            return {"error": f"cp: cannot copy '{source}': No such file or directory"}
        item = self._current_dir._get_item(source)
        if not isinstance(item, (File, Directory)):
            return {"error": f"cp: cannot copy '{source}': Not a file or directory"}
        if "/" in destination:
            return {
                "error": "cp: path not allowed in destination. Provide only a file or directory name."
            }
        if destination not in contents:
            self._place_copy(self._current_dir, destination, item, share_contents=False)
            return {"result": f"'{source}' copied to '{destination}'"}
        dest_item = self._current_dir._get_item(destination)
        if not isinstance(dest_item, Directory):
            return {"error": f"cp: cannot copy '{source}' to '{destination}': Not a directory"}
        # subtle: BFCL looks for "dest/source" among dest's children, a name that
        # never occurs, so copying onto an existing name ends in _add_file's or
        # _add_directory's ValueError instead of this "File exists" answer.
        if f"{destination}/{source}" in dest_item.contents:
            return {
                "error": f"cp: cannot copy '{source}' to '{destination}/{source}': File exists"
            }
        self._place_copy(dest_item, source, item, share_contents=False)
        return {"result": f"'{source}' copied to '{destination}/{source}'"}

    def _place_copy(
        self, target: Directory, new_name: str, item: Union[File, Directory], share_contents: bool
    ) -> None:
        """Add `item` to `target` as a new File or Directory called `new_name`."""
        if isinstance(item, File):
            target._add_file(new_name, item.content)
            return
        target._add_directory(new_name)
        # subtle: BFCL never deep-copies. mv hands over the very same contents dict
        # and cp a shallow copy of it, so a copied tree shares its grandchildren
        # with the original, and moved children keep their old `parent` link.
        # The dict is taken after the new directory exists, so moving or copying
        # a directory into itself makes it contain itself.
        target.contents[new_name].contents = item.contents if share_contents else item.contents.copy()

    def rm(self, file_name: str) -> Dict[str, str]:
        """Remove a local file or directory, empty or not."""
        if file_name not in self._current_dir.contents:
            return {"error": f"rm: cannot remove '{file_name}': No such file or directory"}
        item = self._current_dir._get_item(file_name)
        if not isinstance(item, (File, Directory)):
            return {"error": f"rm: cannot remove '{file_name}': Not a file or directory"}
        self._current_dir.contents.pop(file_name)
        return {"result": f"'{file_name}' removed"}

    def rmdir(self, dir_name: str) -> Dict[str, str]:
        """Remove an empty local directory."""
        if dir_name not in self._current_dir.contents:
            return {"error": f"rmdir: cannot remove '{dir_name}': No such file or directory"}
        item = self._current_dir._get_item(dir_name)
        if not isinstance(item, Directory):
            return {"error": f"rmdir: cannot remove '{dir_name}': Not a directory"}
        if item.contents:
            return {"error": f"rmdir: cannot remove '{dir_name}': Directory not empty"}
        self._current_dir.contents.pop(dir_name)
        return {"result": f"'{dir_name}' removed"}


# --- M2. MathAPI, bfcl's math_api.py ---
# BFCL's MathAPI, ported to the standard library.

# Metres per unit, for si_unit_conversion.
_MATH_TO_METERS = {"km": 1000, "m": 1, "cm": 0.01, "mm": 0.001, "um": 1e-6, "nm": 1e-9}

# Multipliers for imperial_si_conversion, keyed "<unit_in>_to_<unit_out>".
_MATH_IMPERIAL_SI_FACTORS = {
    "cm_to_in": 0.393701,
    "in_to_cm": 2.54,
    "m_to_ft": 3.28084,
    "ft_to_m": 0.3048,
    "m_to_yd": 1.09361,
    "yd_to_m": 0.9144,
    "km_to_miles": 0.621371,
    "miles_to_km": 1.60934,
    "kg_to_lb": 2.20462,
    "lb_to_kg": 0.453592,
    "celsius_to_fahrenheit": 1.8,
    "fahrenheit_to_celsius": 5 / 9,
}

_MATH_BOTH_NUMBERS = {"error": "Both inputs must be numbers"}
_MATH_ALL_NUMBERS = {"error": "All elements in the list must be numbers"}
_MATH_NOT_A_NUMBER = {"error": "Value must be a number"}
_MATH_TOO_LARGE = {"error": "Conversion resulted in a value too large to represent"}


def _MATH_unsupported(unit_in, unit_out) -> dict:
    """Return the error for a unit pair with no conversion."""
    return {"error": f"Conversion from '{unit_in}' to '{unit_out}' is not supported"}


class MathAPI:
    """Stateless calculator; every method returns {"result": ...} or {"error": ...}.

    Each method turns into an error result just the exceptions BFCL's does (mostly TypeError);
    others, such as OverflowError from power or ValueError from square_root's precision, propagate.
    """

    def __init__(self):
        self._api_description = "This tool belongs to the Math API, which provides various mathematical operations."

    def logarithm(self, value: float, base: float, precision: int) -> dict:
        """Return log(value) / log(base), computed as mpmath does at `precision` decimal digits."""
        try:
            return {"result": _MATH_mpmath_log_ratio(value, base, precision)}
        except NotImplementedError:
            raise  # a departure of this port (module docstring), not an answer BFCL would give
        except Exception as error:  # BFCL reports any mpmath failure as data
            return {"error": str(error)}

    def mean(self, numbers: list) -> dict:
        """Return the arithmetic mean of numbers."""
        if not numbers:
            return {"error": "Cannot calculate mean of an empty list"}
        try:
            return {"result": sum(numbers) / len(numbers)}
        except TypeError:
            return _MATH_ALL_NUMBERS.copy()

    def standard_deviation(self, numbers: list) -> dict:
        """Return the population standard deviation of numbers."""
        if not numbers:
            return {"error": "Cannot calculate standard deviation of an empty list"}
        try:
            # The same operations in the same order as BFCL, so the float result is bit-identical.
            mean = sum(numbers) / len(numbers)
            variance = sum((x - mean) ** 2 for x in numbers) / len(numbers)
            return {"result": math.sqrt(variance)}
        except TypeError:
            return _MATH_ALL_NUMBERS.copy()

    def si_unit_conversion(self, value: float, unit_in: str, unit_out: str) -> dict:
        """Convert a length between metric units, via metres."""
        from_meters = {unit: 1 / factor for unit, factor in _MATH_TO_METERS.items()}
        if not isinstance(value, (int, float)):
            return _MATH_NOT_A_NUMBER.copy()
        if unit_in not in _MATH_TO_METERS or unit_out not in from_meters:
            return _MATH_unsupported(unit_in, unit_out)
        try:
            return {"result": value * _MATH_TO_METERS[unit_in] * from_meters[unit_out]}
        except OverflowError:
            return _MATH_TOO_LARGE.copy()

    def imperial_si_conversion(self, value: float, unit_in: str, unit_out: str) -> dict:
        """Convert between an imperial and an SI unit (length, mass, temperature)."""
        if not isinstance(value, (int, float)):
            return _MATH_NOT_A_NUMBER.copy()
        # subtle: equal units return the value before the pair is validated, so ("x", "x") succeeds.
        if unit_in == unit_out:
            return {"result": value}
        key = f"{unit_in}_to_{unit_out}"
        if key not in _MATH_IMPERIAL_SI_FACTORS:
            return _MATH_unsupported(unit_in, unit_out)
        factor = _MATH_IMPERIAL_SI_FACTORS[key]
        try:
            if unit_in == "celsius" and unit_out == "fahrenheit":
                return {"result": (value * factor) + 32}
            if unit_in == "fahrenheit" and unit_out == "celsius":
                return {"result": (value - 32) * factor}
            return {"result": value * factor}
        except OverflowError:
            return _MATH_TOO_LARGE.copy()

    def add(self, a: float, b: float) -> dict:
        """Return a + b."""
        try:
            return {"result": a + b}
        except TypeError:
            return _MATH_BOTH_NUMBERS.copy()

    def subtract(self, a: float, b: float) -> dict:
        """Return a - b."""
        try:
            return {"result": a - b}
        except TypeError:
            return _MATH_BOTH_NUMBERS.copy()

    def multiply(self, a: float, b: float) -> dict:
        """Return a * b; unlike add, it checks the types first."""
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return _MATH_BOTH_NUMBERS.copy()
        return {"result": a * b}

    def divide(self, a: float, b: float) -> dict:
        """Return a / b."""
        try:
            if b == 0:
                return {"error": "Cannot divide by zero"}
            return {"result": a / b}
        except TypeError:
            return _MATH_BOTH_NUMBERS.copy()

    def power(self, base: float, exponent: float) -> dict:
        """Return base ** exponent."""
        try:
            return {"result": base**exponent}
        except TypeError:
            return _MATH_BOTH_NUMBERS.copy()

    def square_root(self, number: float, precision: int) -> dict:
        """Return the square root of number as a Decimal with `precision` significant digits."""
        try:
            if number < 0:
                return {"error": "Cannot calculate square root of a negative number"}
            # BFCL sets the process-wide decimal precision; a copied context gives the same digits
            # and the same errors (ValueError for precision < 1 propagates) without that side effect.
            context = decimal.getcontext().copy()
            context.prec = precision
            return {"result": context.sqrt(decimal.Decimal(number))}
        except (TypeError, decimal.InvalidOperation):
            return {"error": "Input must be a number or computation resulted in an invalid operation"}

    def absolute_value(self, number: float) -> dict:
        """Return |number|."""
        try:
            return {"result": abs(number)}
        except TypeError:
            return {"error": "Input must be a number"}

    def round_number(self, number: float, decimal_places: int = 0) -> dict:
        """Round number to decimal_places places with Python's round (ties to even)."""
        try:
            return {"result": round(number, decimal_places)}
        except TypeError:
            return {"error": "First input must be a number, second input must be an integer"}

    def percentage(self, part: float, whole: float) -> dict:
        """Return part as a percentage of whole."""
        try:
            if whole == 0:
                return {"error": "Whole value cannot be zero"}
            return {"result": (part / whole) * 100}
        except TypeError:
            return _MATH_BOTH_NUMBERS.copy()

    def min_value(self, numbers: list) -> dict:
        """Return the smallest of numbers."""
        if not numbers:
            return {"error": "Cannot find minimum of an empty list"}
        try:
            return {"result": min(numbers)}
        except TypeError:
            return _MATH_ALL_NUMBERS.copy()

    def max_value(self, numbers: list) -> dict:
        """Return the largest of numbers."""
        if not numbers:
            return {"error": "Cannot find maximum of an empty list"}
        try:
            return {"result": max(numbers)}
        except TypeError:
            return _MATH_ALL_NUMBERS.copy()

    def sum_values(self, numbers: list) -> dict:
        """Return the sum of numbers."""
        if not numbers:
            return {"error": "Cannot calculate sum of an empty list"}
        try:
            return {"result": sum(numbers)}
        except TypeError:
            return _MATH_ALL_NUMBERS.copy()


# Appendix: mpmath's logarithm, reproduced
#
# An mpmath number is a binary float with `prec` mantissa bits; mpmath.mp.dps = d sets
# prec = round((d + 1) * log2(10)). mpmath.log(x) is ln(x) rounded to nearest (ties to even) at that
# precision, and `/` rounds the quotient the same way. Here a finite value is an exact Fraction (every
# binary float is one) and inf, -inf and nan are Python floats; mpmath has no signed zero, nor has Fraction.

_MATH_BLOG2_10 = 3.3219280948873626  # mpmath's constant for log2(10)
_MATH_LOG2_10 = math.log(10, 2)  # what mpmath's digit printer uses instead; the same float
_MATH_SPECIAL_STRINGS = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def _MATH_dps_to_prec(dps) -> int:
    """Return the mantissa bits mpmath uses for `dps` decimal digits.

    Example: 4 -> 17
    """
    return max(1, int(round((int(dps) + 1) * _MATH_BLOG2_10)))


def _MATH_prec_to_dps(prec: int) -> int:
    """Return the decimal digits mpmath trusts in `prec` bits.

    Example: 17 -> 4
    """
    return max(1, int(round(int(prec) / _MATH_BLOG2_10) - 1))


def _MATH_repr_dps(prec: int) -> int:
    """Return how many digits mpmath's repr prints at `prec` bits.

    Example: 17 -> 7; 10 -> 5, so logarithm(20, 10, 2) prints mpf('1.3027')
    """
    dps = _MATH_prec_to_dps(prec)
    return 17 if dps == 15 else dps + 3


class mpf:
    """A real number as mpmath prints it; lower-case like mpmath's, so type(x).__name__ matches.

    repr gives "mpf('...')" with repr_dps(prec) digits, str gives dps digits, as mpmath 1.3.0 does.
    Like an mpmath number it is not JSON-serializable, so the grader falls back to str(dict).
    """

    def __init__(self, value, prec: int, dps: int):
        self.value, self.prec, self.dps = value, prec, dps

    def __repr__(self) -> str:
        return f"mpf('{_MATH_to_str(self.value, _MATH_repr_dps(self.prec))}')"

    def __str__(self) -> str:
        return _MATH_to_str(self.value, self.dps)

    def __float__(self) -> float:
        return float(self.value)


class mpc:
    """A complex number as mpmath prints it: "mpc(real='...', imag='...')"."""

    def __init__(self, real, imag, prec: int, dps: int):
        self.real, self.imag = mpf(real, prec, dps), mpf(imag, prec, dps)

    def __repr__(self) -> str:
        return f"mpc(real={repr(self.real)[4:-1]}, imag={repr(self.imag)[4:-1]})"

    def __str__(self) -> str:
        imag = self.imag.value
        if imag < 0:
            return f"({self.real} - {_MATH_to_str(-imag, self.imag.dps)}j)"
        return f"({self.real} + {self.imag}j)"


def _MATH_mpmath_log_ratio(value, base, precision):
    """Return mpmath.log(value) / mpmath.log(base) after mpmath.mp.dps = precision, as mpf or mpc.

    Example: (36.0, 6.0, 4) -> mpf('2.0'); (20, 10, 2) -> mpf('1.3027')
    """
    prec = _MATH_dps_to_prec(precision)  # int(precision) may raise, before any value is looked at
    dps = max(1, int(precision))
    numerator = _MATH_log(_MATH_to_real(value, prec), prec)
    denominator = _MATH_log(_MATH_to_real(base, prec), prec)
    quotient = _MATH_complex_div(numerator, denominator, prec)
    if isinstance(quotient, tuple):
        return mpc(*quotient, prec, dps)
    return mpf(quotient, prec, dps)


# Arguments to exact values (mpmath's convert and from_str)


def _MATH_to_real(x, prec: int):
    """Convert an argument as mpmath.convert does: ints and floats exactly, strings rounded to prec.

    Example: 0.5 -> Fraction(1, 2); "1/3" at 17 bits -> Fraction(87381, 262144)
    """
    if isinstance(x, int):  # bool too, as in mpmath
        return Fraction(x)
    if isinstance(x, float):
        return Fraction(x) if math.isfinite(x) else x
    if isinstance(x, complex):
        raise NotImplementedError("complex arguments to logarithm are not reproduced by this port")
    if isinstance(x, str):
        parsed = _MATH_real_from_str(x, prec)
        if parsed is not None:
            return parsed
        if "j" in x.lower():
            raise NotImplementedError("complex strings in logarithm are not reproduced by this port")
    raise TypeError("cannot create mpf from " + repr(x))


def _MATH_real_from_str(text: str, prec: int):
    """Parse a number the way mpmath.from_str does, or return None where mpmath gives up.

    Example: " 2.5e1 " -> Fraction(25); "3/4" -> Fraction(3, 4); "abc" -> None
    """
    s = text.lower().strip()
    if s in _MATH_SPECIAL_STRINGS:
        return _MATH_SPECIAL_STRINGS[s]
    try:
        if "/" in s:
            p, q = s.split("/")
            # subtle: a zero denominator raises ZeroDivisionError, which mpmath does not catch here.
            return _MATH_div(Fraction(int(p.rstrip("l"))), Fraction(int(q.rstrip("l"))), prec)
        mantissa, exponent = _MATH_str_to_man_exp(s)
    except ValueError:
        return None
    if abs(exponent) > 400:
        raise NotImplementedError("decimal strings with exponents beyond 400 are not reproduced")
    return _MATH_round_bits(mantissa * Fraction(10) ** exponent, prec)


def _MATH_str_to_man_exp(s: str) -> tuple:
    """Split a float literal into an integer mantissa and a power of ten.

    Example: "2.50e3" -> (25, 2)
    """
    s = s.rstrip("l")
    float(s)  # mpmath's validity test: what float() rejects raises ValueError
    parts = s.split("e")
    exponent = 0 if len(parts) == 1 else int(parts[1])
    whole, dot, fraction = parts[0].partition(".")
    if dot:
        fraction = fraction.rstrip("0")
        exponent -= len(fraction)
        whole += fraction
    return int(whole), exponent


# Rounding and the arithmetic mpmath does


def _MATH_floor_log2(x: Fraction) -> int:
    """Return floor(log2(x)) for x > 0.

    Example: Fraction(3, 8) -> -2
    """
    k = x.numerator.bit_length() - x.denominator.bit_length()
    return k if x >= Fraction(2) ** k else k - 1


def _MATH_round_bits(x, prec: int, nearest: bool = True):
    """Round x to prec significant bits: to nearest, ties to even, or else toward zero.

    Example: Fraction(1, 3) at 4 bits -> Fraction(11, 32)
    """
    if isinstance(x, float) or x == 0:
        return x
    unit = Fraction(2) ** (_MATH_floor_log2(abs(x)) - prec + 1)
    scaled = x / unit  # prec bits before the binary point
    # round() on a Fraction ties to even; int() truncates toward zero (mpmath's round_down).
    return (round(scaled) if nearest else int(scaled)) * unit


def _MATH_sign(x) -> int:
    """Return -1, 0 or 1."""
    return (x > 0) - (x < 0)


def _MATH_div(s, t, prec: int):
    """Divide as mpmath's mpf_div, special values included."""
    if t == 0:
        raise ZeroDivisionError  # mpmath's has no message: the error result is {"error": ""}
    if isinstance(s, Fraction) and isinstance(t, Fraction):
        return _MATH_round_bits(s / t, prec)
    if s == 0:
        return math.nan if t != t else Fraction(0)
    if s != s or t != t or (isinstance(s, float) and isinstance(t, float)):
        return math.nan
    if isinstance(s, float):  # +-inf over a finite number
        return math.inf * _MATH_sign(s) * _MATH_sign(t)
    return Fraction(0)  # a finite number over +-inf


def _MATH_mul(s, t):
    """Multiply exactly, as mpmath's mpf_mul without a precision."""
    if isinstance(s, Fraction) and isinstance(t, Fraction):
        return s * t
    if s != s or t != t or s == 0 or t == 0:
        return math.nan  # 0 * inf too
    return math.inf * _MATH_sign(s) * _MATH_sign(t)


def _MATH_add(s, t, prec: int):
    """Add, rounding toward zero as mpmath's mpf_add does by default (mpc division uses it)."""
    if isinstance(s, Fraction) and isinstance(t, Fraction):
        return _MATH_round_bits(s + t, prec, nearest=False)
    if isinstance(s, float) and isinstance(t, float):
        return s + t  # inf + -inf and anything + nan give nan, as in mpmath
    return s if isinstance(s, float) else t


def _MATH_log(x, prec: int):
    """Return ln(x) rounded to prec bits, as mpmath.log(x); a tuple (re, im) when x < 0."""
    if x != x or x == math.inf:
        return x
    if x == 0:
        return -math.inf
    if x < 0:  # mpmath's mpc_log for a negative real: ln|x| + i*pi
        return (_MATH_log(-x, prec), _MATH_pi_bits(prec))
    return _MATH_ln_bits(x, prec)


def _MATH_complex_div(z, w, prec: int):
    """Divide values that may be complex (re, im) tuples, with mpmath's formula for each case."""
    if not isinstance(z, tuple) and not isinstance(w, tuple):
        return _MATH_div(z, w, prec)
    if not isinstance(w, tuple):  # mpc_div_mpf
        return (_MATH_div(z[0], w, prec), _MATH_div(z[1], w, prec))
    c, d = w
    wide = prec + 10
    magnitude = _MATH_add(_MATH_mul(c, c), _MATH_mul(d, d), wide)
    if not isinstance(z, tuple):  # mpc_mpf_div
        return (_MATH_div(_MATH_mul(c, z), magnitude, prec), _MATH_div(-_MATH_mul(d, z), magnitude, prec))
    a, b = z  # mpc_div
    real = _MATH_add(_MATH_mul(a, c), _MATH_mul(b, d), wide)
    imag = _MATH_add(_MATH_mul(b, c), -_MATH_mul(a, d), wide)
    return (_MATH_div(real, magnitude, prec), _MATH_div(imag, magnitude, prec))


# The two transcendental values: ln(x) and pi


def _MATH_ln_bits(x: Fraction, prec: int) -> Fraction:
    """Return ln(x) for x > 0, correctly rounded to prec bits, via decimal's ln.

    Example: ln_bits(Fraction(2), 17) -> Fraction(22713, 32768)
    """
    if x == 1:
        return Fraction(0)
    # ln(x) ~ x - 1 near 1: add the bits that x - 1 cancels, then 64 guard bits.
    cancelled = max(0, -_MATH_floor_log2(abs(x - 1)))
    digits = int((prec + cancelled + 64) * 0.302) + 10
    context = decimal.Context(prec=digits, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    quotient = context.divide(decimal.Decimal(x.numerator), decimal.Decimal(x.denominator))
    return _MATH_round_bits(Fraction(context.ln(quotient)), prec)


def _MATH_pi_bits(prec: int) -> Fraction:
    """Return pi rounded to prec bits, by Machin's formula pi = 16 atan(1/5) - 4 atan(1/239).

    Example: pi_bits(17) -> Fraction(3217, 1024)
    """
    bits = prec + 64

    def atan_inverse(n: int) -> int:
        """Return atan(1/n) * 2**bits from its Taylor series, in integers."""
        power = (1 << bits) // n
        total, k = power, 1
        while power:
            power //= n * n
            total += (-1) ** k * (power // (2 * k + 1))
            k += 1
        return total

    return _MATH_round_bits(Fraction(16 * atan_inverse(5) - 4 * atan_inverse(239), 1 << bits), prec)


# Printing: mpmath 1.3.0's to_str


def _MATH_to_str(x, dps: int) -> str:
    """Print x (a binary fraction) with at most dps digits, as mpmath's to_str with its defaults.

    Example: (Fraction(2), 7) -> "2.0"; (Fraction(3, 2**20), 7) -> "2.861023e-6"; (Fraction(10**9), 7) -> "1.0e+9"
    """
    if x == 0:
        return "0.0"
    if x != x:
        return "nan"
    if isinstance(x, float):
        return "+inf" if x > 0 else "-inf"
    sign, digits, exponent = _MATH_digits_exp(x, dps + 3)
    digits = _MATH_round_digits(digits, dps)
    if len(digits) > dps:  # 99.9 rounded up to 100.0
        digits, exponent = digits[:dps], exponent + 1
    if min(-(dps // 3), -5) < exponent < dps:  # fixed point near unit magnitude
        if exponent < 0:
            digits, split = "0" * -exponent + digits, 1
        else:
            split = exponent + 1
            digits += "0" * max(0, split - dps)
        exponent = 0
    else:
        split = 1
    digits = (digits[:split] + "." + digits[split:]).rstrip("0")
    if digits.endswith("."):
        digits += "0"
    if exponent == 0:
        return sign + digits
    return sign + digits + ("e+" if exponent > 0 else "e") + str(exponent)


def _MATH_round_digits(digits: str, dps: int) -> str:
    """Keep dps digits, rounding up on a 5-9 that follows (mpmath rounds half up here).

    Example: ("1999", 3) -> "200"; ("10049", 3) -> "100"
    """
    if len(digits) <= dps or digits[dps] not in "56789":
        return digits[:dps]
    return str(int(digits[:dps]) + 1)  # one digit longer when all were nines


def _MATH_digits_exp(x: Fraction, dps: int) -> tuple:
    """Return (sign, digit string, decimal exponent) of x, truncated, as mpmath's to_digits_exp.

    Example: (Fraction(1, 4), 5) -> ("", "25000000", -1)
    """
    sign = "-" if x < 0 else ""
    x = abs(x)
    man, exp = _MATH_man_exp(x)
    bc = man.bit_length()
    if abs(exp + bc) > 3500:
        raise NotImplementedError("results beyond 2**3500 in magnitude are not reproduced")
    bitprec = int(dps * _MATH_LOG2_10) + 10
    fixprec = max(bitprec - exp - bc, 0)
    fixdps = int(fixprec / _MATH_LOG2_10 + 0.5)
    shift = exp + fixprec
    fixed = man << shift if shift >= 0 else man >> -shift
    # str(Decimal(n)) prints a big int with no int-to-str digit limit (Python 3.11+ has one).
    digits = str(decimal.Decimal(fixed * 10**fixdps >> fixprec))
    return sign, digits, len(digits) - fixdps - 1


def _MATH_man_exp(x: Fraction) -> tuple:
    """Split a positive dyadic Fraction into an odd mantissa and a power of two.

    Example: Fraction(12) -> (3, 2); Fraction(3, 8) -> (3, -3)
    """
    n, d = x.numerator, x.denominator
    if d == 1:
        zeros = (n & -n).bit_length() - 1
        return n >> zeros, zeros
    return n, 1 - d.bit_length()


# --- M3. MessageAPI, bfcl's message_api.py ---
# BFCL's MessageAPI, ported to the standard library.

# Used for every key an entry's initial_config leaves out.
_MSG_DEFAULT_STATE = {
    "generated_ids": set(),
    "user_count": 4,
    "user_map": {
        "Alice": "USR001",
        "Bob": "USR002",
        "Catherine": "USR003",
        "Daniel": "USR004",
    },
    "inbox": [
        {"USR002": "My name is Alice. I want to connect."},
        {"USR003": "Could you upload the file?"},
        {"USR004": "Could you upload the file?"},
    ],
    "message_count": 3,
    "current_user": None,
}

_MSG_DEFAULT_RANDOM_SEED = 200191

_MSG_NOT_LOGGED_IN = {"error": "No user is currently logged in."}


# Helpers


def _MSG_first_item(message: dict) -> tuple:
    """Return the (receiver_id, text) pair of a one-entry inbox message.

    Example: {"USR002": "hi"} -> ("USR002", "hi")
    """
    # subtle: BFCL indexes list(items())[0], so an empty dict raises IndexError
    # ("list index out of range") and a non-dict raises AttributeError; the port keeps both.
    return list(message.items())[0]


# The API


class MessageAPI:
    """A messaging workspace: users by name and id, one shared inbox of {receiver_id: text} entries.

    Public state (compared by the grader): generated_ids, user_count, user_map, inbox,
    message_count, current_user. They exist only after _load_scenario, as in BFCL.
    """

    def __init__(self):
        self._api_description = (
            "This tool belongs to the Message API, which is used to manage user interactions in a workspace."
        )

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Take each state field from the scenario, else from DEFAULT_STATE; long_context is unused."""
        defaults = copy.deepcopy(_MSG_DEFAULT_STATE)
        # The scenario's own objects are kept, not copied: BFCL's caller passes a deep copy.
        self._random = random.Random(scenario.get("random_seed", _MSG_DEFAULT_RANDOM_SEED))
        self.generated_ids = scenario.get("generated_ids", defaults["generated_ids"])
        self.user_count = scenario.get("user_count", defaults["user_count"])
        self.user_map = scenario.get("user_map", defaults["user_map"])
        self.inbox = scenario.get("inbox", defaults["inbox"])
        self.message_count = scenario.get("message_count", defaults["message_count"])
        self.current_user = scenario.get("current_user", defaults["current_user"])

    def __eq__(self, other: object) -> bool:
        """Compare the public attributes, as BFCL's state check does."""
        if not isinstance(other, MessageAPI):
            return False
        return all(
            getattr(self, name) == getattr(other, name)
            for name in vars(self)
            if not name.startswith("_")
        )

    def _generate_id(self) -> dict:
        """Draw a fresh five-digit message id from the seeded generator."""
        # The same draws in the same order as BFCL, so ids match for a given seed.
        new_id = self._random.randint(10000, 99999)
        while new_id in self.generated_ids:
            new_id = self._random.randint(10000, 99999)
        self.generated_ids.add(new_id)
        return {"new_id": new_id}

    def list_users(self) -> dict:
        """List the names of all users in the workspace."""
        return {"user_list": list(self.user_map.keys())}

    def get_user_id(self, user: str) -> dict:
        """Look up the user id of a user name."""
        if user not in self.user_map:
            return {"error": f"User '{user}' not found in the workspace."}
        return {"user_id": self.user_map.get(user)}

    def message_login(self, user_id: str) -> dict:
        """Log in as the user with this id."""
        if user_id not in list(self.user_map.values()):
            return {"login_status": False, "message": f"User ID '{user_id}' not found."}
        self.current_user = user_id
        return {"login_status": True, "message": f"User '{user_id}' logged in successfully."}

    def message_get_login_status(self) -> dict:
        """Report whether a user is logged in."""
        return {"login_status": bool(self.current_user)}

    def send_message(self, receiver_id: str, message: str) -> dict:
        """Append a message for receiver_id to the inbox; needs a logged-in user."""
        if not self.current_user:
            return _MSG_NOT_LOGGED_IN.copy()
        if receiver_id not in self.user_map.values():
            return {"error": f"Receiver ID '{receiver_id}' not found."}
        # subtle: message_id is the whole {"new_id": ...} dict, as BFCL returns it.
        message_id = self._generate_id()
        self.inbox.append({receiver_id: message})
        self.message_count += 1
        return {
            "sent_status": True,
            "message_id": message_id,
            "message": f"Message sent to '{receiver_id}' successfully.",
        }

    def delete_message(self, receiver_id: str) -> dict:
        """Delete the latest inbox message to receiver_id; needs a logged-in user."""
        if not self.current_user:
            return _MSG_NOT_LOGGED_IN.copy()
        for message in reversed(self.inbox):
            receiver, _ = _MSG_first_item(message)
            if receiver == receiver_id:
                # subtle: list.remove drops the FIRST equal entry, so of two identical messages
                # the older one goes. BFCL does the same; message_count is left unchanged.
                self.inbox.remove(message)
                return {
                    "deleted_status": True,
                    "receiver_id": receiver,
                    "message": f"Receiver {receiver_id}'s latest message deleted successfully.",
                }
        return {"error": f"Receiver ID {receiver_id} not found."}

    def view_messages_sent(self) -> dict:
        """Group every inbox message by receiver; needs a logged-in user."""
        if not self.current_user:
            return _MSG_NOT_LOGGED_IN.copy()
        by_receiver = {}
        for message in self.inbox:
            receiver, text = _MSG_first_item(message)
            by_receiver.setdefault(receiver, []).append(text)
        return {"messages": by_receiver}

    def add_contact(self, user_name: str) -> dict:
        """Add a user with the next USRnnn id."""
        if user_name in self.user_map:
            return {"error": f"User name '{user_name}' already exists."}
        # subtle: the count goes up even when the new id then turns out to be taken.
        self.user_count += 1
        user_id = f"USR{str(self.user_count).zfill(3)}"
        if user_id in self.user_map.values():
            return {"error": f"User ID '{user_id}' already exists."}
        self.user_map[user_name] = user_id
        return {
            "added_status": True,
            "user_id": user_id,
            "message": f"Contact '{user_name}' added successfully.",
        }

    def search_messages(self, keyword: str) -> dict:
        """Find inbox messages containing keyword, ignoring case; needs a logged-in user."""
        if not self.current_user:
            return _MSG_NOT_LOGGED_IN.copy()
        keyword_lower = keyword.lower()
        results = []
        for message in self.inbox:
            receiver, text = _MSG_first_item(message)
            if keyword_lower in text.lower():
                results.append({"receiver_id": receiver, "message": text})
        return {"results": results}

    def get_message_stats(self) -> dict:
        """Count the inbox messages and their distinct receivers; needs a logged-in user."""
        if not self.current_user:
            return _MSG_NOT_LOGGED_IN.copy()
        receivers = set()
        received_count = 0
        for message in self.inbox:
            receiver, _ = _MSG_first_item(message)
            received_count += 1
            receivers.add(receiver)
        return {"stats": {"received_count": received_count, "total_contacts": len(receivers)}}


# --- M4. TwitterAPI, bfcl's posting_api.py ---
# posting_api: BFCL's multi-turn TwitterAPI, a tiny social network kept in plain dicts, stdlib only.

_TWEET_DEFAULT_STATE = {
    "username": "john",
    "password": "john123",
    "authenticated": False,
    "tweets": {},
    "comments": {},
    "retweets": {},
    "following_list": ["alice", "bob"],
    "tweet_counter": 0,
}


def _TWEET_not_found(tweet_id) -> dict:
    """Return BFCL's error for an unknown tweet id. Example: 7 -> {"error": "Tweet with ID 7 not found."}"""
    return {"error": f"Tweet with ID {tweet_id} not found."}


def _TWEET_not_authenticated(action: str) -> dict:
    """Return BFCL's error for a logged-out user. Example: "posting" -> {"error": "User not ... before posting."}"""
    return {"error": f"User not authenticated. Please authenticate before {action}."}


# The class


class TwitterAPI:
    """Post, retweet, comment on and mention tweets, and follow users, as one logged-in user."""

    def __init__(self):
        """Create an empty instance; the grader fills it with _load_scenario."""
        # No public attribute before _load_scenario, as in BFCL: vars() shows only what a scenario sets.
        self._api_description = (
            "This tool belongs to the TwitterAPI, which provides core functionality for posting "
            "tweets, retweeting, commenting, and following users on Twitter."
        )

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Set the state from a scenario dict, each missing key taken from DEFAULT_STATE."""
        defaults = deepcopy(_TWEET_DEFAULT_STATE)
        self.username = scenario.get("username", defaults["username"])
        self.password = scenario.get("password", defaults["password"])
        self.authenticated = scenario.get("authenticated", defaults["authenticated"])
        # JSON object keys are strings; tweet ids are ints everywhere else. Set before converting, as
        # in BFCL, so a key that is not a number leaves the same half-loaded state behind.
        self.tweets = scenario.get("tweets", defaults["tweets"])
        self.tweets = {int(key): tweet for key, tweet in self.tweets.items()}
        # subtle: comment keys are NOT converted (BFCL doesn't), so a loaded "0" and a new 0 coexist.
        self.comments = scenario.get("comments", defaults["comments"])
        self.retweets = scenario.get("retweets", defaults["retweets"])
        self.following_list = scenario.get("following_list", defaults["following_list"])
        self.tweet_counter = scenario.get("tweet_counter", defaults["tweet_counter"])

    # --- 2a. Logging in ---

    def authenticate_twitter(self, username: str, password: str) -> dict:
        """Log in when both username and password match the scenario's."""
        if username == self.username and password == self.password:
            self.authenticated = True
            return {"authentication_status": True}
        return {"authentication_status": False}

    def posting_get_login_status(self) -> dict:
        """Report whether the user is logged in."""
        return {"login_status": bool(self.authenticated)}

    # --- 2b. Tweets and what is done to them ---

    # subtle: the [] defaults are shared list objects, as in BFCL. A tweet posted without mentions
    # holds that shared list, so mention() on it extends the default of every later such tweet.
    # Kept on purpose: the grader compares state with BFCL's, quirks included.
    def post_tweet(self, content: str, tags: list = [], mentions: list = []) -> dict:
        """Post a tweet under the next id and return it."""
        if not self.authenticated:
            return _TWEET_not_authenticated("posting")
        tweet = {
            "id": self.tweet_counter,
            "username": self.username,
            "content": content,
            "tags": tags,
            "mentions": mentions,
        }
        self.tweets[self.tweet_counter] = tweet
        self.tweet_counter += 1
        return tweet

    def retweet(self, tweet_id: int) -> dict:
        """Retweet a tweet once; a second retweet is reported, not repeated."""
        if not self.authenticated:
            return _TWEET_not_authenticated("retweeting")
        if tweet_id not in self.tweets:
            return _TWEET_not_found(tweet_id)
        if self.username not in self.retweets:
            self.retweets[self.username] = []
        if tweet_id in self.retweets[self.username]:
            return {"retweet_status": "Already retweeted"}
        self.retweets[self.username].append(tweet_id)
        return {"retweet_status": "Successfully retweeted"}

    def comment(self, tweet_id: int, comment_content: str) -> dict:
        """Add the user's comment to a tweet."""
        if not self.authenticated:
            return _TWEET_not_authenticated("commenting")
        if tweet_id not in self.tweets:
            return _TWEET_not_found(tweet_id)
        if tweet_id not in self.comments:
            self.comments[tweet_id] = []
        self.comments[tweet_id].append({"username": self.username, "content": comment_content})
        return {"comment_status": "Comment added successfully"}

    def mention(self, tweet_id: int, mentioned_usernames: list) -> dict:
        """Add usernames to a tweet's mentions (BFCL asks for no login here)."""
        if tweet_id not in self.tweets:
            return _TWEET_not_found(tweet_id)
        # list.extend, as BFCL: a string adds its characters, an int raises TypeError.
        self.tweets[tweet_id]["mentions"].extend(mentioned_usernames)
        return {"mention_status": "Users mentioned successfully"}

    # --- 2c. Following ---

    def follow_user(self, username_to_follow: str) -> dict:
        """Follow a user; follow_status is False when already following."""
        if not self.authenticated:
            return _TWEET_not_authenticated("following")
        if username_to_follow in self.following_list:
            return {"follow_status": False}
        self.following_list.append(username_to_follow)
        return {"follow_status": True}

    def list_all_following(self) -> dict:
        """List the users the logged-in user follows."""
        if not self.authenticated:
            return _TWEET_not_authenticated("listing following")
        return {"following_list": self.following_list}

    def unfollow_user(self, username_to_unfollow: str) -> dict:
        """Unfollow a user; unfollow_status is False when not following."""
        if not self.authenticated:
            return _TWEET_not_authenticated("unfollowing")
        if username_to_unfollow not in self.following_list:
            return {"unfollow_status": False}
        self.following_list.remove(username_to_unfollow)
        return {"unfollow_status": True}

    # --- 2d. Reading (no login needed) ---

    def get_tweet(self, tweet_id: int) -> dict:
        """Return one tweet by id."""
        if tweet_id not in self.tweets:
            return _TWEET_not_found(tweet_id)
        return self.tweets[tweet_id]

    def get_user_tweets(self, username: str) -> list:
        """Return every tweet posted by a user, in id-insertion order."""
        return [tweet for tweet in self.tweets.values() if tweet["username"] == username]

    def search_tweets(self, keyword: str) -> list:
        """Return tweets whose content contains the keyword or whose tags equal it, ignoring case."""
        # The keyword is lowered per tweet, as in BFCL, so a non-str keyword fails only if a tweet exists.
        return [
            tweet
            for tweet in self.tweets.values()
            if keyword.lower() in tweet["content"].lower()
            or keyword.lower() in [tag.lower() for tag in tweet["tags"]]
        ]

    def get_tweet_comments(self, tweet_id: int) -> list:
        """Return a tweet's comments (an error dict for an unknown id)."""
        if tweet_id not in self.tweets:
            return _TWEET_not_found(tweet_id)
        return self.comments.get(tweet_id, [])

    def get_user_stats(self, username: str) -> dict:
        """Count a user's tweets, follows (known only for the scenario's user) and retweets."""
        tweet_count = len([tweet for tweet in self.tweets.values() if tweet["username"] == username])
        following_count = len(self.following_list) if username == self.username else 0
        retweet_count = len(self.retweets.get(username, []))
        return {
            "tweet_count": tweet_count,
            "following_count": following_count,
            "retweet_count": retweet_count,
        }


# --- M5. TicketAPI, bfcl's ticket_api.py ---
# ticket_api: BFCL's multi-turn TicketAPI, a support-ticket queue for one logged-in user, stdlib only.

_TICKET_DEFAULT_STATE = {
    "ticket_queue": [],
    "ticket_counter": 1,
    "current_user": None,
}

# The fields edit_ticket may change.
_TICKET_EDITABLE_FIELDS = frozenset({"title", "description", "status", "priority"})


def _TICKET_not_found(ticket_id) -> dict:
    """Return BFCL's error for an unknown ticket id. Example: 9 -> {"error": "Ticket with ID 9 not found."}"""
    return {"error": f"Ticket with ID {ticket_id} not found."}


# The class


class TicketAPI:
    """Create, read, edit, resolve and close support tickets as the logged-in user."""

    def __init__(self):
        """Create an empty instance; the grader fills it with _load_scenario."""
        # No public attribute before _load_scenario, as in BFCL: vars() shows only what a scenario sets.
        self._api_description = (
            "This tool belongs to the ticketing system that is part of a company, which allows "
            "users to create, view, and manage support business tickets."
        )

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Set the state from a scenario dict, each missing key taken from DEFAULT_STATE."""
        defaults = deepcopy(_TICKET_DEFAULT_STATE)
        self.ticket_queue = scenario.get("ticket_queue", defaults["ticket_queue"])
        self.ticket_counter = scenario.get("ticket_counter", defaults["ticket_counter"])
        self.current_user = scenario.get("current_user", defaults["current_user"])

    def _find_ticket(self, ticket_id: int):
        """Return the first ticket whose id equals ticket_id, or None."""
        for ticket in self.ticket_queue:
            if ticket["id"] == ticket_id:
                return ticket
        return None

    # --- 2a. Logging in and out ---

    def ticket_login(self, username: str, password: str) -> dict:
        """Log in as username; any non-empty username and password succeed."""
        if username and password:
            self.current_user = username
            return {"success": True}
        return {"success": False}

    def ticket_get_login_status(self) -> dict:
        """Report whether a user is logged in."""
        return {"login_status": bool(self.current_user)}

    def logout(self) -> dict:
        """Log the current user out; success is False when nobody was logged in."""
        if self.current_user:
            self.current_user = None
            return {"success": True}
        return {"success": False}

    # --- 2b. Tickets ---

    def create_ticket(self, title: str, description: str = "", priority: int = 1) -> dict:
        """Queue an open ticket with priority 1 (lowest) to 5 and return it."""
        if not self.current_user:
            return {"error": "User not authenticated. Please log in to create a ticket."}
        # Two comparisons, as in BFCL (not 1 <= p <= 5), so a str priority fails with BFCL's message.
        if priority < 1 or priority > 5:
            return {"error": "Invalid priority. Priority must be between 1 and 5."}
        ticket = {
            "id": self.ticket_counter,
            "title": title,
            "description": description,
            "status": "Open",
            "priority": priority,
            "created_by": self.current_user,
        }
        self.ticket_queue.append(ticket)
        self.ticket_counter += 1
        return ticket

    def get_ticket(self, ticket_id: int) -> dict:
        """Return one ticket by id (any user's: BFCL asks for no login here)."""
        ticket = self._find_ticket(ticket_id)
        if not ticket:
            return _TICKET_not_found(ticket_id)
        return ticket

    def close_ticket(self, ticket_id: int) -> dict:
        """Set a ticket's status to Closed, unless it is closed already."""
        ticket = self._find_ticket(ticket_id)
        if not ticket:
            return _TICKET_not_found(ticket_id)
        if ticket["status"] == "Closed":
            return {"error": f"Ticket with ID {ticket_id} is already closed."}
        ticket["status"] = "Closed"
        return {"status": f"Ticket {ticket_id} has been closed successfully."}

    def resolve_ticket(self, ticket_id: int, resolution: str) -> dict:
        """Set a ticket's status to Resolved and record the resolution, unless resolved already."""
        ticket = self._find_ticket(ticket_id)
        if not ticket:
            return _TICKET_not_found(ticket_id)
        if ticket["status"] == "Resolved":
            return {"error": f"Ticket with ID {ticket_id} is already resolved."}
        ticket["status"] = "Resolved"
        ticket["resolution"] = resolution
        return {"status": f"Ticket {ticket_id} has been resolved successfully."}

    def edit_ticket(self, ticket_id: int, updates: dict) -> dict:
        """Change a ticket's title, description, status or priority; a None value is skipped."""
        ticket = self._find_ticket(ticket_id)
        if not ticket:
            return _TICKET_not_found(ticket_id)
        # subtle: the names come out in set order, as in BFCL; for two or more it varies with
        # PYTHONHASHSEED, but within one process it is the same as BFCL's.
        invalid_fields = set(updates.keys()) - _TICKET_EDITABLE_FIELDS
        if invalid_fields:
            return {"error": f"Invalid fields for update: {', '.join(invalid_fields)}"}
        for key, value in updates.items():
            if value is not None:
                ticket[key] = value
        return {"status": f"Ticket {ticket_id} has been updated successfully."}

    def get_user_tickets(self, status: str = None) -> list:
        """Return the current user's tickets, optionally only those with a status (case ignored)."""
        if not self.current_user:
            return [{"error": "User not authenticated. Please log in to view tickets."}]
        user_tickets = [
            ticket for ticket in self.ticket_queue if ticket["created_by"] == self.current_user
        ]
        if status:
            user_tickets = [
                ticket for ticket in user_tickets if ticket["status"].lower() == status.lower()
            ]
        return user_tickets


# --- M6. TradingBot, bfcl's trading_bot.py ---
# BFCL's TradingBot, the stock-trading API of the multi-turn categories, in plain standard-library Python.

_TRADE_CURRENT_TIME = datetime(2024, 9, 1, 10, 30)

_TRADE_DEFAULT_STATE = {
    "orders": {
        12345: {"id": 12345, "order_type": "Buy", "symbol": "AAPL", "price": 210.65, "amount": 10,
                "status": "Completed"},
        12446: {"id": 12446, "order_type": "Sell", "symbol": "GOOG", "price": 2840.56, "amount": 5,
                "status": "Pending"},
    },
    "account_info": {"account_id": 12345, "balance": 10000.0, "binding_card": 1974202140965533},
    "authenticated": False,
    "market_status": "Closed",
    "order_counter": 12446,
    "stocks": {
        "AAPL": {"price": 227.16, "percent_change": 0.17, "volume": 2.552, "MA(5)": 227.11, "MA(20)": 227.09},
        "GOOG": {"price": 2840.34, "percent_change": 0.24, "volume": 1.123, "MA(5)": 2835.67, "MA(20)": 2842.15},
        "TSLA": {"price": 667.92, "percent_change": -0.12, "volume": 1.654, "MA(5)": 671.15, "MA(20)": 668.2},
        "MSFT": {"price": 310.23, "percent_change": 0.09, "volume": 3.234, "MA(5)": 309.88, "MA(20)": 310.11},
        "NVDA": {"price": 220.34, "percent_change": 0.34, "volume": 1.234, "MA(5)": 220.45, "MA(20)": 220.67},
        "ALPH": {"price": 1320.45, "percent_change": -0.08, "volume": 1.567, "MA(5)": 1321.12, "MA(20)": 1325.78},
        "OMEG": {"price": 457.23, "percent_change": 0.12, "volume": 2.345, "MA(5)": 456.78, "MA(20)": 458.12},
        "QUAS": {"price": 725.89, "percent_change": -0.03, "volume": 1.789, "MA(5)": 726.45, "MA(20)": 728.0},
        "NEPT": {"price": 88.34, "percent_change": 0.19, "volume": 0.654, "MA(5)": 88.21, "MA(20)": 88.67},
        "SYNX": {"price": 345.67, "percent_change": 0.11, "volume": 2.112, "MA(5)": 345.34, "MA(20)": 346.12},
        "ZETA": {"price": 22.09, "percent_change": -0.05, "volume": 0.789, "MA(5)": 22.12, "MA(20)": 22.34},
    },
    "watch_list": ["NVDA"],
    "transaction_history": [],
    "random_seed": 1053520,
}

# The public attributes a scenario may set, in BFCL's order; "random_seed" only seeds a private generator.
_TRADE_STATE_KEYS = ("orders", "account_info", "authenticated", "market_status", "order_counter", "stocks",
              "watch_list", "transaction_history")

# Company names `get_symbol_by_name` knows; AMZN and GORI have no entry in the stock table.
_TRADE_COMPANY_SYMBOLS = {
    "Apple": "AAPL", "Google": "GOOG", "Tesla": "TSLA", "Microsoft": "MSFT", "Nvidia": "NVDA",
    "Zeta Corp": "ZETA", "Alpha Tech": "ALPH", "Omega Industries": "OMEG", "Quasar Ltd.": "QUAS",
    "Neptune Systems": "NEPT", "Synex Solutions": "SYNX", "Amazon": "AMZN", "Gorilla": "GORI",
}

_TRADE_TECHNOLOGY_STOCKS = ["AAPL", "GOOG", "MSFT", "NVDA"]
_TRADE_AUTOMOBILE_STOCKS = ["TSLA", "F", "GM"]


# Helpers

def _TRADE_integer_keys(orders: dict) -> dict:
    """Turn digit-string order ids (JSON keys) back into ints; other keys stay as they are.

    Example: {"12345": {...}, "order_type": "Buy"} -> {12345: {...}, "order_type": "Buy"}
    """
    # subtle: str.isdigit() also accepts "²", which int() rejects; BFCL raises ValueError there, and so do we.
    return {int(key) if isinstance(key, str) and key.isdigit() else key: order for key, order in orders.items()}


def _TRADE_transaction_time(rng: random.Random) -> str:
    """Draw a timestamp in the day after CURRENT_TIME, as 'YYYY-MM-DD HH:MM:SS'."""
    # BFCL draws a POSIX second between the local-clock readings of CURRENT_TIME and a day later, then reads it
    # back on the local clock. We take the same round trip, so the same seed gives the same text in any zone.
    start = int(_TRADE_CURRENT_TIME.timestamp())
    end = int((_TRADE_CURRENT_TIME + timedelta(days=1)).timestamp())
    return datetime.fromtimestamp(rng.randint(start, end)).strftime("%Y-%m-%d %H:%M:%S")


# The API class

class TradingBot:
    """A simulated brokerage: stock quotes, orders, an account with a balance, and a watchlist."""

    # --- 3a. Loading a scenario ---

    def _load_scenario(self, scenario: dict, long_context=False) -> None:
        """Set the public state from `scenario`, each missing key from a fresh copy of DEFAULT_STATE."""
        defaults = deepcopy(_TRADE_DEFAULT_STATE)
        for key in _TRADE_STATE_KEYS:
            setattr(self, key, scenario.get(key, defaults[key]))
            if key == "orders":
                self.orders = _TRADE_integer_keys(self.orders)
        # Public, so the grader compares it too, as it does for BFCL's instances.
        self.long_context = long_context
        self._random = random.Random(scenario.get("random_seed", defaults["random_seed"]))

    # --- 3b. Session ---

    def trading_login(self, username: str, password: str) -> dict:
        """Log in (any username and password are accepted)."""
        if self.authenticated:
            return {"status": "Already logged in"}
        self.authenticated = True
        return {"status": "Logged in successfully"}

    def trading_get_login_status(self) -> dict:
        """Report whether a user is logged in."""
        return {"status": bool(self.authenticated)}

    def trading_logout(self) -> dict:
        """Log out."""
        if not self.authenticated:
            return {"status": "No user is currently logged in"}
        self.authenticated = False
        return {"status": "Logged out successfully"}

    # --- 3c. Market data (no login needed) ---

    def get_current_time(self) -> dict:
        """Return the simulated time, e.g. {"current_time": "10:30 AM"}."""
        return {"current_time": _TRADE_CURRENT_TIME.strftime("%I:%M %p")}

    def get_symbol_by_name(self, name: str) -> dict:
        """Look up a company's ticker symbol by its name."""
        return {"symbol": _TRADE_COMPANY_SYMBOLS.get(name, "Stock not found")}

    def get_stock_info(self, symbol: str) -> dict:
        """Return a stock's price, change, volume and moving averages."""
        if symbol not in self.stocks:
            return {"error": f"Stock with symbol '{symbol}' not found."}
        if not self.long_context:
            return self.stocks[symbol]
        # Long context: each moving average becomes a 2,000-number series, to bury the answer in noise.
        stock = self.stocks[symbol].copy()
        stock["MA(5)"] = _TRADE_MA_5_EXTENSION
        stock["MA(20)"] = _TRADE_MA_20_EXTENSION
        return stock

    def get_available_stocks(self, sector: str) -> dict:
        """List the symbols of a sector ("Technology" or "Automobile"; any other sector is empty)."""
        sectors = {"Technology": list(_TRADE_TECHNOLOGY_STOCKS), "Automobile": list(_TRADE_AUTOMOBILE_STOCKS)}
        if self.long_context:
            sectors["Technology"].extend(_TRADE_TECHNOLOGY_EXTENSION)
            sectors["Automobile"].extend(_TRADE_AUTOMOBILE_EXTENSION)
        return {"stock_list": sectors.get(sector, [])}

    def filter_stocks_by_price(self, stocks: list, min_price: float, max_price: float) -> dict:
        """Keep the symbols whose price lies in [min_price, max_price]; an unknown symbol counts as price 0."""
        # The two comparisons stay in BFCL's form (price >= min, price <= max): a bad bound's TypeError names
        # the operand types in that order.
        filtered = [symbol for symbol in stocks
                    if self.stocks.get(symbol, {}).get("price", 0) >= min_price
                    and self.stocks.get(symbol, {}).get("price", 0) <= max_price]
        return {"filtered_stocks": filtered}

    def notify_price_change(self, stocks: list, threshold: float) -> dict:
        """Name the known symbols whose |percent_change| is at least `threshold`."""
        changed = [symbol for symbol in stocks
                   if symbol in self.stocks and abs(self.stocks[symbol]["percent_change"]) >= threshold]
        if changed:
            return {"notification": f"Stocks {', '.join(changed)} have significant price changes."}
        return {"notification": "No significant price changes in the selected stocks."}

    # --- 3d. Orders ---

    def place_order(self, order_type: str, symbol: str, price: float, amount: int) -> dict:
        """Place a Buy or Sell order; a Buy must be covered by the balance (which it does not debit)."""
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to place an order."}
        if symbol not in self.stocks:
            return {"error": f"Invalid stock symbol: {symbol}"}
        if price <= 0 or amount <= 0:
            return {"error": "Price and amount must be positive values."}
        if order_type.lower() == "buy":
            # subtle: int(amount) truncates, so a Buy of 2.9 shares is priced as 2.
            total_cost = float(price) * int(amount)
            balance = self.account_info.get("balance", 0)
            if total_cost > balance:
                return {"error": f"Insufficient funds: required ${total_cost:.2f} but only ${balance:.2f} available."}
        price = float(price)
        order_id = self.order_counter
        self.orders[order_id] = {"id": order_id, "order_type": order_type, "symbol": symbol, "price": price,
                                 "amount": amount, "status": "Open"}
        self.order_counter += 1
        # The caller is told "Pending" while the stored order reads "Open": BFCL's way to suggest a delay.
        return {"order_id": order_id, "order_type": order_type, "status": "Pending", "price": price,
                "amount": amount}

    def get_order_details(self, order_id: int) -> dict:
        """Return an order (with eight paragraphs of metadata in long-context mode)."""
        if order_id not in self.orders:
            return {"error": f"Order with ID {order_id} not found."
                             f"Here is the list of orders_id: {list(self.orders.keys())}"}
        if not self.long_context:
            return self.orders[order_id]
        order = self.orders[order_id].copy()
        symbol = order["symbol"]
        order["metadata"] = {topic: text.format(symbol=symbol) for topic, text in _TRADE_ORDER_DETAIL_EXTENSION.items()}
        return order

    def cancel_order(self, order_id: int) -> dict:
        """Cancel an order unless it is already completed."""
        if order_id not in self.orders:
            return {"error": f"Order with ID {order_id} not found."}
        if self.orders[order_id]["status"] == "Completed":
            return {"error": f"Can't cancel order {order_id}. Order is already completed."}
        self.orders[order_id]["status"] = "Cancelled"
        return {"order_id": order_id, "status": "Cancelled"}

    def get_order_history(self) -> dict:
        """List the ids of all orders."""
        if not self.authenticated:
            # subtle: a list, not a dict, so the grader records its str(), not JSON.
            return [{"error": "User not authenticated. Please log in to view order history."}]
        return {"history": list(self.orders.keys())}

    # --- 3e. The account ---

    def get_account_info(self) -> dict:
        """Return the account's id, balance and bound card."""
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to view account information."}
        return self.account_info

    def fund_account(self, amount: float) -> dict:
        """Deposit `amount` and record the transaction."""
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to fund the account."}
        if amount <= 0:
            return {"error": "Funding amount must be positive."}
        self.account_info["balance"] += amount
        self._record_transaction("deposit", amount)
        return {"status": "Account funded successfully", "new_balance": self.account_info["balance"]}

    def withdraw_funds(self, amount: float) -> dict:
        """Withdraw `amount` (only while the market is open) and record the transaction."""
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to make a transaction."}
        if self.market_status != "Open":
            return {"error": "Market is closed. Transactions are not allowed."}
        if amount <= 0:
            return {"error": "Transaction amount must be positive."}
        if amount > self.account_info["balance"]:
            return {"error": "Insufficient funds for withdrawal."}
        self.account_info["balance"] -= amount
        self._record_transaction("withdrawal", amount)
        return {"status": "Withdrawal successful", "new_balance": self.account_info["balance"]}

    def _record_transaction(self, kind: str, amount: float) -> None:
        """Append a deposit or withdrawal, stamped with the next seeded random time."""
        self.transaction_history.append({"type": kind, "amount": amount,
                                         "timestamp": _TRADE_transaction_time(self._random)})

    def get_transaction_history(self, start_date: str = None, end_date: str = None) -> dict:
        """List the transactions stamped between start_date and end_date ('YYYY-MM-DD', both optional)."""
        if not self.authenticated:
            return [{"error": "User not authenticated. Please log in to view transaction history."}]
        start = datetime.strptime(start_date, "%Y-%m-%d") if start_date else datetime.min
        # subtle: end_date means its midnight, so transactions later that same day are left out.
        end = datetime.strptime(end_date, "%Y-%m-%d") if end_date else datetime.max
        history = [transaction for transaction in self.transaction_history
                   if start <= datetime.strptime(transaction["timestamp"], "%Y-%m-%d %H:%M:%S") <= end]
        if self.long_context:
            history.extend(_TRADE_TRANSACTION_HISTORY_EXTENSION)
        return {"transaction_history": history}

    # --- 3f. The watchlist ---

    def get_watchlist(self) -> dict:
        """Return the watched symbols."""
        if not self.authenticated:
            return ["Error: User not authenticated. Please log in to view the watchlist."]
        if self.long_context:
            # subtle: BFCL returns a bare list here (no "watchlist" key), so the grader records its str().
            watch_list = self.watch_list.copy()
            watch_list.extend(_TRADE_WATCH_LIST_EXTENSION)
            return watch_list
        return {"watchlist": self.watch_list}

    def add_to_watchlist(self, stock: str) -> dict:
        """Watch a known symbol (an unknown or already-watched one is ignored) and return the watchlist."""
        if stock not in self.watch_list and stock in self.stocks:
            self.watch_list.append(stock)
        return {"watchlist": self.watch_list}

    def remove_stock_from_watchlist(self, symbol: str) -> dict:
        """Stop watching a symbol."""
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to modify the watchlist."}
        if symbol not in self.watch_list:
            return {"error": f"Stock {symbol} not found in watchlist."}
        self.watch_list.remove(symbol)
        return {"status": f"Stock {symbol} removed from watchlist successfully."}


# long-context filler, value for value from BFCL's long_context.py

# Moving-average series that replace MA(5) and MA(20) in get_stock_info.
_TRADE_MA_5_EXTENSION = [
    234.34, 212.46, 228.56, 209.19, 223.68, 242.5, 225.93, 219.47, 241.34, 208.85, 232.41, 219.51, 240.59, 200.59,
    205.85, 237.24, 203.73, 217.93, 223.4, 204.42, 234.54, 200.67, 242.43, 216.14, 218.47, 228.74, 214.67, 209.03,
    233.21, 221.63, 211.74, 245.42, 209.38, 217.39, 247.27, 225.03, 201.75, 246.12, 207.74, 247.79, 214.59, 238.44,
    233.35, 244.36, 223.74, 220.15, 248.49, 207.66, 231.45, 208.04, 223.95, 230.41, 247.04, 225.97, 226.84, 231.9,
    202.0, 219.07, 234.87, 212.52, 216.84, 231.42, 234.41, 240.72, 216.07, 219.27, 209.44, 211.72, 203.16, 202.5,
    201.8, 208.66, 214.73, 215.27, 213.13, 217.9, 222.0, 209.43, 246.91, 211.22, 208.26, 239.9, 233.53, 203.98,
    228.58, 229.42, 218.44, 232.89, 224.71, 234.41, 235.7, 201.72, 247.17, 246.42, 221.3, 236.7, 220.84, 242.23,
    208.46, 221.29, 234.77, 201.07, 226.68, 205.36, 205.88, 211.04, 206.76, 218.54, 227.85, 210.04, 227.5, 246.89,
    227.4, 218.59, 209.59, 230.27, 209.93, 210.92, 242.29, 223.01, 218.77, 248.7, 210.19, 220.49, 235.59, 244.22,
    216.49, 235.28, 238.19, 202.89, 236.94, 232.9, 217.01, 208.03, 215.07, 202.95, 239.8, 248.69, 225.2, 245.02,
    202.05, 204.51, 224.49, 224.31, 239.6, 249.27, 206.73, 201.62, 238.52, 217.94, 216.7, 231.97, 222.06, 234.37,
    237.12, 238.63, 228.32, 249.24, 209.51, 248.49, 221.7, 216.82, 217.42, 212.33, 211.35, 241.29, 242.15, 242.99,
    237.38, 245.87, 248.76, 215.87, 247.86, 238.14, 236.66, 248.29, 248.84, 243.05, 217.98, 226.05, 235.49, 240.46,
    203.77, 230.4, 226.03, 207.89, 207.63, 205.22, 244.38, 205.66, 233.44, 229.58, 216.74, 214.93, 246.03, 202.79,
    217.5, 209.19, 243.75, 245.48, 232.76, 218.45, 231.21, 229.49, 227.26, 242.22, 208.83, 242.72, 233.49, 210.31,
    220.56, 248.73, 239.5, 224.09, 206.75, 200.16, 219.42, 204.76, 231.25, 234.26, 235.58, 211.52, 231.44, 211.63,
    210.23, 241.75, 202.96, 244.1, 206.72, 203.46, 223.18, 229.26, 219.24, 237.11, 247.06, 225.04, 214.83, 213.06,
    245.9, 228.8, 220.99, 242.07, 211.58, 200.26, 238.21, 231.18, 227.68, 227.79, 203.91, 245.79, 230.2, 243.33,
    213.22, 246.69, 226.38, 240.41, 230.12, 228.79, 216.71, 244.25, 234.17, 242.5, 247.94, 245.98, 235.52, 246.41,
    241.46, 215.11, 222.72, 234.23, 247.02, 214.27, 217.39, 219.29, 245.75, 213.17, 204.61, 230.45, 204.65, 234.13,
    214.18, 209.54, 211.85, 226.62, 239.91, 230.59, 228.55, 218.93, 229.02, 245.3, 241.86, 220.38, 239.38, 245.11,
    243.19, 228.73, 239.52, 243.05, 234.18, 202.04, 200.24, 247.5, 223.48, 233.01, 217.87, 247.78, 221.86, 210.23,
    229.07, 223.48, 230.37, 249.81, 243.19, 220.34, 211.83, 206.53, 248.65, 234.34, 221.97, 238.52, 216.4, 235.49,
    234.69, 201.55, 209.01, 224.55, 219.26, 247.63, 224.8, 235.23, 203.79, 247.1, 206.0, 234.77, 236.09, 213.0,
    239.46, 249.5, 237.38, 244.05, 237.2, 211.81, 220.29, 214.86, 228.47, 206.9, 241.81, 241.77, 225.59, 232.44,
    217.97, 208.47, 245.44, 215.6, 205.19, 203.12, 216.12, 203.29, 240.69, 223.53, 237.27, 216.27, 230.97, 218.5,
    225.14, 248.6, 201.85, 215.11, 207.02, 201.11, 202.57, 240.68, 215.31, 213.85, 228.66, 223.78, 239.92, 211.71,
    201.41, 219.63, 239.73, 249.76, 229.19, 227.31, 214.23, 203.55, 243.25, 243.23, 232.05, 237.58, 239.41, 206.77,
    244.84, 231.77, 231.12, 248.33, 206.83, 201.52, 246.06, 207.75, 214.21, 245.48, 208.62, 238.69, 216.16, 217.19,
    205.01, 214.9, 221.79, 214.44, 240.79, 232.79, 216.22, 244.2, 230.2, 201.34, 203.97, 214.33, 237.39, 205.5,
    241.66, 216.34, 241.98, 245.07, 223.24, 226.02, 249.1, 248.49, 217.88, 228.78, 222.57, 231.82, 233.5, 234.81,
    220.38, 207.02, 226.51, 242.31, 241.79, 236.26, 204.65, 222.88, 207.41, 213.13, 248.79, 249.27, 237.32, 218.53,
    245.0, 216.8, 201.84, 202.99, 201.4, 216.2, 243.6, 215.88, 228.36, 228.53, 212.31, 222.71, 223.99, 231.39,
    209.4, 247.96, 219.05, 241.28, 230.77, 208.24, 231.95, 204.76, 244.29, 202.73, 240.33, 208.18, 223.6, 203.25,
    218.37, 210.94, 203.75, 246.2, 200.66, 213.04, 216.23, 247.51, 231.03, 221.5, 212.68, 226.81, 227.88, 230.89,
    237.03, 229.55, 222.73, 204.81, 200.17, 206.93, 221.32, 237.61, 236.46, 247.8, 214.39, 238.38, 207.6, 208.55,
    205.6, 224.67, 247.13, 213.18, 247.88, 231.91, 240.0, 201.42, 227.21, 233.71, 222.23, 201.69, 240.89, 218.63,
    205.76, 222.61, 230.17, 225.3, 243.76, 216.04, 241.54, 223.2, 213.36, 209.84, 236.7, 232.14, 209.69, 206.5,
    203.31, 241.28, 238.37, 213.8, 203.51, 221.69, 220.39, 208.55, 233.25, 206.83, 206.18, 248.27, 244.28, 221.45,
    215.84, 246.73, 237.7, 202.37, 234.26, 200.11, 217.29, 239.49, 248.17, 201.77, 209.76, 218.62, 202.16, 231.32,
    221.45, 215.26, 232.14, 227.61, 239.43, 212.61, 237.29, 208.43, 229.03, 217.97, 230.57, 208.22, 215.76, 218.09,
    208.23, 246.24, 218.68, 225.7, 224.08, 208.25, 249.54, 236.54, 219.18, 242.05, 229.47, 207.09, 233.65, 200.11,
    242.54, 203.25, 236.78, 247.21, 224.4, 228.48, 203.14, 237.12, 237.91, 208.89, 234.75, 232.32, 220.51, 213.82,
    219.63, 215.98, 237.74, 215.57, 237.69, 208.35, 220.66, 248.86, 232.39, 220.33, 232.82, 223.96, 237.47, 235.78,
    216.16, 219.03, 247.72, 239.44, 239.2, 232.77, 227.44, 211.43, 241.39, 205.12, 236.15, 219.61, 220.77, 220.69,
    225.97, 249.24, 208.23, 216.54, 214.33, 233.74, 216.18, 235.66, 205.38, 233.75, 243.39, 205.21, 237.85, 247.44,
    244.47, 207.92, 235.8, 204.21, 216.65, 209.0, 247.77, 231.14, 201.5, 217.1, 217.53, 236.56, 225.14, 221.26,
    240.44, 232.47, 222.58, 222.22, 205.14, 246.06, 215.16, 241.44, 238.93, 239.6, 224.88, 215.64, 203.83, 227.4,
    210.93, 224.38, 207.66, 247.1, 209.24, 229.12, 228.54, 203.61, 246.5, 234.08, 211.51, 203.44, 210.45, 205.98,
    200.62, 231.94, 232.51, 208.55, 240.97, 233.84, 246.35, 237.61, 214.42, 243.83, 226.13, 208.39, 220.06, 213.93,
    241.2, 210.39, 240.79, 214.78, 217.89, 235.86, 232.05, 224.73, 226.45, 231.63, 228.46, 230.46, 205.88, 241.91,
    237.68, 218.61, 239.38, 223.42, 201.88, 228.12, 208.73, 245.58, 202.02, 214.99, 243.14, 218.07, 220.29, 233.13,
    215.23, 215.2, 237.47, 244.25, 209.93, 223.16, 234.7, 222.42, 214.57, 227.63, 218.97, 227.28, 237.34, 217.68,
    224.1, 227.73, 242.69, 200.91, 216.23, 205.74, 240.21, 209.44, 209.38, 217.6, 216.94, 220.28, 240.91, 202.78,
    243.75, 216.63, 216.17, 231.57, 226.62, 212.28, 240.49, 226.17, 241.36, 200.02, 220.62, 249.73, 225.1, 211.36,
    215.67, 248.86, 240.17, 204.61, 226.86, 231.03, 204.06, 212.27, 244.51, 216.36, 219.96, 212.73, 212.52, 229.03,
    215.9, 225.45, 226.88, 227.45, 205.27, 247.02, 209.35, 226.98, 249.71, 206.62, 222.45, 210.71, 234.82, 238.48,
    234.14, 219.28, 245.76, 225.79, 202.91, 249.34, 210.31, 220.88, 231.77, 235.72, 214.81, 249.78, 248.75, 222.82,
    228.36, 228.94, 239.89, 216.84, 230.64, 245.52, 209.61, 229.39, 205.05, 242.57, 224.57, 245.41, 204.87, 227.86,
    206.9, 229.3, 240.84, 201.52, 211.28, 213.73, 224.07, 242.69, 202.64, 230.89, 228.11, 215.13, 243.93, 211.35,
    214.13, 221.66, 225.87, 202.21, 245.74, 239.28, 236.78, 220.16, 201.45, 210.36, 231.77, 242.26, 248.02, 229.7,
    210.85, 206.13, 248.14, 203.83, 243.65, 239.36, 212.03, 231.86, 207.29, 244.67, 216.0, 211.94, 224.84, 203.12,
    227.53, 239.49, 203.47, 241.19, 244.88, 245.47, 240.33, 235.46, 210.3, 226.45, 240.39, 211.89, 218.48, 220.92,
    231.43, 227.32, 218.1, 243.33, 229.86, 229.57, 228.16, 218.06, 229.98, 217.66, 220.69, 241.26, 212.53, 234.04,
    249.25, 243.27, 237.9, 227.49, 241.34, 202.31, 219.34, 248.52, 234.83, 237.91, 201.74, 210.67, 205.69, 205.2,
    215.27, 204.91, 227.44, 245.41, 202.53, 220.57, 227.42, 241.71, 207.58, 201.64, 234.92, 201.17, 223.28, 212.88,
    229.16, 210.88, 214.73, 244.79, 224.59, 235.25, 223.08, 218.11, 231.53, 208.05, 238.53, 205.61, 210.46, 213.63,
    233.81, 235.0, 240.66, 236.51, 225.32, 240.07, 242.32, 216.75, 208.12, 201.56, 221.9, 203.69, 215.17, 243.11,
    202.49, 244.87, 226.47, 206.35, 206.92, 210.18, 205.33, 232.02, 232.94, 229.63, 239.93, 239.03, 249.1, 214.29,
    209.46, 229.86, 227.36, 212.77, 217.3, 242.36, 222.02, 236.13, 237.97, 248.1, 240.98, 227.62, 221.53, 222.98,
    223.74, 212.64, 203.45, 200.19, 213.99, 227.42, 218.06, 217.13, 200.47, 247.03, 211.68, 241.21, 215.62, 227.19,
    236.98, 213.06, 207.9, 241.25, 230.33, 217.48, 214.69, 235.41, 239.61, 222.36, 230.68, 245.52, 245.27, 227.17,
    208.49, 207.35, 235.29, 238.78, 238.44, 205.98, 233.31, 221.86, 216.54, 206.17, 206.4, 235.3, 215.47, 219.86,
    221.86, 237.1, 209.9, 236.01, 244.4, 221.2, 214.69, 204.12, 238.58, 233.32, 234.98, 225.48, 211.99, 243.5,
    213.98, 207.48, 220.04, 248.03, 231.39, 205.55, 234.28, 236.41, 200.26, 203.71, 209.94, 216.93, 235.94, 221.85,
    205.66, 219.12, 230.56, 249.88, 202.28, 247.47, 225.97, 208.86, 213.14, 241.22, 245.34, 233.51, 232.22, 214.45,
    244.71, 201.62, 208.43, 236.9, 220.98, 231.91, 210.25, 238.67, 231.76, 208.86, 240.61, 243.53, 242.93, 206.43,
    237.33, 220.47, 222.84, 213.38, 213.85, 214.18, 235.68, 243.51, 240.98, 230.82, 244.22, 243.88, 204.92, 249.98,
    249.97, 237.16, 229.41, 228.18, 242.13, 217.61, 221.04, 234.2, 243.95, 248.06, 237.63, 241.35, 228.93, 235.02,
    208.85, 239.5, 224.18, 234.74, 202.75, 224.1, 222.52, 221.24, 248.01, 234.53, 201.51, 221.81, 202.46, 229.3,
    248.64, 237.85, 218.56, 219.41, 217.68, 223.72, 241.01, 225.05, 214.31, 204.63, 233.79, 211.82, 235.16, 216.93,
    200.08, 200.52, 224.22, 201.02, 225.55, 234.01, 241.54, 211.08, 236.37, 233.49, 225.76, 204.22, 204.03, 200.52,
    237.95, 212.82, 247.07, 239.06, 232.66, 202.73, 200.47, 223.98, 207.98, 207.21, 235.12, 236.51, 230.2, 219.97,
    215.85, 233.3, 243.77, 221.85, 239.12, 238.56, 210.4, 224.89, 242.0, 216.77, 220.88, 247.0, 200.18, 229.46,
    221.39, 232.11, 203.51, 229.74, 208.89, 220.08, 209.96, 200.93, 236.54, 235.37, 230.96, 238.55, 217.21, 241.04,
    224.87, 243.47, 233.74, 221.96, 231.25, 248.15, 201.75, 202.84, 222.37, 228.32, 238.42, 221.47, 210.12, 232.44,
    203.72, 249.4, 212.04, 247.15, 234.27, 223.64, 245.2, 239.76, 249.47, 223.81, 208.67, 211.81, 226.68, 219.84,
    224.52, 214.46, 204.15, 208.09, 223.97, 238.09, 231.88, 206.48, 202.63, 211.83, 215.07, 209.41, 211.68, 246.48,
    203.58, 206.25, 206.22, 211.83, 205.48, 224.22, 228.95, 215.64, 249.06, 201.89, 230.24, 232.82, 244.05, 202.56,
    215.98, 232.05, 247.27, 226.06, 223.99, 201.69, 202.57, 213.04, 238.6, 234.04, 216.55, 202.39, 234.5, 202.76,
    243.7, 212.05, 209.3, 201.78, 211.74, 210.18, 243.62, 246.06, 232.93, 238.47, 201.13, 210.29, 229.78, 213.62,
    217.63, 229.75, 226.24, 201.99, 241.21, 215.69, 234.0, 218.38, 202.94, 219.2, 248.05, 231.34, 248.2, 245.41,
    225.14, 216.24, 230.88, 228.61, 212.49, 223.22, 209.06, 236.25, 246.27, 216.36, 201.76, 247.85, 224.98, 247.99,
    241.48, 224.39, 207.34, 240.63, 247.81, 242.69, 208.17, 221.19, 231.55, 210.92, 216.14, 220.28, 220.56, 243.31,
    200.95, 215.95, 210.22, 204.38, 244.15, 235.69, 201.32, 212.78, 235.78, 222.26, 246.77, 224.26, 248.4, 237.13,
    228.55, 245.04, 233.35, 238.91, 224.72, 213.14, 221.36, 209.82, 217.88, 204.85, 235.16, 246.43, 208.6, 233.6,
    229.07, 237.34, 243.44, 229.46, 206.44, 245.1, 228.98, 217.86, 206.97, 226.56, 209.72, 221.73, 244.31, 238.8,
    235.94, 230.79, 207.14, 249.19, 208.69, 238.74, 225.65, 210.61, 204.7, 202.5, 218.92, 210.67, 233.17, 249.61,
    239.77, 219.07, 213.58, 212.45, 235.09, 239.6, 205.65, 215.12, 238.56, 202.91, 217.85, 242.38, 247.84, 240.03,
    208.58, 219.59, 221.16, 218.84, 237.26, 227.84, 237.25, 208.54, 217.87, 214.1, 231.01, 211.81, 214.05, 230.18,
    239.66, 232.64, 227.54, 214.49, 231.61, 207.72, 220.24, 227.48, 220.18, 218.54, 207.45, 209.66, 217.96, 228.37,
    242.8, 216.42, 204.57, 225.22, 232.88, 208.37, 211.94, 249.31, 238.47, 220.17, 209.28, 238.23, 241.24, 226.94,
    231.85, 213.42, 214.61, 247.13, 208.9, 223.89, 237.1, 233.81, 203.23, 246.29, 234.11, 238.19, 233.32, 212.28,
    232.36, 205.22, 213.64, 244.17, 235.23, 206.86, 221.85, 239.27, 214.47, 202.09, 212.27, 215.58, 226.57, 219.67,
    203.67, 249.41, 235.5, 230.65, 244.98, 232.18, 245.62, 241.09, 226.63, 241.48, 216.65, 238.83, 212.25, 249.8,
    237.71, 240.81, 233.55, 246.4, 218.68, 209.97, 216.77, 200.35, 207.43, 201.14, 225.15, 201.42, 204.29, 234.39,
    247.94, 249.22, 201.51, 215.1, 227.99, 240.51, 213.12, 211.7, 202.53, 219.81, 223.27, 245.17, 209.78, 223.64,
    249.28, 202.71, 247.39, 247.86, 246.27, 213.75, 229.21, 214.58, 206.49, 205.16, 212.02, 218.23, 209.54, 216.49,
    206.23, 200.14, 210.04, 231.11, 217.37, 215.54, 204.77, 243.71, 204.42, 204.09, 219.17, 241.78, 235.5, 244.67,
    207.74, 202.74, 233.95, 230.06, 247.8, 200.91, 247.75, 202.75, 241.35, 228.98, 245.84, 246.56, 236.77, 209.8,
    217.67, 235.26, 242.91, 218.12, 226.28, 206.76, 230.02, 220.27, 209.19, 249.16, 205.72, 246.96, 203.63, 249.0,
    217.21, 242.26, 248.15, 249.21, 200.41, 243.51, 225.29, 207.63, 231.34, 229.34, 231.26, 226.12, 226.14, 214.54,
    249.64, 211.36, 247.61, 244.01, 231.3, 223.4, 240.1, 205.67, 204.72, 218.73, 233.01, 227.48, 238.76, 206.09,
    228.28, 235.81, 230.96, 210.92, 220.81, 220.87, 234.65, 248.46, 224.03, 218.41, 233.38, 209.69, 229.73, 242.08,
    244.57, 203.8, 215.05, 223.16, 225.1, 229.5, 232.18, 215.27, 222.36, 249.15, 235.2, 220.92, 213.02, 246.66,
    245.64, 215.47, 239.61, 217.11, 247.16, 212.86, 221.36, 201.98, 225.37, 200.26, 217.8, 200.07, 237.52, 202.89,
    245.12, 240.6, 234.99, 221.55, 246.91, 246.75, 247.47, 248.83, 230.06, 239.88, 208.5, 231.4, 211.91, 246.63,
    222.58, 234.09, 202.54, 241.18, 204.9, 247.06, 236.77, 229.64, 244.55, 221.74, 211.97, 206.01, 249.94, 229.38,
    242.92, 244.9, 244.17, 242.58, 244.78, 243.2, 234.46, 229.96, 241.87, 224.85, 228.13, 210.69, 225.86, 201.92,
    216.24, 243.06, 221.97, 219.82, 220.04, 245.57, 244.22, 214.37, 222.16, 247.82, 247.25, 229.28, 227.5, 245.35,
    212.57, 245.0, 212.66, 201.19, 212.81, 202.69, 237.54, 246.66, 249.85, 205.78, 210.25, 221.8, 214.34, 239.09,
    205.67, 212.15, 219.41, 221.56, 216.27, 233.48, 218.52, 218.23, 234.97, 234.17, 211.3, 209.69, 212.79, 214.51,
    232.33, 247.08, 231.84, 204.82, 232.89, 209.41, 238.79, 226.46, 246.24, 240.93, 232.53, 219.34, 217.94, 234.57,
    207.97, 225.04, 248.03, 247.82, 246.8, 248.02, 231.82, 243.03, 240.11, 238.26, 204.75, 234.44, 244.79, 227.53,
    223.05, 205.35, 204.79, 225.72, 201.11, 209.31, 202.55, 206.55, 231.04, 220.73, 209.42, 220.81, 233.48, 206.24,
    225.08, 221.87, 242.63, 208.1, 238.89, 238.49, 235.14, 246.31, 225.87, 241.94, 233.86, 243.63, 237.48, 207.32,
    245.33, 221.31, 218.4, 213.15, 211.6, 245.58, 217.15, 217.57, 213.02, 205.9, 209.8, 206.23, 226.6, 207.91,
    226.67, 239.56, 243.78, 242.13, 203.51, 206.75, 205.65, 238.77, 201.32, 230.35, 213.28, 210.78, 202.04, 246.37,
    245.02, 228.23, 240.11, 204.24, 248.8, 219.39, 204.47, 201.91, 236.38, 205.19, 213.04, 236.36, 212.93, 226.36,
    210.83, 220.73, 230.38, 205.12, 249.02, 244.63, 235.53, 215.08, 248.65, 243.99, 243.77, 242.59, 225.79, 236.56,
    213.15, 246.86, 216.18, 220.8, 241.33, 217.04, 228.16, 246.31, 230.91, 207.71, 230.8, 224.83, 227.03, 237.73,
    228.6, 223.99, 212.71, 215.04, 202.63, 208.45, 248.97, 247.72, 249.17, 226.02, 225.28, 240.04, 214.66, 231.82,
    219.25, 202.24, 204.49, 217.45, 239.98, 233.65, 210.32, 203.11, 203.11, 238.57, 210.01, 245.86, 228.47, 237.78,
    211.1, 227.43, 245.79, 238.34, 247.34, 231.94, 219.11, 218.38, 200.08, 240.48, 208.61, 211.79, 232.12, 216.16,
    247.08, 212.9, 220.17, 237.59, 206.92, 226.25, 202.71, 210.24, 230.4, 242.33, 248.1, 200.71, 216.85, 210.76,
    237.11, 241.58, 234.13, 221.75, 202.2, 221.05, 227.84, 214.45, 238.4, 217.86, 248.58, 225.71, 205.94, 200.14,
    237.56, 230.64, 233.59, 230.44, 232.89, 233.35, 229.86, 211.5, 235.16, 204.53, 221.91, 200.38, 216.77, 226.9,
    212.48, 213.03, 200.14, 208.27, 209.42, 241.48, 225.79, 204.53, 201.17, 248.03, 202.77, 249.53, 242.64, 229.07,
    202.66, 239.89, 216.84, 206.51, 216.44, 239.99, 203.7, 211.41, 249.69, 209.74, 210.58, 249.12, 230.31, 242.02,
    246.14, 228.5, 240.23, 214.78, 226.76, 236.56, 232.26, 226.95, 218.55, 241.22, 223.93, 231.22, 212.32, 228.46,
    227.93, 203.39, 206.72, 224.67, 226.13, 222.15, 232.9, 232.89, 207.08, 229.98, 206.58, 221.81, 202.33, 235.51,
    200.24, 206.36, 205.46, 249.65, 206.02, 229.9, 238.33, 201.22, 203.3, 213.82, 247.96, 226.92, 210.21, 221.1,
    216.58, 204.75, 230.12, 244.07, 235.58, 225.0, 233.63, 241.46, 227.58, 240.44, 201.14, 231.93,
]

_TRADE_MA_20_EXTENSION = [
    225.08, 209.54, 242.23, 200.66, 205.5, 236.61, 235.66, 244.32, 207.04, 236.46, 221.74, 244.56, 228.39, 234.78,
    202.53, 220.66, 236.42, 226.24, 241.84, 243.41, 235.89, 201.95, 205.36, 212.92, 213.68, 244.96, 226.37, 220.54,
    210.26, 227.79, 237.98, 216.51, 232.9, 226.55, 224.83, 241.6, 200.69, 201.19, 234.43, 238.86, 228.16, 246.28,
    219.07, 202.35, 220.67, 209.64, 232.44, 246.01, 220.31, 218.71, 239.88, 215.44, 230.9, 225.55, 221.76, 246.79,
    200.73, 215.68, 213.38, 216.93, 207.94, 237.58, 220.33, 202.92, 205.26, 201.63, 201.63, 236.59, 232.47, 230.27,
    227.7, 223.37, 219.11, 208.19, 238.09, 249.31, 222.32, 218.54, 245.4, 235.75, 208.48, 205.06, 225.43, 206.11,
    232.99, 203.81, 231.63, 226.71, 212.5, 241.53, 205.54, 212.96, 220.85, 225.04, 201.78, 203.17, 248.58, 237.84,
    208.68, 227.47, 216.42, 246.09, 249.88, 212.09, 216.04, 236.87, 226.44, 215.98, 210.94, 224.81, 246.27, 217.51,
    249.35, 243.59, 237.96, 229.75, 220.13, 246.46, 237.77, 214.35, 210.41, 218.54, 245.07, 228.34, 216.93, 222.17,
    244.04, 222.41, 244.65, 249.78, 231.81, 215.9, 248.55, 213.27, 246.73, 226.81, 208.56, 235.33, 238.37, 234.08,
    243.31, 222.46, 201.96, 222.47, 218.89, 227.64, 239.9, 239.84, 205.67, 205.76, 249.09, 231.97, 243.64, 221.29,
    225.05, 245.38, 200.19, 208.39, 200.98, 210.95, 235.38, 206.0, 214.04, 243.4, 216.22, 247.28, 206.33, 229.49,
    235.97, 200.06, 220.1, 224.69, 217.56, 205.07, 242.61, 244.33, 227.04, 231.23, 238.27, 242.61, 224.16, 215.81,
    244.31, 215.29, 247.49, 215.34, 212.04, 212.63, 222.03, 248.33, 225.08, 236.25, 236.94, 207.59, 241.13, 243.28,
    234.46, 244.9, 226.53, 202.92, 205.58, 232.41, 200.62, 248.19, 246.64, 202.37, 248.89, 248.92, 226.91, 227.47,
    224.86, 212.72, 220.06, 206.31, 202.57, 246.25, 216.85, 244.35, 202.98, 248.45, 232.63, 249.22, 232.0, 211.7,
    225.26, 232.94, 207.25, 223.02, 222.74, 205.15, 247.57, 238.17, 226.01, 232.91, 222.82, 220.59, 241.87, 246.36,
    213.52, 237.33, 205.06, 233.02, 216.37, 205.1, 233.59, 228.56, 222.2, 235.5, 222.51, 218.03, 241.42, 248.57,
    241.2, 248.81, 241.5, 230.6, 248.41, 225.15, 238.78, 216.54, 239.62, 219.48, 214.61, 216.46, 241.53, 228.64,
    214.11, 241.67, 249.46, 215.98, 224.12, 207.69, 216.69, 238.74, 221.95, 249.62, 227.67, 241.67, 200.64, 218.36,
    244.49, 247.45, 238.53, 246.45, 225.52, 233.95, 218.63, 223.58, 206.99, 236.61, 220.97, 241.03, 222.28, 216.62,
    201.19, 240.39, 203.77, 215.62, 240.84, 217.95, 201.76, 206.84, 213.5, 224.96, 248.55, 222.12, 202.59, 225.97,
    245.22, 202.56, 233.32, 218.13, 234.83, 203.19, 204.51, 201.9, 228.39, 200.62, 239.65, 209.53, 242.31, 210.88,
    211.02, 202.35, 234.14, 201.38, 213.23, 249.38, 223.72, 246.24, 224.24, 232.68, 208.82, 211.37, 229.87, 209.86,
    202.5, 203.42, 222.65, 225.84, 206.25, 230.09, 220.57, 213.95, 241.06, 218.02, 229.95, 206.48, 218.35, 216.78,
    249.93, 205.86, 228.24, 239.7, 200.02, 233.89, 210.52, 249.32, 218.47, 216.47, 243.06, 225.89, 217.83, 239.47,
    210.87, 241.45, 236.19, 229.28, 208.1, 201.64, 227.0, 243.25, 235.96, 230.8, 244.14, 249.79, 211.03, 240.98,
    243.39, 208.81, 207.34, 200.97, 245.5, 218.27, 211.38, 202.76, 232.16, 204.41, 225.07, 201.13, 200.47, 202.9,
    240.04, 221.69, 243.77, 207.14, 212.98, 217.37, 206.75, 226.41, 205.06, 215.16, 203.55, 247.89, 212.52, 230.39,
    210.53, 239.15, 240.39, 233.48, 221.16, 247.82, 247.51, 246.73, 215.43, 243.93, 244.04, 222.43, 218.48, 217.12,
    221.82, 205.15, 227.84, 201.08, 234.11, 220.87, 201.67, 219.99, 224.13, 249.41, 244.68, 226.19, 213.31, 202.0,
    222.47, 228.32, 230.31, 214.83, 231.16, 236.58, 246.23, 225.09, 207.8, 248.27, 229.74, 206.35, 232.81, 214.26,
    202.04, 200.33, 202.79, 217.11, 248.5, 230.09, 214.61, 244.74, 222.41, 233.65, 203.08, 226.37, 221.59, 217.86,
    217.96, 248.26, 247.14, 249.94, 241.53, 247.42, 244.08, 200.82, 201.72, 214.28, 233.08, 238.2, 201.0, 244.98,
    231.72, 205.01, 230.74, 243.2, 238.72, 208.66, 230.99, 233.12, 216.17, 213.8, 214.03, 216.85, 203.43, 206.95,
    210.16, 207.16, 246.78, 200.9, 220.52, 228.15, 229.3, 222.1, 230.75, 245.24, 231.6, 202.92, 217.6, 214.39,
    248.74, 215.45, 245.03, 220.55, 249.02, 225.8, 241.35, 240.32, 234.41, 231.31, 220.48, 209.37, 243.39, 216.41,
    204.5, 212.3, 229.08, 204.44, 204.4, 229.09, 245.51, 207.55, 223.99, 220.62, 209.88, 211.89, 240.65, 213.18,
    206.64, 242.55, 218.13, 229.47, 201.35, 201.46, 209.38, 225.0, 202.3, 234.71, 215.53, 201.87, 230.69, 235.06,
    239.77, 243.9, 227.65, 201.35, 202.19, 240.35, 229.14, 227.83, 226.01, 227.36, 235.07, 217.83, 245.81, 226.68,
    241.65, 231.79, 249.7, 213.23, 221.5, 249.59, 226.06, 213.51, 202.43, 226.36, 246.4, 224.65, 218.35, 201.94,
    248.97, 209.44, 228.91, 206.41, 239.28, 209.15, 245.91, 213.99, 226.36, 236.07, 216.76, 213.66, 240.81, 247.18,
    202.52, 210.18, 222.2, 210.13, 238.19, 237.59, 212.87, 247.28, 227.24, 207.6, 243.08, 209.69, 211.4, 204.6,
    239.47, 236.23, 227.25, 242.52, 200.65, 232.17, 210.13, 241.14, 200.77, 228.72, 224.79, 220.2, 218.91, 223.56,
    229.57, 245.0, 205.69, 232.17, 234.35, 213.26, 232.58, 243.36, 206.11, 244.29, 210.99, 204.9, 207.26, 245.75,
    218.98, 246.3, 215.4, 225.76, 217.99, 230.01, 204.55, 200.52, 237.78, 221.29, 204.09, 215.05, 214.55, 237.16,
    231.61, 219.74, 207.0, 227.57, 200.73, 214.37, 238.7, 205.04, 239.57, 209.54, 204.1, 244.83, 213.1, 219.72,
    233.19, 219.89, 208.05, 209.99, 219.33, 207.1, 239.21, 207.08, 247.46, 232.72, 217.34, 225.89, 236.16, 210.52,
    249.37, 204.01, 241.96, 221.88, 232.89, 236.36, 222.72, 218.79, 217.61, 216.73, 204.47, 213.81, 203.61, 203.61,
    201.89, 215.79, 231.1, 221.11, 241.68, 236.41, 237.91, 206.7, 220.55, 238.16, 239.35, 214.0, 206.55, 222.93,
    238.82, 226.28, 209.76, 227.35, 245.4, 238.12, 218.37, 210.09, 210.37, 217.15, 206.36, 208.81, 217.17, 225.92,
    238.18, 240.75, 239.44, 214.59, 232.23, 236.47, 245.84, 215.02, 211.84, 207.99, 235.62, 233.26, 220.23, 238.46,
    205.59, 247.98, 243.54, 241.24, 246.77, 237.66, 243.32, 222.86, 200.53, 246.69, 239.15, 214.35, 201.32, 226.37,
    229.86, 239.61, 228.96, 215.59, 230.02, 240.34, 247.83, 227.3, 219.51, 211.68, 212.46, 233.29, 221.95, 242.19,
    210.37, 204.57, 239.47, 219.55, 236.46, 203.09, 222.47, 240.12, 201.67, 234.2, 229.35, 227.19, 215.69, 249.43,
    237.54, 221.43, 205.24, 230.01, 234.95, 231.51, 225.33, 221.38, 210.54, 233.66, 249.89, 213.46, 218.46, 229.75,
    213.06, 243.11, 244.2, 237.02, 208.16, 240.17, 203.55, 230.35, 201.02, 203.81, 216.4, 241.61, 246.9, 224.16,
    236.15, 235.37, 236.86, 238.41, 206.54, 210.32, 241.3, 238.24, 245.07, 229.89, 214.08, 208.4, 207.13, 220.81,
    201.83, 214.44, 219.76, 233.8, 234.94, 243.35, 238.33, 221.26, 237.21, 225.83, 238.2, 208.75, 240.19, 220.94,
    242.03, 224.91, 219.37, 211.1, 205.38, 212.35, 208.34, 243.77, 233.86, 212.6, 216.12, 224.5, 215.17, 227.96,
    223.97, 219.16, 247.49, 246.56, 207.74, 249.17, 203.33, 245.6, 204.29, 242.95, 228.39, 209.62, 211.25, 207.53,
    225.52, 245.48, 240.58, 231.69, 236.94, 227.77, 224.2, 202.09, 228.9, 237.61, 219.77, 205.31, 203.48, 222.14,
    241.6, 217.05, 218.37, 245.3, 201.07, 237.8, 209.08, 223.21, 205.36, 212.23, 247.24, 211.84, 222.08, 208.93,
    238.26, 212.59, 241.11, 209.08, 206.37, 215.26, 222.82, 227.57, 239.22, 249.13, 243.81, 219.54, 208.28, 212.19,
    220.99, 240.34, 222.48, 212.29, 228.9, 246.17, 206.41, 244.39, 241.5, 223.93, 220.29, 237.74, 221.35, 233.91,
    218.72, 232.43, 210.34, 244.95, 215.08, 212.21, 244.97, 215.54, 222.64, 208.14, 205.03, 228.44, 233.1, 233.33,
    218.83, 203.14, 246.76, 226.77, 226.97, 206.69, 227.13, 203.7, 239.2, 201.15, 230.04, 202.1, 228.57, 208.88,
    203.38, 237.87, 211.36, 232.02, 231.83, 212.53, 248.07, 246.24, 215.04, 214.09, 219.51, 235.03, 242.24, 238.38,
    234.87, 223.23, 244.05, 222.91, 249.49, 203.86, 233.42, 211.91, 228.33, 202.14, 211.89, 248.0, 223.94, 249.27,
    210.65, 233.32, 242.25, 228.2, 216.83, 233.57, 223.62, 215.06, 211.63, 213.62, 219.77, 207.55, 247.28, 229.05,
    247.37, 223.12, 233.65, 206.78, 224.13, 222.31, 209.09, 201.74, 242.77, 224.27, 244.39, 202.95, 212.48, 214.36,
    239.26, 239.56, 221.89, 234.04, 237.76, 205.76, 220.64, 226.5, 200.87, 206.71, 220.56, 221.33, 215.32, 201.7,
    236.93, 242.47, 215.44, 233.76, 216.87, 222.15, 204.67, 208.28, 239.39, 219.67, 211.42, 211.16, 237.35, 215.12,
    210.5, 212.45, 204.15, 227.91, 238.93, 216.39, 238.41, 227.52, 222.29, 212.5, 205.57, 243.52, 220.98, 249.95,
    218.26, 232.81, 229.13, 230.01, 222.28, 218.98, 228.73, 221.0, 247.5, 201.61, 213.42, 205.15, 217.94, 226.4,
    225.13, 244.5, 245.73, 226.21, 211.89, 246.11, 236.19, 206.49, 216.88, 232.65, 239.99, 217.34, 200.54, 212.03,
    237.09, 229.78, 209.09, 213.88, 226.18, 214.9, 206.42, 203.36, 245.94, 216.04, 247.35, 237.22, 240.48, 225.23,
    225.64, 230.54, 228.0, 200.86, 237.68, 233.58, 225.87, 208.33, 203.38, 242.33, 224.01, 234.4, 217.92, 223.93,
    243.64, 214.68, 215.89, 228.04, 218.92, 212.22, 219.99, 210.04, 232.91, 225.02, 207.24, 212.57, 227.04, 237.46,
    245.62, 237.78, 228.54, 232.66, 222.45, 202.66, 215.13, 233.66, 211.0, 206.5, 205.79, 200.65, 233.09, 211.05,
    233.01, 249.67, 222.66, 207.92, 236.28, 248.07, 242.78, 203.6, 201.87, 222.26, 246.43, 231.58, 246.67, 231.98,
    219.58, 229.77, 211.42, 230.96, 235.79, 249.52, 232.46, 210.77, 218.29, 218.02, 219.46, 220.37, 215.0, 216.33,
    227.46, 203.37, 210.32, 218.63, 218.49, 231.54, 231.39, 245.24, 213.15, 216.23, 205.61, 228.2, 216.22, 249.01,
    208.12, 242.2, 222.24, 201.31, 217.12, 242.74, 206.56, 223.31, 249.31, 209.93, 236.83, 213.18, 224.75, 219.7,
    249.61, 226.56, 235.29, 230.45, 222.23, 244.52, 207.01, 246.5, 200.93, 225.46, 207.3, 232.11, 201.73, 220.72,
    233.84, 203.62, 216.74, 235.05, 209.04, 233.2, 234.22, 237.82, 224.74, 211.67, 204.82, 201.03, 241.61, 200.04,
    241.98, 218.57, 230.05, 223.28, 232.85, 222.73, 240.39, 217.12, 247.44, 211.77, 240.75, 226.03, 236.87, 202.17,
    246.3, 205.74, 221.35, 220.07, 243.98, 205.42, 201.53, 210.43, 215.74, 248.29, 212.73, 248.57, 229.58, 216.67,
    215.35, 237.55, 214.03, 224.77, 246.72, 206.57, 228.14, 245.84, 219.1, 223.51, 227.72, 220.35, 240.59, 211.7,
    243.61, 223.86, 202.34, 215.25, 248.13, 248.86, 200.48, 225.28, 228.14, 219.93, 203.08, 202.76, 223.56, 238.99,
    246.78, 237.83, 219.67, 224.15, 249.21, 225.02, 242.7, 203.92, 235.19, 244.81, 213.47, 220.67, 212.59, 224.62,
    223.08, 210.0, 239.92, 201.72, 206.72, 233.02, 214.79, 215.36, 212.74, 222.85, 226.75, 243.13, 226.43, 217.4,
    249.46, 236.65, 214.71, 227.26, 225.16, 207.84, 233.73, 202.87, 211.76, 222.27, 202.75, 240.49, 207.76, 238.71,
    234.67, 213.07, 244.31, 211.49, 221.92, 232.57, 238.63, 249.43, 231.61, 208.91, 212.99, 211.66, 216.93, 246.32,
    243.72, 231.81, 229.52, 218.2, 226.96, 235.67, 207.46, 206.37, 221.41, 223.75, 205.25, 213.18, 219.08, 224.06,
    202.85, 213.12, 231.98, 223.18, 202.67, 218.32, 210.79, 233.25, 224.8, 217.89, 211.21, 227.32, 235.86, 215.79,
    218.58, 214.98, 222.27, 247.55, 226.55, 216.27, 211.69, 224.04, 237.43, 216.12, 227.05, 228.23, 213.55, 206.31,
    203.8, 226.69, 208.29, 246.83, 200.31, 237.9, 210.4, 242.27, 229.05, 218.24, 203.02, 234.55, 203.13, 238.42,
    211.32, 233.94, 201.51, 205.86, 240.13, 223.74, 241.64, 204.79, 246.69, 221.17, 229.27, 231.08, 221.83, 239.56,
    229.35, 231.04, 240.37, 249.33, 202.28, 201.61, 213.1, 220.18, 214.74, 219.44, 208.64, 227.42, 214.64, 243.94,
    246.7, 227.65, 208.18, 240.77, 218.9, 216.41, 222.06, 248.73, 236.84, 222.0, 237.42, 229.38, 217.33, 238.47,
    228.83, 244.89, 222.36, 226.58, 208.91, 204.29, 245.19, 249.92, 246.07, 201.68, 228.37, 229.1, 226.78, 217.7,
    217.64, 233.17, 212.95, 228.94, 233.76, 215.53, 223.24, 227.39, 221.94, 213.37, 247.75, 231.25, 245.77, 223.68,
    209.38, 214.63, 217.99, 234.72, 233.89, 210.64, 236.85, 214.74, 215.24, 237.19, 230.08, 215.33, 235.74, 215.92,
    238.38, 203.44, 246.66, 200.39, 226.68, 209.77, 247.25, 228.9, 233.89, 246.11, 244.61, 240.99, 239.21, 240.43,
    237.04, 226.43, 234.53, 238.37, 236.71, 245.06, 222.86, 211.04, 226.46, 223.73, 224.41, 225.11, 230.76, 249.32,
    213.77, 217.68, 241.85, 233.85, 244.3, 222.1, 239.31, 200.44, 203.22, 203.35, 245.49, 212.53, 220.91, 233.52,
    221.04, 217.79, 235.9, 200.14, 231.29, 205.42, 228.85, 244.51, 224.4, 211.27, 237.17, 213.51, 234.13, 205.34,
    214.05, 241.11, 234.87, 248.13, 213.62, 210.43, 215.36, 213.82, 218.26, 241.13, 239.85, 244.22, 224.02, 200.72,
    218.06, 230.49, 225.54, 210.83, 223.57, 242.88, 228.73, 205.82, 220.8, 246.08, 202.69, 225.34, 235.98, 204.48,
    243.97, 227.14, 220.55, 221.44, 226.33, 227.57, 248.2, 237.33, 228.41, 238.64, 249.12, 221.24, 244.19, 223.34,
    211.36, 238.6, 213.82, 237.77, 243.61, 228.76, 215.12, 242.64, 207.24, 217.27, 248.61, 212.74, 208.2, 242.2,
    235.57, 204.97, 226.08, 220.84, 242.58, 215.38, 224.27, 236.04, 204.98, 247.54, 249.43, 242.77, 216.74, 245.63,
    229.47, 240.28, 200.26, 245.36, 240.33, 240.17, 201.2, 248.72, 229.13, 204.59, 229.92, 230.95, 206.88, 210.18,
    201.4, 244.66, 244.64, 203.66, 232.03, 200.85, 210.89, 247.62, 236.57, 234.09, 218.54, 235.97, 240.92, 228.24,
    203.99, 236.95, 232.91, 244.88, 211.16, 210.95, 221.46, 212.67, 247.33, 226.55, 218.23, 205.59, 230.76, 214.11,
    218.02, 227.61, 245.12, 243.76, 239.36, 223.2, 209.13, 245.21, 245.03, 212.12, 210.01, 243.22, 207.0, 235.55,
    224.26, 233.11, 211.22, 219.39, 233.69, 235.32, 233.46, 239.25, 205.76, 224.68, 226.27, 223.23, 223.62, 221.93,
    203.68, 237.36, 235.66, 201.47, 230.53, 243.4, 242.43, 244.92, 207.13, 240.58, 246.59, 203.59, 229.76, 218.56,
    237.56, 224.69, 231.47, 231.71, 221.48, 231.35, 246.56, 244.14, 241.59, 244.6, 242.0, 216.11, 231.93, 210.68,
    225.49, 224.6, 229.83, 226.42, 222.3, 220.72, 216.25, 234.11, 247.01, 236.63, 224.25, 242.39, 205.29, 230.69,
    226.45, 201.89, 241.74, 202.24, 234.96, 216.81, 214.36, 223.84, 201.29, 213.4, 239.22, 244.72, 226.72, 243.7,
    243.88, 243.26, 228.9, 225.75, 207.65, 213.13, 234.02, 247.98, 207.22, 210.21, 238.37, 232.48, 214.93, 230.87,
    227.65, 224.42, 206.67, 219.92, 224.63, 237.52, 215.86, 201.26, 231.04, 219.06, 249.94, 248.54, 248.03, 239.28,
    216.23, 229.18, 240.89, 205.15, 211.06, 220.03, 203.73, 237.74, 221.44, 209.62, 201.29, 207.19, 205.6, 234.93,
    206.66, 203.76, 214.2, 241.53, 232.85, 213.82, 229.83, 241.65, 244.3, 227.05, 224.82, 230.46, 248.49, 211.39,
    200.19, 215.07, 233.57, 245.55, 202.69, 222.11, 209.21, 229.52, 213.84, 214.99, 240.57, 214.52, 212.19, 213.04,
    204.81, 231.74, 227.84, 241.32, 239.92, 208.43, 201.06, 231.04, 214.13, 216.57, 206.61, 248.56, 212.63, 242.32,
    234.9, 208.05, 241.49, 231.22, 207.02, 225.39, 218.96, 245.52, 207.07, 212.68, 231.29, 229.27, 203.61, 224.72,
    212.54, 200.25, 201.02, 241.7, 210.79, 222.93, 223.12, 234.33, 247.37, 236.76, 212.6, 222.99, 216.9, 205.97,
    235.64, 203.46, 208.1, 206.48, 240.37, 237.4, 242.56, 218.85, 217.71, 241.9, 216.58, 216.33, 207.42, 236.99,
    241.75, 230.15, 204.62, 222.21, 217.43, 236.19, 221.49, 229.1, 203.47, 247.2, 209.32, 246.59, 225.12, 234.67,
    234.24, 244.49, 213.5, 237.91, 227.06, 225.61, 201.1, 233.14, 203.01, 224.65, 231.22, 225.72, 217.55, 217.95,
    211.69, 215.53, 202.31, 233.67, 242.81, 227.26, 225.02, 208.59, 229.68, 223.29, 245.33, 234.43, 214.13, 218.55,
    234.18, 208.09, 217.69, 212.31, 213.02, 213.82, 240.1, 246.67, 231.08, 223.7, 249.66, 218.18, 244.72, 248.49,
    201.77, 210.2, 241.86, 222.46, 249.73, 240.05, 230.35, 219.39, 244.99, 217.23, 210.38, 234.01, 225.11, 248.86,
    219.82, 242.28, 207.33, 215.36, 230.01, 238.92, 244.47, 206.08, 218.32, 228.5, 202.7, 226.47, 241.76, 247.18,
    204.08, 233.8, 221.46, 242.38, 222.25, 248.51, 207.79, 241.58, 234.29, 214.29, 205.38, 202.64, 222.83, 220.57,
    237.71, 231.05, 228.33, 215.25, 205.06, 227.43, 240.03, 242.3, 234.69, 223.88, 238.53, 243.46, 245.92, 248.77,
    247.7, 246.27, 246.0, 245.25, 246.5, 209.2, 223.14, 233.61, 207.37, 223.93, 209.36, 239.78, 239.08, 202.68,
    231.03, 201.46, 238.97, 203.0, 228.44, 229.14, 228.69, 207.26, 223.47, 226.37, 242.36, 209.18, 221.89, 217.17,
    241.07, 207.67, 203.86, 207.75, 230.0, 231.94, 219.58, 245.22, 209.63, 208.94, 221.62, 241.05, 206.66, 220.41,
    210.6, 220.0, 244.88, 232.6, 229.33, 216.92, 217.31, 239.24, 239.74, 232.27, 219.6, 246.63,
]

# Extra symbols for get_available_stocks (they repeat the four or three real ones first).
_TRADE_TECHNOLOGY_EXTENSION = [
    "AAPL", "GOOG", "MSFT", "NVDA", "LGY", "HW", "OLMK", "O", "ZTMG", "BZHAI", "CEXPE", "MQZRF", "XBKC", "W",
    "RHWL", "CL", "KO", "WG", "ST", "RNUUI", "NFLP", "LBCV", "U", "Z", "ABBBQ", "QCZHX", "TMMOX", "STAIK", "GGSSJ",
    "M", "BMXI", "IY", "DAJ", "DV", "JCVLY", "TPE", "CJBVY", "OU", "TMH", "USYPG", "DOXG", "SCT", "DIZE", "X", "G",
    "MZD", "ZILO", "P", "LLA", "QUGWR", "LBC", "STI", "WDQ", "EH", "YF", "TBYI", "ROV", "DB", "J", "OWN", "P",
    "UHDC", "FMCE", "EJ", "YEFP", "YKT", "TJGK", "AJ", "YT", "JFMA", "CUA", "V", "ID", "SBSXN", "UUZTD", "TNI", "T",
    "O", "EV", "VVCG", "UP", "T", "XGED", "RVXY", "P", "PWDZ", "LJS", "QM", "ILZ", "RET", "J", "T", "IIH", "Z",
    "ONUWE", "PX", "LYV", "BXNA", "BVSS", "Z", "NVRLW", "OKO", "RHH", "O", "GGWPW", "I", "BGIT", "EC", "WAGD", "R",
    "E", "ZK", "KW", "PQ", "Z", "XW", "IZS", "G", "ZMROV", "N", "ILW", "TN", "RKV", "LBB", "LXE", "TWB", "FLQBX",
    "OLXN", "KPC", "J", "YA", "SUTO", "BAFYF", "HLCNY", "ZS", "OB", "MURJK", "OI", "U", "QZEO", "QNR", "DLE",
    "SREFX", "YNN", "ZT", "I", "GMET", "CF", "IJI", "A", "IJJE", "IIPE", "FQV", "ZHUN", "ZNQSI", "A", "AAOOS", "C",
    "XXAET", "LG", "BYJAN", "USZRZ", "ORATF", "WW", "PTH", "BDLGN", "NA", "UQ", "IOJJO", "JBTPW", "B", "J", "SEM",
    "XJP", "H", "PO", "JX", "XBW", "GZKLB", "QMXLV", "GST", "OMMPT", "V", "P", "GP", "J", "AKSGL", "HUXV", "AHV",
    "CXVEI", "UCMDX", "X", "NVU", "SJ", "QM", "ZRK", "SB", "SIZ", "QHH", "PDYP", "JTKS", "V", "PPE", "RVB", "XMGSL",
    "N", "JE", "VMUH", "ZRE", "W", "Q", "XWC", "VXOD", "ESQ", "PXX", "BS", "FWW", "TAK", "A", "L", "T", "Q", "LIWK",
    "X", "K", "LYH", "EKDP", "P", "Y", "IULD", "P", "TA", "JRT", "OL", "QQIJY", "DO", "QLT", "COBXD", "BXS", "B",
    "FOCT", "K", "CPOIZ", "I", "AWMC", "WVABM", "X", "ZYSC", "EROQ", "D", "SMIO", "XS", "AOXBR", "UOLK", "D", "M",
    "YZDXS", "OYTFO", "RVKBA", "ZH", "I", "GRE", "WHK", "UBJ", "V", "LX", "O", "UK", "JBQF", "WAWUE", "Z", "IUWPI",
    "ZV", "E", "DWPFL", "D", "KLBMK", "YMU", "QANOX", "EEMGR", "EDICO", "MQ", "A", "CYI", "JGWF", "E", "SE", "A",
    "KHYM", "G", "SROM", "YNJKH", "PMUN", "GNIKB", "JH", "O", "LVYRM", "KLN", "H", "VF", "SBTTV", "XNRZJ", "MMR",
    "QVBIX", "NYGEY", "ZTI", "UUB", "P", "MQBB", "ESJNT", "OW", "XNS", "XWFI", "LQ", "AOXC", "EUUF", "ADTMM", "GQ",
    "PGL", "ZOMAS", "NUB", "FDO", "ZN", "CTVV", "XFP", "AIQI", "KPULF", "PEGNC", "DVQC", "EUNR", "LMDB", "TWI",
    "MQO", "U", "NLJJ", "IK", "KCUZ", "ZY", "GNZ", "DVEHH", "AAJ", "VJYJY", "R", "RUQFZ", "VLZ", "IH", "BI", "L",
    "T", "F", "BR", "D", "QZJHI", "JH", "OO", "R", "BZM", "EY", "KUA", "Q", "GIE", "HK", "FK", "TDS", "BLYFT",
    "CZY", "NPN", "O", "YOLCR", "GPTTY", "N", "JSOM", "ODB", "BOF", "RPA", "TYUE", "YJXQC", "SAZ", "UOI", "R",
    "BLJM", "UCJKW", "CPHDJ", "QB", "ZZB", "Q", "QFNE", "ZHFOF", "EJQ", "RZX", "CS", "DDNYC", "SLT", "LE", "UV",
    "FS", "GP", "U", "M", "TDG", "U", "MWAP", "YTR", "X", "GWLU", "M", "Y", "IX", "VDV", "TISAC", "L", "F", "T",
    "ZNS", "EXX", "I", "SBGS", "BWT", "XNUKY", "W", "UCEU", "B", "S", "WKFR", "FLLRO", "BVTR", "FNAJ", "ML", "MG",
    "QJ", "LDCTR", "THIV", "HIM", "HRC", "L", "ROX", "O", "UKP", "YHG", "QNGQS", "SUJ", "YWMW", "LNWDJ", "YTH",
    "DGJFJ", "BGCU", "ADUH", "KETP", "Y", "EQ", "NHZUS", "PJ", "GGUMD", "NAHZW", "SSU", "O", "U", "T", "XXR",
    "DTVSN", "IST", "KDLFP", "QFD", "DHTT", "YT", "PXIU", "ZISP", "GEKN", "PC", "FPVGA", "QCKYQ", "QYSCY", "X",
    "JAMYJ", "FGDY", "U", "ZIUU", "WDXK", "UXE", "RP", "KMTFP", "E", "QQAWD", "C", "X", "QUJ", "SONRZ", "N", "LRF",
    "P", "FF", "ZPCDE", "QFC", "XYVFP", "VQVVN", "P", "RXMQ", "VLFCQ", "SYW", "RJSB", "JHBGM", "VFELK", "Y", "ETR",
    "NAJIV", "C", "G", "ABDW", "LG", "AANNY", "ZFED", "LT", "C", "RHYU", "PBJRL", "PVH", "GZDHN", "O", "D", "SR",
    "PC", "A", "NVJ", "VCF", "UN", "ZWRO", "LJD", "EA", "Y", "ZE", "EQHBL", "YNH", "VHE", "BFTR", "CIXYV", "M",
    "BNX", "J", "T", "ZFCZ", "KNBXP", "K", "V", "CV", "F", "GJUI", "JHWCR", "P", "ACVFL", "BAWOD", "Z", "PP", "MJ",
    "ICV", "ZNWEK", "F", "L", "WMGE", "GMGBV", "UGA", "L", "V", "UYC", "UXYA", "S", "IYTO", "UV", "V", "TTAP",
    "XUZ", "WHQO", "LYPLL", "TZIP", "Z", "BC", "GTLSX", "R", "T", "U", "GCQ", "BI", "JGSW", "WE", "MZGM", "MB",
    "TYMTA", "LDWU", "QLF", "H", "SPVTF", "HK", "LA", "KJA", "Q", "RZVEN", "LUR", "CZZMC", "X", "WPA", "ES", "BJ",
    "HSUN", "UNMH", "N", "ZYRH", "YR", "IRR", "ZRQH", "MNJD", "Y", "N", "KP", "T", "AC", "GADM", "GLCW", "WZIII",
    "XRD", "XK", "EQOQ", "QI", "S", "MTRK", "R", "BEPDR", "NMRRK", "BUO", "L", "P", "XJEY", "GULRJ", "GKCIO",
    "OOON", "DD", "EKUPJ", "BORN", "UNGHF", "QCN", "ZHQN", "IPZ", "BKGUA", "V", "OE", "LUKZN", "KEOOG", "LOAE",
    "VPRG", "CA", "EBJIH", "UTPL", "WNTI", "WS", "PL", "QGXRE", "ZF", "CZ", "LJCWF", "FFGN", "ZVE", "NQ", "GWXZQ",
    "JGFI", "COAQS", "ZUZOQ", "B", "MIYPA", "RJ", "SLC", "TOMA", "DSTRT", "VU", "JZ", "BAS", "VKWN", "YPPFU", "KNN",
    "YOZKD", "F", "VWWEI", "A", "SVIT", "F", "XZTT", "P", "DJUD", "OVP", "IMCIE", "P", "YO", "SQUB", "KXHVG", "XJP",
    "W", "O", "LC", "UQ", "MX", "EG", "NOB", "M", "RCFSJ", "V", "LEJ", "R", "MZJTS", "D", "GWO", "KOUHA", "C",
    "MGSQ", "CAAMJ", "ZFBA", "HJY", "R", "WWSZL", "TVYW", "MIHZE", "ZM", "CS", "PWU", "PUFZ", "AOU", "X", "GZP",
    "N", "TCMGE", "LZCNC", "BRIP", "TZ", "CLI", "VHLR", "D", "CPOYH", "ZJGRO", "LWUZ", "QZQYC", "UHMR", "ILK",
    "KMSEE", "G", "JTXY", "S", "E", "RO", "UAXD", "WGYYZ", "UG", "QD", "YIVP", "J", "LMA", "DLPH", "H", "VKA",
    "DBJ", "MHKE", "TV", "WB", "SP", "OSEC", "RZ", "BJG", "CGI", "GPUHT", "OJ", "SBFFJ", "BOPLK", "R", "PA", "OOQ",
    "E", "OFI", "GFRT", "UYIA", "PXGKE", "WWSG", "B", "ZSCK", "RJGL", "DIC", "GK", "PWPF", "DF", "K", "UR", "HY",
    "AA", "IABI", "S", "N", "QIEW", "RLHQD", "ZVXJJ", "YEO", "WDWZ", "GJ", "CYOA", "U", "V", "QKN", "V", "MY",
    "JMMZA", "FXN", "RJW", "U", "NGATS", "YOJRT", "QLFUU", "QRO", "YU", "NP", "IOYQX", "XX", "TJQLA", "VSEPP", "QJ",
    "ZNZYC", "TT", "OBHED", "UEM", "WFTF", "EBDA", "IY", "PF", "RGXTC", "SMWL", "HF", "T", "CRDG", "MBXF", "AVZNI",
    "ERUY", "DFAD", "YE", "PGT", "UNJH", "UNR", "K", "VLBYA", "CLD", "FSRAV", "IAW", "INM", "LUPTK", "G", "ZXCAN",
    "EMY", "L", "VGP", "AY", "ZUT", "NVUI", "SZ", "FTI", "WF", "A", "BHD", "MWRYL", "VVNV", "JYVJ", "OSZQN",
    "SPUZH", "U", "VF", "GXYNK", "LXSM", "GLY", "AJYW", "XZ", "E", "X", "MGUV", "KKM", "JJY", "JDIOB", "BITQ",
    "ABV", "MWRWZ", "OGCLJ", "OAH", "H", "B", "PH", "C", "BUBJ", "XAV", "BAPUB", "L", "IVM", "AGK", "HEDQC", "BJPA",
    "L", "GR", "NLVIA", "VQTS", "VAE", "VQ", "DBY", "EYRZ", "RIKW", "R", "BKNSX", "PRNN", "JVD", "R", "Z", "BCSOX",
    "JRT", "BFJ", "S", "QV", "VVIUC", "W", "RNJIG", "GDQMC", "VRD", "B", "TBP", "RF", "IKB", "KURKI", "GF", "KFIG",
    "KIP", "FZER", "UZVPL", "TFCQ", "NDXQF", "QOU", "FP", "R", "GKQZT", "Z", "S", "YBRWT", "AIL", "NJEJU", "NF",
    "RXBP", "RPD", "XPQGJ", "V", "XCQF", "POVOI", "XOSKL", "O", "VGU", "HZ", "BQG", "CKPG", "ZC", "SOMX", "IHQL",
    "FPW", "DLOSK", "WEEY", "YQ", "XRYBN", "JBB", "AT", "V", "XXY", "S", "QJT", "AUL", "TPEP", "DGRS", "AU", "QB",
    "CT", "WND", "VEM", "F", "S", "XL", "XVGD", "UYAS", "X", "YDJM", "FVOWH", "YT", "LCQR", "F", "FID", "MJKQ", "R",
    "ZLF", "LS", "P", "GG", "PE", "CHAC", "MMIUH", "AFDLK", "XS", "BMY", "C", "FDVU",
]

_TRADE_AUTOMOBILE_EXTENSION = [
    "TSLA", "F", "GM", "UNUGJ", "BVO", "OG", "QMQQH", "CP", "NPIGW", "V", "TKVI", "JY", "JWLLW", "GEB", "C", "XX",
    "OSI", "RDGUA", "FXM", "ZXFWC", "U", "YZ", "HYMU", "OLD", "FBCI", "K", "PKYUU", "Z", "TY", "XL", "LS", "FOE",
    "W", "UBJRI", "G", "TGRBC", "LPJXZ", "NFIT", "K", "BDUP", "A", "LOBW", "XDQ", "WR", "VROU", "GDTKY", "TKR", "S",
    "YF", "YFUQ", "QB", "YMTF", "VCD", "OSI", "HXVKZ", "OMHFR", "KGF", "IRERC", "KGJQJ", "GRH", "H", "CKGT", "XMIM",
    "XDX", "NJKMM", "CAAH", "ADZZ", "DOK", "SF", "I", "PWGLY", "UL", "XE", "VM", "AQ", "UOO", "WGXLY", "QFSSP",
    "TL", "ISXYP", "BQ", "P", "RWJFT", "SURJ", "ZRT", "P", "QIDI", "L", "HV", "MCZ", "F", "WNFH", "S", "NOZ", "QZM",
    "KFIMY", "F", "Z", "AOPS", "CNKA", "FBQ", "EH", "MO", "QQ", "G", "N", "K", "SWNN", "OLPW", "T", "QM", "FPHBD",
    "NOTC", "AFTIO", "Z", "AGFV", "CO", "VLF", "EVRZZ", "C", "CRO", "NKUR", "AZ", "XWARH", "HQT", "STMAW", "E",
    "GIKUN", "W", "CCLU", "YUMJS", "DQU", "DZGDS", "OOPT", "BZ", "CUC", "PFOVE", "XZSYI", "ZGQWT", "V", "HQORG",
    "RRO", "UZHR", "D", "TEKU", "LE", "Y", "D", "ZQFB", "VFDUT", "N", "NQ", "U", "BNBT", "VP", "NDVAX", "SLJHH",
    "VOH", "WCEWX", "H", "TA", "SIKV", "NABM", "H", "PHTUJ", "MKWP", "LVBHX", "F", "SU", "F", "ZG", "YW", "LEOK",
    "TB", "CY", "I", "QAJBB", "B", "D", "CMRQL", "MDF", "ZQTW", "IOKV", "PZK", "CP", "WJWIP", "DTXW", "C", "NL",
    "X", "MWN", "RUMJB", "CVGKN", "HLXTI", "MAJN", "ZQ", "GL", "IOD", "LNBI", "Q", "HGEUT", "XFM", "RDWY", "RG",
    "XTEHH", "J", "NM", "H", "OHN", "P", "KBC", "NGY", "IIOX", "RI", "PU", "NMNYU", "RBPMB", "XDD", "S", "RPF",
    "KDT", "NHWZ", "S", "WFJ", "ZG", "HCGAP", "FGV", "S", "VJU", "BMGZG", "CMZ", "U", "YY", "AGBJ", "EQ", "JCYQD",
    "SSMLA", "Z", "DLEW", "UAPAR", "SPXS", "NV", "BZLG", "L", "WKWB", "WLFF", "JINW", "T", "GF", "UGYQ", "ZGBP",
    "BR", "DVCGC", "BD", "KQTS", "VPUW", "FMAXH", "AP", "UP", "M", "SRKHL", "G", "F", "CIJ", "QEEM", "UDW", "SH",
    "MO", "LNU", "ZSKHQ", "YDQU", "JD", "MJ", "HWHT", "P", "RBP", "CON", "F", "CVU", "SUL", "ZMQSK", "IMASE",
    "HXTCM", "ZKF", "RWLIL", "IQN", "SWQJ", "LSJ", "WF", "LMGLH", "QSGU", "UL", "SVMCX", "SQZE", "NI", "S", "E",
    "VFRW", "T", "XXGD", "NNVYD", "BV", "TL", "MXR", "HWKK", "FI", "TGUW", "KQJGC", "OC", "XW", "YWXE", "ORDM",
    "NREH", "RUYBQ", "WWZSH", "HI", "T", "Q", "YUC", "EMB", "LZ", "GSMMR", "VZULM", "GOYES", "OI", "JTJK", "OWU",
    "CGYPQ", "FR", "OVG", "WRGP", "LGHI", "A", "WL", "MZGV", "IH", "XX", "WCFPV", "UHM", "QWTHQ", "KS", "F", "RKC",
    "FJE", "C", "OKQE", "XKPPX", "R", "JOCB", "ZIFP", "LZGDD", "IOISR", "JXZV", "NFQEM", "TJSSW", "TSFL", "AEU",
    "G", "OENTN", "WQ", "I", "F", "VBGE", "RKA", "L", "NV", "OPM", "S", "U", "QS", "IK", "WD", "JCZM", "ZVA", "JQF",
    "KJ", "ZT", "M", "PJQSU", "ACL", "QWI", "NSA", "HH", "PXNR", "SK", "SK", "EBVXP", "HFCKN", "HWMW", "U", "H",
    "AWV", "Z", "IANC", "HMI", "X", "BLTU", "EJVWN", "HUAFW", "GJ", "VPCI", "IVR", "NTM", "XBIU", "EC", "HYR",
    "PIZJ", "OYH", "QI", "IP", "A", "VM", "EX", "VZ", "SEEUM", "GQ", "GLPS", "ZE", "PT", "DEP", "AEFLT", "I", "HAR",
    "ZSJBU", "XQXN", "V", "RM", "INL", "DZQ", "C", "FQX", "ZWCCC", "UDET", "L", "IHE", "F", "CB", "ZSD", "JHMRJ",
    "WU", "WFQI", "ZIRP", "N", "DEEBW", "ERCCX", "VIRUP", "QGBX", "PQJS", "AKZCO", "BNQBB", "II", "U", "MI",
    "IYMLL", "BZSJT", "WW", "JV", "A", "EVY", "JDS", "N", "UGNS", "EZXWN", "DYMR", "CIX", "VIEPZ", "CLMI", "BNL",
    "H", "S", "N", "I", "KXSAQ", "HFNA", "NUMC", "HOPK", "DY", "HCOL", "VHHVC", "WFCPE", "COK", "Q", "MMWVS",
    "OKVSE", "H", "FUTY", "C", "ZMQF", "LNX", "V", "KWDM", "RBNA", "SMYN", "NUD", "BPFQ", "Q", "WNN", "PBNUT", "ZU",
    "GNYC", "BPD", "W", "NLB", "OXNDN", "VO", "J", "CWMVT", "ORVDN", "RSAT", "Y", "ONA", "GLTI", "DQIBO", "J", "X",
    "HOK", "QY", "UOA", "CC", "VN", "C", "GF", "EP", "VY", "XE", "BLX", "PTY", "XTTWI", "ONPNW", "D", "UGUHL", "YO",
    "OC", "ZLC", "KPDP", "VD", "W", "DZB", "TD", "SQVR", "KHYOM", "R", "BGZ", "J", "VXXAL", "CS", "F", "NGM", "K",
    "NV", "PF", "RA", "ARIBM", "SAMK", "KM", "W", "PEJN", "XG", "EMKZF", "HSLV", "CN", "KIJ", "XTIS", "VIK", "JVB",
    "JNXF", "FNGP", "ZHXHW", "JEIB", "OXJV", "ZBWS", "TOJU", "S", "BNWK", "QQ", "P", "BRPH", "ML", "U", "YP", "U",
    "G", "TB", "BVEG", "VWHRS", "JHQ", "OFAA", "XMV", "OQ", "CXVMA", "YORQ", "VFV", "QAE", "WBPE", "EVI", "SHPH",
    "F", "HLQUQ", "GB", "HLM", "MMQO", "YEGLY", "DUNMI", "XZ", "GKJ", "WRHG", "XI", "M", "UPP", "OST", "YTTV",
    "WDQ", "FDE", "WUD", "NCZEW", "EPW", "QQQG", "TN", "GHDTM", "GLXKD", "LDEVJ", "YQRYU", "M", "T", "QNIR", "U",
    "GZ", "OO", "I", "BU", "IRBTQ", "Y", "DQZJC", "BUIAB", "RU", "AR", "JJIYM", "C", "TOJ", "RLVWB", "RYSVE",
    "ZQTI", "ILK", "Q", "V", "B", "IZ", "JVB", "MAMGE", "PD", "VEFV", "IHW", "FFXK", "PX", "LFOA", "YZK", "UZT",
    "UYJ", "FHM", "AWW", "UAB", "OV", "R", "DGXE", "I", "TI", "UES", "GJN", "ETC", "S", "B", "RAICA", "UO", "AUGJ",
    "YHMVJ", "SXDO", "DYCNI", "LD", "LEND", "Q", "P", "GLOZ", "BDQOP", "ZWJ", "JNDBC", "WZOU", "KLA", "HI", "KS",
    "YIEA", "Y", "FHIW", "F", "M", "RBFF", "XG", "UV", "VGKP", "C", "Y", "MYCHS", "B", "MLWP", "VRC", "V", "PJSWZ",
    "GTOH", "JAKHY", "TFY", "T", "ONLF", "SO", "QPKBD", "BKYMJ", "B", "NXJV", "S", "N", "XNFME", "XRQ", "DXQVZ",
    "L", "CQDA", "L", "KVFXI", "O", "SHW", "MKX", "AXSSZ", "IC", "RQB", "H", "F", "E", "MDWTH", "GLMDY", "UKAZI",
    "ZW", "H", "OWN", "KOWJ", "HQ", "DMNX", "IXARP", "Y", "EQFD", "TK", "ZJYI", "EIFU", "O", "UWBWK", "XRKJY",
    "WLD", "TYXQO", "WL", "EMVG", "ITHXJ", "DCZMP", "IWIMA", "DWAT", "UIJ", "THI", "L", "G", "NN", "RN", "DCYM",
    "PZ", "WHF", "KCH", "LAM", "AZD", "L", "TW", "HGD", "QCKIC", "LFBVX", "N", "B", "YKO", "EA", "KTOED", "RRZ",
    "TZOZ", "KL", "M", "M", "HBTS", "VO", "XTKZW", "ONBDU", "O", "HLNT", "SEKS", "AJKHZ", "GFLII", "RJJL", "PWHM",
    "WXJGK", "DNN", "CAKM", "MA", "F", "Y", "A", "RAK", "RQTR", "V", "H", "YGYBH", "SNJL", "IEOS", "TEAOU", "PYJFQ",
    "OIG", "B", "IPWKX", "ASIPM", "HIC", "OYOO", "MF", "KHP", "HYP", "AYS", "IRK", "PDXPG", "N", "JVO", "MHS",
    "BLXF", "AM", "N", "GGS", "IB", "ZUMRI", "UG", "JL", "FWL", "D", "SVB", "DQ", "XDCM", "PJ", "DS", "Y", "INN",
    "ANQ", "CFZ", "H", "YOZH", "IPSQ", "VBLKN", "CKF", "FV", "RZBML", "PXE", "TWRK", "Y", "TDDL", "LRN", "AOQH",
    "AC", "Z", "PJEMA", "FEQ", "WU", "MCG", "IP", "CMJ", "SU", "YQJWG", "HLIT", "BFJP", "GSD", "C", "ESRQF",
    "MTXWP", "LLF", "EOS", "PQOWQ", "TI", "GI", "GS", "TMG", "TYQSO", "WEFN", "YRSOM", "VDY", "UJ", "IKD", "Z",
    "ULXG", "YLHLK", "QI", "NHI", "ZF", "HJJXC", "UMKYO", "BV", "K", "UXELK", "NPE", "UHBOE", "P", "LA", "GDOMV",
    "DAL", "SB", "OZNUX", "B", "KUYQC", "QDI", "M", "P", "KA", "BS", "IX", "Y", "GX", "CXTG", "K", "HBWC", "ZEWFA",
    "L", "RSVS", "YG", "J", "FNNU", "A", "F", "B", "CGVQB", "USJE", "UZP", "OQ", "I", "HYWQ", "FG", "UFXN", "XS",
    "ST", "RY", "IEN", "UOA", "YPCQH", "RKA", "TSO", "RF", "R", "ZMP", "Z", "ZDU", "PNR", "WM", "TJ", "MEXAH",
    "WJISG", "JRW", "J", "QXHH", "DX", "P", "HZCWC", "V", "HPPJL", "PGQKJ", "P", "HJXLO", "XUPC", "OFWO", "OXLS",
    "MJHK", "IMGGK", "WKAX", "SRWOI", "MPUYM", "DRCY", "MG", "WOQZ", "ABRXA", "GJCR", "JCUQ", "DV", "EJEDV", "Q",
    "FF", "QJJ", "JNSPS", "PJAU", "GI", "UDVR", "FC", "SS", "NQZV", "HMDQV", "MLP", "CTQK", "JSAL", "IFD", "EM",
]

# Extra symbols for get_watchlist.
# subtle: BFCL's list ends with the Ellipsis object (a literal `...`), so the result's str() ends "Ellipsis]".
_TRADE_WATCH_LIST_EXTENSION = [
    "JHGUN", "LMAT", "YNK", "W", "XSW", "XZEHV", "R", "UIENW", "H", "P", "JN", "OQAI", "FBIS", "DZ", "K", "JNZD",
    "IJXX", "Z", "J", "FJD", "D", "NMONY", "GMRH", "LS", "G", "VEUCA", "KBWCK", "BAJ", "V", "FTCW", "YOTF", "PU",
    "GOUW", "UMQJN", "KSA", "HDYC", "HTTKI", "Y", "S", "OYXV", "Y", "HGA", "YBRB", "O", "CLBAP", "UPN", "CQK",
    "NGCJ", "KX", "XQW", "MK", "T", "LPGBV", "HP", "D", "CW", "HGQRT", "HZ", "VGF", "QIA", "I", "DXFI", "DLKGJ",
    "VWJJR", "CHGAI", "N", "JXBJ", "Z", "H", "IIHPH", "SAY", "F", "EJHS", "VXCU", "QHL", "JNFBP", "PQNP", "E", "WB",
    "S", "BGMO", "CPM", "WQYU", "ZOJS", "GA", "FPKT", "ME", "BOS", "OPSP", "RYR", "A", "LI", "HLP", "N", "FZGF",
    "VC", "KU", "GVG", "CC", "PGNK", "XMOB", "GDRDH", "Q", "IMKY", "MCZ", "RPM", "KLX", "BO", "LRDS", "Q", "JM",
    "AFYEN", "ZEIE", "FI", "HIJQQ", "MAN", "Q", "JBU", "UZGZ", "NXA", "UVQPH", "CD", "GWG", "CQELF", "I", "ACH",
    "INUP", "PQM", "XQXBK", "ZTEVF", "YW", "AQ", "Y", "O", "IU", "UX", "XEFEG", "AM", "YWV", "JC", "BI", "AO", "L",
    "JCVMS", "PN", "VNGUG", "BX", "DDKDG", "KRP", "X", "LGN", "Y", "WYOY", "CYQNZ", "ZPQFY", "QULWX", "DC", "OW",
    "LDPNX", "EFGIJ", "PMAAO", "SCXU", "UZHJR", "XLU", "WAQ", "NZJHK", "WHHKS", "KUR", "S", "AVVI", "W", "FU",
    "LKIJP", "X", "JWL", "BL", "KYH", "WT", "IU", "WFBLH", "MHEH", "UCB", "DH", "EI", "V", "J", "URNI", "TT", "Q",
    "NELL", "YNCKW", "WFY", "DYHJ", "GFC", "S", "AR", "DIX", "W", "OWI", "TOHNF", "DEA", "D", "XGEER", "ZJ", "HL",
    "AH", "D", "BAKDY", "HX", "IVCEL", "RMA", "CGM", "BLUZQ", "B", "K", "II", "YC", "RRUX", "LOPT", "ZKKVF", "ACO",
    "BW", "ZLCPC", "YFS", "ZQNAF", "AHP", "P", "RVO", "PLVYW", "FVLK", "ZO", "T", "UH", "CRSM", "OT", "CTQU",
    "OXPN", "EMY", "MZ", "KRIC", "VGCIW", "HDQUR", "MH", "WSH", "PMKGG", "SXHJ", "JBKT", "Y", "X", "JCAU", "RDOQ",
    "ECE", "OIQFI", "K", "LIW", "R", "W", "RIFW", "EV", "CE", "CKWT", "WUULT", "D", "TIDAW", "MX", "HUMWI", "QKPM",
    "UX", "ICANP", "MQERM", "IC", "F", "VQW", "LXVZ", "S", "HW", "LJV", "D", "EK", "MUJ", "LSCL", "S", "DBC", "W",
    "QC", "U", "VIO", "KI", "IKS", "OL", "REZO", "HQJB", "UE", "IG", "NTY", "M", "W", "HAWLO", "OV", "YKXYV",
    "UBOE", "H", "TTB", "HSWUL", "LG", "O", "P", "N", "I", "Y", "IPEI", "L", "BJZ", "QQ", "O", "N", "RDTEI", "POC",
    "MP", "ROTOB", "SOF", "S", "PKHC", "YEBA", "KVRK", "L", "ST", "LZT", "V", "X", "AY", "MGHYT", "TR", "OHF", "N",
    "H", "CHL", "KHLBF", "Z", "FFID", "Z", "B", "TF", "JITII", "UHNWM", "VGFOO", "OW", "KTZTK", "BFNLX", "PWB",
    "VDNWY", "QEVKO", "AQ", "XYMJO", "FR", "RFN", "Z", "DJ", "FOHQW", "C", "P", "WRH", "WD", "QZNF", "O", "JH",
    "GG", "C", "H", "HWOKP", "YNKSZ", "KICYT", "HSNLG", "CIB", "ZMSJN", "Z", "H", "ORPB", "F", "S", "QXLNA", "AANR",
    "UOL", "Q", "QVH", "ILUY", "C", "DCJ", "TKH", "MFDF", "LWKF", "IKMGU", "NEL", "KPM", "ISCMP", "ZJ", "UPF",
    "ZSDQ", "C", "WOX", "ZNME", "YZ", "ZPK", "XY", "AXDI", "KYYY", "H", "H", "VR", "C", "ON", "KOO", "PILBJ", "P",
    "CM", "PKB", "ZVT", "BJB", "TWXH", "RD", "XWX", "MRTNG", "LY", "HNIV", "IEPM", "SJEOV", "FXW", "FWVYY", "LH",
    "AYOON", "OBMU", "VU", "HMX", "TVLF", "FBY", "GXWI", "WR", "MHK", "XBE", "YCB", "G", "ED", "LN", "BNJD", "FL",
    "DS", "HMS", "DNDL", "YREER", "WR", "VOUQH", "MPXZ", "TZXVY", "JIXV", "CRF", "PVYA", "GEP", "ZNK", "IGHJ",
    "FER", "WZDFX", "CF", "EB", "LMN", "AZYXJ", "QDXJ", "YWE", "P", "NYK", "Y", "J", "KH", "WKDJW", "HUY", "CUJUI",
    "UMXR", "OZCXH", "NOD", "A", "WJYW", "OJWXH", "L", "TQCZ", "IB", "WV", "LZF", "YRXXC", "YK", "FEBMI", "OYR",
    "I", "XSP", "HZKEK", "QURFG", "XU", "RTYWY", "LV", "HSRF", "JPUFI", "KRE", "KW", "X", "IAU", "VYXN", "F",
    "ASTJG", "C", "QCFLG", "VZO", "B", "UURE", "GULB", "NE", "TIFJ", "DRPXD", "EAOZC", "WDF", "OEVZU", "E", "IBG",
    "XJ", "BE", "YLG", "ABV", "GV", "L", "LTD", "EL", "TEIUX", "UM", "XPAGG", "VUFZG", "MWTA", "IQI", "NJY", "ACP",
    "C", "J", "AKB", "X", "OM", "XNFV", "QSK", "AGUS", "CYVF", "EW", "OHB", "BC", "GMQRF", "SNCLM", "NKXDP", "DHGV",
    "Q", "HQ", "SU", "GVDGR", "FKZGR", "TOMSF", "JJMCF", "GRSCV", "S", "XUB", "AFQ", "XSCUT", "SG", "CF", "L",
    "MVSV", "YR", "F", "DSI", "VJWZA", "YRXXB", "Z", "ZEY", "AGEH", "Z", "IKBBO", "EMM", "TTW", "KSSMF", "IPOKB",
    "F", "GQBHL", "HJG", "GC", "JTX", "DSW", "CUSM", "KW", "HGA", "Y", "N", "WFE", "GQN", "DBS", "BBRM", "IVSP",
    "LVX", "OXQF", "PPR", "USCJT", "TXBVX", "W", "V", "BSU", "DBIK", "FVTY", "FJNXI", "FWXGY", "KSQGA", "XQD", "KF",
    "BVX", "LMJFU", "SQAP", "JGIDS", "HOH", "XHRMK", "RDG", "BMYNW", "H", "CK", "NJO", "DOS", "JKT", "VERO", "B",
    "Q", "GWU", "BI", "CHT", "CIV", "XQT", "EDD", "BPIF", "G", "Q", "B", "N", "VH", "KEB", "LRLIQ", "X", "EHRYZ",
    "UF", "KS", "SNW", "LHRKP", "KBTXD", "JLOX", "J", "HIM", "V", "QA", "N", "EBKQ", "NQCJI", "XVV", "DYZX", "FG",
    "EGYQ", "QB", "QF", "L", "NCW", "SVJW", "MKBW", "KS", "M", "LPH", "ZLT", "DR", "MPON", "RVSA", "VZ", "X",
    "BIYTW", "M", "L", "RUC", "VMG", "AB", "URRF", "RLU", "RI", "B", "I", "MW", "JFNB", "ETWA", "T", "ZESUU", "N",
    "JNG", "GFQ", "KHH", "JG", "CF", "ERQ", "ZJCN", "XW", "IRVZ", "XU", "LVHPU", "NABN", "NNR", "IJFY", "JDVJA",
    "JQHYO", "ZSPL", "W", "RXRY", "OALL", "COVM", "FKAMV", "WJ", "PRC", "YY", "JLILK", "VBO", "X", "C", "OO",
    "OKZV", "BVB", "RX", "NBJG", "GVZ", "CHJN", "LJM", "Y", "OM", "WIZO", "BCTBI", "OYSUT", "PRLBI", "U", "SC",
    "PY", "BHPLR", "M", "YOS", "CY", "Z", "PU", "NEJ", "NXBBD", "VNEY", "WNMT", "MICQD", "PGMYM", "A", "RYVIK",
    "WQONJ", "SEAD", "V", "TTAES", "CWZ", "OHMUM", "SNMPE", "D", "XLOSS", "QOFCP", "UXLHW", "WBMOD", "WKQ", "GZI",
    "KXHVX", "EV", "A", "BEPNR", "KTM", "E", "YGGGL", "JHKN", "G", "WDB", "C", "CCEM", "Y", "VS", "OA", "GPV", "HC",
    "OBV", "A", "JHC", "BGB", "CSB", "TENS", "EIQ", "OGCUW", "FJ", "BP", "U", "T", "LTKSX", "H", "WM", "TMEZ", "W",
    "MGBG", "CHD", "FJL", "LA", "TTW", "JZ", "N", "LUT", "QM", "LLT", "VZLH", "VFJCR", "T", "X", "NSAD", "Q",
    "ATUI", "DTP", "NTBDB", "OIVEX", "G", "C", "GJ", "EM", "LQ", "B", "J", "MPMXG", "ZYJ", "SCXSB", "Z", "MB", "EO",
    "TQ", "KYQJQ", "TCX", "EMDGT", "PQHVI", "K", "IIJA", "TLDJ", "GZQ", "KMD", "KKHG", "W", "TE", "EWIJ", "E", "R",
    "NDOT", "WWBBM", "TEP", "DIDJP", "H", "DUPV", "YP", "B", "ODEDI", "J", "QANK", "UZFB", "MGLK", "CDSPC", "AWTQ",
    "EYNN", "ISGZE", "ZR", "YD", "QSG", "F", "I", "RA", "KEDJI", "OKPM", "IDMR", "YFNI", "M", "ITLZC", "B", "C",
    "KK", "JA", "VIXP", "NRKC", "WC", "RPQP", "J", "WJ", "Q", "JCNDJ", "YHZ", "FNA", "SRR", "CXTP", "F", "PGORW",
    "U", "CF", "SPDMG", "QNBZ", "LYRZ", "IA", "YFNB", "BRMO", "LY", "USK", "PANP", "OTRWT", "MAQF", "MCNF", "ERB",
    "ZVE", "NBI", "FAIS", "ME", "QC", "CJ", "HO", "U", "OBUDX", "RS", "GX", "ADPV", "DGTPN", "IZ", "BEPTR", "FNJDI",
    "IW", "I", "K", "NUI", "IMAAM", "MO", "OKK", "M", "NS", "KVNET", "DC", "EFD", "RS", "S", "OHQK", "UCGZ",
    "DXHZB", "UPK", "GE", "ZUZMG", "ISI", "TPX", "ZTLN", "QMDZO", "MB", "QLL", "UOCSH", "C", "EGLI", "YJC", "SMQP",
    "TSW", "YO", "C", "E", "NNY", "MP", "LN", "TQWHK", "KMFZN", "BQZ", "ICYSZ", "B", "JU", "URY", "FT", "EQF",
    "IEUK", "I", "GSGBQ", "EXDG", "AGC", "F", "JHH", "HFLSA", "VRM", "XIBO", "AR", "DGNH", "UVCXR", "VT", "IE",
    "FLMEO", "Q", "CFIQC", "PUWZ", "SN", "BX", "NJTKO", "YBTT", "ZRFRE", ...,
]

# Extra transactions for get_transaction_history (their timestamps carry microseconds; nothing parses them).
_TRADE_TRANSACTION_ROWS = [  # (type, amount, timestamp)
    ("deposit", 9933.53, "2024-05-01 22:14:05.858817"), ("deposit", 9084.83, "2023-10-25 20:12:10.858830"),
    ("deposit", 671.32, "2023-10-04 06:33:21.858835"), ("withdrawal", 9665.3, "2024-04-13 15:29:14.858840"),
    ("deposit", 3921.42, "2024-03-16 06:18:24.858844"), ("withdrawal", 9675.67, "2024-07-26 21:53:21.858849"),
    ("deposit", 853.72, "2023-10-28 18:01:23.858853"), ("deposit", 932.42, "2024-04-19 10:06:26.858858"),
    ("withdrawal", 6048.05, "2024-01-03 22:01:08.858862"), ("withdrawal", 6235.57, "2023-10-04 22:40:59.858867"),
    ("deposit", 1703.82, "2024-07-19 17:51:05.858871"), ("deposit", 6062.24, "2024-08-26 19:12:20.858875"),
    ("deposit", 588.7, "2024-05-18 13:36:18.858880"), ("deposit", 9369.51, "2024-01-20 09:27:29.858884"),
    ("withdrawal", 2344.74, "2023-12-14 18:52:10.858888"), ("deposit", 4475.58, "2023-12-29 07:53:58.858893"),
    ("deposit", 5221.42, "2024-06-02 22:06:44.858897"), ("deposit", 7287.0, "2024-01-01 19:52:09.858901"),
    ("withdrawal", 2806.69, "2024-01-20 23:56:02.858906"), ("withdrawal", 9603.47, "2024-01-04 01:30:36.858910"),
    ("withdrawal", 7290.76, "2023-12-05 20:53:00.858914"), ("withdrawal", 4553.98, "2023-10-14 02:45:36.858918"),
    ("withdrawal", 2795.43, "2024-08-24 09:33:50.858923"), ("deposit", 832.64, "2023-12-16 12:05:20.858934"),
    ("deposit", 3022.33, "2024-04-29 22:38:25.858938"), ("withdrawal", 5420.49, "2023-11-10 15:10:07.858943"),
    ("deposit", 1510.23, "2023-09-22 16:36:31.858947"), ("deposit", 5608.16, "2024-06-02 15:43:21.858952"),
    ("deposit", 2692.53, "2024-02-29 11:06:31.858956"), ("deposit", 4203.4, "2024-03-31 00:35:05.858960"),
    ("deposit", 1560.42, "2023-11-25 04:29:50.858965"), ("withdrawal", 7009.56, "2024-02-13 16:07:26.858969"),
    ("withdrawal", 2973.94, "2023-09-25 14:24:15.858973"), ("withdrawal", 7279.28, "2024-06-20 03:17:50.858977"),
    ("deposit", 5095.78, "2023-10-28 00:06:58.858982"), ("withdrawal", 2853.16, "2024-05-17 09:49:04.858986"),
    ("withdrawal", 3046.58, "2024-05-28 22:20:42.858990"), ("withdrawal", 2766.97, "2024-05-18 01:28:11.859007"),
    ("deposit", 9375.96, "2023-11-12 14:22:02.859021"), ("withdrawal", 7466.15, "2024-06-13 04:45:20.859027"),
    ("deposit", 5624.75, "2024-04-09 05:59:28.859032"), ("deposit", 3840.23, "2024-02-23 10:34:35.859037"),
    ("withdrawal", 1686.87, "2024-01-22 19:39:24.859042"), ("deposit", 8361.93, "2024-02-08 13:22:13.859047"),
    ("deposit", 6367.91, "2023-12-30 18:17:29.859051"), ("withdrawal", 1586.09, "2023-12-13 15:38:46.859056"),
    ("deposit", 7964.81, "2024-07-21 03:04:11.859060"), ("withdrawal", 496.04, "2024-06-14 07:54:38.859065"),
    ("deposit", 2029.8, "2024-07-01 20:00:50.859069"), ("deposit", 5917.09, "2024-02-11 14:53:34.859073"),
    ("withdrawal", 7760.62, "2024-08-25 09:11:03.859087"), ("deposit", 4998.94, "2024-07-21 04:32:48.859092"),
    ("deposit", 9780.68, "2024-09-10 19:33:48.859096"), ("deposit", 4306.9, "2024-03-15 02:27:43.859101"),
    ("withdrawal", 7646.65, "2024-02-27 23:18:07.859105"), ("deposit", 7899.65, "2023-12-10 12:49:22.859109"),
    ("withdrawal", 9876.42, "2023-10-02 16:01:37.859133"), ("deposit", 3827.39, "2023-10-09 20:20:51.859141"),
    ("deposit", 1764.72, "2023-11-01 11:26:07.859147"), ("withdrawal", 6707.37, "2024-01-27 08:59:38.859151"),
    ("deposit", 3872.56, "2023-12-20 15:19:52.859164"), ("withdrawal", 7976.01, "2024-03-02 17:01:51.859168"),
    ("withdrawal", 7610.88, "2024-03-26 22:21:16.859172"), ("deposit", 3384.11, "2024-05-04 12:30:17.859177"),
    ("withdrawal", 4942.2, "2024-06-24 23:47:12.859182"), ("deposit", 9217.12, "2024-09-06 08:28:38.859187"),
    ("withdrawal", 4450.17, "2024-04-22 14:27:08.859192"), ("deposit", 5563.6, "2023-11-20 16:24:21.859198"),
    ("deposit", 8121.47, "2023-11-02 01:12:34.859203"), ("withdrawal", 2069.51, "2024-03-19 10:39:01.859207"),
    ("withdrawal", 5034.99, "2024-08-08 15:10:31.859212"), ("withdrawal", 7575.31, "2024-04-07 01:23:53.859216"),
    ("deposit", 3062.84, "2023-11-13 13:32:34.859221"), ("withdrawal", 5061.87, "2023-12-01 06:54:29.859225"),
    ("deposit", 5434.37, "2024-07-12 11:27:25.859230"), ("withdrawal", 8966.8, "2023-12-08 03:15:40.859234"),
    ("deposit", 3184.27, "2024-01-26 14:39:31.859238"), ("deposit", 1488.41, "2024-02-23 16:03:35.859244"),
    ("deposit", 2901.33, "2024-01-16 11:00:20.859248"), ("withdrawal", 60.26, "2024-05-14 22:50:19.859252"),
    ("withdrawal", 8811.27, "2024-06-16 09:21:41.859257"), ("deposit", 8040.03, "2024-01-21 05:56:48.859261"),
    ("deposit", 3705.66, "2023-10-03 17:07:38.859265"), ("deposit", 9129.1, "2024-01-08 13:06:04.859270"),
    ("deposit", 7357.12, "2024-07-17 15:13:14.859274"), ("withdrawal", 4184.97, "2024-04-15 04:48:45.859278"),
    ("deposit", 4221.44, "2024-04-13 13:53:17.859282"), ("withdrawal", 1267.55, "2024-09-10 20:09:15.859286"),
    ("deposit", 3795.59, "2024-01-02 22:34:18.859291"), ("deposit", 6466.48, "2023-10-24 16:34:18.859295"),
    ("withdrawal", 6797.62, "2024-01-03 07:37:17.859299"), ("deposit", 7547.06, "2024-06-28 14:27:22.859303"),
    ("deposit", 2584.21, "2023-12-28 01:19:40.859307"), ("deposit", 7264.8, "2023-12-14 07:36:59.859312"),
    ("deposit", 7892.01, "2024-02-03 22:34:43.859316"), ("withdrawal", 8719.4, "2024-05-08 23:38:17.859320"),
    ("withdrawal", 7997.38, "2023-12-13 13:20:04.859324"), ("deposit", 3333.01, "2024-07-30 23:35:46.859329"),
    ("withdrawal", 2775.82, "2024-06-01 05:14:06.859333"), ("deposit", 2076.12, "2024-05-07 22:00:35.859337"),
    ("deposit", 3320.84, "2024-08-14 07:11:23.859341"), ("withdrawal", 3013.96, "2023-09-19 20:43:25.859346"),
    ("withdrawal", 7339.28, "2024-08-30 09:54:34.859350"), ("withdrawal", 8410.91, "2024-02-11 16:33:17.859354"),
    ("deposit", 432.1, "2023-10-08 23:31:19.859358"), ("withdrawal", 6955.35, "2024-06-26 14:12:15.859362"),
    ("deposit", 496.59, "2024-03-17 05:53:02.859367"), ("deposit", 4556.56, "2023-12-19 05:47:57.859371"),
    ("deposit", 4981.31, "2024-07-09 00:05:25.859375"), ("deposit", 1486.55, "2024-03-12 09:50:56.859380"),
    ("withdrawal", 6872.75, "2024-03-10 05:41:20.859384"), ("withdrawal", 1958.57, "2023-10-19 19:03:34.859388"),
    ("deposit", 5014.57, "2024-01-26 09:20:32.859393"), ("deposit", 6498.5, "2024-03-08 10:04:11.859397"),
    ("withdrawal", 9711.02, "2024-04-26 14:32:36.859401"), ("withdrawal", 1551.12, "2024-08-21 22:18:29.859405"),
    ("deposit", 9951.86, "2024-04-02 23:53:50.859410"), ("deposit", 6255.06, "2024-02-15 23:42:15.859414"),
    ("deposit", 8367.15, "2024-05-21 23:25:31.859418"), ("withdrawal", 2059.66, "2024-07-24 13:06:58.859423"),
    ("withdrawal", 768.07, "2024-02-25 22:01:20.859427"), ("withdrawal", 1991.76, "2024-06-27 08:54:55.859432"),
    ("deposit", 1397.27, "2024-02-08 09:30:52.859436"), ("deposit", 4391.39, "2024-04-15 19:50:02.859440"),
    ("deposit", 7256.68, "2023-12-09 11:50:58.859444"), ("withdrawal", 7139.41, "2024-04-17 03:46:11.859448"),
    ("withdrawal", 1376.46, "2023-12-03 14:03:26.859453"), ("withdrawal", 1817.08, "2024-01-28 08:21:42.859457"),
    ("deposit", 3858.49, "2024-05-07 18:58:47.859462"), ("deposit", 2812.75, "2024-07-17 03:21:40.859466"),
    ("deposit", 269.37, "2024-03-04 21:39:43.859470"), ("withdrawal", 1937.69, "2024-02-19 02:31:39.859474"),
    ("withdrawal", 2928.29, "2024-06-12 05:54:22.859479"), ("deposit", 4753.11, "2024-06-09 19:52:48.859483"),
    ("withdrawal", 949.77, "2024-05-22 20:58:00.859487"), ("withdrawal", 7701.95, "2023-10-20 01:08:45.859491"),
    ("deposit", 3607.5, "2023-09-22 06:34:23.859495"), ("withdrawal", 1565.02, "2023-11-07 17:16:44.859499"),
    ("withdrawal", 5666.43, "2024-07-30 08:50:29.859504"), ("withdrawal", 7795.31, "2024-05-10 12:33:16.859508"),
    ("deposit", 8340.17, "2024-04-06 03:10:35.859512"), ("withdrawal", 9398.52, "2024-06-22 14:25:53.859516"),
    ("withdrawal", 2391.22, "2024-05-31 05:19:04.859521"), ("deposit", 6993.86, "2023-10-28 00:16:25.859525"),
    ("withdrawal", 4517.23, "2023-10-16 23:59:17.859529"), ("withdrawal", 4274.47, "2024-01-24 12:43:02.859533"),
    ("withdrawal", 42.3, "2023-12-31 19:37:02.859538"), ("withdrawal", 907.33, "2024-07-05 06:17:13.859543"),
    ("withdrawal", 3458.19, "2024-04-30 07:24:42.859547"), ("withdrawal", 3482.74, "2024-01-05 05:07:28.859552"),
    ("withdrawal", 9471.48, "2024-07-16 06:30:06.859556"), ("deposit", 8749.14, "2024-07-22 17:19:34.859560"),
    ("deposit", 631.13, "2024-01-17 20:30:01.859565"), ("withdrawal", 7646.36, "2024-08-19 09:32:19.859569"),
    ("withdrawal", 1310.45, "2024-01-01 15:52:14.859573"), ("withdrawal", 5805.4, "2024-02-28 07:27:30.859578"),
    ("deposit", 6277.22, "2024-05-27 20:22:23.859582"), ("withdrawal", 790.81, "2024-05-28 06:06:25.859586"),
    ("deposit", 1660.65, "2024-02-12 23:06:29.859591"), ("deposit", 5160.49, "2024-03-17 08:47:13.859596"),
    ("withdrawal", 9185.3, "2024-07-09 14:28:36.859601"), ("withdrawal", 4729.63, "2024-03-29 07:37:52.859605"),
    ("withdrawal", 2642.77, "2023-11-02 16:21:51.859609"), ("withdrawal", 5194.87, "2024-06-13 20:33:29.859614"),
    ("deposit", 354.95, "2024-03-04 14:20:20.859618"), ("deposit", 2101.23, "2024-03-11 13:23:45.859623"),
    ("withdrawal", 4909.99, "2024-08-07 23:26:29.859627"), ("deposit", 1996.77, "2024-05-07 11:26:53.859631"),
    ("deposit", 6032.87, "2024-07-09 10:43:38.859635"), ("withdrawal", 9321.02, "2024-06-11 00:18:19.859640"),
    ("withdrawal", 5198.11, "2024-08-08 04:13:32.859644"), ("withdrawal", 172.86, "2024-03-27 01:26:07.859648"),
    ("withdrawal", 5373.97, "2023-10-04 15:20:22.859653"), ("deposit", 7812.04, "2024-06-09 11:32:53.859657"),
    ("deposit", 209.61, "2024-06-15 00:43:28.859662"), ("deposit", 260.51, "2024-05-22 12:22:01.859665"),
    ("withdrawal", 7855.67, "2024-05-22 04:29:35.859670"), ("deposit", 6254.05, "2023-12-06 11:27:38.859674"),
    ("deposit", 1991.92, "2023-12-15 03:04:23.859678"), ("deposit", 7022.56, "2023-11-16 07:24:40.859682"),
    ("withdrawal", 9684.0, "2023-11-14 18:58:58.859686"), ("deposit", 7094.96, "2024-04-13 23:35:28.859690"),
    ("deposit", 2496.64, "2024-01-17 03:15:15.859695"), ("deposit", 647.93, "2023-12-31 17:20:31.859699"),
    ("deposit", 1364.56, "2024-05-24 21:49:49.859703"), ("deposit", 8742.26, "2024-06-19 01:18:23.859708"),
    ("deposit", 9302.89, "2023-12-29 12:43:56.859712"), ("withdrawal", 9005.39, "2024-04-04 08:09:38.859717"),
    ("deposit", 9486.92, "2023-11-02 17:56:06.859721"), ("withdrawal", 9879.54, "2023-10-25 19:53:52.859725"),
    ("deposit", 7171.94, "2023-09-23 17:47:17.859730"), ("withdrawal", 8180.39, "2024-06-10 05:19:39.859734"),
    ("deposit", 5224.95, "2024-03-26 09:47:55.859738"), ("withdrawal", 2225.87, "2024-01-18 14:24:50.859742"),
    ("withdrawal", 8319.56, "2024-06-25 09:48:44.859747"), ("deposit", 8193.23, "2024-05-29 20:56:40.859751"),
    ("withdrawal", 4737.54, "2024-04-27 21:06:19.859755"), ("withdrawal", 606.4, "2024-06-08 07:36:21.859759"),
    ("withdrawal", 3412.75, "2024-01-07 12:22:58.859763"), ("deposit", 888.38, "2024-05-01 05:14:27.859767"),
    ("withdrawal", 5990.04, "2024-04-22 01:59:36.859772"), ("withdrawal", 2195.02, "2024-05-29 22:04:27.859776"),
    ("deposit", 4347.95, "2024-07-26 04:45:19.859780"), ("deposit", 112.53, "2023-10-08 19:19:36.859785"),
    ("withdrawal", 5675.09, "2024-04-03 20:53:10.859790"), ("withdrawal", 1069.08, "2023-11-09 07:04:10.859794"),
    ("withdrawal", 5180.58, "2023-11-20 08:44:12.859798"), ("withdrawal", 2419.67, "2024-05-26 16:11:57.859803"),
    ("withdrawal", 2539.39, "2023-09-23 03:39:35.859807"), ("withdrawal", 4201.31, "2024-08-13 22:37:42.859812"),
    ("deposit", 7378.83, "2023-12-08 19:44:40.859816"), ("withdrawal", 3207.5, "2024-03-21 17:43:48.859820"),
    ("withdrawal", 220.13, "2023-10-09 01:25:27.859825"), ("withdrawal", 3353.26, "2023-09-29 13:18:11.859829"),
    ("deposit", 4698.05, "2024-05-14 14:01:31.859833"), ("withdrawal", 3958.33, "2023-12-13 18:29:30.859837"),
    ("deposit", 4594.61, "2023-09-18 12:09:24.859842"), ("withdrawal", 147.75, "2024-08-21 23:27:04.859846"),
    ("deposit", 600.18, "2023-10-06 08:23:21.859851"), ("deposit", 7061.55, "2024-04-23 11:56:14.859855"),
    ("withdrawal", 7194.37, "2024-06-16 04:41:25.859859"), ("withdrawal", 805.42, "2023-09-25 13:38:38.859864"),
    ("withdrawal", 1181.47, "2024-06-24 02:57:08.859868"), ("deposit", 5759.93, "2024-03-25 05:52:11.859872"),
    ("deposit", 7381.28, "2024-03-14 22:23:10.859876"), ("withdrawal", 9840.14, "2023-11-25 01:55:39.859880"),
    ("withdrawal", 8681.4, "2023-12-29 21:55:44.859885"), ("deposit", 3528.9, "2024-08-20 14:15:37.859889"),
    ("deposit", 1505.94, "2023-09-30 12:03:57.859893"), ("withdrawal", 2325.71, "2023-12-13 15:39:28.859897"),
    ("deposit", 587.3, "2023-11-16 10:08:30.859901"), ("deposit", 667.13, "2023-10-15 14:46:13.859905"),
    ("deposit", 2856.98, "2024-06-08 20:40:37.859910"), ("withdrawal", 3490.21, "2024-06-09 04:13:31.859914"),
    ("withdrawal", 38.14, "2023-12-28 05:30:18.859918"), ("withdrawal", 2177.32, "2024-03-02 04:32:04.859923"),
    ("withdrawal", 4818.74, "2023-11-06 09:36:27.859927"), ("deposit", 6677.7, "2024-06-11 15:06:24.859932"),
    ("withdrawal", 8677.5, "2024-09-03 02:45:33.859936"), ("deposit", 7149.07, "2024-01-30 09:52:52.859940"),
    ("deposit", 4250.11, "2024-02-06 12:44:45.859944"), ("deposit", 4798.53, "2024-02-22 21:45:47.859948"),
    ("withdrawal", 4627.12, "2023-11-07 20:58:33.859953"), ("deposit", 8536.0, "2024-07-03 01:12:04.859957"),
    ("withdrawal", 8437.14, "2024-06-18 17:11:43.859961"), ("deposit", 2640.95, "2024-06-26 13:29:40.859966"),
    ("withdrawal", 7573.52, "2024-08-15 17:54:19.859970"), ("deposit", 2522.11, "2024-05-21 07:50:04.859974"),
    ("withdrawal", 7445.11, "2024-08-03 03:54:27.859979"), ("deposit", 9857.3, "2023-11-07 13:35:57.859983"),
    ("withdrawal", 1625.72, "2024-02-28 09:43:27.859988"), ("withdrawal", 6970.68, "2024-01-14 23:54:09.859992"),
    ("withdrawal", 7446.23, "2023-12-19 14:03:50.859997"), ("deposit", 7551.46, "2024-07-25 16:33:35.860001"),
    ("deposit", 2908.08, "2024-06-08 23:48:37.860006"), ("withdrawal", 7654.43, "2023-11-11 08:41:17.860010"),
    ("deposit", 2068.06, "2024-03-13 20:54:22.860014"), ("withdrawal", 9086.33, "2023-10-08 02:15:39.860018"),
    ("deposit", 4709.96, "2024-07-23 08:21:06.860023"), ("deposit", 5811.69, "2023-12-27 16:15:24.860027"),
    ("deposit", 3326.53, "2024-03-21 14:36:24.860031"), ("deposit", 3819.13, "2024-03-11 20:10:33.860035"),
    ("withdrawal", 996.9, "2023-09-25 10:52:07.860040"), ("deposit", 9126.0, "2024-03-23 23:38:57.860044"),
    ("withdrawal", 1191.24, "2024-09-04 04:24:05.860048"), ("deposit", 7918.07, "2024-02-11 15:01:13.860052"),
    ("deposit", 5557.57, "2024-07-08 06:15:07.860056"), ("withdrawal", 6003.04, "2024-05-14 17:20:21.860061"),
    ("deposit", 231.13, "2024-06-09 10:13:34.860065"), ("deposit", 8419.81, "2023-10-03 13:52:20.860070"),
    ("deposit", 2469.0, "2024-09-07 00:12:33.860074"), ("withdrawal", 5489.67, "2024-09-01 16:35:21.860078"),
    ("deposit", 6279.41, "2023-11-23 16:04:40.860082"), ("withdrawal", 9849.26, "2024-04-12 05:49:40.860087"),
    ("withdrawal", 6110.2, "2023-12-24 23:05:48.860091"), ("deposit", 9096.57, "2023-11-04 15:35:04.860095"),
    ("deposit", 4517.78, "2024-05-05 14:40:31.860099"), ("withdrawal", 4479.4, "2024-07-13 22:24:17.860103"),
    ("withdrawal", 1888.21, "2023-12-03 09:09:47.860107"), ("deposit", 6857.2, "2024-07-25 13:40:19.860111"),
    ("deposit", 7906.47, "2023-09-25 18:51:58.860115"), ("withdrawal", 9787.77, "2024-02-04 08:12:24.860119"),
    ("withdrawal", 4258.47, "2023-12-15 20:14:24.860123"), ("withdrawal", 2298.11, "2023-10-27 10:27:31.860128"),
    ("deposit", 7967.04, "2024-06-18 21:06:48.860132"), ("withdrawal", 2563.05, "2024-03-09 16:07:14.860136"),
    ("withdrawal", 9831.55, "2024-06-09 01:00:07.860140"), ("withdrawal", 3143.22, "2024-07-19 11:43:27.860144"),
    ("withdrawal", 5647.92, "2024-02-05 03:10:29.860149"), ("withdrawal", 8206.33, "2024-06-05 10:08:39.860153"),
    ("withdrawal", 7242.84, "2024-05-21 08:59:11.860157"), ("withdrawal", 7714.38, "2024-06-20 14:46:26.860161"),
    ("deposit", 1915.49, "2024-08-21 04:09:11.860166"), ("deposit", 1797.23, "2023-12-09 16:43:44.860170"),
    ("withdrawal", 9272.12, "2024-02-08 10:17:43.860174"), ("withdrawal", 5373.53, "2024-05-07 02:15:46.860178"),
    ("withdrawal", 295.78, "2023-11-29 21:24:59.860182"), ("withdrawal", 4215.37, "2024-07-05 13:01:54.860307"),
    ("deposit", 2808.24, "2024-07-17 20:11:38.860317"), ("deposit", 9680.31, "2024-06-26 07:42:56.860322"),
    ("withdrawal", 8410.98, "2024-08-06 17:07:47.860327"), ("withdrawal", 3458.46, "2024-06-21 11:01:18.860331"),
    ("deposit", 8575.83, "2024-05-03 18:10:18.860336"), ("deposit", 1619.26, "2024-08-01 06:40:06.860340"),
    ("withdrawal", 8423.07, "2024-09-08 09:23:59.860344"), ("withdrawal", 1085.29, "2024-01-12 21:40:16.860349"),
    ("withdrawal", 3119.59, "2024-02-18 10:53:19.860353"), ("deposit", 9939.83, "2024-04-02 21:22:54.860358"),
    ("withdrawal", 1128.97, "2024-04-03 05:01:26.860369"), ("withdrawal", 7961.82, "2024-07-24 12:46:00.860375"),
    ("deposit", 9448.45, "2023-11-04 20:49:52.860379"), ("withdrawal", 2875.17, "2024-06-21 23:15:33.860383"),
    ("deposit", 1085.3, "2024-01-05 08:15:06.860388"), ("withdrawal", 5088.67, "2024-05-16 12:33:11.860392"),
    ("deposit", 529.14, "2023-12-29 17:53:42.860396"), ("withdrawal", 126.96, "2024-09-08 08:13:55.860401"),
    ("deposit", 7390.53, "2023-09-30 11:05:21.860405"), ("deposit", 7116.85, "2024-04-12 22:02:04.860409"),
    ("deposit", 1910.38, "2023-12-03 14:19:17.860414"), ("deposit", 8503.37, "2024-05-27 23:19:24.860418"),
    ("withdrawal", 8250.31, "2024-02-13 18:25:48.860423"), ("withdrawal", 6595.59, "2024-04-18 23:03:08.860427"),
    ("withdrawal", 1297.48, "2024-06-13 06:50:24.860431"), ("withdrawal", 2229.47, "2024-03-02 21:01:28.860436"),
    ("deposit", 8978.11, "2024-03-30 19:35:43.860440"), ("withdrawal", 7235.47, "2024-07-29 23:23:24.860444"),
    ("withdrawal", 1218.71, "2024-07-17 06:07:46.860448"), ("withdrawal", 5747.51, "2023-10-20 15:44:24.860453"),
    ("withdrawal", 132.7, "2023-11-12 03:52:43.860457"), ("withdrawal", 3638.41, "2023-12-09 23:19:22.860461"),
    ("withdrawal", 5195.84, "2024-01-07 15:47:35.860466"), ("withdrawal", 4896.97, "2023-12-15 11:41:04.860470"),
    ("withdrawal", 9327.75, "2024-02-26 22:29:41.860474"), ("deposit", 9847.97, "2024-01-01 17:44:54.860479"),
    ("withdrawal", 2055.21, "2024-09-03 09:21:42.860483"), ("deposit", 8584.1, "2024-04-25 16:07:52.860487"),
    ("withdrawal", 8016.43, "2024-03-25 16:46:51.860491"), ("withdrawal", 4302.61, "2024-04-18 07:47:36.860496"),
    ("withdrawal", 5484.51, "2024-07-18 02:21:23.860501"), ("withdrawal", 1875.85, "2024-02-22 17:54:35.860505"),
    ("withdrawal", 8477.79, "2023-12-20 06:48:52.860509"), ("deposit", 8935.17, "2024-05-07 04:14:43.860514"),
    ("deposit", 8173.37, "2024-04-28 17:18:46.860518"), ("deposit", 1010.1, "2024-09-09 07:21:41.860523"),
    ("withdrawal", 9882.6, "2023-11-05 04:34:24.860530"), ("deposit", 7830.74, "2024-02-09 07:16:41.860534"),
    ("deposit", 5468.99, "2023-09-24 11:26:57.860539"), ("withdrawal", 8967.73, "2024-05-27 14:45:51.860543"),
    ("withdrawal", 7371.89, "2024-04-19 09:28:38.860547"), ("deposit", 1115.03, "2024-04-16 02:45:13.860551"),
    ("deposit", 2136.02, "2024-09-09 16:35:34.860556"), ("deposit", 6437.37, "2024-03-24 15:03:02.860560"),
    ("deposit", 9359.42, "2023-09-20 18:22:42.860565"), ("withdrawal", 6326.44, "2023-10-03 15:47:11.860570"),
    ("deposit", 4301.65, "2024-01-24 10:51:11.860575"), ("deposit", 8066.51, "2023-12-05 07:08:49.860580"),
    ("deposit", 9092.83, "2023-11-12 07:18:27.860591"), ("withdrawal", 7791.63, "2023-11-07 20:57:56.860596"),
    ("withdrawal", 3316.66, "2024-04-05 12:10:13.860600"), ("deposit", 2383.64, "2023-12-18 21:01:45.860605"),
    ("deposit", 9358.55, "2024-05-03 11:33:51.860609"), ("withdrawal", 9503.74, "2024-08-09 02:32:27.860614"),
    ("withdrawal", 5254.19, "2024-05-03 03:20:25.860619"), ("withdrawal", 3305.15, "2023-12-30 17:03:12.860623"),
    ("deposit", 3232.28, "2024-06-06 06:40:47.860627"), ("withdrawal", 4658.26, "2023-11-30 22:43:55.860632"),
    ("deposit", 5823.43, "2024-03-24 01:19:56.860636"), ("withdrawal", 4697.23, "2024-02-04 10:14:46.860641"),
    ("deposit", 1598.51, "2024-03-22 10:18:43.860645"), ("deposit", 1915.06, "2024-09-01 04:31:45.860649"),
    ("withdrawal", 9780.83, "2024-03-13 17:52:46.860654"), ("deposit", 5684.34, "2023-09-15 09:19:21.860658"),
    ("deposit", 3505.6, "2024-08-22 03:02:59.860662"), ("deposit", 2433.0, "2024-08-17 10:54:13.860666"),
    ("deposit", 1905.66, "2023-11-27 02:55:57.860671"), ("withdrawal", 3461.98, "2024-06-13 04:42:07.860675"),
    ("withdrawal", 6910.32, "2024-07-26 20:17:37.860679"), ("withdrawal", 1291.22, "2024-08-23 16:03:06.860683"),
    ("deposit", 7127.42, "2024-03-26 09:31:33.860688"), ("deposit", 5675.33, "2024-05-08 00:25:20.860692"),
    ("withdrawal", 2549.6, "2023-11-09 18:13:12.860696"), ("withdrawal", 9152.87, "2024-05-04 14:46:43.860700"),
    ("deposit", 4849.32, "2023-09-29 18:58:26.860705"), ("withdrawal", 1830.52, "2024-05-17 05:00:53.860709"),
    ("deposit", 8959.55, "2024-02-25 01:32:08.860713"), ("deposit", 3147.25, "2023-10-20 06:30:07.860717"),
    ("deposit", 6641.26, "2024-08-29 23:25:11.860722"), ("deposit", 2402.72, "2023-11-04 04:19:59.860726"),
    ("withdrawal", 7897.3, "2023-11-01 11:52:51.860878"), ("withdrawal", 6353.27, "2024-03-25 22:52:13.860884"),
    ("withdrawal", 299.18, "2024-03-20 15:01:17.860888"), ("deposit", 6783.18, "2024-09-01 10:20:23.860893"),
    ("withdrawal", 8062.57, "2024-01-08 04:24:22.860897"), ("deposit", 6165.99, "2024-05-03 08:26:33.860901"),
    ("deposit", 6465.52, "2024-05-30 12:52:14.860905"), ("deposit", 8601.07, "2023-11-13 15:02:30.860910"),
    ("withdrawal", 9614.78, "2023-10-01 00:07:58.860914"), ("deposit", 3677.72, "2023-09-17 01:31:11.860919"),
    ("withdrawal", 5372.94, "2023-12-19 07:31:02.860923"), ("deposit", 4413.91, "2023-09-27 20:39:20.860927"),
    ("deposit", 2954.74, "2024-08-26 06:12:12.860931"), ("withdrawal", 7856.11, "2024-08-10 03:04:57.860936"),
    ("deposit", 813.08, "2024-07-03 11:36:42.860940"), ("deposit", 6744.66, "2024-09-09 23:30:53.860945"),
    ("withdrawal", 3875.59, "2024-05-05 13:59:21.860949"), ("withdrawal", 7411.72, "2023-11-12 20:37:36.860954"),
    ("deposit", 2448.92, "2024-06-17 19:25:00.860958"), ("withdrawal", 4090.01, "2023-10-16 04:32:54.860963"),
    ("deposit", 3439.85, "2024-08-12 05:24:50.860967"), ("withdrawal", 1075.01, "2024-08-10 18:52:17.860971"),
    ("deposit", 1500.13, "2024-06-04 12:54:50.860979"), ("withdrawal", 1127.94, "2023-10-05 01:51:48.860983"),
    ("deposit", 2977.32, "2024-05-01 06:45:47.860988"), ("withdrawal", 1189.56, "2024-07-08 16:10:50.860992"),
    ("withdrawal", 7748.28, "2023-11-23 09:41:34.860997"), ("withdrawal", 4156.53, "2024-02-29 02:01:08.861001"),
    ("withdrawal", 3875.35, "2023-11-17 23:12:33.861005"), ("deposit", 8018.96, "2024-01-30 11:38:09.861010"),
    ("deposit", 478.54, "2024-01-08 01:34:57.861014"), ("withdrawal", 1783.43, "2023-11-23 03:42:58.861018"),
    ("withdrawal", 2562.86, "2024-04-26 13:44:16.861023"), ("deposit", 9567.17, "2024-05-18 23:04:48.861027"),
    ("deposit", 1867.21, "2024-05-13 01:12:53.861031"), ("deposit", 3909.35, "2024-04-26 07:26:39.861036"),
    ("withdrawal", 1568.47, "2024-07-04 03:21:38.861040"), ("withdrawal", 2340.47, "2023-10-04 14:43:36.861044"),
    ("withdrawal", 91.59, "2024-04-28 09:45:22.861049"), ("deposit", 342.2, "2024-01-24 06:30:02.861053"),
    ("withdrawal", 9349.1, "2023-10-18 16:42:44.861058"), ("withdrawal", 7707.75, "2024-08-22 19:28:23.861063"),
    ("withdrawal", 5690.03, "2024-01-18 13:15:24.861067"), ("withdrawal", 272.38, "2024-08-11 08:30:02.861071"),
    ("deposit", 2284.35, "2024-05-31 14:12:49.861075"), ("withdrawal", 9275.24, "2023-09-16 12:05:07.861080"),
    ("deposit", 6138.22, "2023-11-30 16:58:26.861084"), ("withdrawal", 7665.15, "2023-11-28 07:54:50.861088"),
    ("withdrawal", 3583.66, "2024-07-23 00:58:11.861095"), ("withdrawal", 4300.89, "2024-05-07 12:31:15.861099"),
    ("withdrawal", 6266.16, "2024-08-19 06:59:12.861104"), ("withdrawal", 7178.74, "2024-03-21 07:50:57.861109"),
    ("withdrawal", 1281.61, "2024-06-03 09:21:00.861113"), ("withdrawal", 6893.6, "2023-09-26 05:09:10.861117"),
    ("deposit", 1304.8, "2024-03-26 19:25:49.861122"), ("withdrawal", 1545.16, "2024-05-29 14:49:16.861126"),
    ("deposit", 5219.76, "2024-01-12 18:43:49.861130"), ("deposit", 3067.91, "2023-11-16 00:27:47.861135"),
    ("deposit", 5455.11, "2023-12-05 20:42:15.861139"), ("deposit", 3517.48, "2024-01-11 16:27:52.861143"),
    ("withdrawal", 3720.86, "2024-04-13 20:39:25.861148"), ("deposit", 8601.23, "2024-06-09 05:31:17.861152"),
    ("withdrawal", 3275.26, "2024-06-01 16:13:19.861157"), ("withdrawal", 6611.88, "2024-02-26 02:21:35.861161"),
    ("deposit", 1154.16, "2023-10-07 00:04:21.861165"), ("withdrawal", 3625.51, "2024-09-13 00:56:19.861169"),
    ("deposit", 5907.98, "2023-09-26 12:47:07.861174"), ("withdrawal", 9493.6, "2024-05-27 07:51:44.861178"),
    ("withdrawal", 7492.11, "2023-10-24 23:55:28.861182"), ("deposit", 6569.55, "2024-09-03 19:47:45.861187"),
    ("withdrawal", 7412.98, "2023-09-22 14:39:01.861191"), ("withdrawal", 491.55, "2023-12-21 10:00:15.861195"),
    ("deposit", 6880.9, "2024-04-09 13:41:26.861200"), ("deposit", 1568.84, "2024-06-14 04:35:39.861204"),
    ("withdrawal", 8640.37, "2023-09-14 02:53:56.861208"), ("withdrawal", 1289.09, "2024-07-01 17:58:54.861212"),
    ("deposit", 6887.39, "2023-09-19 09:42:20.861216"), ("withdrawal", 6838.18, "2024-03-27 06:01:58.861221"),
    ("deposit", 9041.24, "2024-04-22 13:19:23.861225"), ("deposit", 795.17, "2024-09-04 17:27:38.861230"),
    ("withdrawal", 8468.2, "2024-07-23 06:37:43.861234"), ("withdrawal", 667.01, "2024-02-18 06:17:05.861239"),
    ("withdrawal", 2793.27, "2024-08-26 18:45:45.861243"), ("withdrawal", 1525.14, "2024-04-28 01:48:26.861249"),
    ("withdrawal", 7344.81, "2023-11-13 09:47:41.861253"), ("deposit", 9503.12, "2024-08-29 17:30:39.861258"),
    ("withdrawal", 5866.06, "2024-05-21 00:57:07.861262"), ("deposit", 9091.59, "2023-10-10 18:12:31.861266"),
    ("deposit", 1423.98, "2024-01-20 05:49:14.861271"), ("withdrawal", 1453.41, "2023-10-19 20:51:13.861275"),
    ("withdrawal", 8539.55, "2023-11-24 01:51:10.861280"), ("deposit", 7668.1, "2024-08-12 08:19:22.861284"),
    ("deposit", 8552.26, "2023-12-17 19:06:41.861288"), ("withdrawal", 9393.65, "2024-02-29 02:33:58.861293"),
    ("withdrawal", 9794.02, "2024-02-08 01:41:25.861297"), ("deposit", 4719.03, "2023-12-31 20:12:25.861302"),
    ("withdrawal", 6872.6, "2023-12-28 04:52:22.861306"), ("deposit", 1204.63, "2024-05-24 01:54:09.861310"),
    ("withdrawal", 1250.68, "2024-07-26 15:42:04.861314"), ("deposit", 7436.03, "2023-09-14 13:02:32.861319"),
    ("deposit", 5120.16, "2024-04-07 14:15:01.861323"), ("withdrawal", 101.55, "2024-08-24 05:53:57.861327"),
    ("withdrawal", 5483.81, "2023-09-20 00:58:41.861332"), ("withdrawal", 1134.54, "2024-06-13 01:08:46.861336"),
    ("withdrawal", 6228.26, "2024-01-09 00:48:07.861340"), ("deposit", 7559.31, "2024-04-15 20:31:24.861344"),
    ("deposit", 9591.1, "2023-12-07 08:45:08.861349"), ("withdrawal", 1886.6, "2023-10-14 01:04:11.861353"),
    ("deposit", 4615.24, "2024-06-05 04:51:15.861357"), ("deposit", 616.12, "2024-05-21 14:17:17.861362"),
    ("withdrawal", 3461.87, "2024-05-08 00:54:50.861366"), ("deposit", 7607.82, "2024-02-08 11:22:24.861370"),
    ("withdrawal", 2619.01, "2024-09-13 15:10:10.861374"), ("withdrawal", 9692.12, "2024-05-10 00:53:44.861379"),
    ("withdrawal", 4128.06, "2024-03-12 07:20:38.861383"), ("withdrawal", 8831.68, "2023-09-21 12:54:38.861387"),
    ("deposit", 3741.73, "2024-01-25 22:38:49.861391"), ("deposit", 9434.47, "2024-02-08 23:04:02.861395"),
    ("withdrawal", 5998.35, "2024-04-19 08:45:25.861400"), ("deposit", 8843.95, "2023-10-14 00:33:48.861404"),
    ("withdrawal", 5520.72, "2024-07-24 06:23:11.861408"), ("withdrawal", 7050.95, "2024-03-24 12:29:49.861413"),
    ("withdrawal", 6852.61, "2023-09-28 19:02:59.861417"), ("withdrawal", 2687.73, "2024-01-06 03:34:06.861422"),
    ("withdrawal", 3103.8, "2024-02-18 22:01:54.861426"), ("withdrawal", 7503.48, "2024-04-05 15:43:30.861430"),
    ("deposit", 4170.46, "2023-10-17 09:02:46.861435"), ("deposit", 5378.75, "2024-07-05 21:11:49.861439"),
    ("withdrawal", 2456.91, "2024-06-25 19:07:03.861444"), ("deposit", 6670.97, "2024-05-19 22:38:43.861448"),
    ("withdrawal", 6766.53, "2024-02-07 07:17:25.861453"), ("withdrawal", 7711.59, "2024-02-03 20:34:24.861457"),
    ("deposit", 2654.13, "2024-01-02 20:48:52.861461"), ("withdrawal", 8628.49, "2024-08-12 06:18:34.861466"),
    ("deposit", 2810.53, "2024-05-29 01:58:32.861470"), ("withdrawal", 1980.5, "2024-05-27 10:58:20.861474"),
    ("deposit", 973.18, "2023-10-12 23:29:00.861478"), ("deposit", 8387.12, "2024-09-09 06:19:48.861482"),
    ("withdrawal", 6729.52, "2024-02-16 08:51:42.861487"), ("deposit", 8948.88, "2024-07-14 06:02:00.861491"),
    ("withdrawal", 6090.95, "2023-12-25 12:28:27.861500"), ("deposit", 9349.21, "2024-08-26 13:03:46.861505"),
    ("deposit", 1272.78, "2024-05-29 10:40:52.861509"), ("deposit", 9972.23, "2024-04-22 18:23:40.861513"),
    ("withdrawal", 7955.82, "2023-12-08 13:29:53.861518"), ("withdrawal", 7667.0, "2024-06-19 09:45:04.861522"),
    ("withdrawal", 1456.3, "2024-04-17 20:32:39.861526"), ("withdrawal", 7742.06, "2023-11-20 10:02:34.861530"),
    ("deposit", 4793.64, "2024-02-15 15:27:11.861534"), ("withdrawal", 444.18, "2024-09-04 06:15:41.861538"),
    ("withdrawal", 5151.37, "2023-09-26 05:56:50.861542"), ("deposit", 2467.24, "2023-11-27 14:29:33.861546"),
    ("deposit", 6943.62, "2024-03-08 03:57:14.861551"), ("deposit", 1847.47, "2024-06-21 07:49:28.861555"),
    ("withdrawal", 2556.64, "2024-01-01 05:12:59.861559"), ("withdrawal", 9912.33, "2023-11-21 05:10:15.861563"),
    ("withdrawal", 3584.37, "2024-06-28 23:23:15.861567"), ("withdrawal", 7972.14, "2024-08-19 13:57:42.861572"),
    ("withdrawal", 882.19, "2024-07-18 14:37:23.861576"), ("withdrawal", 2114.11, "2024-02-21 17:31:00.861580"),
    ("withdrawal", 3508.07, "2024-06-26 19:23:05.861584"), ("deposit", 7674.01, "2024-03-13 07:44:32.861589"),
    ("deposit", 2279.27, "2024-08-02 17:31:12.861593"), ("deposit", 1550.31, "2023-12-29 21:01:11.861597"),
    ("withdrawal", 4226.95, "2024-07-16 05:20:58.861601"), ("deposit", 5498.46, "2024-08-26 21:28:03.861606"),
    ("withdrawal", 6340.6, "2024-01-19 20:39:47.861610"), ("withdrawal", 4724.93, "2023-11-15 19:06:40.861614"),
    ("withdrawal", 8827.5, "2024-09-13 19:29:50.861618"), ("withdrawal", 9589.07, "2024-03-28 10:51:26.861622"),
    ("withdrawal", 1890.72, "2023-10-27 18:03:21.861626"), ("withdrawal", 7289.97, "2024-06-10 13:23:24.861631"),
    ("deposit", 6598.66, "2024-05-27 19:13:54.861635"), ("withdrawal", 9260.15, "2024-02-24 20:55:31.861639"),
    ("withdrawal", 4479.41, "2024-07-07 09:37:36.861644"), ("withdrawal", 7594.36, "2024-03-07 10:16:56.861648"),
    ("deposit", 4998.69, "2024-07-14 10:08:33.861652"), ("deposit", 9842.87, "2024-01-16 05:36:14.861656"),
    ("deposit", 3021.01, "2023-12-05 04:44:48.861660"), ("deposit", 7092.65, "2023-09-30 04:55:09.861665"),
    ("withdrawal", 8411.13, "2024-07-01 10:51:22.861669"), ("withdrawal", 6429.02, "2024-06-12 00:09:26.861673"),
    ("withdrawal", 977.98, "2024-08-23 15:50:42.861677"), ("withdrawal", 7660.27, "2024-01-17 20:46:11.861681"),
    ("withdrawal", 2499.3, "2024-04-19 19:33:03.861685"), ("deposit", 9666.63, "2023-11-07 11:19:45.861689"),
    ("deposit", 1586.41, "2023-12-18 23:53:14.861694"), ("withdrawal", 9059.6, "2024-03-25 05:59:18.861698"),
    ("deposit", 6127.57, "2024-05-27 17:20:02.861702"), ("deposit", 384.68, "2024-04-24 11:22:58.861706"),
    ("deposit", 6166.03, "2024-07-05 03:32:06.861711"), ("withdrawal", 6079.77, "2023-12-22 19:37:38.861715"),
    ("deposit", 8650.49, "2024-08-06 13:30:40.861719"), ("withdrawal", 1648.83, "2024-02-02 22:32:02.861723"),
    ("withdrawal", 3993.41, "2024-07-01 04:46:17.861727"), ("deposit", 9608.57, "2023-09-14 19:01:25.861732"),
    ("withdrawal", 4887.26, "2024-01-10 18:58:37.861736"), ("deposit", 4869.12, "2024-07-04 07:13:39.861740"),
    ("deposit", 1259.46, "2024-07-18 18:37:41.861744"), ("withdrawal", 4823.75, "2024-02-27 13:58:39.861749"),
    ("deposit", 2865.69, "2024-04-23 03:08:20.861753"), ("deposit", 445.0, "2024-03-21 11:15:18.861757"),
    ("withdrawal", 7049.04, "2023-12-06 09:19:13.861762"), ("deposit", 3340.23, "2024-06-03 14:35:15.861766"),
    ("withdrawal", 2388.88, "2024-06-16 10:14:56.861770"), ("withdrawal", 3030.16, "2024-03-28 19:52:28.861775"),
    ("withdrawal", 3393.5, "2023-10-06 00:09:52.861779"), ("withdrawal", 6371.58, "2024-07-19 22:25:52.861784"),
    ("withdrawal", 8845.4, "2024-08-03 13:20:23.861788"), ("withdrawal", 8555.65, "2024-02-23 02:07:43.861792"),
    ("withdrawal", 2077.97, "2023-12-28 22:15:20.861796"), ("deposit", 4104.49, "2024-03-24 07:42:21.861800"),
    ("deposit", 7232.1, "2024-06-01 14:06:42.861805"), ("withdrawal", 562.58, "2024-05-01 06:57:31.861809"),
    ("withdrawal", 7288.43, "2023-12-09 01:41:24.861813"), ("withdrawal", 6287.32, "2024-02-21 17:45:27.861817"),
    ("withdrawal", 7482.24, "2023-10-17 23:11:01.861821"), ("deposit", 2661.37, "2024-08-05 13:58:31.861825"),
    ("deposit", 8461.09, "2024-03-25 15:59:58.861829"), ("deposit", 1975.59, "2024-08-12 10:27:38.861834"),
    ("withdrawal", 9352.38, "2024-06-20 22:59:36.861839"), ("deposit", 754.52, "2024-03-04 12:18:13.861843"),
    ("withdrawal", 5618.36, "2023-11-26 08:13:21.861847"), ("deposit", 4871.17, "2024-02-17 16:09:03.861851"),
    ("deposit", 2804.64, "2024-06-06 18:33:20.861855"), ("deposit", 3700.45, "2023-09-28 11:46:33.861860"),
    ("deposit", 9371.68, "2024-03-15 06:14:14.861864"), ("deposit", 3787.65, "2024-03-16 06:16:32.861869"),
    ("deposit", 2855.64, "2024-09-11 13:59:53.861873"), ("deposit", 6055.89, "2023-09-16 01:09:29.861877"),
    ("withdrawal", 3919.28, "2024-08-28 23:45:11.861881"), ("deposit", 6159.7, "2024-02-04 16:17:25.861886"),
    ("deposit", 8074.66, "2024-07-20 22:39:19.861892"), ("withdrawal", 3136.2, "2023-11-25 20:01:32.861896"),
    ("withdrawal", 7068.66, "2024-02-26 11:40:36.861900"), ("deposit", 423.65, "2024-01-18 22:05:32.861904"),
    ("deposit", 4322.18, "2024-07-17 23:24:56.861909"), ("deposit", 8403.0, "2024-03-24 07:02:46.861913"),
    ("withdrawal", 6835.25, "2024-08-31 09:40:16.861917"), ("withdrawal", 4962.25, "2024-03-27 08:44:17.861921"),
    ("deposit", 3022.83, "2023-11-28 18:30:17.861925"), ("withdrawal", 5001.26, "2024-07-15 04:13:35.861930"),
    ("withdrawal", 6159.58, "2023-10-12 12:40:54.861934"), ("withdrawal", 1340.26, "2024-05-18 21:16:33.861938"),
    ("deposit", 2327.54, "2023-12-16 14:43:45.861942"), ("withdrawal", 4591.63, "2023-10-22 21:24:15.861947"),
    ("deposit", 2250.71, "2024-01-24 10:08:35.861951"), ("deposit", 4828.73, "2024-05-21 16:09:00.861955"),
    ("withdrawal", 5928.96, "2023-11-20 22:29:53.861959"), ("withdrawal", 1596.16, "2024-03-31 01:21:15.861964"),
    ("deposit", 1776.75, "2023-11-22 17:22:14.861968"), ("deposit", 9526.69, "2024-07-05 11:45:21.861972"),
    ("deposit", 1888.73, "2024-06-22 02:06:24.861977"), ("withdrawal", 1109.65, "2024-07-03 10:45:22.861981"),
    ("deposit", 8506.58, "2024-02-23 15:07:43.861985"), ("withdrawal", 802.81, "2023-12-02 23:46:04.861989"),
    ("deposit", 7177.14, "2023-12-17 18:58:39.861993"), ("deposit", 5388.83, "2024-02-12 16:42:48.861998"),
    ("deposit", 1385.79, "2024-08-23 22:29:49.862002"), ("withdrawal", 993.54, "2024-08-19 14:59:32.862006"),
    ("deposit", 5090.68, "2024-03-28 17:02:17.862012"), ("deposit", 9736.62, "2024-09-09 07:36:49.862016"),
    ("withdrawal", 2210.52, "2024-07-19 10:53:43.862021"), ("deposit", 8625.92, "2024-08-23 23:38:19.862025"),
    ("withdrawal", 839.58, "2024-07-08 06:49:49.862029"), ("withdrawal", 3220.22, "2023-10-04 22:43:13.862033"),
    ("withdrawal", 6728.74, "2024-04-14 01:04:43.862038"), ("deposit", 8807.73, "2024-08-25 04:46:11.862042"),
    ("deposit", 852.5, "2023-09-20 13:56:27.862046"), ("deposit", 9234.23, "2023-11-05 05:21:56.862050"),
    ("deposit", 2297.73, "2023-10-23 11:39:11.862054"), ("deposit", 6412.41, "2024-02-06 16:58:17.862059"),
    ("deposit", 7453.07, "2024-03-04 05:44:38.862063"), ("deposit", 6254.3, "2023-09-23 19:32:55.862067"),
    ("deposit", 8964.21, "2024-07-28 12:29:37.862071"), ("deposit", 8045.08, "2024-03-11 22:32:49.862076"),
    ("withdrawal", 1419.97, "2024-02-28 16:47:04.862080"), ("deposit", 9935.1, "2024-04-12 01:45:25.862084"),
    ("deposit", 1123.34, "2023-12-13 23:17:55.862088"), ("withdrawal", 5846.26, "2024-06-22 09:51:20.862092"),
    ("deposit", 1143.78, "2024-01-18 23:24:50.862097"), ("deposit", 6905.76, "2023-10-15 20:20:07.862101"),
    ("withdrawal", 2453.31, "2024-07-02 12:52:41.862105"), ("deposit", 5417.47, "2024-03-03 22:41:02.862109"),
    ("deposit", 2554.15, "2024-01-11 06:04:36.862114"), ("withdrawal", 122.61, "2024-06-15 16:01:32.862118"),
    ("deposit", 2980.05, "2024-01-09 16:32:17.862122"), ("deposit", 4757.53, "2023-11-13 00:53:29.862126"),
    ("deposit", 6624.36, "2023-10-31 19:28:27.862131"), ("withdrawal", 1397.43, "2023-12-13 21:36:46.862135"),
    ("deposit", 4528.74, "2024-06-27 15:54:47.862139"), ("withdrawal", 6923.05, "2024-08-12 16:47:20.862143"),
    ("withdrawal", 8368.97, "2023-11-19 14:08:47.862147"), ("withdrawal", 6687.82, "2023-10-10 05:43:30.862151"),
    ("deposit", 2802.64, "2024-02-23 01:56:34.862155"), ("deposit", 6173.27, "2024-08-21 02:10:15.862160"),
    ("withdrawal", 3816.09, "2024-03-07 02:00:54.862164"), ("deposit", 2542.91, "2024-03-17 05:27:53.862168"),
    ("withdrawal", 8049.82, "2024-03-29 15:51:13.862172"), ("deposit", 3520.36, "2024-04-27 05:15:45.862176"),
    ("deposit", 1229.78, "2024-08-09 00:14:17.862180"), ("deposit", 6424.19, "2024-06-19 04:20:54.862184"),
    ("deposit", 4242.89, "2024-02-19 04:44:55.862188"), ("withdrawal", 48.74, "2024-07-12 01:56:27.862193"),
    ("withdrawal", 7130.03, "2024-07-09 13:53:06.862197"), ("withdrawal", 1339.86, "2024-08-14 15:08:24.862201"),
    ("deposit", 8055.81, "2024-05-07 16:11:36.862205"), ("withdrawal", 2081.14, "2024-05-15 08:10:56.862209"),
    ("deposit", 8742.54, "2024-07-10 21:16:29.862213"), ("deposit", 2905.69, "2023-11-21 18:39:23.862218"),
    ("withdrawal", 4261.86, "2024-04-16 22:33:56.862222"), ("deposit", 370.47, "2024-06-09 09:34:02.862226"),
    ("withdrawal", 4183.78, "2024-05-11 07:16:32.862230"), ("withdrawal", 9954.87, "2024-08-12 18:39:22.862235"),
    ("withdrawal", 8863.75, "2024-03-19 18:49:14.862239"), ("deposit", 1884.58, "2024-04-29 23:41:32.862243"),
    ("deposit", 4851.41, "2024-08-28 04:52:34.862248"), ("withdrawal", 498.24, "2024-03-29 22:20:04.862252"),
    ("deposit", 2395.68, "2023-11-16 13:59:38.862256"), ("withdrawal", 3523.49, "2024-06-05 05:58:33.862261"),
    ("deposit", 5682.02, "2024-06-01 06:26:36.862265"), ("withdrawal", 5197.13, "2024-03-08 21:18:23.862270"),
    ("withdrawal", 4574.3, "2023-09-28 23:58:30.862274"), ("deposit", 1245.06, "2024-06-24 03:23:03.862279"),
    ("withdrawal", 836.04, "2024-05-27 18:12:35.862285"), ("withdrawal", 3982.27, "2024-07-22 06:14:30.862289"),
    ("deposit", 9523.02, "2024-04-21 17:00:50.862293"), ("deposit", 5265.67, "2023-12-22 00:51:18.862297"),
    ("deposit", 5715.01, "2024-07-02 03:41:48.862301"), ("withdrawal", 3831.69, "2023-10-21 09:58:49.862305"),
    ("withdrawal", 5073.71, "2024-03-12 10:30:04.862310"), ("withdrawal", 409.77, "2023-10-03 22:02:41.862314"),
    ("withdrawal", 3761.36, "2023-11-11 18:37:23.862318"), ("deposit", 8456.46, "2024-07-06 22:07:58.862323"),
    ("withdrawal", 1763.58, "2024-04-09 14:20:51.862327"), ("withdrawal", 7571.66, "2024-05-23 08:49:39.862332"),
    ("deposit", 8306.15, "2024-08-18 12:23:29.862336"), ("withdrawal", 7073.02, "2023-12-14 16:51:23.862340"),
    ("withdrawal", 6024.04, "2024-03-02 06:22:32.862344"), ("withdrawal", 831.94, "2024-06-14 01:17:05.862349"),
    ("deposit", 202.22, "2024-07-15 21:24:48.862353"), ("withdrawal", 2847.18, "2024-07-13 05:38:52.862357"),
    ("deposit", 5690.93, "2023-10-31 23:23:51.862361"), ("withdrawal", 6248.55, "2023-11-08 11:26:07.862366"),
    ("deposit", 2245.1, "2023-12-08 11:42:53.862370"), ("withdrawal", 6789.61, "2023-11-18 22:46:52.862374"),
    ("deposit", 7924.12, "2024-04-25 16:56:34.862378"), ("withdrawal", 1337.69, "2024-07-15 04:54:37.862382"),
    ("deposit", 1027.01, "2023-11-14 04:16:21.862387"), ("deposit", 4131.95, "2023-11-19 12:31:58.862391"),
    ("withdrawal", 1680.76, "2024-02-27 06:43:15.862395"), ("withdrawal", 9991.34, "2024-04-23 12:47:39.862399"),
    ("deposit", 2039.72, "2024-03-31 05:57:04.862403"), ("deposit", 148.72, "2024-08-27 18:04:24.862408"),
    ("withdrawal", 9750.25, "2024-03-25 15:48:38.862412"), ("deposit", 1395.18, "2024-06-12 10:31:39.862416"),
    ("deposit", 9121.49, "2024-02-23 06:08:16.862420"), ("withdrawal", 6406.1, "2024-07-01 15:02:24.862425"),
    ("withdrawal", 3259.8, "2024-06-07 20:53:21.862429"), ("deposit", 6417.73, "2024-08-21 19:41:35.862433"),
    ("deposit", 44.89, "2023-09-15 14:06:26.862438"), ("deposit", 6482.47, "2024-08-21 08:40:59.862442"),
    ("withdrawal", 9680.75, "2023-10-29 00:58:59.862446"), ("deposit", 7466.36, "2024-06-05 18:35:33.862451"),
    ("withdrawal", 9647.72, "2023-09-13 23:34:56.862455"), ("deposit", 2897.91, "2024-07-26 22:15:25.862459"),
    ("withdrawal", 7965.27, "2024-08-21 05:20:32.862463"), ("deposit", 7544.84, "2024-02-20 08:57:10.862467"),
    ("withdrawal", 2831.31, "2024-08-08 02:10:20.862471"), ("deposit", 8783.59, "2024-02-08 15:38:55.862476"),
    ("withdrawal", 1770.01, "2024-01-15 01:19:47.862480"), ("deposit", 4581.82, "2024-01-10 15:46:32.862484"),
    ("deposit", 1518.01, "2024-04-04 19:15:58.862488"), ("deposit", 183.92, "2024-07-29 10:02:52.862493"),
    ("withdrawal", 3156.8, "2024-05-31 07:57:37.862497"), ("withdrawal", 8669.74, "2024-06-07 10:45:47.862501"),
    ("deposit", 1775.52, "2024-06-02 23:27:30.862506"), ("withdrawal", 206.64, "2024-06-30 20:40:40.862510"),
    ("withdrawal", 7570.39, "2024-03-08 07:52:51.862515"), ("withdrawal", 6353.91, "2024-01-06 01:29:30.862519"),
    ("withdrawal", 9927.54, "2024-07-11 18:47:14.862523"), ("withdrawal", 3056.1, "2024-06-08 18:10:06.862527"),
    ("deposit", 6513.25, "2024-04-21 18:55:31.862532"), ("deposit", 8390.96, "2023-10-06 17:48:39.862536"),
    ("deposit", 5912.83, "2024-04-06 06:36:25.862540"), ("deposit", 188.33, "2023-11-09 12:46:45.862544"),
    ("deposit", 7067.41, "2024-01-11 12:14:27.862548"), ("withdrawal", 1510.49, "2023-11-20 07:38:29.862553"),
    ("withdrawal", 1983.73, "2024-09-04 19:40:59.862557"), ("withdrawal", 6192.86, "2023-12-07 23:53:38.862561"),
    ("deposit", 807.56, "2024-09-07 04:38:44.862565"), ("withdrawal", 5590.97, "2024-07-24 20:03:45.862569"),
    ("deposit", 970.62, "2024-02-07 04:51:57.862574"), ("withdrawal", 9323.32, "2023-12-31 03:03:49.862578"),
    ("withdrawal", 3162.49, "2024-09-03 20:09:38.862582"), ("deposit", 5270.33, "2024-03-18 22:13:35.862586"),
    ("withdrawal", 5017.63, "2024-06-28 07:01:52.862591"), ("withdrawal", 9321.37, "2024-01-21 14:49:26.862595"),
    ("deposit", 7171.43, "2024-07-07 14:06:19.862599"), ("withdrawal", 89.28, "2023-10-22 10:55:04.862603"),
    ("withdrawal", 1445.89, "2024-02-04 19:09:43.862608"), ("withdrawal", 5515.9, "2024-04-28 23:55:45.862613"),
    ("deposit", 2092.69, "2023-10-12 04:45:41.862617"), ("deposit", 9090.74, "2024-02-14 16:43:56.862622"),
    ("withdrawal", 7386.37, "2024-06-22 15:53:31.862626"), ("withdrawal", 6736.54, "2023-10-20 10:38:43.862630"),
    ("withdrawal", 2932.01, "2024-01-20 18:48:38.862634"), ("withdrawal", 459.25, "2024-07-15 15:51:45.862639"),
    ("deposit", 3860.34, "2024-09-01 05:35:19.862643"), ("withdrawal", 5660.79, "2024-02-03 00:41:20.862647"),
    ("deposit", 7100.54, "2024-09-11 02:20:22.862651"), ("deposit", 3566.43, "2023-12-01 01:54:06.862656"),
    ("deposit", 6981.07, "2023-09-19 23:08:04.862660"), ("deposit", 35.57, "2024-03-10 09:43:52.862664"),
    ("deposit", 2089.9, "2024-08-07 23:51:11.862668"), ("withdrawal", 7658.78, "2024-02-03 21:36:01.862673"),
    ("deposit", 7548.45, "2024-07-19 03:21:59.862679"), ("deposit", 7106.67, "2024-03-06 04:02:33.862683"),
    ("withdrawal", 7377.08, "2023-12-25 23:35:18.862687"), ("deposit", 3494.7, "2023-09-28 18:57:33.862692"),
    ("deposit", 826.44, "2024-02-14 12:29:19.862696"), ("deposit", 7045.93, "2024-06-25 15:48:51.862700"),
    ("deposit", 2596.75, "2024-06-02 12:38:16.862704"), ("deposit", 8655.09, "2024-05-27 11:12:18.862708"),
    ("deposit", 8524.03, "2024-06-15 15:01:52.862712"), ("deposit", 7030.09, "2024-09-04 03:46:53.862716"),
    ("deposit", 2979.93, "2024-01-28 10:18:12.862721"), ("withdrawal", 2273.99, "2023-12-18 08:16:00.862725"),
    ("deposit", 8712.37, "2024-02-13 22:40:39.862729"), ("withdrawal", 8232.82, "2023-10-18 12:50:42.862734"),
    ("withdrawal", 3099.15, "2023-12-02 11:39:42.862738"), ("deposit", 6924.96, "2024-08-29 15:21:21.862742"),
    ("deposit", 6198.24, "2023-11-27 17:02:16.862746"), ("deposit", 508.24, "2024-06-14 03:41:20.862751"),
    ("deposit", 2095.44, "2023-09-28 05:09:46.862755"), ("withdrawal", 2255.95, "2023-11-10 06:56:50.862759"),
    ("withdrawal", 1363.17, "2024-06-14 20:02:58.862764"), ("withdrawal", 8440.51, "2024-06-16 05:01:01.862768"),
    ("withdrawal", 7964.74, "2023-10-14 12:07:50.862772"), ("withdrawal", 2963.75, "2023-09-15 00:08:51.862776"),
    ("deposit", 1728.07, "2023-09-30 02:07:53.862780"), ("withdrawal", 3984.84, "2023-11-03 13:13:22.862784"),
    ("deposit", 8602.21, "2023-11-18 12:49:57.862789"), ("deposit", 3339.59, "2023-12-06 21:02:05.862793"),
    ("withdrawal", 917.79, "2023-10-06 16:08:41.862797"), ("deposit", 9144.43, "2024-07-13 20:18:01.862801"),
    ("withdrawal", 9369.23, "2024-01-17 04:10:03.862805"), ("withdrawal", 6470.13, "2024-09-03 14:13:37.862810"),
    ("withdrawal", 3507.08, "2023-12-13 17:31:15.862814"), ("deposit", 4762.17, "2024-01-04 06:27:46.862818"),
    ("deposit", 2472.77, "2023-11-02 01:36:10.862822"), ("withdrawal", 6613.17, "2024-06-01 07:29:59.862827"),
    ("deposit", 1651.9, "2024-01-13 13:28:30.862831"), ("withdrawal", 1211.56, "2024-07-01 15:42:08.862835"),
    ("withdrawal", 5155.27, "2023-12-05 15:16:51.862839"), ("deposit", 8183.37, "2024-07-06 18:54:58.862843"),
    ("deposit", 3285.02, "2023-09-30 15:55:04.862847"), ("withdrawal", 5485.4, "2023-10-16 11:42:01.862852"),
    ("deposit", 9921.35, "2024-03-24 22:30:34.862856"), ("withdrawal", 1327.29, "2024-07-12 20:26:58.862860"),
    ("withdrawal", 5370.98, "2023-12-17 00:39:12.862864"), ("deposit", 961.42, "2024-02-24 12:17:20.862868"),
    ("deposit", 9816.58, "2023-12-26 12:41:48.862872"), ("withdrawal", 7265.58, "2024-05-30 22:30:47.862877"),
    ("withdrawal", 2124.11, "2024-06-28 03:56:41.862881"), ("withdrawal", 305.99, "2024-05-29 05:22:25.862885"),
    ("deposit", 9134.79, "2024-03-11 07:25:16.862890"), ("deposit", 1935.34, "2024-03-11 23:55:05.862894"),
    ("withdrawal", 2052.57, "2023-12-05 02:38:24.862898"), ("deposit", 333.32, "2024-06-18 19:36:33.862902"),
    ("deposit", 3995.41, "2024-08-18 12:14:48.862906"), ("withdrawal", 8227.96, "2023-12-22 15:13:55.862911"),
    ("withdrawal", 3897.61, "2024-08-10 02:47:03.862915"), ("deposit", 8384.36, "2024-01-02 13:52:40.862920"),
    ("deposit", 4685.36, "2024-08-27 06:02:36.862924"), ("withdrawal", 1996.3, "2024-05-26 20:28:56.862928"),
    ("withdrawal", 80.45, "2024-01-23 17:36:09.862932"), ("withdrawal", 6560.35, "2024-08-29 15:47:56.862936"),
    ("deposit", 5304.55, "2023-09-27 06:29:27.862940"), ("deposit", 9335.86, "2023-10-19 09:37:13.862944"),
    ("withdrawal", 7541.55, "2024-01-19 02:32:51.862948"), ("withdrawal", 9472.41, "2024-03-01 02:20:15.862953"),
    ("deposit", 461.4, "2023-09-30 17:04:20.862957"), ("deposit", 6824.9, "2023-09-19 03:42:45.862961"),
    ("withdrawal", 5834.07, "2024-01-03 00:10:04.862966"), ("deposit", 1921.43, "2024-01-02 07:29:25.862970"),
    ("deposit", 8264.32, "2024-02-18 14:31:30.862974"), ("withdrawal", 1634.83, "2024-07-25 23:01:32.862978"),
    ("withdrawal", 9303.89, "2023-12-21 05:22:36.862982"), ("deposit", 6085.67, "2024-09-13 10:49:09.862987"),
    ("withdrawal", 819.11, "2024-06-16 08:22:48.862992"), ("deposit", 2344.62, "2023-11-01 04:35:00.862996"),
    ("withdrawal", 7155.38, "2024-02-20 16:54:28.863000"), ("withdrawal", 3739.44, "2023-11-24 00:56:35.863004"),
    ("deposit", 8720.49, "2024-06-24 16:58:32.863009"), ("deposit", 2821.32, "2024-04-20 04:05:33.863013"),
    ("deposit", 72.82, "2023-09-18 00:08:18.863018"), ("deposit", 125.97, "2024-08-17 20:33:29.863022"),
    ("withdrawal", 9972.39, "2024-04-04 21:20:58.863026"), ("deposit", 1141.49, "2024-01-24 01:10:14.863031"),
    ("withdrawal", 8994.68, "2024-07-10 12:45:43.863035"), ("withdrawal", 5141.68, "2023-11-01 20:51:21.863039"),
    ("withdrawal", 9717.04, "2023-10-24 16:25:34.863043"), ("withdrawal", 2616.87, "2024-08-24 04:09:49.863048"),
    ("withdrawal", 1016.3, "2023-11-25 18:17:04.863052"), ("deposit", 8327.22, "2024-06-28 17:49:22.863056"),
    ("deposit", 8215.86, "2024-06-07 17:16:18.863061"), ("withdrawal", 4057.46, "2024-02-01 21:54:20.863065"),
    ("deposit", 7814.53, "2024-04-06 14:44:48.863071"), ("withdrawal", 1064.11, "2024-06-19 23:30:45.863075"),
    ("deposit", 4404.86, "2024-05-03 16:40:24.863080"), ("deposit", 3391.11, "2024-03-09 09:07:16.863084"),
    ("deposit", 2911.23, "2024-08-15 08:52:30.863088"), ("withdrawal", 4180.7, "2024-03-06 18:09:27.863092"),
    ("withdrawal", 6876.93, "2023-09-18 19:43:53.863096"), ("deposit", 9471.26, "2024-06-02 15:04:54.863100"),
    ("withdrawal", 9927.18, "2024-03-05 11:39:07.863104"), ("deposit", 5162.79, "2024-01-13 16:02:02.863109"),
    ("withdrawal", 4676.79, "2024-01-19 17:05:16.863113"), ("deposit", 4539.99, "2024-07-25 12:55:12.863117"),
    ("deposit", 2225.16, "2024-07-15 05:44:12.863121"), ("withdrawal", 5823.32, "2023-10-31 09:07:52.863126"),
    ("deposit", 641.29, "2024-05-14 20:43:09.863130"), ("withdrawal", 1329.39, "2023-11-06 23:38:32.863134"),
    ("withdrawal", 5250.33, "2024-02-15 14:29:25.863138"), ("deposit", 2995.42, "2024-01-19 10:37:03.863142"),
    ("withdrawal", 5079.67, "2024-03-14 00:59:46.863147"), ("withdrawal", 4145.48, "2024-03-04 00:12:51.863151"),
    ("withdrawal", 2097.88, "2024-09-13 19:42:53.863155"), ("withdrawal", 3884.0, "2023-09-19 19:34:15.863160"),
    ("deposit", 7508.02, "2024-05-22 23:23:43.863165"), ("withdrawal", 1581.35, "2023-12-04 10:30:41.863169"),
    ("withdrawal", 1734.6, "2024-04-11 17:36:20.863173"), ("deposit", 5572.8, "2024-05-23 08:24:54.863177"),
    ("deposit", 8974.3, "2024-04-03 23:18:11.863181"), ("deposit", 6559.85, "2024-09-03 06:51:45.863185"),
    ("withdrawal", 3892.97, "2023-11-07 21:26:11.863192"), ("deposit", 2109.89, "2023-10-18 01:16:41.863196"),
    ("withdrawal", 5372.6, "2023-12-25 16:08:07.863201"), ("deposit", 1147.63, "2024-05-02 06:18:07.863205"),
    ("withdrawal", 4869.56, "2024-03-26 15:18:02.863210"), ("deposit", 486.98, "2024-03-12 01:10:43.863214"),
    ("deposit", 5892.49, "2024-04-18 07:53:51.863219"), ("withdrawal", 9503.32, "2024-02-10 19:25:36.863223"),
    ("withdrawal", 6867.62, "2024-07-20 04:23:12.863227"), ("deposit", 9925.96, "2024-01-24 05:31:44.863231"),
    ("deposit", 4095.52, "2024-02-17 15:03:37.863236"), ("withdrawal", 1563.08, "2024-03-19 02:51:18.863240"),
    ("withdrawal", 901.99, "2024-09-05 16:58:50.863244"), ("withdrawal", 544.3, "2024-06-09 18:38:22.863248"),
    ("deposit", 2262.23, "2024-06-28 15:46:50.863252"), ("withdrawal", 2445.52, "2023-12-22 01:17:46.863256"),
    ("withdrawal", 1028.95, "2023-11-02 08:15:34.863261"), ("withdrawal", 8134.08, "2024-07-29 22:35:04.863305"),
    ("deposit", 4765.19, "2024-03-19 16:43:46.863385"), ("withdrawal", 6134.88, "2024-01-07 21:39:12.863390"),
    ("withdrawal", 2455.23, "2024-02-03 19:30:12.863394"), ("withdrawal", 5057.24, "2023-11-27 00:43:18.863399"),
    ("withdrawal", 1857.08, "2024-02-20 13:16:01.863404"), ("deposit", 2390.24, "2023-11-07 16:32:34.863408"),
    ("withdrawal", 9644.52, "2023-09-22 22:15:49.863413"), ("deposit", 7197.01, "2024-01-18 01:27:53.863417"),
    ("withdrawal", 2587.14, "2024-07-21 22:11:29.863421"), ("deposit", 9947.68, "2024-03-24 05:18:55.863463"),
    ("withdrawal", 569.41, "2024-08-29 08:09:37.863490"), ("withdrawal", 8072.83, "2024-09-03 05:42:44.863499"),
    ("deposit", 2769.58, "2024-01-08 19:39:31.863506"), ("withdrawal", 5575.23, "2024-05-21 21:45:44.863513"),
    ("withdrawal", 6311.04, "2024-07-21 14:54:05.863521"), ("deposit", 938.51, "2023-10-04 13:24:19.863527"),
    ("withdrawal", 9785.71, "2024-07-06 12:51:56.863534"), ("withdrawal", 7617.47, "2024-04-02 23:14:16.863541"),
    ("deposit", 8118.54, "2024-08-06 04:02:35.863548"), ("withdrawal", 4099.96, "2024-06-05 17:44:20.863554"),
    ("deposit", 238.81, "2024-08-04 12:58:56.863561"), ("withdrawal", 7011.13, "2024-08-06 02:46:57.863567"),
    ("deposit", 9972.32, "2023-10-09 10:42:30.863574"), ("withdrawal", 9708.03, "2024-04-14 17:11:41.863580"),
    ("deposit", 6930.46, "2024-07-31 20:44:32.863644"), ("deposit", 1411.43, "2023-11-24 22:51:27.863663"),
    ("withdrawal", 7396.21, "2024-05-01 07:34:15.863671"), ("withdrawal", 9421.77, "2024-03-18 20:35:42.863679"),
    ("deposit", 2483.67, "2024-03-24 17:47:14.863685"), ("withdrawal", 1194.94, "2024-06-12 23:35:29.863692"),
    ("withdrawal", 6600.73, "2023-11-20 06:56:27.863698"), ("withdrawal", 7800.2, "2023-11-25 16:57:21.863707"),
    ("withdrawal", 6506.68, "2024-04-27 02:48:41.863714"), ("withdrawal", 5901.7, "2024-06-04 19:10:51.863720"),
    ("deposit", 2994.35, "2024-01-18 13:53:07.863727"), ("withdrawal", 4043.79, "2024-08-05 16:18:34.863733"),
    ("withdrawal", 9662.18, "2024-02-06 20:57:14.863740"), ("withdrawal", 7617.22, "2024-03-01 20:54:59.863747"),
    ("withdrawal", 6249.78, "2023-09-25 12:21:45.863753"), ("deposit", 4327.76, "2024-07-01 00:58:01.863760"),
    ("withdrawal", 8186.81, "2023-11-25 22:28:56.863766"), ("deposit", 932.23, "2024-06-16 10:08:15.863773"),
    ("deposit", 4604.7, "2024-02-08 09:15:53.863820"), ("deposit", 6677.05, "2024-05-06 02:58:42.863826"),
    ("deposit", 9810.44, "2024-02-15 19:12:52.863851"), ("withdrawal", 3450.07, "2024-07-14 02:10:28.863886"),
    ("deposit", 2293.49, "2024-07-09 08:29:33.863908"), ("withdrawal", 869.7, "2024-03-10 23:03:50.863916"),
    ("withdrawal", 7467.0, "2024-07-28 17:32:57.863924"), ("withdrawal", 8487.58, "2024-08-01 23:05:06.863931"),
    ("deposit", 7947.39, "2023-11-17 15:56:57.863937"), ("withdrawal", 4404.56, "2024-06-17 09:52:59.863944"),
    ("deposit", 3793.46, "2024-03-15 05:22:53.863952"), ("withdrawal", 6046.69, "2023-09-18 15:05:41.863959"),
    ("deposit", 3758.01, "2023-11-13 05:43:44.863965"), ("withdrawal", 700.29, "2024-05-28 19:48:27.863971"),
    ("deposit", 4044.84, "2024-05-07 08:38:45.863978"), ("withdrawal", 6787.08, "2024-03-22 13:33:04.863985"),
]
_TRADE_TRANSACTION_HISTORY_EXTENSION = [{"type": kind, "amount": amount, "timestamp": timestamp}
                                 for kind, amount, timestamp in _TRADE_TRANSACTION_ROWS]

# The metadata paragraphs get_order_details adds; {symbol} is filled with the order's symbol.
_TRADE_ORDER_DETAIL_EXTENSION = {
    "company_overview": (
        "\n"
        "    {symbol} is one of the most influential companies in its sector. With a global reach, {symbol} "
        "has been instrumental\n"
        "    in shaping its industry. From groundbreaking products to innovative services, the company has "
        "consistently delivered\n"
        "    high-quality offerings that resonate with both consumers and investors. Founded several decades "
        "ago, {symbol} has grown\n"
        "    exponentially, establishing itself as a market leader. Its extensive portfolio includes diverse "
        "products and services,\n"
        "    each contributing to the company’s robust financial health.\n"
        "\n"
        "    The company has consistently demonstrated a commitment to innovation, regularly introducing new "
        "technologies that redefine\n"
        "    how consumers and businesses interact with its products. In recent years, {symbol} has placed "
        "significant emphasis on \n"
        "    sustainability, investing in environmentally friendly initiatives and aiming for carbon "
        "neutrality by the year 2030. This\n"
        "    focus has garnered support from eco-conscious consumers and institutional investors alike, "
        "further enhancing the company's\n"
        "    reputation and stock value.\n"
        "    "
    ),
    "market_analysis": (
        "\n"
        "    {symbol} has maintained a strong presence in the market, consistently outperforming many of its "
        "competitors. Analysts\n"
        "    regard the stock as a strong buy, citing the company's steady growth trajectory, high margins, "
        "and diverse revenue streams.\n"
        "    Despite global economic challenges, {symbol} has continued to expand, particularly in emerging "
        "markets where it has seen\n"
        "    significant demand for its products. \n"
        "\n"
        "    The company operates in a highly competitive sector, with key rivals like {symbol}'s closest "
        "competitors vying for market\n"
        "    share. However, due to its strong brand loyalty and continuous innovation, {symbol} has "
        "remained a top choice for both \n"
        "    consumers and businesses. Recent quarterly reports have highlighted the company’s ability to "
        "navigate challenges such as \n"
        "    supply chain disruptions, inflationary pressures, and shifts in consumer behavior.\n"
        "    "
    ),
    "technical_analysis": (
        "\n"
        "    From a technical analysis perspective, {symbol} is currently trading within a key range that "
        "has attracted significant\n"
        "    attention from traders. The stock’s 50-day moving average (MA50) and 200-day moving average "
        "(MA200) are converging, \n"
        "    signaling a potential breakout. Additionally, the stock’s current price of $210.65 reflects a "
        "period of consolidation, \n"
        "    where it has been trading in a tight range between $200 and $220. \n"
        "\n"
        "    Indicators such as the Relative Strength Index (RSI) suggest that {symbol} is in neutral "
        "territory, neither overbought \n"
        "    nor oversold. Many traders are watching the Bollinger Bands, which have tightened in recent "
        "weeks, indicating that the \n"
        "    stock could experience higher volatility soon. Historical trends show that {symbol} tends to "
        "rally after earnings \n"
        "    announcements, especially when the company beats analysts' expectations.\n"
        "    "
    ),
    "financial_highlights": (
        "\n"
        "    In terms of financials, {symbol} boasts impressive metrics. The company has reported consistent "
        "revenue growth over the past\n"
        "    five years, with a compound annual growth rate (CAGR) of over 15%. The company’s net profit "
        "margins have remained high,\n"
        "    exceeding 20% for the past three fiscal years. This strong financial performance has allowed "
        "{symbol} to maintain a robust\n"
        "    balance sheet, with significant cash reserves and minimal debt.\n"
        "\n"
        "    {symbol} has also been returning value to shareholders through dividends and share buybacks. "
        "Over the past two years,\n"
        "    the company has repurchased over $20 billion worth of its own stock, boosting earnings per "
        "share (EPS) and increasing\n"
        "    shareholder value. Analysts predict that {symbol} will continue its strong financial "
        "performance, driven by new product\n"
        "    launches and expansion into new markets.\n"
        "    "
    ),
    "risks": (
        "\n"
        "    Despite its strong performance, {symbol} faces several risks that could impact its future "
        "growth. One of the primary risks \n"
        "    is increased competition, particularly from smaller, more agile companies that are quickly "
        "gaining market share in niche \n"
        "    areas. Additionally, {symbol} operates in a sector that is highly sensitive to technological "
        "change, and the company \n"
        "    must continuously innovate to stay ahead.\n"
        "\n"
        "    Regulatory scrutiny is another concern for {symbol}, particularly in markets like the European "
        "Union, where new regulations \n"
        "    could affect the company’s ability to operate freely. There are also concerns about potential "
        "disruptions in the global supply \n"
        "    chain, which could impact the company's manufacturing and distribution capabilities, leading to "
        "delays in product launches.\n"
        "    "
    ),
    "future_outlook": (
        "\n"
        "    Looking ahead, {symbol} is poised for continued growth. The company has several new products in "
        "the pipeline, including \n"
        "    expansions into new markets such as artificial intelligence (AI), augmented reality (AR), and "
        "the Internet of Things (IoT). \n"
        "    These technologies are expected to drive demand for {symbol}'s products, particularly in the "
        "business and enterprise sectors.\n"
        "\n"
        "    {symbol} has also announced plans to expand its services division, which includes "
        "subscription-based offerings such as \n"
        "    cloud services, digital media, and financial technology (FinTech) solutions. These high-margin "
        "services are expected to \n"
        "    contribute significantly to the company's revenue in the coming years. Investors and analysts "
        "alike are optimistic about \n"
        "    the company’s future prospects, particularly in light of its continued commitment to innovation "
        "and sustainability.\n"
        "    "
    ),
    "historical_performance": (
        "\n"
        "    Over the past decade, {symbol} has been a standout performer in its sector, delivering "
        "consistently high returns to \n"
        "    shareholders. The stock has outperformed the broader market, with an annualized return of over "
        "18% in the past 10 years. \n"
        "    The company’s ability to navigate both market downturns and economic crises, such as the 2008 "
        "financial crisis and the \n"
        "    2020 COVID-19 pandemic, has made it a favorite among institutional investors.\n"
        "\n"
        "    In 2022, {symbol} saw a record-breaking year, with revenue exceeding $500 billion for the first "
        "time in its history. \n"
        "    This growth was driven by strong demand for the company’s flagship products, as well as the "
        "rapid expansion of its services \n"
        "    division. Analysts expect the company to continue its strong performance, with projected "
        "revenue growth of 10% in the \n"
        "    next fiscal year.\n"
        "    "
    ),
    "sustainability_initiatives": (
        "\n"
        "    {symbol} has been at the forefront of sustainability initiatives within its industry. The "
        "company has made significant \n"
        "    investments in renewable energy, with plans to power all of its global operations with 100% "
        "renewable energy by 2025. \n"
        "    {symbol} has also committed to reducing its carbon footprint, aiming to achieve carbon "
        "neutrality across its entire \n"
        "    supply chain by 2030.\n"
        "\n"
        "    In addition to its environmental efforts, {symbol} has implemented several initiatives to "
        "promote diversity and inclusion \n"
        "    within the company. These efforts have been well-received by both employees and the wider "
        "public, enhancing the company’s \n"
        "    reputation as a socially responsible corporate entity.\n"
        "    "
    ),
}


# --- M7. TravelAPI, bfcl's travel_booking.py ---
# TravelAPI: the travel-booking backend of BFCL's multi-turn categories, in plain Python.

_TRAVEL_DEFAULT_STATE = {
    "random_seed": 141053,
    "credit_card_list": {},
    "booking_record": {},
    "access_token": None,
    "token_type": None,
    "token_expires_in": None,
    "token_scope": None,
    "user_first_name": None,
    "user_last_name": None,
    "budget_limit": None,
}

# The public attributes a scenario sets, in BFCL's order.
_TRAVEL_STATE_FIELDS = [name for name in _TRAVEL_DEFAULT_STATE if name != "random_seed"]

# Economy fare in USD per (from, to) route. Routes are one-way; the order is BFCL's, and shows in the
# long-context fare list.
_TRAVEL_ROUTE_BASE_COSTS = {
    ("SFO", "LAX"): 200, ("SFO", "JFK"): 500, ("SFO", "ORD"): 400, ("SFO", "BOS"): 450, ("SFO", "RMS"): 300,
    ("SFO", "SBK"): 350, ("SFO", "MPC"): 370, ("SFO", "SVP"): 320, ("SFO", "SHD"): 330, ("SFO", "SSV"): 340,
    ("SFO", "OKD"): 360, ("SFO", "WLB"): 310, ("SFO", "CRH"): 380, ("SFO", "ATV"): 390, ("SFO", "PHV"): 420,
    ("SFO", "GFD"): 430, ("SFO", "CIA"): 700,
    ("LAX", "SFO"): 100, ("LAX", "JFK"): 600, ("LAX", "ORD"): 500, ("LAX", "BOS"): 550, ("LAX", "RMS"): 310,
    ("LAX", "SBK"): 320, ("LAX", "MPC"): 330, ("LAX", "SVP"): 340, ("LAX", "SHD"): 350, ("LAX", "SSV"): 360,
    ("LAX", "OKD"): 370, ("LAX", "WLB"): 380, ("LAX", "CRH"): 390, ("LAX", "ATV"): 400, ("LAX", "PHV"): 410,
    ("LAX", "GFD"): 420, ("LAX", "HND"): 430,
    ("JFK", "ORD"): 300, ("JFK", "BOS"): 250, ("JFK", "RMS"): 450, ("JFK", "SBK"): 460, ("JFK", "MPC"): 470,
    ("JFK", "SVP"): 480, ("JFK", "SHD"): 490, ("JFK", "SSV"): 500, ("JFK", "OKD"): 510, ("JFK", "WLB"): 520,
    ("JFK", "CRH"): 530, ("JFK", "ATV"): 540, ("JFK", "PHV"): 550, ("JFK", "GFD"): 560, ("JFK", "LAX"): 570,
    ("JFK", "HND"): 800, ("JFK", "PVG"): 950, ("JFK", "PEK"): 1000,
    ("ORD", "LAX"): 180, ("ORD", "BOS"): 200, ("ORD", "RMS"): 350, ("ORD", "SBK"): 360, ("ORD", "MPC"): 370,
    ("ORD", "SVP"): 380, ("ORD", "SHD"): 390, ("ORD", "SSV"): 400, ("ORD", "OKD"): 410, ("ORD", "WLB"): 420,
    ("ORD", "CRH"): 430, ("ORD", "ATV"): 440, ("ORD", "PHV"): 450, ("ORD", "GFD"): 460,
    ("BOS", "RMS"): 400, ("BOS", "SBK"): 410, ("BOS", "MPC"): 420, ("BOS", "SVP"): 430, ("BOS", "SHD"): 440,
    ("BOS", "SSV"): 450, ("BOS", "OKD"): 460, ("BOS", "WLB"): 470, ("BOS", "CRH"): 480, ("BOS", "ATV"): 490,
    ("BOS", "PHV"): 500, ("BOS", "GFD"): 510,
    ("RMS", "BOS"): 200, ("RMS", "JFK"): 210, ("RMS", "SBK"): 220, ("RMS", "MPC"): 230, ("RMS", "SVP"): 240,
    ("RMS", "SHD"): 250, ("RMS", "SSV"): 260, ("RMS", "OKD"): 270, ("RMS", "WLB"): 280, ("RMS", "CRH"): 290,
    ("RMS", "ATV"): 300, ("RMS", "PHV"): 310, ("RMS", "GFD"): 320, ("RMS", "LAX"): 330,
    ("SBK", "MPC"): 200, ("SBK", "SVP"): 210, ("SBK", "SHD"): 220, ("SBK", "SSV"): 230, ("SBK", "OKD"): 240,
    ("SBK", "WLB"): 250, ("SBK", "CRH"): 260, ("SBK", "ATV"): 270, ("SBK", "PHV"): 280, ("SBK", "GFD"): 290,
    ("MPC", "SVP"): 210, ("MPC", "SHD"): 220, ("MPC", "SSV"): 230, ("MPC", "OKD"): 240, ("MPC", "WLB"): 250,
    ("MPC", "CRH"): 260, ("MPC", "ATV"): 270, ("MPC", "PHV"): 280, ("MPC", "GFD"): 290,
    ("SVP", "SHD"): 230, ("SVP", "SSV"): 240, ("SVP", "OKD"): 250, ("SVP", "WLB"): 260, ("SVP", "CRH"): 270,
    ("SVP", "ATV"): 280, ("SVP", "PHV"): 290, ("SVP", "GFD"): 300,
    ("SHD", "SSV"): 220, ("SHD", "OKD"): 230, ("SHD", "WLB"): 240, ("SHD", "CRH"): 250, ("SHD", "ATV"): 260,
    ("SHD", "PHV"): 270, ("SHD", "GFD"): 280,
    ("SSV", "OKD"): 240, ("SSV", "WLB"): 250, ("SSV", "CRH"): 260, ("SSV", "ATV"): 270, ("SSV", "PHV"): 280,
    ("SSV", "GFD"): 290,
    ("OKD", "WLB"): 230, ("OKD", "CRH"): 240, ("OKD", "ATV"): 250, ("OKD", "PHV"): 260, ("OKD", "GFD"): 270,
    ("WLB", "CRH"): 250, ("WLB", "ATV"): 260, ("WLB", "PHV"): 270, ("WLB", "GFD"): 280,
    ("CRH", "ATV"): 240, ("CRH", "PHV"): 250, ("CRH", "GFD"): 260, ("CRH", "SFO"): 270, ("CRH", "RMS"): 280,
    ("CRH", "HKG"): 290, ("CRH", "JFK"): 300,
    ("ATV", "PHV"): 230, ("ATV", "GFD"): 240,
    ("PHV", "GFD"): 220,
    ("LHR", "CDG"): 100,
    ("OKD", "LAX"): 220,
}

# Fare multiplier per travel class, compared with == (as BFCL's if-chain does, so a list gives ValueError).
_TRAVEL_TRAVEL_CLASS_FACTORS = (("economy", 1), ("business", 2), ("first", 5))

# subtle: a set, because book_flight prints it in an error message. Its order follows the strings'
# hashes, which change from process to process (PYTHONHASHSEED); BFCL and this port agree inside one.
_TRAVEL_TRAVEL_CLASSES = {"economy", "business", "first"}

# Units of the second currency per unit of the first; converting the other way divides and rounds.
_TRAVEL_EXCHANGE_RATES = {
    ("USD", "RMB"): 7, ("USD", "EUR"): 0.8, ("USD", "JPY"): 110, ("USD", "GBP"): 0.7,
    ("USD", "CAD"): 1.3, ("USD", "AUD"): 1.4, ("USD", "INR"): 70, ("USD", "RUB"): 60,
    ("USD", "BRL"): 3.8, ("USD", "MXN"): 20,
}

_TRAVEL_AIRPORTS = [
    "RMS", "SBK", "MPC", "SVP", "SHD", "CDG", "LHR", "SSV", "OKD", "WLB", "PEK", "HND",
    "HKG", "CIA", "CRH", "ATV", "PHV", "GFD", "SFO", "LAX", "JFK", "ORD", "BOS",
]

_TRAVEL_CITY_AIRPORTS = {
    "Rivermist": "RMS", "Stonebrook": "SBK", "Maplecrest": "MPC", "Silverpine": "SVP",
    "Shadowridge": "SHD", "London": "LHR", "Paris": "CDG", "Sunset Valley": "SSV",
    "Oakendale": "OKD", "Willowbend": "WLB", "Crescent Hollow": "CRH", "Autumnville": "ATV",
    "Pinehaven": "PHV", "Greenfield": "GFD", "San Francisco": "SFO", "Los Angeles": "LAX",
    "New York": "JFK", "Chicago": "ORD", "Boston": "BOS", "Beijing": "PEK",
    "Hong Kong": "HKG", "Rome": "CIA", "Tokyo": "HND",
}

_TRAVEL_INVOICE_FIELDS = (
    "travel_date", "travel_from", "travel_to", "travel_class", "travel_cost", "transaction_id",
)

_TRAVEL_SUPPORT_REPLY = (
    "Thank you for contacting customer support. Your message has been received and we will get "
    "back to you shortly."
)

_TRAVEL_API_DESCRIPTION = (
    "This tool belongs to the travel system, which allows users to book flights, manage credit "
    "cards, and view budget information."
)

# Fares and ages


def _TRAVEL_flight_fares(travel_from, travel_to, travel_date, travel_class, every_route=False):
    """Return {route: fare} for the asked route (or every route); ValueError for a bad route or class.

    The fare is base x class factor, doubled when the digits of the date add up to an even number.
    Example: ("SFO", "LAX", "2024-11-16", "business") -> {("SFO", "LAX"): 400.0}  (digit sum 17)
    """
    route = (travel_from, travel_to)
    if route not in _TRAVEL_ROUTE_BASE_COSTS:
        raise ValueError("No available route for the given airports.")
    for name, factor in _TRAVEL_TRAVEL_CLASS_FACTORS:
        if travel_class == name:
            break
    else:
        raise ValueError("Invalid travel class. Options are: economy, business, first.")
    digit_sum = sum(int(char) for char in travel_date if char.isdigit())
    date_factor = 2 if digit_sum % 2 == 0 else 1
    routes = _TRAVEL_ROUTE_BASE_COSTS if every_route else {route: _TRAVEL_ROUTE_BASE_COSTS[route]}
    return {key: float(base * factor * date_factor) for key, base in routes.items()}


def _TRAVEL_age_in_years(birth_date, today):
    """Return the whole years from birth_date to today.

    Example: (datetime(2000, 6, 2), datetime(2024, 6, 1)) -> 23
    """
    before_birthday = (today.month, today.day) < (birth_date.month, birth_date.day)
    return today.year - birth_date.year - before_birthday


# The API class


class TravelAPI:
    """A traveller's session: login token, credit cards, flight bookings and a budget limit."""

    def __init__(self):
        # Public state appears only with _load_scenario, as in BFCL.
        self._api_description = _TRAVEL_API_DESCRIPTION

    def _load_scenario(self, scenario, long_context=False):
        """Set the state from a scenario dict; a missing key takes its DEFAULT_STATE value."""
        defaults = deepcopy(_TRAVEL_DEFAULT_STATE)
        self._random = random.Random(scenario.get("random_seed", defaults["random_seed"]))
        # The scenario's own dicts are kept, not copied, as in BFCL (the grader hands in a deep copy).
        for name in _TRAVEL_STATE_FIELDS:
            setattr(self, name, scenario.get(name, defaults[name]))
        self.long_context = long_context
        if long_context:
            self._add_long_context_filler()

    def _add_long_context_filler(self):
        """Add the filler cards and bookings the scenario does not already have."""
        # subtle: BFCL stores the filler dicts themselves, not copies, so every long-context instance
        # in the process shares them: charging a filler card on one instance changes it on all (and
        # in later entries). Kept, so that grading matches BFCL's.
        for card_id, card in _TRAVEL_CREDIT_CARD_EXTENSION.items():
            if card_id not in self.credit_card_list:
                self.credit_card_list[card_id] = card
        for booking_id, booking in _TRAVEL_BOOKING_RECORD_EXTENSION.items():
            if booking_id not in self.booking_record:
                self.booking_record[booking_id] = booking

    def __eq__(self, other):
        """Compare the public attributes, as BFCL's checker does."""
        if not isinstance(other, TravelAPI):
            return False
        public = [name for name in vars(self) if not name.startswith("_")]
        return all(getattr(self, name) == getattr(other, name) for name in public)

    def _token_error(self, access_token):
        """Return "Token expired" or "Invalid access token", or None when the token is accepted."""
        if self.token_expires_in == 0:
            return "Token expired"
        if access_token != self.access_token:
            return "Invalid access token"
        return None

    # Login and account

    def authenticate_travel(
        self, client_id, client_secret, refresh_token, grant_type, user_first_name, user_last_name
    ):
        """Log the user in: a new 6-digit access token that "expires in" 2."""
        self.token_expires_in = 2
        self.access_token = str(self._random.randint(100000, 999999))
        self.token_type = "Bearer"
        self.token_scope = grant_type
        self.user_first_name = user_first_name
        self.user_last_name = user_last_name
        return {
            "expires_in": 2,
            "access_token": self.access_token,
            "token_type": "Bearer",
            "scope": grant_type,
        }

    def travel_get_login_status(self):
        """Say whether a token is present and not expired."""
        logged_out = self.token_expires_in is None or self.token_expires_in == 0
        return {"status": not logged_out}

    def get_budget_fiscal_year(self, lastModifiedAfter=None, includeRemoved=None):
        """Return the budget fiscal year (always "2018"; the filters are ignored)."""
        return {"budget_fiscal_year": "2018"}

    def set_budget_limit(self, access_token, budget_limit):
        """Set the budget limit in USD."""
        error = self._token_error(access_token)
        if error:
            return {"error": error}
        budget_limit = float(budget_limit)
        self.budget_limit = budget_limit
        return {"budget_limit": budget_limit}

    # Credit cards

    def register_credit_card(
        self, access_token, card_number, expiration_date, cardholder_name, card_verification_number
    ):
        """Register a card under a new 12-digit id, with a random 5-digit balance."""
        if self.token_expires_in is None:
            return {"error": "Token not initialized"}
        error = self._token_error(access_token)
        if error:
            return {"error": error}
        # BFCL's quirk: the card number is looked up among the card ids.
        if card_number in self.credit_card_list:
            return {"error": "Card already registered"}
        card_id = str(self._random.randint(100000000000, 999999999999))
        self.credit_card_list[card_id] = {
            "card_number": card_number,
            "expiration_date": expiration_date,
            "cardholder_name": cardholder_name,
            "card_verification_number": card_verification_number,
            "balance": self._random.randint(10000, 99999),  # drawn after the id, as in BFCL
        }
        return {"card_id": card_id}

    def get_credit_card_balance(self, access_token, card_id):
        """Return a card's balance, or the list of known card ids."""
        error = self._token_error(access_token)
        if error:
            return {"error": error}
        if card_id not in self.credit_card_list:
            known = str(list(self.credit_card_list.keys()))
            return {"error": "Card not registered. Here are a list of card_id's: " + known}
        return {"card_balance": self.credit_card_list[card_id]["balance"]}

    def get_all_credit_cards(self):
        """Return every registered card (the live dict, as BFCL does)."""
        return {"credit_card_list": self.credit_card_list}

    # Airports, fares and currencies

    def list_all_airports(self):
        """Return the codes of all known airports."""
        return list(_TRAVEL_AIRPORTS)

    def get_nearest_airport_by_city(self, location):
        """Return the airport code for a city, or "Unknown"."""
        return {"nearest_airport": _TRAVEL_CITY_AIRPORTS.get(location, "Unknown")}

    def get_flight_cost(self, travel_from, travel_to, travel_date, travel_class):
        """Return the fare in a list; in long context, the fare of every route with that date and class."""
        fares = _TRAVEL_flight_fares(travel_from, travel_to, travel_date, travel_class, self.long_context)
        return {"travel_cost_list": list(fares.values())}

    def compute_exchange_rate(self, base_currency, target_currency, value):
        """Convert value between USD and another currency; ValueError for any other pair."""
        for (usd, other), rate in _TRAVEL_EXCHANGE_RATES.items():
            if base_currency == usd and target_currency == other:
                return {"exchanged_value": float(value * rate)}
            elif base_currency == other and target_currency == usd:
                return {"exchanged_value": round(value / rate, 2)}
        raise ValueError("No available exchange rate for the given currencies.")

    # Bookings

    def book_flight(self, access_token, card_id, travel_date, travel_from, travel_to, travel_class):
        """Book a flight and charge its fare to a card; new 7-digit booking and 8-digit transaction ids."""
        error = self._token_error(access_token)
        if error:
            return {"booking_status": False, "error": error}
        if card_id not in self.credit_card_list:
            return {"booking_status": False, "error": "Card not registered"}
        card = self.credit_card_list[card_id]
        if "balance" not in card:
            return {"booking_status": False, "error": "Balance not found"}
        request_error = self._flight_request_error(travel_date, travel_from, travel_to, travel_class)
        if request_error:
            return {"booking_status": False, "error": request_error}
        try:
            fare = _TRAVEL_flight_fares(travel_from, travel_to, travel_date, travel_class)
        except ValueError as e:
            return {"booking_status": False, "error": str(e)}
        travel_cost = fare[(travel_from, travel_to)]
        if card["balance"] < travel_cost:
            return {"booking_status": False, "error": "Insufficient funds"}
        # BFCL's quirk: the balance, not the fare, is held against the budget limit.
        if self.budget_limit is not None and card["balance"] < self.budget_limit:
            return {"booking_status": False, "error": "Balance is less than budget limit"}
        card["balance"] -= travel_cost
        booking_id = str(self._random.randint(1000000, 9999999))
        transaction_id = str(self._random.randint(10000000, 99999999))
        self.booking_record[booking_id] = {
            "card_id": card_id,
            "travel_date": travel_date,
            "travel_from": travel_from,
            "travel_to": travel_to,
            "travel_class": travel_class,
            "travel_cost": travel_cost,
            "transaction_id": transaction_id,
        }
        return {
            "booking_id": booking_id,
            "transaction_id": transaction_id,
            "booking_status": True,
            "booking_history": self.booking_record if self.long_context else {},
        }

    def _flight_request_error(self, travel_date, travel_from, travel_to, travel_class):
        """Return book_flight's message for a bad airport, date or class, or None."""
        if travel_from not in _TRAVEL_AIRPORTS:
            return f"Invalid departure airport code: {travel_from}"
        if travel_to not in _TRAVEL_AIRPORTS:
            return f"Invalid destination airport code: {travel_to}"
        try:
            datetime.strptime(travel_date, "%Y-%m-%d")  # a non-str raises TypeError, as in BFCL
        except ValueError:
            return "Invalid date format. Use YYYY-MM-DD."
        if travel_class not in _TRAVEL_TRAVEL_CLASSES:
            return f"Invalid travel class. Must be one of {_TRAVEL_TRAVEL_CLASSES}"
        return None

    def retrieve_invoice(self, access_token, booking_id=None, insurance_id=None):
        """Return the invoice of a booking (insurance_id is ignored)."""
        error = self._token_error(access_token)
        if error:
            return {"error": error}
        if booking_id not in self.booking_record:
            return {"error": "Booking not found"}
        booking = self.booking_record[booking_id]
        invoice = {"booking_id": booking_id}
        for field in _TRAVEL_INVOICE_FIELDS:
            invoice[field] = booking[field]
        return {"invoice": invoice}

    def get_booking_history(self, access_token):
        """Return a copy of every booking, keyed by booking id."""
        error = self._token_error(access_token)
        if error:
            return {"error": error}
        return {"booking_history": deepcopy(self.booking_record)}

    def cancel_booking(self, access_token, booking_id):
        """Cancel a booking and refund its fare to the card."""
        error = self._token_error(access_token)
        if error:
            return {"cancel_status": False, "error": error}
        if booking_id not in self.booking_record:
            return {"cancel_status": False, "error": "Booking not found"}
        booking = self.booking_record[booking_id]
        card_id, travel_cost = booking["card_id"], booking["travel_cost"]
        self.credit_card_list[card_id]["balance"] += travel_cost
        del self.booking_record[booking_id]
        return {"cancel_status": True}

    def purchase_insurance(self, access_token, insurance_type, booking_id, insurance_cost, card_id):
        """Charge insurance for a booking to a card; a new 9-digit insurance id."""
        error = self._token_error(access_token)
        if error:
            return {"insurance_status": False, "error": error}
        if self.budget_limit is not None and self.budget_limit < insurance_cost:
            return {"insurance_status": False, "error": "Exceeded budget limit"}
        if booking_id not in self.booking_record:
            return {"insurance_status": False, "error": "Booking not found"}
        if card_id not in self.credit_card_list:
            return {"insurance_status": False, "error": "Credit card not registered"}
        self.credit_card_list[card_id]["balance"] -= insurance_cost
        insurance_id = str(self._random.randint(100000000, 999999999))
        return {"insurance_id": insurance_id, "insurance_status": True}

    def contact_customer_support(self, booking_id, message):
        """Send a message about a booking; the reply is always the same."""
        if booking_id not in self.booking_record:
            return {"error": "Booking not found"}
        return {"customer_support_message": _TRAVEL_SUPPORT_REPLY}

    # Travellers

    def verify_traveler_information(self, first_name, last_name, date_of_birth, passport_number):
        """Check the traveller is the logged-in user, an adult today, with a US passport."""
        if self.user_first_name != first_name or self.user_last_name != last_name:
            # BFCL's text has no space after "user."
            return {
                "verification_status": False,
                "verification_failure": "Cannot book flight information for another user."
                + f"Expected {self.user_first_name} {self.user_last_name}, got {first_name} {last_name}",
            }
        try:
            birth_date = datetime.strptime(date_of_birth, "%Y-%m-%d")
        except ValueError:
            return {
                "verification_status": False,
                "verification_failure": "Invalid date of birth format. Please use YYYY-MM-DD.",
            }
        if _TRAVEL_age_in_years(birth_date, datetime.today()) < 18:
            return {
                "verification_status": False,
                "verification_failure": "Traveler must be at least 18 years old.",
            }
        if not passport_number.startswith("US"):
            return {
                "verification_status": False,
                "verification_failure": "Passport must be issued by the United States.",
            }
        return {"verification_status": True}


# Appendix: long-context filler (BFCL's long_context.py, values unchanged)
# A long-context scenario adds these cards and bookings to bury the ones the task is about.
# subtle: the last card's id and number differ (...0001 vs ...0004); that is BFCL's data.

_TRAVEL_CREDIT_CARD_EXTENSION = {
    "1234567812345678": {"card_number": "1234567812345678", "expiration_date": "12/25",
        "cardholder_name": "John Doe", "card_verification_number": 123, "balance": 5000.0},
    "2345678923456789": {"card_number": "2345678923456789", "expiration_date": "11/24",
        "cardholder_name": "Jane Smith", "card_verification_number": 456, "balance": 7500.0},
    "3456789034567890": {"card_number": "3456789034567890", "expiration_date": "10/23",
        "cardholder_name": "Robert Johnson", "card_verification_number": 789, "balance": 6200.0},
    "4567890145678901": {"card_number": "4567890145678901", "expiration_date": "09/26",
        "cardholder_name": "Emily Davis", "card_verification_number": 321, "balance": 8200.0},
    "9978997699789976": {"card_number": "9978997699789976", "expiration_date": "01/30",
        "cardholder_name": "Cardholder 97", "card_verification_number": 697, "balance": 5850.0},
    "9989997799899989": {"card_number": "9989997799899989", "expiration_date": "02/30",
        "cardholder_name": "Cardholder 98", "card_verification_number": 698, "balance": 5900.0},
    "9999997899999999": {"card_number": "9999997899999999", "expiration_date": "03/30",
        "cardholder_name": "Cardholder 99", "card_verification_number": 699, "balance": 5950.0},
    "1000000790000000": {"card_number": "1000000790000000", "expiration_date": "04/30",
        "cardholder_name": "Cardholder 100", "card_verification_number": 700, "balance": 6000.0},
    "1234567812345674": {"card_number": "1234567812345674", "expiration_date": "12/25",
        "cardholder_name": "Johnyy Doe Stacks", "card_verification_number": 132, "balance": 5000.0},
    "2345678923456784": {"card_number": "2345678923456784", "expiration_date": "11/24",
        "cardholder_name": "Jane Hudson", "card_verification_number": 465, "balance": 7500.0},
    "3456789034567894": {"card_number": "3456789034567894", "expiration_date": "10/23",
        "cardholder_name": "Mitchell Johnson", "card_verification_number": 798, "balance": 6200.0},
    "4567890145678904": {"card_number": "4567890145678904", "expiration_date": "09/26",
        "cardholder_name": "Emilio Berkeley", "card_verification_number": 312, "balance": 8200.0},
    "9978997699789974": {"card_number": "9978997699789974", "expiration_date": "01/30",
        "cardholder_name": "Cardholder 397", "card_verification_number": 679, "balance": 5850.0},
    "9989997799899984": {"card_number": "9989997799899984", "expiration_date": "02/30",
        "cardholder_name": "Cardholder 098", "card_verification_number": 689, "balance": 5900.0},
    "9999997899999994": {"card_number": "9999997899999994", "expiration_date": "03/30",
        "cardholder_name": "Cardholder 499", "card_verification_number": 696, "balance": 5950.0},
    "1000000790000004": {"card_number": "1000000790000004", "expiration_date": "04/30",
        "cardholder_name": "Cardholder 4100", "card_verification_number": 712, "balance": 6000.0},
    "1456789034567891": {"card_number": "1456789034567891", "expiration_date": "10/23",
        "cardholder_name": "Roberto Johnson", "card_verification_number": 798, "balance": 6200.0},
    "1567890145678901": {"card_number": "1567890145678901", "expiration_date": "09/26",
        "cardholder_name": "Emily Daviston", "card_verification_number": 312, "balance": 8200.0},
    "1978997699789971": {"card_number": "1978997699789971", "expiration_date": "01/30",
        "cardholder_name": "Cardholder 697", "card_verification_number": 679, "balance": 5850.0},
    "1989997799899981": {"card_number": "1989997799899981", "expiration_date": "02/30",
        "cardholder_name": "Cardholder 598", "card_verification_number": 689, "balance": 5900.0},
    "1999997899999991": {"card_number": "1999997899999991", "expiration_date": "03/30",
        "cardholder_name": "Cardholder 499", "card_verification_number": 696, "balance": 5950.0},
    "1000000790000001": {"card_number": "1000000790000004", "expiration_date": "04/30",
        "cardholder_name": "Cardholder 2100", "card_verification_number": 712, "balance": 6000.0},
}

_TRAVEL_BOOKING_RECORD_EXTENSION = {
    "booking_901": {"card_id": "1234567812345678", "travel_date": "2024-05-21", "travel_from": "SFO",
        "travel_to": "JFK", "travel_class": "economy", "travel_cost": 400.0,
        "transaction_id": "trans_001"},
    "booking_902": {"card_id": "2345678923456789", "travel_date": "2024-06-15", "travel_from": "LAX",
        "travel_to": "ORD", "travel_class": "business", "travel_cost": 900.0,
        "transaction_id": "trans_002"},
    "booking_903": {"card_id": "3456789034567890", "travel_date": "2024-07-01", "travel_from": "BOS",
        "travel_to": "RMS", "travel_class": "first", "travel_cost": 1500.0,
        "transaction_id": "trans_003"},
    "booking_904": {"card_id": "4567890145678901", "travel_date": "2024-08-21", "travel_from": "SFO",
        "travel_to": "ORD", "travel_class": "economy", "travel_cost": 380.0,
        "transaction_id": "trans_004"},
    "booking_997": {"card_id": "9978997699789976", "travel_date": "2024-03-15", "travel_from": "MPC",
        "travel_to": "WLB", "travel_class": "business", "travel_cost": 900.0,
        "transaction_id": "trans_097"},
    "booking_998": {"card_id": "9989997799899989", "travel_date": "2024-02-11", "travel_from": "SHD",
        "travel_to": "SVP", "travel_class": "economy", "travel_cost": 450.0,
        "transaction_id": "trans_098"},
    "booking_999": {"card_id": "9999997899999999", "travel_date": "2024-01-23", "travel_from": "RMS",
        "travel_to": "SBK", "travel_class": "first", "travel_cost": 2200.0,
        "transaction_id": "trans_099"},
    "booking_900": {"card_id": "1000000790000000", "travel_date": "2024-12-05", "travel_from": "SFO",
        "travel_to": "JFK", "travel_class": "business", "travel_cost": 1300.0,
        "transaction_id": "trans_100"},
    "booking_401": {"card_id": "1234567812345678", "travel_date": "2024-05-21", "travel_from": "SFO",
        "travel_to": "JFK", "travel_class": "economy", "travel_cost": 400.0,
        "transaction_id": "trans_401"},
    "booking_402": {"card_id": "2345678923456789", "travel_date": "2024-06-15", "travel_from": "LAX",
        "travel_to": "ORD", "travel_class": "business", "travel_cost": 900.0,
        "transaction_id": "trans_002"},
    "booking_403": {"card_id": "3456789034567890", "travel_date": "2024-07-01", "travel_from": "BOS",
        "travel_to": "RMS", "travel_class": "first", "travel_cost": 1500.0,
        "transaction_id": "trans_403"},
    "booking_404": {"card_id": "4567890145678901", "travel_date": "2024-08-21", "travel_from": "SFO",
        "travel_to": "ORD", "travel_class": "economy", "travel_cost": 380.0,
        "transaction_id": "trans_404"},
    "booking_497": {"card_id": "9978997699789976", "travel_date": "2024-03-15", "travel_from": "MPC",
        "travel_to": "WLB", "travel_class": "business", "travel_cost": 900.0,
        "transaction_id": "trans_497"},
    "booking_498": {"card_id": "9989997799899989", "travel_date": "2024-02-11", "travel_from": "SHD",
        "travel_to": "SVP", "travel_class": "economy", "travel_cost": 450.0,
        "transaction_id": "trans_498"},
    "booking_499": {"card_id": "9999997899999999", "travel_date": "2024-01-23", "travel_from": "RMS",
        "travel_to": "SBK", "travel_class": "first", "travel_cost": 2200.0,
        "transaction_id": "trans_499"},
    "booking_400": {"card_id": "1000000790000000", "travel_date": "2024-12-05", "travel_from": "SFO",
        "travel_to": "JFK", "travel_class": "business", "travel_cost": 1300.0,
        "transaction_id": "trans_400"},
}


# --- M8. VehicleControlAPI, bfcl's vehicle_control.py ---
# vehicle_control: BFCL's simulated car, the VehicleControlAPI of the multi-turn categories.

_CAR_MAX_FUEL_LEVEL = 50  # gallons (an int, as in BFCL)
_CAR_MIN_FUEL_LEVEL = 0.0
_CAR_MILE_PER_GALLON = 20.0
_CAR_MAX_BATTERY_VOLTAGE = 14.0
_CAR_MIN_BATTERY_VOLTAGE = 10.0

_CAR_DEFAULT_STATE = {
    "random_seed": 141053,
    "fuelLevel": 0.0,
    "batteryVoltage": 12.6,
    "engine_state": "stopped",
    "remainingUnlockedDoors": 4,
    "doorStatus": {
        "driver": "unlocked",
        "passenger": "unlocked",
        "rear_left": "unlocked",
        "rear_right": "unlocked",
    },
    "acTemperature": 25.0,
    "fanSpeed": 50,
    "acMode": "auto",
    "humidityLevel": 50.0,
    "headLightStatus": "off",
    "parkingBrakeStatus": "released",
    "_parkingBrakeForce": 0.0,
    "_slopeAngle": 0.0,
    "brakePedalStatus": "released",
    "brakePedalForce": 0.0,
    "distanceToNextVehicle": 50.0,
    "cruiseStatus": "inactive",
    "destination": "None",
    "frontLeftTirePressure": 32.0,
    "frontRightTirePressure": 32.0,
    "rearLeftTirePressure": 30.0,
    "rearRightTirePressure": 30.0,
}

# (attribute, key in an entry's initial_config, key in DEFAULT_STATE), in BFCL's assignment order.
# subtle: the config spells some names differently from the attributes (engineState, parkingBrakeForce).
_CAR_SCENARIO_FIELDS = (
    ("fuelLevel", "fuelLevel", "fuelLevel"),  # gallons
    ("batteryVoltage", "batteryVoltage", "batteryVoltage"),  # volts
    ("engine_state", "engineState", "engine_state"),  # running, stopped
    ("remainingUnlockedDoors", "remainingUnlockedDoors", "remainingUnlockedDoors"),
    ("doorStatus", "doorStatus", "doorStatus"),
    ("acTemperature", "acTemperature", "acTemperature"),  # degrees Celsius
    ("fanSpeed", "fanSpeed", "fanSpeed"),  # 0 to 100
    ("acMode", "acMode", "acMode"),  # auto, cool, heat, defrost
    ("humidityLevel", "humidityLevel", "humidityLevel"),  # percent
    ("headLightStatus", "headLightStatus", "headLightStatus"),  # on, off
    ("parkingBrakeStatus", "parkingBrakeStatus", "parkingBrakeStatus"),  # engaged, released
    ("_parkingBrakeForce", "parkingBrakeForce", "_parkingBrakeForce"),  # newtons
    ("_slopeAngle", "slopeAngle", "_slopeAngle"),  # degrees
    ("brakePedalStatus", "brakePedalStatus", "brakePedalStatus"),  # pressed, released
    ("_brakePedalForce", "brakePedalForce", "brakePedalForce"),  # newtons
    ("distanceToNextVehicle", "distanceToNextVehicle", "distanceToNextVehicle"),  # meters
    ("cruiseStatus", "cruiseStatus", "cruiseStatus"),  # active, inactive
    ("destination", "destination", "destination"),
    ("frontLeftTirePressure", "frontLeftTirePressure", "frontLeftTirePressure"),  # psi
    ("frontRightTirePressure", "frontRightTirePressure", "frontRightTirePressure"),
    ("rearLeftTirePressure", "rearLeftTirePressure", "rearLeftTirePressure"),
    ("rearRightTirePressure", "rearRightTirePressure", "rearRightTirePressure"),
)

# Lookup tables: what displayCarStatus shows, the map's zipcodes and distances

# option -> (result key, attribute) pairs, in the order BFCL's result lists them.
_CAR_STATUS_FIELDS = {
    "fuel": (("fuelLevel", "fuelLevel"),),
    "battery": (("batteryVoltage", "batteryVoltage"),),
    "doors": (("doorStatus", "doorStatus"),),
    "climate": (
        ("currentACTemperature", "acTemperature"),
        ("fanSpeed", "fanSpeed"),
        ("climateMode", "acMode"),
        ("humidityLevel", "humidityLevel"),
    ),
    "headlights": (("headlightStatus", "headLightStatus"),),
    "parkingBrake": (
        ("parkingBrakeStatus", "parkingBrakeStatus"),
        ("parkingBrakeForce", "_parkingBrakeForce"),
        ("slopeAngle", "_slopeAngle"),
    ),
    "brakePedal": (
        ("brakePedalStatus", "brakePedalStatus"),
        ("brakePedalForce", "_brakePedalForce"),
    ),
    "engine": (("engineState", "engine_state"),),
}

_CAR_ZIPCODES = {
    "Rivermist": "83214",
    "Stonebrook": "74532",
    "Maplecrest": "56108",
    "Silverpine": "62947",
    "Shadowridge": "71354",
    "Sunset Valley": "83462",
    "Oakendale": "47329",
    "Willowbend": "52013",
    "Crescent Hollow": "69238",
    "Autumnville": "51479",
    "San Francisco": "94016",
}
_CAR_UNKNOWN_ZIPCODE = "00000"

# Road distances in km between two zipcodes; either order of the pair matches.
_CAR_DISTANCES_KM = (
    ("83214", "74532", 750.0),
    ("56108", "62947", 320.0),
    ("71354", "83462", 450.0),
    ("47329", "52013", 290.0),
    ("69238", "51479", 630.0),
    ("94016", "83214", 980.0),
    ("94016", "94704", 600.0),
    ("94704", "08540", 2550.0),
    ("94016", "08540", 1950.0),
    ("62947", "47329", 1053.0),
    ("94016", "62947", 780.0),
    ("74532", "94016", 880.0),
)

_CAR_DOOR_LOCK_TARGETS = ("locked", "unlocked")  # indexed by bool(unlock)
_CAR_HEADLIGHT_MODES = ["on", "off", "auto"]
_CAR_PARKING_BRAKE_MODES = ["engage", "release"]
_CAR_MAX_BRAKE_FORCE = 1000  # newtons at pedalPosition 1


def _CAR_lookup(table, key, default):
    """Return table's value for key, testing each entry with == as BFCL's if/elif chains do.

    subtle: a plain dict lookup would raise TypeError for an unhashable argument (a list), where
    BFCL falls through to its default.
    Example: _lookup({"a": 1}, ["a"], 0) -> 0
    """
    for candidate, value in table.items():
        if key == candidate:
            return value
    return default


# The API class


class VehicleControlAPI:
    """A simulated car whose state the model changes through tool calls."""

    def __init__(self):
        """Create an empty car; `_load_scenario` gives it its state."""
        self._api_description = (
            "This tool belongs to the vehicle control system, which allows users to control "
            "various aspects of the car such as engine, doors, climate control, lights, and more."
        )

    def _load_scenario(self, scenario: dict, long_context=False) -> None:
        """Set the car's state from an entry's initial_config, DEFAULT_STATE filling the gaps."""
        defaults = deepcopy(_CAR_DEFAULT_STATE)
        # Seeded per instance, so get_current_speed and the outside temperature replay exactly.
        self._random = random.Random(scenario.get("random_seed", defaults["random_seed"]))
        for attribute, config_key, default_key in _CAR_SCENARIO_FIELDS:
            # subtle: the config's own objects are kept (no copy); BFCL's runner deep-copies the config.
            setattr(self, attribute, scenario.get(config_key, defaults[default_key]))
        # subtle: the door count comes from doorStatus; a configured remainingUnlockedDoors is overridden.
        locked = [1 for door in self.doorStatus.keys() if self.doorStatus[door] == "locked"]
        self.remainingUnlockedDoors = 4 - len(locked)
        self.long_context = long_context  # public, so part of the compared state

    def __eq__(self, value: object) -> bool:
        """Compare the public attributes, as BFCL's state checker does."""
        if not isinstance(value, VehicleControlAPI):
            return False
        for name in vars(self):
            if not name.startswith("_") and getattr(self, name) != getattr(value, name):
                return False
        return True

    # Engine and fuel

    def startEngine(self, ignitionMode: str) -> dict:
        """Start the engine (ignitionMode "START"); all doors locked and the brake fully pressed first."""
        # subtle: "STOP" stops the engine at once, then still runs the checks and ends in
        # "Invalid ignition mode." if they pass.
        if ignitionMode == "STOP":
            self.engine_state = "stopped"
        if self.remainingUnlockedDoors > 0:
            unlocked = [door for door, status in self.doorStatus.items() if status == "unlocked"]
            return {
                "error": "All doors must be locked before starting the engine. "
                "Here are the unlocked doors: " + ", ".join(unlocked)
            }
        if self.brakePedalStatus != "pressed":
            return {"error": "Brake pedal needs to be pressed when starting the engine."}
        if self._brakePedalForce != 1000.0:
            return {"error": "Must press the brake fully before starting the engine."}
        if self.fuelLevel < _CAR_MIN_FUEL_LEVEL:  # subtle: an empty tank (0.0) still starts
            return {"error": "Fuel tank is empty."}
        if ignitionMode != "START":
            return {"error": "Invalid ignition mode."}
        self.engine_state = "running"
        return {
            "engineState": self.engine_state,
            "fuelLevel": self.fuelLevel,
            "batteryVoltage": self.batteryVoltage,
        }

    def fillFuelTank(self, fuelAmount: float) -> dict:
        """Add fuelAmount gallons to the tank, which holds at most MAX_FUEL_LEVEL."""
        if fuelAmount < 0:
            return {"error": "Fuel amount cannot be negative."}
        if self.fuelLevel + fuelAmount > _CAR_MAX_FUEL_LEVEL:
            return {"error": "Cannot fill gas above the tank capacity."}
        if self.fuelLevel + fuelAmount < _CAR_MIN_FUEL_LEVEL:
            return {"error": "Fuel tank is empty. Min fuel level is 0 gallons."}
        self.fuelLevel += fuelAmount
        return {"fuelLevel": self.fuelLevel}

    # Doors, climate, lights

    def lockDoors(self, unlock: bool, door: list[str]) -> dict:
        """Lock (unlock=False) or unlock (unlock=True) each named door, counting the unlocked ones."""
        target = _CAR_DOOR_LOCK_TARGETS[bool(unlock)]
        step = 1 if target == "unlocked" else -1
        # subtle: no validation; an unknown door raises KeyError after the doors before it changed.
        for d in door:
            if self.doorStatus[d] == target:
                continue
            self.doorStatus[d] = target
            self.remainingUnlockedDoors += step
        return {"lockStatus": target, "remainingUnlockedDoors": self.remainingUnlockedDoors}

    def adjustClimateControl(
        self,
        temperature: float,
        unit: str = "celsius",
        fanSpeed: int = 50,
        mode: str = "auto",
    ) -> dict:
        """Set the temperature (stored in Celsius), fan speed (0-100) and climate mode."""
        if not (0 <= fanSpeed <= 100):
            return {"error": "Fan speed must be between 0 and 100."}
        self.acTemperature = temperature
        if unit == "fahrenheit":
            self.acTemperature = (temperature - 32) * 5 / 9
        self.fanSpeed = fanSpeed
        self.acMode = mode
        # subtle: the result echoes the temperature as given, not the converted one.
        return {
            "currentACTemperature": temperature,
            "climateMode": mode,
            "humidityLevel": self.humidityLevel,
        }

    def get_outside_temperature_from_google(self) -> dict:
        """Return a random outside temperature in Celsius, drawn from the seeded generator."""
        if self.long_context:
            # subtle: BFCL writes into the shared filler dict and returns that same dict.
            _CAR_LONG_WEATHER_EXTENSION["outsideTemperature"] = self._random.uniform(-10.0, 40.0)
            return _CAR_LONG_WEATHER_EXTENSION
        return {"outsideTemperature": self._random.uniform(-10.0, 40.0)}

    def get_outside_temperature_from_weather_com(self) -> dict:
        """Fail as an unreachable weather service does."""
        return {"error": 404}

    def setHeadlights(self, mode: str) -> dict:
        """Turn the headlights "on" or "off" ("auto" counts as off)."""
        if mode not in _CAR_HEADLIGHT_MODES:
            return {"error": "Invalid headlight mode."}
        self.headLightStatus = "on" if mode == "on" else "off"
        return {"headlightStatus": self.headLightStatus}

    def displayCarStatus(self, option: str) -> dict:
        """Report one part of the car: an option of STATUS_FIELDS, else {"error": "Invalid option"}."""
        status = {}
        if self.long_context:
            status["metadata"] = _CAR_CAR_STATUS_METADATA_EXTENSION
        fields = _CAR_lookup(_CAR_STATUS_FIELDS, option, None)
        if fields is None:
            status["error"] = "Invalid option"
        else:
            for key, attribute in fields:
                status[key] = getattr(self, attribute)
        return status

    # Brakes and cruise control

    def activateParkingBrake(self, mode: str) -> dict:
        """Engage or release the parking brake."""
        if mode not in _CAR_PARKING_BRAKE_MODES:
            return {"error": "Invalid mode"}
        status, force = ("engaged", 500.0) if mode == "engage" else ("released", 0.0)
        self.parkingBrakeStatus = status
        self._parkingBrakeForce = force
        self._slopeAngle = 10.0  # subtle: 10 degrees after a release too
        result = {"parkingBrakeStatus": status, "_parkingBrakeForce": force, "_slopeAngle": 10.0}
        if self.long_context:
            return {"parkingBrakeInstruction": _CAR_PARKING_BRAKE_INSTRUCTION, **result}
        return result

    def pressBrakePedal(self, pedalPosition: float) -> dict:
        """Press the brake pedal to pedalPosition, from 0 (released) to 1 (fully pressed)."""
        if not (0 <= pedalPosition <= 1):
            return {"error": "Pedal position must be between 0 and 1."}
        if pedalPosition == 0:
            return self.releaseBrakePedal()
        force = pedalPosition * _CAR_MAX_BRAKE_FORCE
        self.brakePedalStatus = "pressed"
        self._brakePedalForce = force
        return {"brakePedalStatus": "pressed", "brakePedalForce": float(force)}

    def releaseBrakePedal(self) -> dict:
        """Release the brake pedal."""
        self.brakePedalStatus = "released"
        self._brakePedalForce = 0.0
        return {"brakePedalStatus": "released", "brakePedalForce": 0.0}

    def setCruiseControl(self, speed: float, activate: bool, distanceToNextVehicle: float) -> dict:
        """Turn cruise control on at speed (0-120, a multiple of 5) or off; the engine must run."""
        # subtle: both conversions come first (the distance's first), so a bad value fails
        # before the engine check.
        distanceToNextVehicle = float(distanceToNextVehicle)
        speed = float(speed)
        if self.engine_state == "stopped":
            return {"error": "Start the engine before activating the cruise control."}
        # subtle: the distance is stored even when the speed is then refused.
        self.distanceToNextVehicle = distanceToNextVehicle
        if activate:
            if speed < 0 or speed > 120 or speed % 5 != 0:
                return {"error": "Invalid speed"}
            self.cruiseStatus = "active"
        else:
            self.cruiseStatus = "inactive"
        return {
            "cruiseStatus": self.cruiseStatus,
            "currentSpeed": speed,
            "distanceToNextVehicle": distanceToNextVehicle,
        }

    def get_current_speed(self) -> dict:
        """Return a random speed in km/h, drawn from the seeded generator."""
        return {"currentSpeed": self._random.uniform(0.0, 120.0)}

    # Trip planning and conversions

    def display_log(self, messages: list[str]) -> dict:
        """Echo the messages back."""
        return {"log": messages}

    def estimate_drive_feasibility_by_mileage(self, distance: float) -> dict:
        """Say whether the fuel in the tank covers distance miles."""
        return {"canDrive": not (self.fuelLevel * _CAR_MILE_PER_GALLON < distance)}

    def liter_to_gallon(self, liter: float) -> dict:
        """Convert liters to US gallons. Example: 10 -> {"gallon": 2.64172}"""
        return {"gallon": liter * 0.264172}

    def gallon_to_liter(self, gallon: float) -> dict:
        """Convert US gallons to liters. Example: 1 -> {"liter": 3.78541}"""
        return {"liter": gallon * 3.78541}

    def estimate_distance(self, cityA: str, cityB: str) -> dict:
        """Return the distance in km between two zipcodes from DISTANCES_KM."""
        distance = {"error": "distance not found in database."}
        for zip1, zip2, km in _CAR_DISTANCES_KM:
            if (cityA == zip1 and cityB == zip2) or (cityA == zip2 and cityB == zip1):
                distance = {"distance": km}
                break
        if self.long_context:
            distance["intermediaryCities"] = _CAR_INTERMEDIARY_CITIES
        return distance

    def get_zipcode_based_on_city(self, city: str) -> dict:
        """Return a city's zipcode, "00000" for a city not on the map."""
        return {"zipcode": _CAR_lookup(_CAR_ZIPCODES, city, _CAR_UNKNOWN_ZIPCODE)}

    def set_navigation(self, destination: str) -> dict:
        """Set the navigation destination ("street, city, state")."""
        self.destination = destination  # subtle: stored before the concatenation can fail
        return {"status": "Navigating to " + destination}

    # Tires

    def check_tire_pressure(self) -> dict:
        """Report the four tire pressures and whether their mean lies in 30-35 psi."""
        mean = (
            self.frontLeftTirePressure
            + self.frontRightTirePressure
            + self.rearLeftTirePressure
            + self.rearRightTirePressure
        ) / 4
        return {
            "frontLeftTirePressure": self.frontLeftTirePressure,
            "frontRightTirePressure": self.frontRightTirePressure,
            "rearLeftTirePressure": self.rearLeftTirePressure,
            "rearRightTirePressure": self.rearRightTirePressure,
            "healthy_tire_pressure": 30 <= mean <= 35,
            "car_info": _CAR_CAR_STATUS_METADATA_EXTENSION if self.long_context else {},
        }

    def find_nearest_tire_shop(self) -> dict:
        """Return the one tire shop the simulation knows."""
        return {"shopLocation": "456 Oakwood Avenue, Rivermist, 83214"}


# long_context filler (BFCL's long_context.py, the four constants used above)
# With long_context=True, BFCL pads some results with this data to test long tool outputs.

_CAR_CAR_STATUS_METADATA_EXTENSION = (
    "Manufacturer: Audi; Model: A6; Year: 2024; EngineType: V6 Turbocharged; Transmission: "
    "Automatic 7-speed; DriveType: AWD; FuelType: Gasoline; Passenger: Fastened; SunroofStatus: "
    "Closed; GPSLocation: 34.0522N, 118.2437W; Destination: None; EstimatedArrivalTime: None; "
    "AudioSystem: On; AudioVolume: 15; RadioStation: 101.1 FM; BluetoothConnected: Yes; "
    "ConnectedDevice: iPhone; WiFiStatus: Connected; CellularSignalStrength: 75%; "
    "OTAUpdateStatus: No Updates Available; LastServiceDate: 2023-08-15; NextServiceDue: "
    "2024-08-15 or in 12,000 km; OilLevel: Normal; CoolantTemperature: 90C; "
    "TransmissionTemperature: 65C; BrakePadWear: Front: 40%, Rear: 35%; TractionControlStatus: "
    "On; StabilityControlStatus: On; LaneAssist: Active; BlindSpotMonitor: Active; "
    "CollisionWarning: None; ParkingSensors: Front: Clear, Rear: Clear; BackupCamera: Active; "
    "SteeringAngle: 0 degrees; CurrentSpeed: 0 km/h; AverageFuelConsumption: 8.2L/100km; "
    "TripOdometer: 256 km; TotalOdometer: 45,112 km; FuelRange: 560 km remaining; BatteryHealth: "
    "Good; BrakeFluidLevel: Normal; CoolantLevel: Normal; TireTreadDepth: FrontLeft: 7mm, "
    "FrontRight: 7mm, RearLeft: 6mm, RearRight: 6mm; KeyFobBatteryLevel: 75%; RemoteStartEnabled: "
    "Yes; RemoteLockEnabled: Yes; CabinAirQuality: Good; CarbonDioxideLevel: Low; "
    "AirFilterStatus: Normal; ChildLock: Active; RearWindowDefrost: Off; FrontWindowDefrost: Off; "
    "Sunshade: Closed; PassengerAirbagStatus: Enabled; DriverAirbagStatus: Enabled; "
    "SideAirbagStatus: Enabled; ABSStatus: Active; EngineOilTemperature: 85C; "
    "DifferentialTemperature: 60C; TransferCaseTemperature: 62C; ExhaustTemperature: 200C; "
    "TurboBoostPressure: Normal; SuspensionStatus: Normal; RideHeight: Normal; DampingForce: "
    "Normal; SuspensionMode: Comfort; TowMode: Off; TrailerBrakeController: Not Installed; "
    "PayloadCapacity: 800 kg; TowingCapacity: 3,500 kg; RoofLoadCapacity: 100 kg; "
    "CurrentLoadWeight: 200 kg; SeatStatus: Driver: Occupied, Passenger: Empty, RearLeft: Empty, "
    "RearRight: Occupied; SeatAdjustmentMemory: Driver: Position 1, Passenger: None; "
    "MirrorAdjustmentMemory: Driver: Position 1, Passenger: None; PedalAdjustmentMemory: Driver: "
    "Position 1; LumbarSupport: Driver: 3/5, Passenger: 2/5; SeatHeating: Driver: Off, Passenger: "
    "Off; SeatCooling: Driver: Off, Passenger: Off; ArmRestPosition: Normal; SteeringWheelHeater: "
    "Off; ClimateControlSync: On; DefrostingMirrors: Off; FogLights: Off; RearFogLight: Off; "
    "LicensePlateLight: On; BrakeLightStatus: On; TurnSignal: Left: Off, Right: Off; HazardLight: "
    "Off; DoorOpenAlert: None; SpeedLimitWarning: None; TrafficSignRecognition: Active; "
    "AdaptiveCruiseControlStatus: Inactive; AutoParking: Inactive; ParkingAssist: Active; "
    "RearCrossTrafficAlert: None; SurroundViewCamera: Off; DigitalRearViewMirror: Off; "
    "HeadUpDisplay: Off; NavigationMapUpdate: None; SoftwareVersion: v5.6.2; "
    "BatteryRegenerationStatus: Normal; DrivetrainMode: Comfort; GearPosition: Park; IdleTime: 2 "
    "minutes; EngineLoad: 15%; FuelInjectionTiming: Normal; SparkTiming: Normal; "
    "CylinderDeactivationStatus: Off; ExhaustGasRecirculation: Normal; EmissionControlSystem: "
    "Normal; ParticleFilterStatus: Normal; CatalystTemperature: Normal; StartStopSystem: Active; "
    "SteeringResponse: Normal; HandlingMode: Sport; ElectronicLimitedSlipDifferential: On; "
    "DifferentialLock: Off; EngineVibration: None; BodyRoll: None; YawRate: 0 degrees/sec; "
    "AxleLoadDistribution: Front: 60%, Rear: 40%; ChassisStiffness: Normal; GroundClearance: "
    "Normal; PowerSteeringStatus: Active; SteeringWheelVibration: None; LockToLockTurns: 2.8; "
    "TurningRadius: 11.5 meters; AirbagReadiness: Normal; PreCollisionSystem: Active; "
    "ActiveSteeringAssist: Off; HandsOnWheelAlert: None; OccupantClassificationSystem: Active; "
    "EventDataRecorderStatus: Normal; BlackBoxRecording: Active; StabilityControlOverride: None; "
    "SeatMassager: Off; ArmRestTemperature: Normal; AmbientLightingColor: Blue; "
    "SteeringWheelPosition: Normal; HeatedSteeringWheel: Off; PaddleShifters: Off; SportMode: On; "
    "PerformanceMode: Off; AutoHighBeamAssist: Off; TireTemperature: FrontLeft: 32C, FrontRight: "
    "32C, RearLeft: 34C, RearRight: 34C; BrakeRotorTemperature: FrontLeft: 150C, FrontRight: "
    "150C, RearLeft: 130C, RearRight: 130C; MirrorHeating: Off; FuelTankPressure: Normal; "
    "EvaporativeEmissionSystem: Normal; GasCapStatus: Closed; FuelDoorStatus: Closed; "
    "BatteryChargerStatus: None; ChargingCableConnected: No; ChargerType: None; "
    "ChargingPortLight: Off; HighVoltageBatteryInsulation: Normal; HighVoltageBatteryTemperature: "
    "Normal; RegenerativeBrakingForce: Normal; BatteryCoolingSystem: Normal; "
    "BatteryHeatingSystem: Off; ExteriorTemperature: 20C; WiperFluidLevel: Normal; "
    "WasherNozzleHeated: Off; EngineSoundEnhancer: Off; VehicleSoundForPedestrians: Off; "
    "ExhaustFlapControl: Normal; EngineCoolingFanStatus: Off; TransmissionOilPressure: Normal; "
    "TransmissionOilTemperature: 70C; ThrottleBodyStatus: Normal; IntakeManifoldPressure: Normal; "
    "CabinNoiseLevel: Low; SunshadePosition: Closed; RearSunshade: Off; LuggageCompartmentLight: "
    "Off; RearSeatBeltReminder: None; RearSeatOccupancySensor: Active; FrontCrashZoneSensors: "
    "Active; SideCrashSensors: Active; RearCrashSensors: Active; TireSealantStatus: Full; "
    "TireJackStatus: Present; EmergencyKitStatus: Present; SpareTireStatus: Present; "
    "Owner'sManualLocation: GloveBox; FirstAidKitLocation: Trunk; FireExtinguisherLocation: "
    "Trunk; ChildSeatAnchors: Installed; RoofRackStatus: Not Installed; VehicleWrap: None; "
    "RoofColor: BodyColor; PaintProtectionFilm: None; CeramicCoating: None; WheelType: Alloy; "
    "WheelSize: 19 inches; WheelBoltTorque: Normal; TireSidewallDamage: None; WheelRimDamage: "
    "None; VehicleWarrantyStatus: Active; RoadsideAssistanceStatus: Active; "
    "MaintenancePlanStatus: Active; LeaseStatus: Not Leased; FinancingStatus: PaidOff; "
    "VehicleTitleStatus: Clear; NumberOfKeys: 2; KeyMemoryStatus: Active; VehicleHistoryReport: "
    "Clean; VINNumber: WAUZZZF4XNA123456; RegistrationStatus: Active; InsuranceStatus: "
    "FullCoverage; InsuranceProvider: StateFarm; InsuranceExpirationDate: 2025-04-10; "
    "RoadTaxStatus: Paid; GarageLocation: Home; LastGarageEntryTime: 2024-04-15 08:30; "
    "AlarmSystemStatus: Armed; SecuritySystem: Enabled; AntiTowSystem: Enabled; GlassBreakSensor: "
    "Active; MotionSensor: Active; TintedWindows: Yes; DashcamStatus: On; DashcamRecording: "
    "Active; DashcamStorage: 128GB; DashcamBatteryLevel: 90%; AdditionalAccessories: "
    "RoofBoxInstalled: No; RoofTent: No; TrailerHitch: Installed; Winch: Not Installed; "
    "SnowChains: Not Installed; FogLightCovers: Installed; GrilleGuard: Not Installed; "
    "RoofLightBar: Not Installed."
)

_CAR_LONG_WEATHER_EXTENSION = {
    "-1_day": {"windSpeed": 15.0, "humidity": 75.0, "precipitation": 5.0, "uvIndex": 6,
               "visibility": 8.0, "airPressure": 1010.0, "dewPoint": 10.0},
    "-2_day": {"windSpeed": 10.0, "humidity": 65.0, "precipitation": 2.0, "uvIndex": 7,
               "visibility": 9.0, "airPressure": 1020.0, "dewPoint": 8.0},
    "-3_day": {"windSpeed": 20.0, "humidity": 85.0, "precipitation": 0.0, "uvIndex": 5,
               "visibility": 7.0, "airPressure": 1005.0, "dewPoint": 12.0},
    "-4_day": {"windSpeed": 18.0, "humidity": 80.0, "precipitation": 1.0, "uvIndex": 6,
               "visibility": 9.0, "airPressure": 1008.0, "dewPoint": 9.0},
    "-5_day": {"windSpeed": 12.0, "humidity": 70.0, "precipitation": 3.0, "uvIndex": 8,
               "visibility": 10.0, "airPressure": 1015.0, "dewPoint": 11.0},
    "-6_day": {"windSpeed": 16.0, "humidity": 72.0, "precipitation": 4.0, "uvIndex": 7,
               "visibility": 9.0, "airPressure": 1009.0, "dewPoint": 10.0},
    "-7_day": {"windSpeed": 14.0, "humidity": 68.0, "precipitation": 6.0, "uvIndex": 6,
               "visibility": 8.0, "airPressure": 1012.0, "dewPoint": 7.0},
    "-8_day": {"windSpeed": 17.0, "humidity": 78.0, "precipitation": 0.5, "uvIndex": 5,
               "visibility": 9.0, "airPressure": 1013.0, "dewPoint": 8.0},
    "-9_day": {"windSpeed": 19.0, "humidity": 82.0, "precipitation": 0.0, "uvIndex": 6,
               "visibility": 10.0, "airPressure": 1011.0, "dewPoint": 9.0},
    "-10_day": {"windSpeed": 13.0, "humidity": 74.0, "precipitation": 2.5, "uvIndex": 7,
                "visibility": 9.5, "airPressure": 1014.0, "dewPoint": 10.0},
    "-11_day": {"windSpeed": 11.0, "humidity": 70.0, "precipitation": 1.5, "uvIndex": 6,
                "visibility": 8.5, "airPressure": 1016.0, "dewPoint": 8.5},
    "-12_day": {"windSpeed": 15.0, "humidity": 75.0, "precipitation": 5.0, "uvIndex": 6,
                "visibility": 8.0, "airPressure": 1010.0, "dewPoint": 10.0},
    "-13_day": {"windSpeed": 10.0, "humidity": 65.0, "precipitation": 2.0, "uvIndex": 7,
                "visibility": 9.0, "airPressure": 1020.0, "dewPoint": 8.0},
    "-14_day": {"windSpeed": 20.0, "humidity": 85.0, "precipitation": 0.0, "uvIndex": 5,
                "visibility": 7.0, "airPressure": 1005.0, "dewPoint": 12.0},
    "-15_day": {"windSpeed": 18.0, "humidity": 80.0, "precipitation": 1.0, "uvIndex": 6,
                "visibility": 9.0, "airPressure": 1008.0, "dewPoint": 9.0},
}

_CAR_PARKING_BRAKE_INSTRUCTION = (
    "The parking brake, also commonly referred to as the handbrake or emergency brake, is an "
    "essential safety component in vehicles. While its primary function is to secure the vehicle "
    "when parked, preventing it from rolling forward or backward, it also serves as an emergency "
    "stopping mechanism under certain conditions. It is crucial to understand the correct way to "
    "use a parking brake to ensure both safety and vehicle longevity. This guide will cover the "
    "fundamentals of proper parking brake use, its function, maintenance, and additional tips for "
    "various scenarios. Understanding the Parking Brake Mechanism Before diving into the right "
    "use, it's essential to understand how the parking brake operates. The parking brake is an "
    "independent braking system, separate from the main hydraulic brake system that is used while "
    "driving. When engaged, the parking brake applies pressure directly to the vehicle’s rear "
    "wheels, locking them in place and preventing movement. In most vehicles, the parking brake "
    "is either a lever, a pedal, or an electronic switch. - Lever-style parking brake: This is "
    "the most traditional type of parking brake, commonly found between the driver and passenger "
    "seats. Pulling the lever engages the brake, and releasing it disengages it. - Pedal-style "
    "parking brake: Often found in vehicles with automatic transmissions, this brake is engaged "
    "by pressing a pedal located on the far left side of the driver's footwell. A separate "
    "release lever or pedal is typically used to disengage the brake. - Electronic parking brake: "
    "In modern vehicles, especially those with advanced technological features, the parking brake "
    "may be engaged and disengaged with a button or switch. This system automatically applies and "
    "releases the brake when necessary, often integrating with other safety features like "
    "hill-start assist. When to Use the Parking Brake The parking brake should be used in several "
    "situations to ensure that your vehicle remains secure and does not roll unintentionally. "
    "Here are the most common circumstances when you should engage the parking brake: 1. When "
    "Parking on a Hill or Slope: Parking on an incline is one of the most important times to use "
    "the parking brake. Regardless of whether you drive a manual or automatic vehicle, the "
    "parking brake provides extra security by ensuring that your car remains stationary even if "
    "the primary brakes fail. In vehicles with manual transmissions, leaving the car in gear will "
    "add an extra layer of security. For automatic vehicles, ensure the car is in the Park "
    "position. Always turn your wheels toward the curb when parking uphill or downhill to "
    "minimize the risk of your vehicle rolling into traffic if the brake should fail. 2. When "
    "Parking on Level Ground: While using the parking brake on flat ground may not seem "
    "necessary, it's still a good practice. Engaging the parking brake takes the strain off the "
    "transmission, preventing unnecessary wear and tear. In the case of automatic vehicles, using "
    "the parking brake in conjunction with the Park position keeps the car more securely in "
    "place. 3. During Emergency Stops: While not typically recommended, the parking brake can be "
    "used in emergencies if the primary hydraulic braking system fails. Pulling the parking brake "
    "lever slowly and steadily can help reduce speed. However, sudden engagement of the parking "
    "brake can cause the rear wheels to lock, resulting in loss of control. Only use it "
    "cautiously in situations where you have no other option. Modern electronic parking brakes "
    "often feature an automatic emergency braking function that can be activated with a hard "
    "press or hold, giving the driver more control over deceleration. 4. While Towing: When "
    "towing a vehicle, the parking brake should always be engaged to prevent rolling while "
    "loading or unloading. Similarly, when a trailer is attached, ensure the parking brake is "
    "engaged when the vehicle is stationary to provide additional security. 5. At Traffic Lights "
    "or Stop Signs on a Hill: If you're stopped on a hill, especially in a vehicle with a manual "
    "transmission, engaging the parking brake temporarily can prevent rolling backward when you "
    "release the foot brake to move forward again. Some vehicles come equipped with hill-start "
    "assist systems, but if yours does not, the parking brake is an effective alternative. How to "
    "Properly Engage and Disengage the Parking Brake Using the parking brake is relatively "
    "simple, but there are a few steps to ensure you're doing it correctly: 1. Engaging the "
    "Parking Brake: For a lever-style brake: Pull the lever upwards until you feel resistance and "
    "the brake locks in place. Some cars require you to press a button on the end of the lever "
    "while pulling it up. The brake lever should remain in the upright position when engaged. For "
    "a pedal-style brake: Firmly press the pedal down until it clicks and stays locked in place. "
    "The brake is now engaged. For an electronic brake: Press the button or switch to engage the "
    "brake. A light on the dashboard will usually indicate that the parking brake is active. 2. "
    "Disengaging the Parking Brake: For a lever-style brake: Pull the lever up slightly to "
    "release pressure, then press the button on the end and lower the lever fully to disengage "
    "the brake. For a pedal-style brake: Either pull the release lever or press the brake pedal "
    "again to unlock and disengage it. For an electronic brake: Simply press the button or switch "
    "again to disengage the brake. Some vehicles will automatically disengage the parking brake "
    "when you press the accelerator pedal, especially if you're in gear and ready to move. Common "
    "Mistakes When Using the Parking Brake There are several mistakes that drivers commonly make "
    "when using the parking brake. Avoid these errors to prolong the life of the brake and "
    "maintain your vehicle's safety: 1. Not Using the Parking Brake: One of the most common "
    "mistakes is neglecting to use the parking brake at all. Relying solely on the transmission's "
    "Park function (for automatic vehicles) or leaving the vehicle in gear (for manual vehicles) "
    "can result in unnecessary stress on the transmission system, especially on hills or "
    "inclines. 2. Driving With the Parking Brake Engaged: Forgetting to disengage the parking "
    "brake before driving can cause serious damage to your vehicle’s braking system. The brake "
    "pads can overheat, warp, or wear prematurely. Always make sure the parking brake is fully "
    "disengaged before you start driving. In most cars, a dashboard light will indicate whether "
    "the parking brake is engaged. 3. Pulling the Parking Brake Too Hard: Over-tensioning the "
    "parking brake by pulling it too hard can cause cables to stretch or snap over time, leading "
    "to costly repairs. Pull the brake lever firmly but avoid excessive force. 4. Using the "
    "Parking Brake Inappropriately in an Emergency: In a panic situation, some drivers may "
    "instinctively pull the parking brake, causing the rear wheels to lock up. This can lead to "
    "skidding or spinning, particularly at high speeds. Instead, if you experience a brake "
    "failure, try to downshift and use engine braking first. The parking brake should only be "
    "used gradually in emergencies. Maintenance and Care for the Parking Brake Regular "
    "maintenance of the parking brake is crucial for ensuring its long-term effectiveness. Like "
    "any other part of your vehicle, the parking brake can wear down over time and may require "
    "adjustment or repair. Follow these tips to keep your parking brake in good condition: 1. Use "
    "the Parking Brake Regularly: Even if you drive mostly on flat surfaces, using the parking "
    "brake regularly helps keep the components in working order. Regular use ensures that the "
    "cables do not rust or seize. 2. Check for Tension: If the parking brake feels too loose or "
    "too tight, it may need adjustment. A loose brake may not hold the vehicle securely, while an "
    "overly tight brake can cause unnecessary strain on the system. Have your parking brake "
    "checked by a mechanic during routine vehicle maintenance to ensure it's properly adjusted. "
    "3. Lubricate the Cables: If your parking brake uses a cable system (lever or pedal style), "
    "periodic lubrication can help prevent rust and ensure smooth operation. Electronic parking "
    "brakes usually don’t require this kind of maintenance. 4. Listen for Warning Signs: If you "
    "hear squeaking or grinding noises when engaging or disengaging the parking brake, it could "
    "indicate worn brake components. Get the system inspected to prevent further damage. 5. Test "
    "the Parking Brake on a Hill: Periodically test the effectiveness of the parking brake by "
    "parking on a slight incline. Engage the brake and see if the car remains stationary. If the "
    "vehicle rolls or the brake feels weak, it's time for a professional check-up. Parking Brake "
    "Use in Special Conditions 1. Cold Weather: In extremely cold temperatures, moisture can "
    "freeze around the parking brake cables, causing them to seize. If you live in a cold "
    "climate, be cautious about using the parking brake during freezing weather. If the brake "
    "does seize, do not try to force it. Instead, let the vehicle warm up, which may melt the "
    "ice, or consult a professional mechanic. 2. Off-Road Conditions: If you frequently drive in "
    "muddy or dusty conditions, inspect the parking brake regularly. Dirt and debris can "
    "accumulate around the brake components, causing them to function improperly. 3. Towing and "
    "Parking on Steep Inclines: When towing or parking on an extremely steep incline, engage both "
    "the parking brake and use wheel chocks for added safety. This will reduce the risk of the "
    "vehicle rolling. By following these instructions and guidelines, you will ensure that your "
    "parking brake is used effectively, maintaining both your vehicle's safety and functionality."
)

_CAR_INTERMEDIARY_CITIES = [
    "New Hamilton", "Jacksonville", "Fort Stoneport", "Lincolnville", "Madison", "Clayton Hillport",
    "Franklin Heights", "Old Jefferson", "Bentondale", "Sullivan Springs", "Red Monroe",
    "Newtonburg", "Green Clay", "East Kingston", "West Princeton", "Grand Georgetown",
    "Andersonfield", "Richmond", "Shelbyton", "Hamptonfield", "Fultondale", "Hudsonview",
    "Carsonville", "Lawrenceburg", "Masonport", "Bristol", "New Clayton", "Bensondale",
    "Clarkville", "Dawsonsprings", "Ellisport", "Floyd", "Graysonville", "Hayesburg", "Irvington",
    "Jasperburg", "Kentport", "Lamarburg", "Morganton", "Nortonville", "Owenport", "Perryville",
    "Quincyburg", "Russellton", "Shermanburg", "Taylor", "Uptonville", "Vernon", "Wilsonburg",
    "Youngtown", "Zionville", "Newfield", "Sanport", "Fortburg", "Mountview", "Lakeport",
    "Northfield", "Southport", "Eastwood", "Westdale", "Grandview", "Greenwood", "Redfield",
    "Oldtown", "Saintport", "Glenwood", "Springfield", "Riverdale", "Rockville", "Whitefield",
    "Blackport", "Blueburg", "Silverdale", "Goldton", "Crystal Springs", "Fairview", "Highfield",
    "Lowtown", "Brightwood", "Shadowbrook", "Sunridge", "Moonlake", "Starpoint", "Oakwood",
    "Pinecrest", "Mapleton", "Cedar Grove", "Ashland", "Willowbrook", "Elmdale", "Birchwood",
    "Greenfield", "Redwood", "Oldbridge", "Saintsville", "Glendale", "Springtown", "Riverport",
    "Rockford", "Whitehaven", "Blackburn", "Bluewater", "Silverton", "Goldfield", "Crystal Bay",
    "Fairhaven", "Highpoint", "Lowridge", "Brighton", "Shadow Valley", "Sun City", "Moontown",
    "Star Lake", "Oak Ridge", "Pine Hill", "Maple Grove", "Cedar Point", "Ashville", "Willow Creek",
    "Elmwood", "Birch Bay", "River Falls", "Rock Hill", "White Plains", "Black Lake", "Blue Ridge",
    "Silver Springs", "Golden Grove", "Crystal Cove", "Fair Oaks", "Highland", "Lowville",
    "Bright Meadows", "Shadow Creek", "Sunrise", "Moondale", "Star City", "Oakton", "Pine Valley",
    "Maple Ridge", "Cedar Falls", "Ashford", "Willow Springs", "Elmsford", "Birchwood",
    "River City", "Rockport", "Whitewater", "Blackstone", "Blue Hills", "Silver Lake", "Gold Beach",
    "Crystal River", "Fairfield", "Highview", "Low Point", "Brighton Beach", "Shadow Lake",
    "Sunset", "Moorestown", "Star City", "Oakland", "Pine City", "Mapleton", "Cedar Springs",
    "Ash Grove", "Willowdale", "Elm Creek", "Birch Grove", "River Ridge", "Rock Valley",
    "White Sands", "Black Rock", "Blue River", "Silver Creek", "Gold Hill", "Crystal Lake",
    "Fairview Heights", "High Springs", "Low Gap", "Bright City", "Shadow Mountain", "Sun Valley",
    "Moonlight", "Star Harbor", "Oak Hollow", "Pine Grove", "Maple Valley", "Cedar Ridge",
    "Ash Point", "Willow Glen", "Elm Springs", "Birch Creek", "Riverside", "Rockport", "White Rock",
    "Blackwood", "Blue Mountain", "Silver City", "Golden Valley", "Crystal Springs", "Fairhope",
    "Highland Park", "Lowtown", "Brighton Hills", "Shadow Creek", "Sunbrook", "Moon City",
    "Star View", "Oakdale", "Pinecrest", "Maple Hill", "Cedar City", "Ashwood", "Willow Valley",
    "Elmwood Park", "Birch Meadow", "Riverbend", "Rockland", "White Mountain", "Black Creek",
    "Blue Ridge", "Silverton", "Gold River", "Crystal Hill", "Fairmont", "Highland Springs",
    "Lowville", "Brightwood", "Shadow Valley", "Sunbrook", "Moonside", "Star City", "Oak Grove",
    "Pine Valley", "Maple Creek", "Cedar Lake", "Ash Hill", "Willow Creek", "Elmhurst", "Birchwood",
    "River City", "Rock Falls", "Whitehaven", "Black River", "Blue Mountain", "Silver Lake",
    "Gold Hill", "Crystal City", "Fairhaven", "High Point", "Low Gap", "Brighton", "Shadow Creek",
    "Sun Valley", "Moon Lake", "Star Hill", "Oakwood", "Pine Ridge", "Maple Valley", "Cedar Grove",
    "Ashland", "Willowbrook", "Elmwood", "Birch Grove", "Riverport", "Rock City", "White Plains",
    "Blackburn", "Blue Hills", "Silverton", "Golden Grove", "Crystal Cove", "Fairview", "Highland",
    "Lowtown", "Brighton", "Shadow Lake", "Sunrise", "Moontown", "Star Lake", "Oak Hill",
    "Pine Meadow", "Mapleton", "Cedar Bluff", "Ashford", "Willow Creek", "Elm Grove", "Birchwood",
    "Green Valley", "Redstone", "Old Mill", "Saintsville", "Glenview", "Springfield", "Riverdale",
    "Rockport", "Whitewater", "Blackwood", "Bluefield", "Silvertown", "Gold Creek", "Crystal Falls",
    "Fairbank", "Highfield", "Lowville", "Brighton", "Shadowbrook", "Sunridge", "Moonhaven",
    "Starpoint", "Oakton", "Pinecrest", "Maple Ridge", "Cedar Springs", "Ashland", "Willowbrook",
    "Elmdale", "Birchwood", "Greenfield", "Redwood", "Oldbridge", "Saintport", "Glenwood",
    "Springtown", "Riverport", "Rockford", "Whitehaven", "Blackburn", "Bluewater", "Silverton",
    "Goldfield", "Crystal Bay", "Fairhaven", "Highpoint", "Lowridge", "Brighton", "Shadow Valley",
    "Sun City", "Moontown", "Star Lake", "Oak Ridge", "Pine Hill", "Maple Grove", "Cedar Point",
    "Ashville", "Willow Creek", "Elmwood", "Birch Bay", "River Falls", "Rock Hill", "White Plains",
    "Black Lake", "Blue Ridge", "Silver Springs", "Golden Grove", "Crystal Cove", "Fair Oaks",
    "Highland", "Lowville", "Bright Meadows", "Shadow Creek", "Sunrise", "Moondale", "Star City",
    "Oakton", "Pine Valley", "Maple Ridge", "Cedar Falls", "Ashford", "Willow Springs", "Elmsford",
    "Birchwood", "River City", "Rockport", "Whitewater", "Blackstone", "Blue Hills", "Silver Lake",
    "Gold Beach", "Crystal River", "Fairfield", "Highview", "Low Point", "Brighton Beach",
    "Shadow Lake", "Sunset", "Moorestown", "Star City", "Oakland", "Pine City", "Mapleton",
    "Cedar Springs", "Ash Grove", "Willowdale", "Elm Creek", "Birch Grove", "River Ridge",
    "Rock Valley", "White Sands", "Black Rock", "Blue River", "Silver Creek", "Gold Hill",
    "Crystal Lake", "Fairview Heights", "High Springs", "Low Gap", "Bright City", "Shadow Mountain",
    "Sun Valley", "Moonlight", "Star Harbor", "Oak Hollow", "Pine Grove", "Maple Valley",
    "Cedar Ridge", "Ash Point", "Willow Glen", "Elm Springs", "Birch Creek", "Riverside",
    "Rockport", "White Rock", "Blackwood", "Blue Mountain", "Silver City", "Golden Valley",
    "Crystal Spring", "Greenstone", "Grandchester", "Hillbrook", "Redfield", "Bridgeton",
    "Forest Heights", "Mountainview", "Stone Harbor", "Seaford", "Crestwood", "Hillcrest",
    "Summitville", "Waterford", "Silverstone", "Lakeshore", "New River", "Riverbank", "Forestport",
    "Hightower", "Midland", "Pineville", "Hollow Ridge", "Ridgeway", "Sunset Valley",
    "Moonlight Bay", "Hilltown", "Blue Valley", "Snowhill", "Lakewood", "Eagle Ridge", "Bayfield",
    "Windmill", "Canyon Valley", "Cypress Grove", "Foxwood", "Pine Grove", "Evergreen Hill",
    "Green Hills", "Limestone", "Oceanview", "Sandalwood", "Whitestone", "Timberwood",
    "Winterhaven", "Desert Springs", "Pinewood", "Foxburg", "Haven Ridge", "Rocky River",
    "Shoreview", "Greystone", "Fernhill", "Stoneville", "Sandridge", "Highgate", "Redwater",
    "Elmwood Springs", "Silver Glen", "Woodside", "Forest Glen", "Clearbrook", "Lakeside",
    "Hawkstone", "Greenbriar", "Dalesville", "Brighton Point", "Highland Bay", "Brookstone",
    "Grand Terrace", "Ironwood", "Bluerock", "Glacier Ridge", "Wolf Creek", "Windy Ridge",
    "Maple Springs", "Shady Valley", "Crescent Ridge", "Wildwood", "Shadow Hills", "Riverstone",
    "Canyon Creek", "Woodland Springs", "Crystalfall", "Longstone", "Moonridge", "Maplepoint",
    "Sunset Hills", "Frostvalley", "Eaglewood", "Woodsford", "Brookfield", "Iron Ridge",
    "Fossil Ridge", "Spring Hill", "Oceancrest", "Firestone", "Evergreen Lake", "Frost Haven",
    "Stonecrest", "Willowstone", "Stonebridge", "Shady Hills", "Forest Edge", "Treetop Hill",
    "Fairbank Heights", "Hawk Valley", "Stonegate", "Timber Ridge", "Glacier Springs", "Windward",
    "Summit Edge", "Fox Ridge", "Elmwood Heights", "Whitewater Springs", "Cypress Bay",
    "Pine Valley", "Rivergate", "Eagleport", "Sandwood", "Birchfield", "Sunrise Grove",
    "Meadow Brook", "Bluffwood", "Green Lake", "Oceanstone", "Shady Brook", "Granite Ridge",
    "Rockstone", "Hollycrest", "Summit Ridge", "Edgewater Springs", "Eagle Peak", "Misty Hills",
    "River Valley", "Pineview", "Lakeview Ridge", "Stonewater", "Silver Ridge", "Greenstone Falls",
    "Seaside Valley", "Willowbend", "Baystone", "Sandbrook", "Cliffside", "Fernwood",
    "Crystal Ridge", "Oceancrest", "Foxbridge", "Seaview", "Meadowridge", "Canyon Hill",
    "Whitestone Ridge", "Lakeshore Hills", "Timberland", "Wolfstone", "Willowridge",
    "Granite Creek", "Shadowridge", "Ocean Bluff", "Bright Creek", "Evergreen Ridge",
    "Lakeshore Heights", "Fernhill Springs", "Sandhill Grove", "Glacier Hill", "Clearwater Ridge",
    "Stonewall Heights", "Pine Ridge", "Shady Grove", "Timber Cove", "Green Ridge", "Iron Ridge",
    "Hightower Point", "Windy Ridge", "Eagle Valley", "Sunset Crest", "Silver Heights",
    "Seaside Springs", "Misty Valley", "Woodland Grove", "Shadowbrook Grove", "Shady Brook",
    "Evergreen Crest", "Stonegate Valley", "Cypress Hills", "Moonlight Valley", "Cedar Valley",
    "Brookhaven Springs", "Riverbend Valley", "Seaside Grove", "Glacier Ridge", "Ironstone Point",
    "Foxwood Springs", "Oceanstone Valley", "Fernwood Cove", "Lakeside Grove", "Seabrook",
    "Misty Lake", "Greenfield Hill", "Oceanview Ridge", "Silver Creek", "Redwood Valley",
    "Riverstone Point", "Clearwater Springs", "Greenleaf Valley", "Shadowbrook Grove",
    "Sunset Hills", "Treetop Heights", "Windstone Hill", "Willowford", "Blueridge Grove",
    "Timber Ridge", "Misty River", "Redwood Springs", "Meadow Ridge", "Lakeside Valley",
    "Shady Cove", "Crystal Shore", "Granite Creek", "Ironstone Valley", "Foxwood Glen",
    "Seaview Ridge", "Treetop Hill", "Baystone Valley", "Blueridge Point", "Pinebrook Ridge",
    "Canyonbrook", "Granite Springs", "Riverstone Cove", "Clearwater Valley", "Silver Ridge",
    "Eagle Creek", "Willowbrook", "Shady Creek", "Timberstone Ridge", "Meadowbrook", "Bay Ridge",
    "Sandridge Point", "Eaglewood Heights", "Misty Grove", "Greenstone Point", "Clearview",
    "Silverstone Heights", "Oceancrest Ridge", "Granite Point", "Meadowdale", "Canyon Ridge",
    "Bluffridge", "Ironstone Ridge", "Foxbrook Heights", "Pine Ridge", "Shoreline Crest",
    "Timberland Ridge", "Meadowcrest", "Stonegate Grove", "Fernwood Springs", "Brookstone Valley",
    "Evergreen Hills", "Greenstone Ridge", "Oceanstone Point", "Brighton Crest", "Canyonbrook",
    "Wolfstone Ridge", "Ironstone Cove", "Fox Ridge", "Pinehill Grove", "Crystal River",
    "Clearview Point", "Seaside Valley", "Hollow Ridge", "Misty Creek", "Shady Valley",
    "Riverstone Heights", "Blueridge Cove", "Evergreen Grove", "Greenfield Ridge",
    "Timberstone Point", "Shady Brook", "Clearview Valley", "Silverstone Hill",
    "Oceanstone Springs", "Fernhill Ridge", "Fox Ridge", "Meadowridge Point", "Shady Crest",
    "Timber Ridge", "Evergreen Springs", "Foxwood Glen", "Seaview Heights", "Granite Ridge",
    "Ocean Ridge", "Rivergate Valley", "Seaside Grove", "Clearview Springs", "Silverstone Point",
    "Foxwood Ridge", "Timberstone Point", "Pinebrook Crest", "Riverstone Grove", "Granite Ridge",
    "Blueridge Valley", "Meadowbrook Point", "Ironstone Valley", "Cypress Springs", "Crystal Ridge",
    "Evergreen Springs", "Silver Creek", "Greenridge Valley", "Lakeside Ridge", "Shady Ridge",
    "Baystone Grove", "Crystal Grove", "Treetop Valley", "Seaside Crest", "Clearwater Ridge",
    "Oceanstone Ridge", "Bluffwood Grove", "Fernhill Point", "Silverstone Springs",
    "Clearwater Point", "Greenwood Valley", "Shadybrook Ridge", "Brightwood Ridge",
    "Willowbrook Grove", "Timberland Ridge", "Crystal Springs", "Granite Ridge", "Foxbrook Springs",
    "Lakeside Heights", "Shady Brook", "Greenstone Ridge", "Oceancrest Valley", "Blueridge Ridge",
    "Canyon Ridge", "Clearbrook Point", "Fernhill Ridge", "Pinecrest Heights", "Ironstone Grove",
    "Meadowstone Ridge", "Baystone Heights", "Crystal Valley", "Seaside Springs",
    "Silverton Springs", "Evergreen Point", "Granite Ridge", "Meadowbrook Ridge", "Lakeside Point",
    "Clearwater Springs", "Brightwood Point", "Silverstone Ridge", "Seaside Ridge",
    "Crystal Shores", "Evergreen Crest", "Granite Point", "Seaside Crest", "Clearwater Valley",
    "Fernhill Valley", "Baystone Ridge", "Riverstone Grove", "Shadybrook Ridge", "Foxbrook Point",
    "Timberstone Point", "Brightwood Ridge", "Evergreen Springs", "Seaside Ridge", "Granite Valley",
    "Crystal Ridge", "Shadybrook Springs", "Foxbrook Ridge", "Pinecrest Grove",
    "Willowbrook Valley", "Canyon Ridge", "Clearwater Ridge", "Oceancrest Point", "Seaside Heights",
    "Shadybrook Ridge", "Baystone Heights", "Pinebrook Ridge", "Foxbrook Valley", "Granite Ridge",
    "Shadybrook Valley", "Clearwater Grove", "Evergreen Ridge", "Willowbrook Ridge",
    "Granite Ridge", "Shadybrook Grove", "Willowbrook Grove", "Foxbrook Point", "Clearwater Ridge",
    "Silverstone Ridge", "Shadybrook Valley", "Clearwater Ridge", "Seaside Grove",
    "Willowbrook Valley", "Shadybrook Valley", "Seaside Ridge", "Willowbrook Ridge",
]


MULTI_TURN_CLASSES.update({cls.__name__: cls for cls in (GorillaFileSystem, MathAPI, MessageAPI, TwitterAPI, TicketAPI,
                                                          TradingBot, TravelAPI, VehicleControlAPI)})


if __name__ == "__main__":
    import sys
    sys.exit(main())
