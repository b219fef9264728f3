"""tool_core: the harness side of tool use, from a plain Python function to an agent loop.

Contents (lecture 001 sections 2, 5.5 and 6; lesson 002's round trip), each chapter with the demo
of scripts/03_harness.py that shows it (every lab module builds on these):
  1. Tool and ToolResult                                       demo 1
     A tool is a name, a description, a JSON Schema for its parameters and a Python callable;
     a result is ok or one of three error kinds, with a message written for the model.
  2. Helpers every lab module uses: count_tokens, calculate, format_table, dotted_name;
     2a: what a notebook shows (Markdown and <pre> that HTML, Markdown and MathJax leave as written).
  3. validate(schema, value)                                   demo 1
     JSON Schema draft 2020-12 for the keywords the vendors' function calling accepts
     (https://json-schema.org/draft/2020-12/json-schema-validation), returning every error
     with its JSON path: one function per keyword, as in python-jsonschema's _keywords.py.
     3b is its appendix: ECMA-262 regexes in Python's re.
  4. From a Python function to a Tool                          demo 1
     A decorator builds the schema from type hints and the docstring, the way FastMCP does;
     tool_signature reads a tool's outer shape back off it (scripts/01 demo 4).
  5. The registry                                              demo 1
     ToolRegistry.call checks, in order, that the tool exists, that the arguments are an
     object, that they match the schema, and only then executes; it never raises.
  6. The text protocol                                         demo 2, "What the tools cost"
     For models without native tool calling: render_tool_prompt, call_text, render_tool_results
     beside parse_tool_results, and the naive parse_tool_calls_regex beside 6a, the robust
     parse_tool_calls as the lecture tells it (find the tag, decode with json.JSONDecoder.raw_decode,
     expect the close, check the shape); 6b: its edge cases, each guard with the failure it prevents;
     6c: StreamParser, the same verdicts on a reply streamed in chunks, each call once it is certain.
  7. The loop                                                  demo 3
     ScriptedLM and run_agent (model -> parse -> validate -> execute, read-only calls of one
     turn in parallel -> results appended -> model), with tool_choice.
  8-9. Orrin Grid, the demo tools; the demos behind scripts/03_harness.py: print_demos (every
     script's layout, a note under each figure that differs from handout 001's, and --vs-handout's
     crosswalk: HandoutFigure), then the demos. 9a: charts (Chart, an SVG writer) and every printed
     table as CSV, for --svg DIR and --csv DIR.
     9b: scripts/10_under_the_hood.py's demo 3, parallel calls on a simulated clock, and invented_ids.
     9c: demo_streamed_calls, a reply parsed as it streams in (no script shows it yet).

What it leaves out: native (structured-field) tool calling, which interfaces.py renders in
the vendors' dialects, and its streamed form, the vendors' events (6c streams the text protocol);
JSON Schema's `$id`/`$anchor`/`$dynamicRef`, remote refs, `unevaluated*` and `format` assertions
(the vendors' function-calling subsets omit them too).
"""
from __future__ import annotations

import ast
import contextvars
import copy
import difflib
import functools
import html
import inspect
import io
import json
import math
import operator
import os
import re
import sys
import textwrap
import threading
import time
import types
import typing
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterator, Literal, Union
from urllib.parse import unquote

JSON = Any  # a value as json.loads returns it: dict, list, str, int, float, bool or None

# ---------------------------------------------------------------------------------------------
# --- 1. Tools and results ---
# ---------------------------------------------------------------------------------------------

REGISTRY_ERROR_KINDS = ("unknown_tool", "invalid_arguments", "execution_error")
LOOP_ERROR_KINDS = ("not_allowed",)  # run_agent refuses a real tool that tool_choice rules out this turn


@dataclass
class Tool:
    """A function the model may call: what it sees (name, description, parameters) and what runs."""

    name: str
    description: str
    parameters: dict
    fn: Callable[..., Any]
    read_only: bool = False  # read-only calls of one turn may run concurrently
    fill_none: tuple[str, ...] = ()  # Optional parameters without a default: None when the model leaves them out
    output_schema: dict | None = None  # the JSON Schema of what it returns, where known (MCP's outputSchema)

    def spec(self) -> dict:
        """Return what the model sees of this tool: name, description and JSON Schema."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def __repr__(self) -> str:
        """Show the tool in one line, without the function ('?' marks an optional parameter).

        Example: Tool(create_ticket(substation_id, summary, priority?), has side effects)
        """
        kind = "read-only" if self.read_only else "has side effects"
        return f"Tool({self.name}({parameter_list(self.parameters)}), {kind})"

    def _repr_markdown_(self) -> str:
        """Show the tool in a notebook as the model sees it: name, description, schema."""
        schema = html_pre(json.dumps(self.parameters, indent=2, ensure_ascii=False))
        kind = "read-only" if self.read_only else "has side effects"
        return markdown_block(f"**{markdown_cell(self.name)}** ({kind}): {markdown_cell(self.description)}", schema)


@dataclass
class ToolResult:
    """The outcome of one call, as data: the value, or an error message written for the model.

    `error_kind` is one of REGISTRY_ERROR_KINDS for the registry's verdicts; the loop also
    reports a malformed call (a ParseError) as a ToolResult whose error_kind is the parse kind
    (PARSE_ERROR_KINDS), and a call tool_choice rules out as LOOP_ERROR_KINDS' "not_allowed".
    """

    ok: bool
    content: JSON = None
    error_kind: str | None = None
    message: str = ""
    retryable: bool = False  # only for execution errors: would the same call succeed later?

    @property
    def text(self) -> str:
        """Return what goes back to the model: the content as JSON text, or the error message."""
        if not self.ok:
            return self.message
        if isinstance(self.content, str):
            return self.content
        try:
            return json.dumps(self.content, ensure_ascii=False, default=str, allow_nan=False)
        except Exception:  # a cycle, NaN, Infinity, tuple keys: there is no JSON for it
            return show(self.content, limit=100_000)

    def _repr_markdown_(self) -> str:
        """Show the result in a notebook: ok or the error kind, then what goes back to the model."""
        head = "**ok**" if self.ok else f"**{markdown_cell(self.error_kind)}**" + (" (retryable)" if self.retryable else "")
        return markdown_block(head, html_pre(self.text))


class ToolExecutionError(Exception):
    """Raise inside a tool to report a failure with an HTTP-like status and retry advice."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool | None = None):
        super().__init__(message)
        self.status = status
        self.retryable = retryable


def is_retryable(exc: BaseException) -> bool:
    """Say whether retrying the same call can help: timeouts, rate limits and 5xx can (not 501 Not Implemented)."""
    if isinstance(exc, ToolExecutionError):
        if exc.retryable is not None:
            return exc.retryable
        return exc.status is not None and (exc.status in (408, 429) or (500 <= exc.status < 600 and exc.status != 501))
    # subtle: socket.timeout is TimeoutError since 3.10; ConnectionError covers resets and refusals.
    return isinstance(exc, (TimeoutError, ConnectionError))


# ---------------------------------------------------------------------------------------------
# --- 2. Helpers: count_tokens, calculate, format_table, dotted_name ---
# ---------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"[A-Za-z]+|[0-9]+|[^\sA-Za-z0-9]+")
_TOKEN_CHUNK = re.compile(r"[A-Za-z]{1,8}|[0-9]{1,3}|[^\sA-Za-z0-9]{1,2}")  # one match per token, in ASCII text


def count_tokens(text: str) -> int:
    """Count tokens with a fixed stand-in rule, so every token figure in the lab is reproducible.

    The rule: a run of ASCII letters costs one token per 8 letters, a run of digits one per 3
    digits, a run of other non-space characters one per 2 characters (each rounded up); spaces
    are free. On English and JSON this lands within about 20% of a real BPE tokenizer; the lab
    compares sizes, it does not bill them.
    Example: 'get_incident("E-1474")' -> 9  (get _ incident (" E - 1474:2 ")
    """
    if text.isascii():  # the same count in one pass of the regex (every stand-in request counts its whole history)
        return len(_TOKEN_CHUNK.findall(text))
    total = 0
    for piece in _TOKEN.findall(text):
        per = 8 if piece[0].isascii() and piece[0].isalpha() else 3 if piece[0].isdigit() else 2
        total += -(-len(piece) // per)
    return total


MAX_RESULT_BITS = 4096  # about 1,233 decimal digits: 9**9**9 is refused before it is computed
MAX_EXPRESSION_CHARS = 1000

_OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
              ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
              ast.Pow: lambda a, b: a ** b}


def calculate(expression: str) -> int | float:
    """Evaluate arithmetic safely by walking its syntax tree: numbers, + - * / // % **, parentheses.

    Names, calls, attributes and everything else are refused; so are expressions longer than
    MAX_EXPRESSION_CHARS and numbers larger than MAX_RESULT_BITS, checked before a power is
    computed, so every refusal is a quick ValueError. Never eval. Numbers use Python's syntax
    (1_000 and 0x10 included); × and ÷ are accepted as the lecture writes them.
    Example: calculate("17423 * 892") -> 15541316
    """
    if not isinstance(expression, str):
        raise ValueError(f"expression must be a string, got {type(expression).__name__}")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ValueError(f"the expression has {len(expression)} characters; at most {MAX_EXPRESSION_CHARS} are allowed")
    source = expression.replace("×", "*").replace("÷", "/").strip()
    try:
        return _arith(ast.parse(source, mode="eval").body, expression)
    except (SyntaxError, ValueError) as exc:
        if not isinstance(exc, SyntaxError):
            raise
        raise ValueError(f"cannot read {expression!r} as arithmetic ({exc.msg}); "
                         "use numbers, + - * / // % ** and parentheses") from None
    except (RecursionError, MemoryError):
        raise ValueError(f"{expression[:40]!r}... is nested too deeply to evaluate") from None


def _arith(node: ast.AST, expression: str) -> int | float:
    if isinstance(node, ast.Constant) and _is_number(node.value):
        return _check_size(node.value, expression)  # 1e400 is already inf when parsed
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _arith(node.operand, expression)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _arith(node.left, expression), _arith(node.right, expression)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        try:
            value = _OPERATORS[type(node.op)](left, right)
        except ZeroDivisionError:
            raise ValueError(f"division by zero in {expression!r}") from None
        except OverflowError:
            raise ValueError(f"cannot compute {expression!r}: a number in it is too large for floating point") from None
        return _check_size(value, expression)
    hint = "; use ** for powers" if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitXor) else ""
    what = type(node.op).__name__ if isinstance(node, ast.BinOp) else type(node).__name__
    raise ValueError(f"{expression!r} contains {what}, which is not arithmetic: only numbers, "
                     f"+ - * / // % ** and parentheses are allowed{hint}")


def _check_power(base: int | float, exponent: int | float) -> None:
    if isinstance(exponent, float) or isinstance(base, float) or abs(base) <= 1 or exponent <= 0:
        return  # float powers end in OverflowError, caught by _arith; |base| <= 1 cannot grow
    if min(exponent, MAX_RESULT_BITS + 1) * math.log2(abs(base)) > MAX_RESULT_BITS:
        raise ValueError(f"{show(base, 20)} ** {show(exponent, 20)} would have more than {MAX_RESULT_BITS} bits; "
                         "refusing to compute it")


def _check_size(value: int | float, expression: str) -> int | float:
    if isinstance(value, complex):
        raise ValueError(f"{expression!r} has no real result")
    if isinstance(value, int) and value.bit_length() > MAX_RESULT_BITS:
        raise ValueError(f"the result of {expression!r} has more than {MAX_RESULT_BITS} bits")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"the result of {expression!r} is not a finite number")
    return value


def format_table(headers: list[str], rows: list[list[Any]], widths: list[int] | None = None) -> str:
    """Lay out rows as a plain-text table; a cell wraps to its column's width when one is given.

    It returns a Table (section 2a): the same text, which a notebook renders as a Markdown table.
    """
    cells = [[textwrap.wrap(str(c), w) or [""] if w else str(c).splitlines() or [""]
              for c, w in zip(row, widths or [0] * len(row))] for row in [headers] + rows]
    sizes = [max(len(line) for row in cells for line in row[i]) for i in range(len(headers))]
    out = []
    for n, row in enumerate(cells):
        for k in range(max(len(c) for c in row)):
            out.append("  ".join((c[k] if k < len(c) else "").ljust(s) for c, s in zip(row, sizes)).rstrip())
        if n == 0:
            out.append("  ".join("-" * s for s in sizes))
    table = Table("\n".join(out), headers, rows)
    _noted(table)  # for --csv (section 9a)
    return table


def dotted_name(node: ast.AST) -> tuple[str, bool]:
    """Read a callee's attribute chain as a dotted name, and whether the chain starts at a plain name.

    The one home of this walk: Gorilla's AST match (tool_catalog) and BFCL's decoder (bfcl_lab)
    read a model-written call's function with it. Example: torch.hub.load -> ('torch.hub.load', True);
    f().load -> ('load', False)
    """
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts)), isinstance(node, ast.Name)


# --- 2a. Notebooks: Markdown and <pre> that show text as it is ---
# Jupyter renders _repr_markdown_ as Markdown with HTML allowed, and JupyterLab and nbconvert then let
# MathJax typeset whatever sits between two $ signs. Text shown there passes three readers: HTML
# (a <tool_call> would vanish), Markdown (2*3*4 would turn italic) and MathJax ("$80 ... $50" would
# become math, rows and all). Every repr escapes for all three, and MathJax is told to skip the block.

_MARKDOWN_ESCAPED = re.compile(r"([`*_\[$|~])")  # code, emphasis, link, math, table cell, strikethrough (GFM)
NO_MATH = '<div class="tex2jax_ignore mathjax_ignore">'  # the class names MathJax 2 and 3 skip


def markdown_cell(value: Any) -> str:
    """Escape a value for Markdown in a notebook, so every character shows as written.

    Example: '<b>' -> '&lt;b&gt;'; '2*3*4' -> '2\\*3\\*4'; '$80' -> '\\$80'; 'C:\\logs' -> 'C:&#92;logs'
    subtle: a backslash becomes a character reference, not '\\\\': nbconvert's Markdown reader takes
    '\\\\(' and '\\\\[' for math delimiters (it shows an escaped '\\(x\\)' as '$x$'), and MathJax cannot
    be told to skip what that reader has already made math.
    """
    text = html.escape(str(value), quote=False).replace("\\", "&#92;")
    return _MARKDOWN_ESCAPED.sub(r"\\\1", text).replace("\n", "<br>")


def markdown_table(headers: list[Any], rows: list[list[Any]]) -> str:
    """Write rows as a Markdown table with every cell escaped (what a notebook renders)."""
    lines = ["| " + " | ".join(markdown_cell(h) for h in headers) + " |", "|" + " --- |" * len(headers)]
    return "\n".join(lines + ["| " + " | ".join(markdown_cell(c) for c in row) + " |" for row in rows])


def markdown_block(*parts: str) -> str:
    """Join Markdown parts inside a div MathJax skips; the blank lines let Markdown read what is inside the div."""
    return f"{NO_MATH}\n\n" + "\n\n".join(parts) + "\n\n</div>"


def html_pre(text: str) -> str:
    """Write text as an HTML <pre> block that HTML, Markdown and MathJax all leave as written.

    Example: 'a < b, $5' -> '<pre class="tex2jax_ignore mathjax_ignore">a &lt; b, &#36;5</pre>'
    subtle: Markdown does not read inside <pre>, and JupyterLab 4 and nbconvert 7 leave a <pre> alone,
    but a renderer that hunts for math or code in the raw source, before any HTML is read, would pair
    a $ in here with one outside: $, backslash and backtick become character references here too.
    """
    body = html.escape(text, quote=False)
    for c in "\\`$":
        body = body.replace(c, f"&#{ord(c)};")
    return f'<pre class="tex2jax_ignore mathjax_ignore">{body}</pre>'


def name_list(names: typing.Iterable[Any], limit: int = 120) -> str:
    """Join names with commas, cut to about `limit` characters with how many were left out (for short reprs).

    Example: ['a', 'b', 'c'], limit=4 -> 'a, b, ... (+1 more)'
    """
    names = [str(n) for n in names]
    for k in range(len(names), 0, -1):
        text = ", ".join(names[:k]) + (f", ... (+{len(names) - k} more)" if k < len(names) else "")
        if len(text) <= limit or k == 1:
            return text
    return "(none)"


def parameter_list(schema: JSON) -> str:
    """Name an object schema's properties, an optional one marked '?' (for short reprs).

    Example: {'properties': {'a': {}, 'b': {}}, 'required': ['a']} -> 'a, b?'
    """
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return "..." if schema not in ({}, {"type": "object"}) else ""
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    return name_list(p if p in required else f"{p}?" for p in schema["properties"])


class Table(str):
    """A table as plain text (what the scripts print) that a notebook renders as a Markdown table."""

    def __new__(cls, text: str, headers: list[Any], rows: list[list[Any]]):
        table = super().__new__(cls, text)
        table.headers, table.rows = list(headers), [list(r) for r in rows]
        return table

    def _repr_markdown_(self) -> str:
        return markdown_block(markdown_table(self.headers, self.rows))


class DemoText(str):
    """What a demo_* function returns: the text a script prints, still a str (==, slicing, re and print as
    before), that a notebook shows preformatted instead of as a quoted string full of \\n, with the demo's charts
    (section 9a) drawn under it."""

    charts: tuple = ()  # the Charts the demo recorded

    def __repr__(self) -> str:
        return str(self)  # the text itself, as the terminal shows it (IPython's plain-text view too)

    def _repr_html_(self) -> str:
        return html_pre(self) + "".join(chart.svg() for chart in self.charts)


def preformatted(demo: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a demo_* function so it returns DemoText with its charts (any other value passes through)."""
    @functools.wraps(demo)
    def wrapper(*args, **kwargs):
        collected = []
        token = _COLLECTED.set(collected)
        try:
            out = demo(*args, **kwargs)
        finally:
            _COLLECTED.reset(token)
        for item in collected:  # and on to print_demos, when it collects for --svg and --csv
            _noted(item)
        if not isinstance(out, str):
            return out
        text = DemoText(out)
        text.charts = tuple(item for item in collected if isinstance(item, Chart))
        return text
    return wrapper


# ---------------------------------------------------------------------------------------------
# --- 3. validate(schema, value): JSON Schema 2020-12, one function per keyword ---
# ---------------------------------------------------------------------------------------------

MAX_REF_DEPTH = 64  # this many $refs followed at one place in the value: a cycle in the schema (64, not more:
# Python 3.10 spends about ten frames a $ref, and must meet this limit before its recursion limit of 1,000)


_JSON_TYPE_OF = {str: "string", int: "integer", bool: "boolean", type(None): "null", list: "array", dict: "object"}


def json_type(value: JSON) -> str:
    """Name the JSON type of a Python value. Example: 5 -> 'integer', 5.5 -> 'number'."""
    if value.__class__ in _JSON_TYPE_OF:  # the classes json.loads returns, floats aside: one look-up
        return _JSON_TYPE_OF[value.__class__]
    if value.__class__ is float:
        return "integer" if value.is_integer() else "number"
    if value is None:
        return "null"
    if isinstance(value, bool):  # subtle: bool inherits from int, so test it first
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _is_number(value: JSON) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_json_type(value: JSON, name: str) -> bool:
    """Test a value against one JSON Schema type name. Example: (1.0, 'integer') -> True."""
    if name == "number":
        return _is_number(value)
    if name == "integer":  # the spec counts 1.0 as an integer: it is a number with zero fraction
        return json_type(value) == "integer"
    return json_type(value) == name


def json_equal(a: JSON, b: JSON) -> bool:
    """Compare two values as JSON does: 1 == 1.0, but true != 1, also inside arrays and objects."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


# json.dumps(value, ensure_ascii=False, default=repr) builds this encoder on every call; built once,
# its public encode() writes the same text (a str, the commonest value in messages, takes ~0.3 us)
_JSON_TEXT = json.JSONEncoder(ensure_ascii=False, default=repr)


def show(value: JSON, limit: int = 60) -> str:
    """Render a value as short JSON for an error message. Example: 'urgent' -> '"urgent"'."""
    try:
        kind = value.__class__
        if kind is int or (kind is float and math.isfinite(value)):
            text = repr(value)  # what json writes for these, without its machinery
        else:
            text = _JSON_TEXT.encode(value)
    except Exception:  # a cycle, non-string keys, a 5000-digit int, deep nesting: fall back to repr
        try:
            text = repr(value)
        except Exception:
            text = f"<a {json_type(value)} too large or too deep to show>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(value: JSON) -> str:
    """Render a value with its JSON type. Example: 'urgent' -> 'string "urgent"'."""
    return f"{json_type(value)} {show(value)}"


def child_path(path: str, key: str | int) -> str:
    """Extend a JSON path by a key or index. Example: ('$', 'limit') -> '$.limit'; ('$', 'a b') -> '$["a b"]'"""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _once(errors: typing.Iterable[str]) -> list[str]:
    """Return the errors in order, each once. Example: ['$: x', '$: x', '$: y'] -> ['$: x', '$: y']"""
    return list(dict.fromkeys(errors))


class _Validation:
    """One validation run: knows the root schema (for $ref) and walks schema and value together."""

    def __init__(self, root: JSON):
        self.root = root
        self.refs_at: dict[str, int] = {}  # $refs being followed at each path of the value
        self.seen: dict[tuple, list[str]] = {}  # (a $ref's target, a value, its path, refs active) -> its errors

    def errors(self, schema: JSON, value: JSON, path: str) -> Iterator[str]:
        if schema is True:
            return
        if schema is False:
            yield f"{path}: no value is allowed here, got {describe(value)}"
            return
        if not isinstance(schema, dict):
            raise ValueError(f"schema at {path} must be an object or a boolean, got {show(schema)}")
        for keyword, check in KEYWORDS.items():
            if keyword in schema:
                try:
                    yield from check(self, schema[keyword], value, schema, path)
                except (TypeError, AttributeError) as exc:  # e.g. "minimum": "5", "required": 5
                    raise ValueError(f"schema keyword {keyword!r} at {path} has an unusable value "
                                     f"{show(schema[keyword])} ({exc})") from None

    def is_valid(self, schema: JSON, value: JSON, path: str = "$") -> bool:
        return next(iter(self.errors(schema, value, path)), None) is None

    def conform(self, schema: JSON, value: JSON, refs: int = 0) -> JSON:
        """Walk a valid value with its schema and turn integral floats into int where the schema says integer."""
        if not isinstance(schema, dict):
            return value
        if "$ref" in schema and refs < MAX_REF_DEPTH:
            value = self.conform(self.resolve(schema["$ref"]), value, refs + 1)
        names = schema.get("type") if isinstance(schema.get("type"), list) else [schema.get("type")]
        if "integer" in names and isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, dict):
            value = {k: self._conform_member(schema, k, v) for k, v in value.items()}
        elif isinstance(value, list):
            prefix = schema.get("prefixItems", [])
            value = [self.conform(prefix[i] if i < len(prefix) else schema.get("items", True), item)
                     for i, item in enumerate(value)]
        for sub in schema.get("allOf", []):
            value = self.conform(sub, value, refs)
        for keyword in ("anyOf", "oneOf"):  # the first branch the value matches is the one that types it
            branch = next((s for s in schema.get(keyword, []) if self.is_valid(s, value)), None)
            value = self.conform(branch, value, refs)
        if "if" in schema:
            value = self.conform(schema.get("then" if self.is_valid(schema["if"], value) else "else"), value, refs)
        return value

    def _conform_member(self, schema: dict, name: str, member: JSON) -> JSON:
        """Conform one property with every subschema that applies to it (declared, pattern, or additional)."""
        declared, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
        matching = [sub for p, sub in patterns.items() if _search(p, name)]
        subs = ([declared[name]] if name in declared else []) + matching
        if not subs and isinstance(schema.get("additionalProperties"), dict):
            subs = [schema["additionalProperties"]]
        for sub in subs:
            member = self.conform(sub, member)
        return member

    def resolve(self, ref: str) -> JSON:
        """Follow '#' or '#/json/pointer' (RFC 6901, with ~0 ~1 and %-escapes) inside the root."""
        if ref != "#" and not ref.startswith("#/"):
            raise ValueError(f"unsupported $ref {ref!r}: only '#' and '#/...' pointers are resolved")
        node = self.root
        for raw in ref[2:].split("/") if ref != "#" else []:
            part = unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise ValueError(f"$ref {ref!r} does not resolve: no {part!r} in the schema")
        return node


def _type(validation, expected, value, schema, path):
    names = expected if isinstance(expected, list) else [expected]
    if not any(is_json_type(value, n) for n in names):
        yield f"{path}: expected {' or '.join(names)}, got {describe(value)}"


def _enum(validation, options, value, schema, path):
    if not any(json_equal(value, o) for o in options):
        yield f"{path}: expected one of {show(options, 200)}, got {show(value)}"


def _const(validation, const, value, schema, path):
    if not json_equal(value, const):
        yield f"{path}: expected exactly {show(const)}, got {show(value)}"


def _properties(validation, properties, value, schema, path):
    if isinstance(value, dict):
        for name, sub in properties.items():
            if name in value:
                yield from validation.errors(sub, value[name], child_path(path, name))


def _patternProperties(validation, patterns, value, schema, path):
    if isinstance(value, dict):
        for pattern, sub in patterns.items():
            for name in value:
                if _search(pattern, name):
                    yield from validation.errors(sub, value[name], child_path(path, name))


def _additionalProperties(validation, extra_schema, value, schema, path):
    if not isinstance(value, dict):
        return
    declared = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    extra = [k for k in value if k not in declared and not any(_search(p, k) for p in patterns)]
    if extra and extra_schema is False:
        allowed = f"allowed: {sorted(declared)}" + (f", or names matching {sorted(patterns)}" if patterns else "")
        yield f"{path}: unexpected properties {extra} ({allowed})"
    elif extra_schema is not False:
        for name in extra:
            yield from validation.errors(extra_schema, value[name], child_path(path, name))


def _required(validation, required, value, schema, path):
    if isinstance(value, dict):
        missing = [name for name in required if name not in value]
        if missing:
            yield f"{path}: missing required properties {missing} (required: {list(required)})"


def _dependentRequired(validation, dependencies, value, schema, path):
    if isinstance(value, dict):
        for name, needs in dependencies.items():
            missing = [n for n in needs if n not in value] if name in value else []
            if missing:
                yield f"{path}: property {name!r} requires {missing} as well"


def _propertyNames(validation, sub, value, schema, path):
    if isinstance(value, dict):
        for name in value:
            for error in validation.errors(sub, name, child_path(path, name)):
                yield f"{error} (in a property name)"


def _prefixItems(validation, prefix, value, schema, path):
    if isinstance(value, list):
        for i, (sub, item) in enumerate(zip(prefix, value)):
            yield from validation.errors(sub, item, child_path(path, i))


def _items(validation, sub, value, schema, path):
    if not isinstance(value, list):
        return
    start = len(schema.get("prefixItems", []))  # 2020-12: items covers what prefixItems does not
    if sub is False and len(value) > start:
        yield f"{path}: expected at most {start} items, got {len(value)}"
        return
    for i in range(start, len(value)):
        yield from validation.errors(sub, value[i], child_path(path, i))


def _contains(validation, sub, value, schema, path):
    if not isinstance(value, list):
        return
    matches = sum(1 for item in value if validation.is_valid(sub, item, path))
    low, high = schema.get("minContains", 1), schema.get("maxContains")
    if matches < low:
        yield f"{path}: expected at least {low} items matching 'contains' {show(sub)}, got {matches}"
    if high is not None and matches > high:
        yield f"{path}: expected at most {high} items matching 'contains' {show(sub)}, got {matches}"


def _uniqueItems(validation, unique, value, schema, path):
    if unique and isinstance(value, list):
        first: dict = {}  # each repeat is paired with the first item equal to it: linear, and none is missed
        for j, item in enumerate(value):
            i = first.setdefault(_canonical(item), j)
            if i != j:
                yield f"{path}: items must be unique, but [{i}] and [{j}] are both {show(item)}"


def _canonical(value: JSON) -> Any:
    """Return a hashable key that is equal for JSON-equal values: 1 and 1.0 alike, true and 1 not.

    Python already hashes 1 and 1.0 alike; tagging booleans keeps true apart from 1.
    """
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, list):
        return ("array", tuple(_canonical(x) for x in value))
    if isinstance(value, dict):
        return ("object", frozenset((k, _canonical(x)) for k, x in value.items()))
    return ("scalar", value)


def _sized(kind: type, noun: str, at_least: bool):
    """Build the check of minProperties, maxProperties, minItems or maxItems."""
    def check(validation, limit, value, schema, path):
        if isinstance(value, kind) and (len(value) < limit if at_least else len(value) > limit):
            yield f"{path}: expected at {'least' if at_least else 'most'} {limit} {noun}, got {len(value)}"

    return check


def _numeric(compare: Callable[[float, float], bool], phrase: str):
    def check(validation, limit, value, schema, path):
        if _is_number(value) and not compare(value, limit):
            yield f"{path}: expected a number {phrase} {limit}, got {show(value)}"

    return check


def _multipleOf(validation, divisor, value, schema, path):
    if not _is_number(divisor) or divisor <= 0:
        raise ValueError(f"multipleOf at {path} must be a number greater than 0, got {show(divisor)}")
    if _is_number(value) and not (_finite(value) and _exact(value) % _exact(divisor) == 0):
        yield f"{path}: expected a multiple of {divisor}, got {show(value)}"


def _finite(x: int | float) -> bool:
    """Say whether a number is finite; an int always is (math.isfinite would convert a 400-digit one to float, and fail)."""
    return isinstance(x, int) or math.isfinite(x)


def _exact(x: int | float) -> Fraction:
    # subtle: 0.0075 / 0.0001 is not an integer in binary floating point; the decimal text the
    # value was written as (repr gives the shortest round-trip form) divides exactly.
    return Fraction(x) if isinstance(x, int) else Fraction(repr(x))


def _minLength(validation, limit, value, schema, path):
    if isinstance(value, str) and len(value) < limit:  # len counts code points, as the spec asks
        yield f"{path}: expected at least {limit} characters, got {len(value)} in {show(value)}"


def _maxLength(validation, limit, value, schema, path):
    if isinstance(value, str) and len(value) > limit:
        yield f"{path}: expected at most {limit} characters, got {len(value)} in {show(value)}"


def _search(pattern: str, text: str) -> bool:
    """Say whether an ECMA-262 pattern matches somewhere in text (read as ECMA reads it: see 3b, the appendix)."""
    try:
        return _compile_ecma(pattern).search(text) is not None  # unanchored, as ECMA-262 `test` is
    except re.error as exc:
        raise ValueError(f"schema pattern {pattern!r} is not a valid regular expression: {exc}") from None


def _pattern(validation, pattern, value, schema, path):
    if isinstance(value, str) and not _search(pattern, value):
        yield f"{path}: expected a string matching /{pattern}/, got {show(value)}"


def _allOf(validation, subs, value, schema, path):
    for sub in subs:
        yield from validation.errors(sub, value, path)


def _alternatives(validation, subs, value, path) -> list[list[str]]:
    return [list(validation.errors(sub, value, path)) for sub in subs]


def _anyOf(validation, subs, value, schema, path):
    found = _alternatives(validation, subs, value, path)
    if all(found):
        yield _none_matched("anyOf", [errors[0] for errors in found], value, path)


def _oneOf(validation, subs, value, schema, path):
    found = _alternatives(validation, subs, value, path)
    matched = [i for i, errors in enumerate(found) if not errors]
    if not matched:
        yield _none_matched("oneOf", [errors[0] for errors in found], value, path)
    elif len(matched) > 1:
        yield f"{path}: expected exactly one oneOf alternative to match, but {matched} all match {show(value)}"


MAX_REASON = 300  # characters of each alternative's first error that an anyOf or oneOf message quotes


def _none_matched(keyword: str, firsts: list[str], value: JSON, path: str) -> str:
    # subtle: a recursive anyOf quotes its children's messages, which quote theirs: uncut, the
    # message would double at each level of the value
    reasons = "; ".join(f"[{i}] {first if len(first) <= MAX_REASON else first[:MAX_REASON - 1] + '…'}"
                        for i, first in enumerate(firsts))
    return f"{path}: {describe(value)} matches none of the {len(firsts)} {keyword} alternatives ({reasons})"


def _not(validation, sub, value, schema, path):
    if validation.is_valid(sub, value, path):
        yield f"{path}: expected a value that does not match {show(sub)}, got {show(value)}"


def _if(validation, condition, value, schema, path):
    branch = "then" if validation.is_valid(condition, value, path) else "else"
    if branch in schema:
        yield from validation.errors(schema[branch], value, path)


def _ref(validation, ref, value, schema, path):
    # subtle: a recursive schema (a tree) follows $ref once per level of the value, which is
    # fine; only refs followed again and again at the same place in the value are a loop.
    active = validation.refs_at.get(path, 0)
    if active >= MAX_REF_DEPTH:
        raise ValueError(f"$ref chain deeper than {MAX_REF_DEPTH} at {path}: the schema refers to itself in a loop, "
                         f"or chains more $refs than validate follows")
    target = validation.resolve(ref)
    # subtle: recursion goes only through $ref, so this is where one array or object can meet one
    # subschema again and again (anyOf branches that each recurse into the same child: 2^depth);
    # each such meeting is judged once, its errors each listed once (else allOf doubles them per
    # level). Keyed by the place in the value and the $refs active there, so a loop is still met
    # where it would be. A leaf is judged as before: cheap, and lazily (is_valid stops early).
    if type(value) is not dict and type(value) is not list:
        validation.refs_at[path] = active + 1
        try:
            yield from validation.errors(target, value, path)
        finally:
            validation.refs_at[path] = active
        return
    key = (id(target), id(value), path, active)
    if key not in validation.seen:
        validation.refs_at[path] = active + 1
        try:
            validation.seen[key] = _once(validation.errors(target, value, path))
        finally:
            validation.refs_at[path] = active
    yield from validation.seen[key]


# The keyword table. Every check shares one signature, (validation, the keyword's value, the value,
# the whole subschema, the value's path), and yields its errors. Each is named after its keyword as
# the spec spells it, behind an underscore (_additionalProperties; $ref's is _ref): the underscore keeps
# the names private and lets type, not and if follow the same rule without shadowing a builtin or
# a Python keyword. The min/max sizes and the numeric bounds share a builder each (_sized, _numeric).
KEYWORDS: dict[str, Callable[..., Iterator[str]]] = {
    "$ref": _ref,
    "type": _type,
    "enum": _enum,
    "const": _const,
    "required": _required,
    "properties": _properties,
    "patternProperties": _patternProperties,
    "additionalProperties": _additionalProperties,
    "dependentRequired": _dependentRequired,
    "propertyNames": _propertyNames,
    "minProperties": _sized(dict, "properties", at_least=True),
    "maxProperties": _sized(dict, "properties", at_least=False),
    "prefixItems": _prefixItems,
    "items": _items,
    "contains": _contains,
    "minItems": _sized(list, "items", at_least=True),
    "maxItems": _sized(list, "items", at_least=False),
    "uniqueItems": _uniqueItems,
    "minimum": _numeric(operator.ge, ">="),
    "maximum": _numeric(operator.le, "<="),
    "exclusiveMinimum": _numeric(operator.gt, ">"),
    "exclusiveMaximum": _numeric(operator.lt, "<"),
    "multipleOf": _multipleOf,
    "minLength": _minLength,
    "maxLength": _maxLength,
    "pattern": _pattern,
    "allOf": _allOf,
    "anyOf": _anyOf,
    "oneOf": _oneOf,
    "not": _not,
    "if": _if,
}
# Not listed, so ignored as the spec allows for annotations: format, default, title,
# description, examples, $defs, $schema, $comment, then/else (read by "if"), min/maxContains
# (read by "contains"). `default` is never applied: validation does not change the value.


def validate(schema: JSON, value: JSON) -> list[str]:
    """Check a value against a JSON Schema; return every error (empty list = valid).

    Each error names the JSON path, what was expected and what was given, e.g.
    '$.priority: expected one of ["low", "normal", "high"], got "urgent"'.
    Inside a $ref's target, an error two branches find is listed once (see _ref).
    A broken schema (bad $ref, bad pattern) is the programmer's mistake and raises ValueError.
    Example: validate({"type": "integer"}, 1.0) -> []
    """
    try:
        return list(_Validation(schema).errors(schema, value, "$"))
    except RecursionError:
        return ["$: the value is nested too deeply to validate"]


_SUBSCHEMA = ("items", "contains", "additionalProperties", "propertyNames", "not", "if", "then", "else")
_SUBSCHEMA_LISTS = ("prefixItems", "allOf", "anyOf", "oneOf")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


def check_schema(schema: JSON, path: str = "#") -> None:
    """Raise ValueError for a schema validate could not use: a broken pattern, a $ref that does not resolve,
    a keyword of the wrong kind. validate finds these only when a value reaches them; a tool checks at once.

    Example: check_schema({"properties": {"id": {"pattern": "([a-z"}}}) -> ValueError naming #/properties/id
    """
    validation = _Validation(schema)
    stack = [(schema, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, bool):
            continue
        if not isinstance(node, dict):
            raise ValueError(f"schema at {where} must be an object or a boolean, got {show(node)}")
        for pattern in ([node["pattern"]] if "pattern" in node else []) + list(node.get("patternProperties", {})):
            if not isinstance(pattern, str):
                raise ValueError(f"schema at {where}: a pattern must be a string, got {show(pattern)}")
            try:
                _search(pattern, "")  # compiles it
            except ValueError as exc:
                raise ValueError(f"schema at {where}: {exc}") from None
        if "$ref" in node:
            try:
                validation.resolve(node["$ref"])
            except (ValueError, AttributeError) as exc:
                raise ValueError(f"schema at {where}: {exc}") from None
        for key in _SUBSCHEMA:
            if key in node:
                stack.append((node[key], f"{where}/{key}"))
        for key in _SUBSCHEMA_LISTS:
            if key in node:
                if not isinstance(node[key], list):
                    raise ValueError(f"schema at {where}: {key} must be an array of schemas, got {show(node[key])}")
                stack += [(sub, f"{where}/{key}/{i}") for i, sub in enumerate(node[key])]
        for key in _SUBSCHEMA_MAPS:
            if key in node:
                if not isinstance(node[key], dict):
                    raise ValueError(f"schema at {where}: {key} must be an object of schemas, got {show(node[key])}")
                stack += [(sub, f"{where}/{key}/{name}") for name, sub in node[key].items()]


def as_schema_types(schema: JSON, value: JSON) -> JSON:
    """Return a valid value as the schema promises it to Python: integral floats become int where it says integer.

    subtle: JSON has one number type, and JSON Schema counts 1.0 as an integer, so validate
    rightly accepts {"limit": 5.0} for an integer parameter, and models do write 5.0. Python
    tells int from float (a slice index or range() refuses 5.0), so a tool that declared an
    integer gets an int. Where the schema says "number", 2.5 and 5.0 stay as written. The walk
    follows properties, patternProperties, additionalProperties, prefixItems, items, $ref,
    allOf, the branch of anyOf/oneOf (and if/then/else) the value matched. Call it only on a
    value validate accepted; it returns new containers and leaves the input alone.
    Example: ({"type": "object", "properties": {"limit": {"type": "integer"}}}, {"limit": 5.0}) -> {"limit": 5}
    """
    try:
        return _Validation(schema).conform(schema, value)
    except RecursionError:
        return value


# --- 3b. Appendix: ECMA-262 regexes in Python's re (why pattern needs a translation) ---
#
# JSON Schema says a `pattern` (and a patternProperties name) is an ECMA-262 regular expression
# (2020-12 validation, section 6.3.3; core, section 6.4): the dialect of JavaScript's RegExp.
# Python's re reads the same text differently in a few places, so a pattern handed to re.search
# as it is would accept values that a validator following the spec rejects. Python's \d takes
# "١٢" (Arabic-Indic digits) and \w takes "é", where ECMA's \d, \w and \b are ASCII-only; Python's
# \s misses \ufeff and adds \x1c-\x1f; its . stops only at \n, ECMA's at \r, \u2028 and \u2029
# too; its $ matches before a final newline, so "^[A-Z]+$" would take "SS\n". Python also lacks
# syntax ECMA has: \p{L} / \P{L} (and \p{Nd}), \cJ, \u{1F600}, (?<name>...) and \k<name>.
# _compile_ecma rewrites each of these into Python's form, character by character, and refuses
# (a ValueError from _search, naming the pattern) what it cannot translate faithfully: another
# \p{...} property; \P{L}, \D, \W or \S inside a [...] class; a lookbehind of varying width.

# ECMA-262 classes that differ from Python's: \d and \w are ASCII-only, \s has its own list.
_ECMA_CLASSES = {"d": "0-9", "w": "A-Za-z0-9_",
                 "s": "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"}
_ASCII_WORD = "[A-Za-z0-9_]"
_ECMA_ESCAPES = {  # escape -> its Python form outside a class
    "b": f"(?:(?<={_ASCII_WORD})(?!{_ASCII_WORD})|(?<!{_ASCII_WORD})(?={_ASCII_WORD}))",  # an ASCII word boundary
    "B": f"(?:(?<={_ASCII_WORD})(?={_ASCII_WORD})|(?<!{_ASCII_WORD})(?!{_ASCII_WORD}))",
}


@functools.lru_cache(maxsize=None)
def _letters() -> str:
    """Return every Unicode letter (category L) as the ranges of a character class, built on first use."""
    ranges, first, last = [], None, None
    for code in range(0x110000):
        if chr(code).isalpha():  # str.isalpha is exactly categories Lu, Ll, Lt, Lm, Lo
            first, last = (code if last != code - 1 else first), code
            continue
        if last == code - 1:
            ranges.append(re.escape(chr(first)) + ("" if first == last else "-" + re.escape(chr(last))))
    return "".join(ranges)


def _property(name: str, negated: bool, in_class: bool) -> str:
    """Translate \\p{name} / \\P{name} for the properties we know: letters and decimal digits."""
    if name in ("L", "Letter"):
        if negated and in_class:
            raise re.error("\\P{L} inside [...] is not supported")
        return _letters() if in_class else f"[{'^' if negated else ''}{_letters()}]"
    if name in ("Nd", "Decimal_Number"):
        return "\\D" if negated else "\\d"  # Python's \d is exactly category Nd
    raise re.error(f"Unicode property \\p{{{name}}} is not supported")


def _translate_escape(pattern: str, i: int, in_class: bool) -> tuple[str, int]:
    """Translate the escape at pattern[i] (a backslash); return its Python form and where to go on."""
    nxt = pattern[i + 1: i + 2]
    if nxt.lower() in _ECMA_CLASSES:
        body = _ECMA_CLASSES[nxt.lower()]
        if in_class and nxt.isupper():
            raise re.error(f"\\{nxt} inside [...] is not supported")
        return (body if in_class else f"[{'^' if nxt.isupper() else ''}{body}]"), i + 2
    if nxt in ("p", "P") and pattern[i + 2: i + 3] == "{" and "}" in pattern[i:]:
        end = pattern.index("}", i)
        return _property(pattern[i + 3: end], nxt == "P", in_class), end + 1
    if nxt in _ECMA_ESCAPES and not in_class:
        return _ECMA_ESCAPES[nxt], i + 2
    if nxt == "b":  # [\b] is a backspace in both dialects
        return "\\x08", i + 2
    if nxt == "c" and pattern[i + 2: i + 3].isascii() and pattern[i + 2: i + 3].isalpha():
        return f"\\x{ord(pattern[i + 2]) % 32:02x}", i + 3  # \cJ is a control character
    if nxt == "u" and pattern[i + 2: i + 3] == "{" and "}" in pattern[i:]:
        end = pattern.index("}", i)
        return f"\\U{int(pattern[i + 3: end], 16):08x}", end + 1  # \u{1F600}
    if nxt == "k" and pattern[i + 2: i + 3] == "<" and ">" in pattern[i:]:
        end = pattern.index(">", i)
        return f"(?P={pattern[i + 3: end]})", end + 1  # a named back-reference
    return pattern[i: i + 2], i + 2


@functools.lru_cache(maxsize=512)
def _compile_ecma(pattern: str) -> re.Pattern:
    """Compile an ECMA-262 pattern (what JSON Schema specifies) with Python's re, rewritten as above says.

    Example: r"^\\p{L}+$" matches "π"; r"^\\d+$" does not match "١٢"; r"^[A-Z]+$" does not match "SS\\n".
    """
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            piece, i = _translate_escape(pattern, i, in_class)
            out.append(piece)
            continue
        if not in_class and pattern.startswith("(?<", i) and pattern[i + 3: i + 4] not in ("=", "!"):
            out.append("(?P<")  # a named group
            i += 3
            continue
        if not in_class and c in ".$":
            out.append("[^\\n\\r\\u2028\\u2029]" if c == "." else "\\Z")
        else:
            out.append(c)
        in_class = (c == "[") or (in_class and c != "]")
        i += 1
    return re.compile("".join(out))


# ---------------------------------------------------------------------------------------------
# --- 4. From a Python function to a Tool (type hints + docstring -> JSON Schema) ---
# ---------------------------------------------------------------------------------------------

_SIMPLE_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null",
                 list: "array", tuple: "array", dict: "object"}


def schema_for_type(hint: Any) -> dict:
    """Translate one type hint into JSON Schema. Example: list[int] -> {"type": "array", "items": {"type": "integer"}}."""
    if hint is Any:
        return {}
    if hint in _SIMPLE_TYPES:
        return {"type": _SIMPLE_TYPES[hint]}
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        kinds = {json_type(a) for a in args}
        return ({"type": kinds.pop()} if len(kinds) == 1 else {}) | {"enum": list(args)}
    if origin in (Union, types.UnionType):
        return _union_schema(args)
    if origin is typing.Annotated:
        notes = [a for a in args[1:] if isinstance(a, str)]
        return schema_for_type(args[0]) | ({"description": notes[0]} if notes else {})
    if origin is list:
        return {"type": "array"} | ({"items": schema_for_type(args[0])} if args else {})
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": schema_for_type(args[0])}
        return {"type": "array", "prefixItems": [schema_for_type(a) for a in args],
                "minItems": len(args), "maxItems": len(args)}
    if origin is dict:
        return {"type": "object"} | ({"additionalProperties": schema_for_type(args[1])} if args else {})
    raise TypeError(f"cannot build a JSON Schema for type hint {hint!r}: use str, int, float, bool, "
                    "list[...], tuple[...], dict, Literal[...], Optional[...] or a union of these")


def _union_schema(args: tuple) -> dict:
    options = [a for a in args if a is not type(None)]
    if len(options) > 1:
        return {"anyOf": [schema_for_type(a) for a in args]}
    schema = schema_for_type(options[0])
    return nullable(schema) if len(options) < len(args) else schema


def _mentions_ref(schema: JSON) -> bool:
    """Say whether "$ref" appears anywhere in a schema. Example: {"items": {"$ref": "#"}} -> True"""
    if isinstance(schema, dict):
        return "$ref" in schema or any(_mentions_ref(v) for v in schema.values())
    return isinstance(schema, list) and any(_mentions_ref(v) for v in schema)


def nullable(schema: dict) -> dict:
    """Let a schema also admit null (as Optional[X] does, and OpenAI's strict mode needs). Example: {"type": "integer"} -> {"type": ["integer", "null"]}

    A subschema that points elsewhere (a $ref at any depth: its target lives in the whole schema)
    is wrapped in anyOf, as is one validate cannot judge.
    """
    if _mentions_ref(schema):
        return {"anyOf": [schema, {"type": "null"}]}
    try:
        if validate(schema, None) == []:
            return schema
    except ValueError:
        return {"anyOf": [schema, {"type": "null"}]}
    if "enum" in schema:  # Optional[Literal[...]]: null joins the enum and the type list
        schema = schema | {"enum": schema["enum"] + [None]}
    if isinstance(schema.get("type"), str):
        return schema | {"type": [schema["type"], "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def _admits_none(hint: Any) -> bool:
    if typing.get_origin(hint) is typing.Annotated:
        return _admits_none(typing.get_args(hint)[0])
    return typing.get_origin(hint) in (Union, types.UnionType) and type(None) in typing.get_args(hint)


_SECTION = re.compile(r"^(Args|Arguments|Parameters|Params|Returns|Return|Raises|Yields|Example|Examples|Note|Notes):\s*$")
_ARG_SECTIONS = ("Args", "Arguments", "Parameters", "Params")
_GOOGLE_ENTRY = re.compile(r"(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)")
_SPHINX_PARAM = re.compile(r":param\s+(?:[\w\[\], ]+\s+)?(\w+):\s*(.*)")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into the tool description (first paragraph) and per-parameter notes.

    Reads Google style ("Args:" then "name: text" or "name (type): text", continuation lines
    indented deeper) and Sphinx style (":param name: text").
    Example: "Look up X.\\n\\nArgs:\\n    code: the id" -> ("Look up X.", {"code": "the id"})
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    first = []
    for line in lines:
        if not line.strip() or _SECTION.match(line.strip()) or line.lstrip().startswith(":"):
            break
        first.append(line.strip())
    params: dict[str, str] = {}
    section = current = None
    indent = 0
    for line in lines:
        text = line.strip()
        sphinx, header = _SPHINX_PARAM.match(text), _SECTION.match(text)
        if not text:
            current = None
        elif sphinx:
            section, current = None, sphinx.group(1)
            params[current] = sphinx.group(2)
        elif header or text.startswith(":"):
            section, current = header and header.group(1), None
        elif section in _ARG_SECTIONS and (entry := _GOOGLE_ENTRY.match(text)) and (
                current is None or len(line) - len(line.lstrip()) <= indent):
            current, indent = entry.group(1), len(line) - len(line.lstrip())
            params[current] = entry.group(2)
        elif current:
            params[current] = f"{params[current]} {text}".strip()
    return " ".join(first), params


def tool_from_function(fn: Callable, *, name: str | None = None, description: str | None = None,
                       read_only: bool = False, context: typing.Iterable[str] = ()) -> Tool:
    """Build a Tool from a plain function: hints -> schema, docstring -> descriptions.

    A parameter with a default is optional (its default is shown, never applied by validate).
    Optional[X] admits null and is optional too: left out, the function gets None. A default
    of None makes the parameter nullable even without Optional. The schema forbids properties
    the function does not take. Parameters named in `context` are the harness's to fill (the
    database a tool acts on, bound with functools.partial): the model's schema leaves them out.
    """
    target = fn if inspect.isroutine(fn) else fn.__call__  # a callable object describes its __call__
    fn_name = getattr(fn, "__name__", type(fn).__name__)
    hints = typing.get_type_hints(target, include_extras=True)
    summary, notes = parse_docstring(target.__doc__)
    properties, required, fill_none = {}, [], []
    for param in inspect.signature(target).parameters.values():
        if param.name in context:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise TypeError(f"{fn_name}: {param} cannot be passed by name, as a model's arguments are; "
                            "name every parameter and drop '/' and *args/**kwargs")
        if param.name not in hints:
            raise TypeError(f"{fn_name}: parameter {param.name!r} needs a type hint; the hint becomes the schema the model sees")
        prop = schema_for_type(hints[param.name])
        if param.default is None:
            prop = nullable(prop)
        if param.name in notes:
            prop["description"] = notes[param.name]
        if param.default is param.empty and _admits_none(hints[param.name]):
            fill_none.append(param.name)
        elif param.default is param.empty:
            required.append(param.name)
        elif param.default is None or isinstance(param.default, (str, int, float, bool)):
            prop["default"] = param.default
        properties[param.name] = prop
    description = description if description is not None else summary
    if not description:
        raise TypeError(f"{fn_name}: give the tool a docstring; its description is all the model knows about it")
    schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return Tool(name or fn_name, description, schema, fn, read_only, tuple(fill_none))


def schema_text(schema: JSON) -> str:
    """Write a schema's type in a few words, as a signature shows it.

    Example: {"enum": ["low", "high"]} -> '"low" | "high"'; {"anyOf": [{"type": "integer"}, {"type": "number"}]}
    -> 'integer | number'; {"type": "string", "contentMediaType": "image/png", "contentEncoding": "base64"}
    -> 'string (image/png, base64)'
    """
    if not isinstance(schema, dict) or not schema:
        return "any"
    if "enum" in schema:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if "anyOf" in schema or "oneOf" in schema:
        return " | ".join(schema_text(s) for s in schema.get("anyOf", schema.get("oneOf")))
    kinds = schema.get("type") if isinstance(schema.get("type"), list) else [schema.get("type", "any")]
    items = f"array of {schema_text(schema['items'])}" if isinstance(schema.get("items"), dict) else "array"
    text = " | ".join(items if kind == "array" else str(kind) for kind in kinds)
    media = [schema[k] for k in ("contentMediaType", "contentEncoding") if k in schema]  # 2020-12 §8: what a string holds
    return text + (f" ({', '.join(media)})" if media else "")


def output_schema(tool: Tool) -> dict:
    """Return the schema of what a tool returns: its output_schema, else one read off the function's return hint."""
    if tool.output_schema is not None:
        return tool.output_schema
    fn = tool.fn
    while isinstance(fn, functools.partial):  # a tool bound to its database (context=...): the function's own hint
        fn = fn.func
    hint = typing.get_type_hints(fn if inspect.isroutine(fn) else fn.__call__).get("return")
    return {} if hint is None else schema_for_type(hint)


def tool_signature(tool: Tool) -> str:
    """Write a tool's outer shape from its schemas: name(typed inputs) -> typed output ('?' marks an optional input).

    Example: create_ticket -> 'create_ticket(substation_id: string, summary: string, priority?: "low" | "normal"
    | "high") -> object'
    """
    properties = tool.parameters.get("properties", {})
    required = tool.parameters.get("required", [])
    inputs = ", ".join(f"{name}{'' if name in required else '?'}: {schema_text(sub)}" for name, sub in properties.items())
    return f"{tool.name}({inputs}) -> {schema_text(output_schema(tool))}"


# ---------------------------------------------------------------------------------------------
# --- 5. The registry: exists -> is an object -> matches the schema -> execute ---
# ---------------------------------------------------------------------------------------------

class ToolRegistry:
    """The tools a harness offers, and the one place where a model's call is checked and run."""

    def __init__(self, tools: typing.Iterable[Tool] = ()):
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> Tool:
        """Add a tool; a second tool with the same name is a programmer's mistake."""
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return tool

    def tool(self, fn: Callable | None = None, *, name: str | None = None, description: str | None = None,
             read_only: bool = False):
        """Decorator: register a function as a tool (usable bare or with keyword options)."""
        def wrap(f: Callable) -> Callable:
            self.register(tool_from_function(f, name=name, description=description, read_only=read_only))
            return f
        return wrap(fn) if fn is not None else wrap

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __repr__(self) -> str:
        """Say how many tools, and their names in the order the prompt lists them."""
        return f"{type(self).__name__}({len(self)} tools: {name_list(self._tools, 140)})"

    def _repr_markdown_(self) -> str:
        """Show the tools in a notebook: one row each, as the model sees them."""
        rows = [[t.name, parameter_list(t.parameters), "read-only" if t.read_only else "side effects", t.description]
                for t in self]
        return markdown_block(f"**{markdown_cell(type(self).__name__)}**: {len(self)} tools",
                              markdown_table(["tool", "parameters (? = optional)", "kind", "description"], rows))

    def get(self, name: object) -> Tool | None:
        """Return the tool with this name, or None."""
        return self._tools.get(name) if isinstance(name, str) else None

    def names(self) -> list[str]:
        """Return the tool names, sorted."""
        return sorted(self._tools)

    def call(self, name: object, arguments: object) -> ToolResult:
        """Check and run one call; every failure comes back as a ToolResult, never an exception."""
        tool = self.get(name)
        if tool is None:
            return ToolResult(False, error_kind="unknown_tool", message=self.unknown_tool_message(name))
        if not isinstance(arguments, dict):
            return ToolResult(False, error_kind="invalid_arguments",
                              message=_not_an_object_message(tool.name, arguments))
        try:
            errors = validate(tool.parameters, arguments)
        except Exception as exc:  # the tool's own schema is broken: not the model's fault
            return ToolResult(False, error_kind="execution_error",
                              message=f"{tool.name} has a broken schema ({exc}); this is a bug in the tool, not in your call")
        if errors:
            return ToolResult(False, error_kind="invalid_arguments", message=(
                f"invalid arguments for {tool.name}: " + "; ".join(errors)
                + f". Nothing was executed. Fix the arguments and call {tool.name} again."))
        return _execute(tool, as_schema_types(tool.parameters, arguments) if _says_integer(tool.parameters) else arguments)

    def unknown_tool_message(self, name: object) -> str:
        """Say that a tool does not exist, list the real ones and the closest name."""
        shown = show(name)
        available = self.names()
        close = difflib.get_close_matches(name, available, n=1, cutoff=0.6) if isinstance(name, str) else []
        hint = (f" Did you mean {close[0]!r}? Call it only if it does what you need." if close
                else " No listed tool has a similar name.")
        return (f"unknown tool {shown}. Available tools: {', '.join(available) or '(none)'}.{hint} "
                "If no tool fits the request, answer the user directly instead of calling a tool.")


def _says_integer(schema: JSON) -> bool:
    """Say whether a schema says "integer" anywhere: only then can a 5.0 need to become 5 (as_schema_types)."""
    return '"integer"' in json.dumps(schema, default=str)


def _not_an_object_message(name: str, arguments: object) -> str:
    hint = ""
    if isinstance(arguments, str):
        try:
            if isinstance(json.loads(arguments), dict):
                hint = f" You sent the object encoded as a string; write the object itself: {arguments}"
        except ValueError:
            pass
    return f"arguments for {name} must be a JSON object, got {describe(arguments)}.{hint}"


def _execute(tool: Tool, arguments: dict) -> ToolResult:
    try:
        return ToolResult(True, content=tool.fn(**({n: None for n in tool.fill_none} | arguments)))
    except Exception as exc:  # any failure inside the tool is data for the model, not a crash
        retry = is_retryable(exc)
        advice = ("This is temporary: the same call may succeed if retried." if retry else
                  "Retrying the same call will fail the same way: change the arguments, try another tool, or tell the user.")
        return ToolResult(False, error_kind="execution_error", retryable=retry,
                          message=f"{tool.name} failed: {type(exc).__name__}: {exc}. {advice}")


# ---------------------------------------------------------------------------------------------
# --- 6. The text protocol: the prompt, the results, the naive parser (6a: the robust one; 6b: its edge cases) ---
# ---------------------------------------------------------------------------------------------

OPEN, CLOSE = "<tool_call>", "</tool_call>"
STOP_SEQUENCES = ["<tool_result"]  # a real model is stopped here so it cannot invent results
MAX_JSON_DEPTH = 64
PARSE_ERROR_KINDS = ("truncated", "invalid_json", "not_an_object", "bad_name", "bad_arguments")

CALL_FORMAT = '<tool_call>{"name": "<tool name>", "arguments": {<arguments as a JSON object>}}</tool_call>'


def tool_choice_rule(tool_choice: str) -> str:
    """Return the prompt line that asks for a tool_choice ('' for auto). Example: 'none' -> 'This turn you must not call any tool: ...'"""
    rules = {"auto": "", "required": "This turn you must call at least one tool.",
             "none": "This turn you must not call any tool: answer in plain text."}
    return rules.get(tool_choice, f"This turn you must call the tool {tool_choice!r}.")


def render_tool_prompt(tools: typing.Iterable[Tool], tool_choice: str = "auto") -> str:
    """Write the system prompt's tools block, the call format and the rules of the protocol."""
    lines = ["You can use the tools listed below. Each is one JSON object with its name, description",
             "and a JSON Schema for its arguments.", "<tools>"]
    lines += [json.dumps(t.spec(), ensure_ascii=False) for t in tools]
    lines += ["</tools>", "", "To call a tool, write exactly:", CALL_FORMAT, "",
              "Rules:",
              "1. You may write several calls in one reply when none needs another's result; they may run in parallel.",
              "2. After your last call, stop and wait: each result comes back in a <tool_result> block tagged with the call's id.",
              "3. Call only the tools listed above, with their exact names and arguments. Never invent a tool.",
              "4. If no tool fits the request, answer directly in plain text, with no <tool_call>.",
              "5. If a result is an error, read it: fix the call, or tell the user what went wrong."]
    return "\n".join(lines + ([tool_choice_rule(tool_choice)] if tool_choice != "auto" else []))


@dataclass
class ToolCall:
    """One call the model wrote: the tool's name, its arguments, an id, and where it stood."""

    name: str
    arguments: dict
    id: str = ""
    span: tuple[int, int] = (0, 0)


@dataclass
class ParseError:
    """A <tool_call> that could not be read, with its kind and a message written for the model."""

    kind: str  # one of PARSE_ERROR_KINDS
    message: str
    span: tuple[int, int] = (0, 0)
    raw: str = ""  # the text of the broken call, so nothing the model wrote is lost
    id: str = ""


@dataclass
class ParseResult:
    """What parse_tool_calls found: calls and errors in text order, and the text outside them."""

    calls: list[ToolCall] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)  # the pieces of text before, between, after

    @property
    def text(self) -> str:
        """Return the prose outside the calls, joined."""
        return "".join(self.outside).strip()

    @property
    def items(self) -> list[ToolCall | ParseError]:
        """Return calls and errors together in the order they stand in the text."""
        return sorted(self.calls + self.errors, key=lambda item: item.span)

    def _repr_markdown_(self) -> str:
        """Show what the parser found in a notebook: one row per call or broken call, then the prose."""
        rows = [["call", i.name, json.dumps(i.arguments, ensure_ascii=False), i.span] if isinstance(i, ToolCall)
                else [i.kind, "", i.message, i.span] for i in self.items]
        return markdown_block(markdown_table(["found", "name", "arguments or message", "span"], rows),
                              f"outside the calls: {markdown_cell(self.text) or '(nothing)'}")


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON (JSON has no NaN or Infinity)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999 would silently become Infinity
        raise ValueError(f"the number {text} is too large")
    return value


_READERS_DISAGREE = " (RFC 8259 leaves it to each reader: some keep the first, some the last, some refuse)"


def _unique_keys(pairs: list[tuple[str, JSON]]) -> dict:
    obj = dict(pairs)
    if len(obj) < len(pairs):  # json would keep the last of two equal keys: a guess, not a verdict
        keys = [k for k, _ in pairs]
        twice = next(k for i, k in enumerate(keys) if k in keys[:i])
        raise ValueError(f"the key {twice!r} appears twice in one object{_READERS_DISAGREE}")
    return obj


_STRICT_JSON = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float,
                                object_pairs_hook=_unique_keys)


def loads_strict(text: str) -> JSON:
    """Parse JSON as the robust parser does: no NaN or Infinity, no 1e999, no duplicate keys (ValueError)."""
    return _STRICT_JSON.decode(text)


def call_text(name: str, arguments: dict) -> str:
    """Write one call in the text protocol. Example: ('f', {}) -> '<tool_call>{"name": "f", "arguments": {}}</tool_call>'"""
    return f"{OPEN}{json.dumps({'name': name, 'arguments': arguments}, ensure_ascii=False)}{CLOSE}"


_ESCAPE_CLOSE = re.compile(r"<(\\*)/tool_result>")  # "</tool_result>" -> "<\/tool_result>", one more "\" each
_UNESCAPE_CLOSE = re.compile(r"<\\(\\*)/tool_result>")


def render_tool_results(results: typing.Iterable[tuple[ToolCall | ParseError, ToolResult]]) -> str:
    """Write results back as <tool_result> blocks, in call order, tagged with each call's id and name.

    Example: (ToolCall('calculate', {...}, id='call_1'), ToolResult(True, 15541316)) ->
             '<tool_result name="calculate" id="call_1">15541316</tool_result>'
    """
    blocks = []
    for call, result in results:
        attrs = [f'name="{html.escape(call.name)}"'] if isinstance(call, ToolCall) else []
        attrs.append(f'id="{html.escape(call.id)}"')
        if not result.ok:
            attrs.append(f'error="{html.escape(result.error_kind or "error")}"')
        body = _ESCAPE_CLOSE.sub(r"<\\\1/tool_result>", result.text)  # a result cannot close its own block
        blocks.append(f"<tool_result {' '.join(attrs)}>{body}</tool_result>")
    return "\n".join(blocks)


_RESULT = re.compile(r"<tool_result((?:\s+\w+=\"[^\"]*\")*)>(.*?)</tool_result>", re.DOTALL)
_RESULT_CLOSE = "</tool_result>"


def parse_tool_results(text: str) -> list[dict]:
    """Read <tool_result> blocks back: a dict per block with its attributes and 'content'.

    Example: '<tool_result name="f" id="call_1">5</tool_result>' -> [{'name': 'f', 'id': 'call_1', 'content': '5'}]
    """
    found, pos, close = [], 0, -1
    while (start := text.find("<tool_result", pos)) >= 0:
        if close < start:  # subtle: a block ends at the first close tag after it; with none left, none can
            close = text.find(_RESULT_CLOSE, start)  # (a regex scan per opening tag would be quadratic)
            if close < 0:
                break
        match = _RESULT.match(text, start, close + len(_RESULT_CLOSE))
        if match is None:
            pos = start + 1
            continue
        attrs = {k: html.unescape(v) for k, v in re.findall(r"(\w+)=\"([^\"]*)\"", match.group(1))}
        found.append(attrs | {"content": _UNESCAPE_CLOSE.sub(r"<\1/tool_result>", match.group(2))})
        pos = match.end()
    return found


# The naive parser, as it is usually written; 6a below is the robust one the lecture builds.

_NAIVE = re.compile(r"<tool_call>(.*?)</tool_call>")  # as usually written: no re.DOTALL


def parse_tool_calls_regex(text: str) -> list[ToolCall]:
    """The naive baseline: paired tags by regex, then json.loads; failures vanish silently.

    Kept to show how it fails (scripts/03 demo 2): it has no error channel, so a truncated or
    malformed call looks exactly like "no call"; a tag inside a string cuts the JSON short; and
    like most hand-written versions it forgets re.DOTALL, so a call written over several lines
    is not seen at all.
    """
    calls = []
    for match in _NAIVE.finditer(text):
        try:
            obj = json.loads(match.group(1))
        except (ValueError, RecursionError):
            continue  # the flaw on display: a broken call disappears without a trace
        if isinstance(obj, dict):
            calls.append(ToolCall(obj.get("name"), obj.get("arguments", {}), span=match.span()))
    return calls


# --- 6a. The robust parser as the lecture tells it: find the tag, decode, expect the close, check the shape ---
#
# One forward pass over the reply. Each <tool_call> opens a call whose region runs to the next
# <tool_call>. json.JSONDecoder.raw_decode reads the call's JSON in that region, so JSON's own
# grammar says where it ends and a tag or a brace inside a string cannot cut it short; then
# </tool_call> must follow, and the value must be {"name": "...", "arguments": {...}}.
# Every tag yields one ToolCall or one ParseError, of a kind in PARSE_ERROR_KINDS:
#   truncated      the region ends inside the call: the reply was cut off, or the next call opens
#   invalid_json   the JSON does not decode (nothing is repaired), or more follows it before </tool_call>
#   not_an_object, bad_name, bad_arguments    it decodes, but is not a call (_shape_error says why)
# The core calls the guards of part 6b by name (E1 ... E8) where a real reply needs one.

def parse_tool_calls(text: str) -> ParseResult:
    """Find every <tool_call> in a reply: one ToolCall or one ParseError per opening tag.

    Nothing is repaired: single quotes, trailing commas, comments and duplicate keys are invalid_json.
    Never raises; `pos` only moves forward, and time grows linearly with the text, broken or not.
    Example: 'Hi <tool_call>{"name": "f", "arguments": {}}</tool_call>' -> calls [f({})], text 'Hi'
    """
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    result, pos, start = ParseResult(), 0, text.find(OPEN)
    while start >= 0:
        end = _next_open(text, start + len(OPEN))  # the call's region ends where the next call opens
        item = _read_call(text, start, end)
        result.outside.append(text[pos:start])
        (result.calls if type(item) is ToolCall else result.errors).append(item)
        pos = item.span[1]
        start = end if pos <= end < len(text) else text.find(OPEN, pos)  # past `end` if the call quoted tags (E1)
    result.outside.append(text[pos:])
    _drop_fence_wrappers(text, result.outside)  # E6: a ```json fence around the calls is not prose
    return result


def _read_call(text: str, start: int, end: int) -> ToolCall | ParseError:
    """Judge the call whose <tool_call> stands at `start`, in its region, which ends at `end`."""
    body = _body(text, start)  # where its JSON begins: after blanks (and an opening ```json, E6)
    if body == end or _fence_still_opening(text, body, end):
        return _error("truncated", f"{_cut_by(text, end)} right after <tool_call>: the call is missing. "
                      + _REWRITE, text, start, end)
    if text.startswith(CLOSE, body):
        return _error("invalid_json", "the call is empty. " + _REWRITE, text, start, body + len(CLOSE))
    decoded = _decode_window(text, body, end)  # raw_decode on the call's region
    if type(decoded) is tuple and text.startswith(CLOSE, decoded[1]):  # the usual call: {...}</tool_call>
        return _check_call(decoded[0], text, start, decoded[1] + len(CLOSE))
    if type(decoded) is _Broken and decoded.in_string:
        decoded = _read_on(text, body, decoded)  # E1: the string still open may quote the next tag
    return _cut_at_hidden_call(text, start, body, end, _verdict(text, start, body, end, decoded))  # E4


def _decode_window(text: str, body: int, stop: int) -> Decoded:
    """Decode text[body:stop] with raw_decode: (value, where the JSON ends) or _Broken; positions in the whole text."""
    # a slice, not raw_decode(text, body): the decoder cannot read past the region, and
    # subtle: JSONDecodeError counts the lines before the error; counted from the start of the
    # text, over a megabyte of broken calls, that would make parsing quadratic
    window = text[body:stop]
    try:
        value, length = _STRICT_JSON.raw_decode(window)
    except json.JSONDecodeError as exc:
        return _broken(window, body, stop, exc.msg, exc.pos)
    except (ValueError, RecursionError) as exc:  # NaN, 1e999, a duplicate key; E8: 5000 digits, deep nesting
        return _Broken(_refusal(exc), stop=stop)
    return value, body + length


def _verdict(text: str, start: int, body: int, end: int, decoded: Decoded) -> ToolCall | ParseError:
    """Judge a call from its decoded JSON; `end` is where its region ends."""
    if type(decoded) is tuple:
        return _closed_call(text, start, *decoded)
    return _broken_call(text, start, body, end, decoded)


def _closed_call(text: str, start: int, value: JSON, json_end: int) -> ToolCall | ParseError:
    """Judge a call whose JSON decoded: </tool_call> must follow, and the value must have the shape of a call."""
    after = _skip(_FENCE_CLOSE, text, json_end)  # blanks (and a closing ```, E6)
    if text.startswith(CLOSE, after):
        return _check_call(value, text, start, after + len(CLOSE))
    end = _next_open(text, after)  # the JSON may have quoted a <tool_call> (E1): look again past it
    close = text.find(CLOSE, after, end)
    if close >= 0:
        return _error("invalid_json", f"extra text after the JSON object, before </tool_call>: "
                      f"{show(text[json_end:close].strip(), 40)}. Put exactly one JSON object in each <tool_call>.",
                      text, start, close + len(CLOSE))
    return _error("truncated", f"the JSON is complete but {_cut_by(text, end)} before </tool_call>: the reply was "
                  f"probably cut off. Close every call with </tool_call>.", text, start, end)


def _broken_call(text: str, start: int, body: int, end: int, decoded: _Broken) -> ParseError:
    """Judge a call whose JSON does not decode: truncated if only the region's end stopped it, else invalid_json."""
    quoted = _quoted_tag_end(text, end, decoded)  # E3: the tag at `end` may be text in one of its strings
    if quoted >= 0:
        end = quoted
    elif decoded.at >= 0 and decoded.cut_short:
        return _error("truncated", f"{_cut_by(text, end)} inside the JSON: the call was cut off. " + _SHORTER,
                      text, start, end)
    at = decoded.at if 0 <= decoded.at < end else body
    where = f" at {_where(text, body, decoded.at)}" if decoded.at >= 0 else ""
    verdict = "ambiguous JSON" if decoded.message.endswith(_READERS_DISAGREE) else "not valid JSON"
    return _error("invalid_json", f"{verdict}: {decoded.message}{where}. " + _REWRITE,
                  text, start, _block_end(text, at, end))


def _check_call(value: JSON, text: str, start: int, end: int) -> ToolCall | ParseError:
    """Turn decoded JSON into a ToolCall, or say precisely what is wrong with its shape."""
    if _too_deep(value, text, start, end):  # E7
        return _error("invalid_json", f"the call is nested more than {MAX_JSON_DEPTH} levels deep. " + _REWRITE,
                      text, start, end)
    if type(value) is dict:  # json.loads makes exact dicts and strs
        name, arguments = value.get("name"), value.get("arguments")
        if type(name) is str and type(arguments) is dict and name.strip():
            return ToolCall(name, arguments, "", (start, end))  # the usual call
    return _shape_error(value, text, start, end)


# The core's helpers: what the decoder said, and the messages of the kinds.

@dataclass(slots=True)
class _Broken:
    """Why a call's JSON did not decode, and how far the decoder got."""

    message: str           # the decoder's complaint: "Expecting ',' delimiter", "NaN is not valid JSON ..."
    at: int = -1           # where it complained (-1: no position, e.g. a duplicate key or deep nesting)
    stop: int = 0          # where the text the decoder saw ended
    cut_short: bool = False  # only the end of that text stopped it: the call was cut off there
    in_string: bool = False  # ... inside a string, which may run on through the tag found there (E1)


Decoded = tuple | _Broken  # (value, where the JSON ends) or why it does not decode


def _broken(window: str, body: int, stop: int, message: str, pos: int) -> _Broken:
    """Record the decoder's complaint about text[body:stop] (`window`) at window[pos]."""
    cut_short = _cut_short(window, message, pos)
    # json's messages that end in "at" expect its own position after them; _broken_call adds " at character N"
    return _Broken(message.removesuffix(" at"), body + pos, stop, cut_short, _in_string(message, cut_short))


def _cut_short(fragment: str, message: str, pos: int) -> bool:
    """Say whether the decoder failed at fragment[pos] only because the fragment ended: some continuation is valid JSON.

    Example: ('{"code": "E-14', 'Unterminated string starting at', 9) -> True; ("{'code': 1}", ..., 1) -> False
    """
    rest = fragment[pos:].rstrip()
    if message.startswith("Unterminated string"):
        return True  # the string runs to the end of the fragment
    return rest == "" or _cut_mid_token(rest, message)  # nothing left, or a token cut mid-word (E5)


def _shape_error(value: JSON, text: str, start: int, end: int) -> ParseError:
    """Say precisely what is wrong with the shape of a call whose JSON decoded but is not a call."""
    if not isinstance(value, dict):
        return _error("not_an_object", f"a call must be a JSON object, got {describe(value)}. " + _REWRITE,
                      text, start, end)
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        got = "no \"name\"" if "name" not in value else f"\"name\": {show(name)}"
        return _error("bad_name", f"the call has {got}; \"name\" must be the name of a listed tool, as a string.",
                      text, start, end)
    if "arguments" not in value:
        if "parameters" in value:
            return _error("bad_arguments", f"use \"arguments\", not \"parameters\": "
                          f'{{"name": {show(name)}, "arguments": {show(value["parameters"], 200)}}}', text, start, end)
        return _error("bad_arguments", f"the call to {name} has no \"arguments\"; write \"arguments\": {{}} "
                      "when the tool takes none.", text, start, end)
    arguments = value["arguments"]
    if isinstance(arguments, str):
        return _error("bad_arguments", f"\"arguments\" of {name} is a string; write the JSON object itself, "
                      f"not encoded as a string: \"arguments\": {{...}}, not \"arguments\": \"{{...}}\".", text, start, end)
    return _error("bad_arguments", f"\"arguments\" of {name} must be a JSON object, got {describe(arguments)}.",
                  text, start, end)


def _error(kind: str, message: str, text: str, start: int, end: int) -> ParseError:
    return ParseError(kind, message, (start, end), text[start:end])


_REWRITE = "Write each call as " + CALL_FORMAT
_SHORTER = "Write the call again, complete, and keep it shorter if you were near the length limit."


def _cut_by(text: str, end: int) -> str:
    return "the next <tool_call> opens" if end < len(text) else "the text ends"


def _where(text: str, body: int, pos: int) -> str:
    return f"character {pos - body} of the call, near {show(text[max(body, pos - 12):pos + 12], 40)}"


def _next_open(text: str, frm: int) -> int:
    """Return where the next <tool_call> at or after `frm` opens, or the end of the text."""
    found = text.find(OPEN, frm)
    return found if found >= 0 else len(text)


def _block_end(text: str, frm: int, region_end: int) -> int:
    """Return where a broken call ends: just after its </tool_call>, or where its region ends."""
    close = text.find(CLOSE, frm, region_end)
    return close + len(CLOSE) if close >= 0 else region_end


# --- 6b. The parser's edge cases: each guard, the failure it prevents, the test row that shows it ---
#
# The core above is the idea; the guards below keep it right on what models and fuzzers write.
# The core calls each by name; its docstring says what goes wrong without it and names the rows of
# tests/test_tool_core_parser.py (the edge-case part of TABLE, or a class) that show it. Together they keep:
#   - a call's item ends inside its region, unless one of its strings quotes the tag that ends the
#     region ({"s": "<tool_call>"}): then the item covers that tag and the scan goes on past it (E1-E3);
#   - a broken call never hides a good one: a <tool_call> inside its span that opens a complete,
#     valid, closed call is reported as that call, and the broken one ends where it opens (E4);
#   - the work stays linear in the text, broken or not (E1's doubling, E6's patterns; scripts/benchmark.py).

def _decode(text: str, body: int, end: int) -> Decoded:
    """E1. Decode a call's JSON in its region text[body:end], and on past it if a string is open there (as _read_call).

    Outside strings JSON has no "<", so only a string still open where the region ends can run on
    through the next <tool_call>; only then does the decoder need more text (_read_on).
    """
    decoded = _decode_window(text, body, end)
    return _read_on(text, body, decoded) if type(decoded) is _Broken and decoded.in_string else decoded


def _read_on(text: str, body: int, region: _Broken) -> Decoded:
    """E1. Decode on past the region whose decoding (`region`) stopped inside a string.

    Prevents: a string quoting a tag, {"s": "a <tool_call> b"}, cut where the region ends: the call
    lost as truncated, and a second broken call read at the quoted tag. Rows: "open tag in a string",
    "whole call in a string". The window grows to the next tag past twice its length, until the
    verdict no longer depends on where the window ends: doubling keeps the work linear, where
    growing it one tag at a time would be quadratic (benchmark.py times a megabyte of unclosed strings).
    """
    decoded = region
    while type(decoded) is _Broken and decoded.in_string and decoded.stop < len(text):
        decoded = _decode_window(text, body, _next_open(text, body + 2 * (decoded.stop - body)))
    if type(decoded) is _Broken:
        decoded.cut_short = region.cut_short  # the verdicts ask whether the region alone was cut short
    return decoded


def _in_string(message: str, cut_short: bool) -> bool:
    """E2. Say whether the decoder stopped inside a string that runs to the end of the text it saw.

    Prevents: json words a string cut right after a \\uXXXX escape "Invalid \\uXXXX escape", not
    "Unterminated string" (it wants the four digits and one more character). Read as a broken
    escape, {"s": "\\u00e9<tool_call>"} stopped at the quoted tag and lost its call (issue 21).
    Rows: "a \\u escape right before a quoted tag"; the class EscapesBesideAQuotedTag.
    """
    return message.startswith("Unterminated string") or (cut_short and message.startswith("Invalid \\uXXXX"))


def _quoted_tag_end(text: str, end: int, decoded: _Broken) -> int:
    """E3. Return where a broken call ends if the tag at `end` is text in one of its strings; else -1.

    The decoder read on past the tag (E1) and failed later. The tag is quoted when the call closes (a
    </tool_call> follows where the decoder stopped, before any later tag) and the tag opens no good
    call of its own; the call then ends at the first tag after where the decoder stopped.
    Prevents: {"name": "f", "arguments": {"s": "<tool_call>"}, } read as a cut-off call plus a second
    broken call at the quoted tag. Rows: "a tag quoted in a broken call", "a tag quoted in a call with
    NaN"; while a cut-off call followed by a fresh one keeps two verdicts: "a cut call, then a cut call".
    """
    stopped = decoded.at if decoded.at >= 0 else end + len(OPEN)
    past_tag = decoded.stop > end and (decoded.at < 0 or decoded.at > end)
    if past_tag and _closes(text, stopped) and _good_call(text, end) is None:
        return _next_open(text, stopped)
    return -1


def _closes(text: str, frm: int) -> bool:
    """Say whether a </tool_call> follows `frm` before any further <tool_call>."""
    return text.find(CLOSE, frm, _next_open(text, frm)) >= 0


def _cut_at_hidden_call(text: str, start: int, body: int, end: int,
                        item: ToolCall | ParseError) -> ToolCall | ParseError:
    """E4. Cut a broken call whose span covers a later tag that opens a good call: it ends where that call opens.

    Prevents: a broken call swallowing a real one behind a tag that looked quoted (E3):
    '<tool_call>{"name": "ge<tool_call>' then a good call, the good call lost. Rows: "a good call
    hidden in a broken one"; section 5's RESCAN_CASES ("the issue's reply") and Rescan.test_random_replies.
    """
    if isinstance(item, ParseError) and item.span[1] > end:
        hidden = _first_good_call(text, end, item.span[1])
        if hidden >= 0:
            return _verdict(text, start, body, hidden, _decode_window(text, body, hidden))
    return item


def _good_call(text: str, start: int) -> ToolCall | None:
    """Return the call that the <tool_call> at `start` opens if it is complete, valid and closed; else None."""
    body = _body(text, start)
    decoded = _decode(text, body, _next_open(text, body))
    call = _closed_call(text, start, *decoded) if isinstance(decoded, tuple) else None
    return call if isinstance(call, ToolCall) else None


def _first_good_call(text: str, frm: int, to: int) -> int:
    """Return where the first <tool_call> in text[frm:to] that opens a good call stands, or -1."""
    tag = text.find(OPEN, frm, to)
    while tag >= 0 and _good_call(text, tag) is None:
        tag = text.find(OPEN, tag + 1, to)
    return tag


_CUT_NUMBER = re.compile(r"-|\.|[eE][+-]?")
_CUT_ESCAPE = re.compile(r"u[0-9a-fA-F]{0,4}")


def _cut_mid_token(rest: str, message: str) -> bool:
    """E5. Say whether the decoder stopped at a token cut mid-word. Example: 'tru', '-', '1e+', 'u00e' -> True

    Prevents: json calls a literal, a number or a \\uXXXX escape cut off by the end of the text a
    syntax error ("Expecting value", "Invalid \\uXXXX escape"), so a call the model only failed to
    finish would be invalid_json. Rows: "ends in true", "ends in null", "ends in a number", "ends in
    an exponent", "ends in a minus", "ends in a \\u escape", "next call opens in a literal".
    """
    if message.startswith("Invalid \\uXXXX"):  # json reports it at the "u"; a final \uXXXX counts too
        return _CUT_ESCAPE.fullmatch(rest) is not None
    return "true".startswith(rest) or "false".startswith(rest) or "null".startswith(rest) \
        or _CUT_NUMBER.fullmatch(rest) is not None


_FENCE_OPEN = re.compile(r"\s*(?:```[A-Za-z0-9_-]*[ \t]*\r?\n)?\s*")
_FENCE_STARTED = re.compile(r"(?:`{1,3}[A-Za-z0-9_-]*[ \t\r]*)?")  # all that is left: a fence still opening
_FENCE_CLOSE = re.compile(r"\s*(?:```)?\s*")


def _body(text: str, start: int) -> int:
    """E6. Return where the JSON of the call whose tag stands at `start` begins: after blanks and an opening ```json.

    Prevents: models fence the JSON as code inside the tags; raw_decode would stop at the backtick
    (invalid_json). Rows: "json fence inside", "bare fence inside", "fence inside, CRLF lines".
    The closing fence is skipped by _closed_call with _FENCE_CLOSE ("fence inside, no outer newlines").
    """
    body = start + len(OPEN)
    return body if text.startswith("{", body) else _skip(_FENCE_OPEN, text, body)


def _skip(fence: re.Pattern, text: str, pos: int) -> int:
    """Return where text goes on after the blanks and fence that `fence` matches at pos (most often: none)."""
    head = text[pos:pos + 1]  # only a blank or a backtick can begin what the fence patterns match
    return fence.match(text, pos).end() if head.isspace() or head == "`" else pos


def _fence_still_opening(text: str, body: int, end: int) -> bool:
    """E6. Say whether all that stands in the region after the tag is a fence still opening, as in '```js'.

    Prevents: a reply cut off inside the opening fence read as invalid_json ("Expecting value" at the
    backtick) instead of truncated. Row: "ends in the inner fence".
    """
    return text.startswith("`", body) and _FENCE_STARTED.fullmatch(text, body, end) is not None


# prose that ends by opening a fence; subtle: one run of blanks (\s*), not "[ \t]*\n?\s*", which
# matches the same texts but backtracks quadratically through a long run of spaces
_FENCE_AT_END = re.compile(r"```[A-Za-z0-9_-]*\s*$")
_FENCE_AT_START = re.compile(r"\s*```")  # prose that starts by closing one


def _drop_fence_wrappers(text: str, pieces: list[str]) -> None:
    """E6. Remove a ```json fence that wraps calls from the surrounding prose (a wrapper, not text).

    Prevents: result.text keeping the "```json" and "```" of calls a model fenced as code. Rows:
    "json fence around", "fence around two calls", whose prose OutsideText checks (a fence around
    prose is kept); LongRuns (a fence opener, then a long run of blanks: once quadratic).
    """
    # subtle: '"```" in text' alone costs ~1 ms per MB of prose (str's search filter takes "`" for a
    # space: 96 and 32 share their low 6 bits); '"`" in text' is a memchr, and most replies have no "`".
    if "`" not in text or "```" not in text:
        return
    for i in range(len(pieces) - 1):
        opener = _FENCE_AT_END.search(pieces[i]) if "```" in pieces[i] else None
        if opener and (_FENCE_AT_START.match(pieces[i + 1]) or i + 1 < len(pieces) - 1):
            j = i + 1
            while j < len(pieces) - 1 and not _FENCE_AT_START.match(pieces[j]) and not pieces[j].strip():
                j += 1  # the fence may wrap several calls in a row, with only blank text between them
            if _FENCE_AT_START.match(pieces[j]):
                pieces[i] = pieces[i][: opener.start()]
                pieces[j] = _FENCE_AT_START.sub("", pieces[j], count=1)


def _too_deep(value: JSON, text: str, start: int, end: int) -> bool:
    """E7. Say whether a decoded call nests arrays and objects more than MAX_JSON_DEPTH levels deep.

    Prevents: arguments nested hundreds of levels deep (json decodes almost to the recursion limit)
    reaching the tools, whose own recursive code could then fail with RecursionError. RFC 8259
    section 9 lets a parser limit the depth, and no tool needs 64 levels. Rows: "arguments 70 levels
    deep" (64 is still a call); NeverRaises.test_every_nesting_depth.
    """
    brackets = text.count("{", start, end) + text.count("[", start, end)  # a cheap bound on the depth
    return brackets > MAX_JSON_DEPTH and _deeper_than(value, MAX_JSON_DEPTH)


def _deeper_than(value: JSON, limit: int) -> bool:
    """Say whether arrays and objects nest more than `limit` levels deep in a value, without recursion; depth first,
    so a deep value is known after `limit` steps. Example: _deeper_than({"a": [1]}, 1) -> True ({"a": [1]} is 2 deep)"""
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        node, level = stack.pop()
        if level > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _refusal(exc: Exception) -> str:
    """E8. Word, for the model, a refusal of the strict decoder that is not a syntax error.

    Prevents: nesting past the recursion limit escaping as RecursionError ("100000 nested ["), and
    Python's wording of its digit limit ("Exceeds the limit (4300 digits) for integer string
    conversion", a Python setting the model cannot know) reaching the model ("a 5000-digit number").
    NaN, Infinity, 1e999 and repeated keys come worded by loads_strict's hooks ("NaN", "duplicate name").
    Messages.test_messages_say_what_is_wrong checks the words.
    """
    reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
    if "int_max_str_digits" in reason or "Exceeds the limit" in reason:
        reason = "a number has more digits than JSON numbers here may have"
    return reason


# --- 6c. Streamed replies: parse_tool_calls' verdicts, chunk by chunk (StreamParser) ---
#
# A streamed reply arrives in chunks. StreamParser.feed reports a call as soon as the verdict of
# parse_tool_calls on the whole reply is certain, whatever text is still to come, and close() reports
# what only the end of the reply decides. Together they give exactly parse_tool_calls(reply).items
# (equal dataclasses, spans counted in the whole reply), and .text its .text.
# The idea: the verdict on a <tool_call> reads only the text from that tag on. So the parser keeps the
# text after the last item it reported, judges its first call with 6a's own _read_call when a tag arrives,
# and reports the verdict when _settled shows that no text still to come can change it:
#   A  the next <tool_call> has arrived, and no string of the call is open there: 6a reads nothing past it;
#   B  the JSON has decoded and a </tool_call> has arrived after it: the usual call, reported at its close;
#   C  the JSON fails for good (not just because the text so far ends) and a </tool_call> follows the failure;
#   D  a string is open where the next tag opens (E1): reading on finds a good call closed after it, or a
#      failure no later text can move, with every tag it passes settled (E3, E4: each opens a call or not).
# The rest waits for more text. It must: the verdict on a call can depend on text after its own close.
# In '<tool_call>{"s": "a<tool_call>{"name": "g", "arguments": {"u": "</tool_call>' the first call is
# cut off (truncated) if the second one ends well ('"}}</tool_call>' later), but its string quotes the
# second tag and runs to that </tool_call> (invalid_json, one item) if the reply ends there (E3, E4).
# What waits for close(): a call the end of the reply cuts off, and a broken call whose string quotes a
# later tag whose own call runs on to the end (6b's "a tag quoted in a broken call"), with the items after it.
# Linear: a chunk is searched once for tags (both end in "tool_call>"); a call is judged again only when a
# tag has arrived past its <tool_call> (and a '"' too, if its string ran on to the end of the text: one long
# argument that quotes </tool_call> a thousand times costs one look), and the looks at one call read at most
# about BUDGET times its length: a call with many strings that each quote </tool_call> may come after its
# close (at the latest, at close()). scripts/benchmark.py feeds 1 MB one character at a time.
# subtle: within a few levels of the recursion limit (JSON nested about 990 deep), json's decoder succeeds or
# runs out of stack depending on how deep its caller already is, so parse_tool_calls words such a call E7's
# way ("more than 64 levels") or E8's ("nested too deeply") by who calls it. StreamParser decodes a few
# frames deeper, so there the message may differ; the kind (invalid_json) and the span do not.

def _settled(text: str, start: int, probe: bool = False) -> ToolCall | ParseError | None:
    """Return parse_tool_calls' verdict on the call at `start` if no text after `text` can change it; else None."""
    end = _next_open(text, start + len(OPEN))
    body = _body(text, start)
    region = _decode_window(text, body, end)
    if end < len(text) and type(region) is _Broken and region.in_string:
        return _settled_reading_on(text, start, body, end, region, probe)  # D
    if end < len(text) or _closed_for_good(text, body, region):  # A; B, C
        return _read_call(text, start, end)
    return None


_NUMBER_CHARS = frozenset("0123456789.eE+-")


def _closed_for_good(text: str, body: int, region: Decoded) -> bool:
    """Rules B and C: say whether a call with no <tool_call> after it has closed, whatever text still comes."""
    if type(region) is tuple:  # B: more text cannot change a decoded value, nor the </tool_call> after it
        return text.find(CLOSE, region[1]) >= 0
    if region.in_string:  # a string runs to the end of the text so far, and may quote a </tool_call>
        return False
    if region.at >= 0:  # C: a syntax error (a token cut short has no tag after it); _where quotes 12 characters
        return text.find(CLOSE, region.at) >= 0  # past it, which the close tag holds
    # C, a refusal (NaN, 1e999, a duplicate key, deep nesting): no position, so a number the text ends in may
    # be the refused one, and read another way once it goes on ('1e999' -> '1e9999' is worded differently)
    return text.find(CLOSE, body) >= 0 and text[-1] not in _NUMBER_CHARS


def _settled_reading_on(text: str, start: int, body: int, end: int, region: _Broken,
                        probe: bool) -> ToolCall | ParseError | None:
    """Rule D: judge a call whose string is open where the next tag opens (E1), if the text so far settles it."""
    decoded = _read_on(text, body, region)
    if type(decoded) is tuple:  # a good call (closed, as rule B) that quotes the tag; a broken one meets E4
        item = _read_call(text, start, end)
        return item if type(item) is ToolCall else None
    if decoded.in_string or decoded.at < 0:
        return None
    if decoded.at >= end:  # it failed past the tag: the tag is text in its string (E3) unless it opens a call
        close, tag = text.find(CLOSE, decoded.at), text.find(OPEN, decoded.at)
        if close < 0 and tag < 0:
            return None  # _closes cannot tell yet (nor whether a token the text ends in is cut short)
        if close >= 0 and (tag < 0 or close < tag) and _good_call(text, end) is None \
                and (probe or not _tags_settled(text, end, close + len(CLOSE))):
            return None  # E3 makes the tag text in its string, E4 looks for a good call behind it: not known yet
    return _read_call(text, start, end)


def _string_runs_on(text: str, start: int) -> bool:
    """Say whether the call at `start` is in a JSON string that runs to the end of the text: no verdict before a '"'."""
    body = _body(text, start)
    decoded = _decode(text, body, _next_open(text, body))  # with E1's reading on
    return type(decoded) is _Broken and decoded.in_string and decoded.stop == len(text)


def _tags_settled(text: str, tag: int, to: int) -> bool:
    """E3, E4: say whether each tag in text[tag:to] surely opens a broken call, up to a good call if one comes."""
    while tag >= 0:
        item = _settled(text, tag, probe=True)  # a good call is what _good_call finds; one level deep, so linear
        if item is None or type(item) is ToolCall:
            return item is not None
        tag = text.find(OPEN, tag + 1, to)
    return True


class _Prose:
    """The prose outside a streamed reply's calls, written out once parse_tool_calls' .text is sure to hold it.

    What may still go is held back: blanks at either end (.text strips them), and a code fence around calls
    (E6, _drop_fence_wrappers): an opener ```lang that ends the prose before a call goes, with the closer
    ``` that starts the next prose that is not blank. The reply's pieces of prose come in order: add()
    extends the current one, cut() says a call follows it, end() that it was the last.
    """

    def __init__(self) -> None:
        self.out = io.StringIO()  # the prose as .text will have it
        self._blanks: list[str] = []  # blanks after it: written only if more prose follows
        self._opener = ""  # a fence opener that ended a piece before a call, and waits for a closer
        self._between: list[str] = []  # the blank pieces since that opener
        self._head: list[str] | None = None  # the current piece, while it may begin with that closer
        self._tail: list[str] = []  # the end of the current piece, while it may still become an opener
        self._tail_kind = ""  # how far the tail got in ```lang\s*: "", "ticks", "lang" or "blank"

    def add(self, text: str) -> None:
        """Extend the current piece of prose."""
        if self._head is not None:
            if not (text.strip() or self._head and self._head[-1].strip()):
                self._head.append(text)  # still blank: the piece that decides the opener has not begun
                return
            head = "".join(self._head) + text
            rest = head.lstrip()
            if "``".startswith(rest):
                self._head = [head]  # one or two backticks: a closer, or not yet
                return
            self._head = None
            text = rest[3:] if rest.startswith("```") else head
            self._settle_opener(rest.startswith("```"))
        self._extend(text)

    def cut(self) -> None:
        """End the current piece: a call follows it."""
        if self._head is not None:
            head, self._head = "".join(self._head), None
            if not head.strip():
                self._between.append(head)  # a blank piece between calls: the opener waits on
                self._head = []
                return
            self._settle_opener(False)  # the piece began with a backtick or two, not a closer
            self._extend(head)
        tail, self._tail, self._tail_kind = "".join(self._tail), [], ""
        opener = _FENCE_AT_END.search(tail) if "```" in tail else None
        if opener:
            self._write(tail[: opener.start()])
            self._opener, self._between, self._head = tail[opener.start():], [], []
        else:
            self._write(tail)

    def end(self) -> None:
        """End the prose: the current piece was the last."""
        if self._head is not None:
            head, self._head = "".join(self._head), None
            self._settle_opener(False)  # a closer must start a piece that is not blank
            self._extend(head)
        self._write("".join(self._tail))
        self._tail, self._blanks = [], []  # .text strips the blanks at the end

    def _settle_opener(self, closed: bool) -> None:
        """Write the waiting opener and the blank pieces after it; without the opener if a closer came."""
        self._write(("" if closed else self._opener) + "".join(self._between))
        self._opener, self._between = "", []

    def _extend(self, text: str) -> None:
        """Write text, holding back the end that may still become a fence opener."""
        if not self._tail_kind and "`" not in text:  # the commonest prose: no fence in sight
            self._write(text)
            return
        grows = _TAIL_GROWS.get(self._tail_kind)
        if grows and grows.fullmatch(text):  # subtle: a long tail is not searched again for every chunk
            self._tail.append(text)
            if self._tail_kind == "lang" and not _FENCE_LANG.fullmatch(text):
                self._tail_kind = "blank"
            return
        text = "".join(self._tail) + text
        held = _MAYBE_OPENER.search(text)
        at = held.start() if held else len(text)
        self._write(text[:at])
        self._tail = [text[at:]]
        self._tail_kind = "" if at == len(text) else "ticks" if text[at:] in ("`", "``") \
            else "lang" if _FENCE_LANG.fullmatch(text, at + 3) else "blank"

    def _write(self, text: str) -> None:
        """Write prose that stays, but hold back blanks at its end until more prose follows them."""
        core = text.rstrip()
        if not core:
            if self.out.tell():  # blanks before any prose are dropped: .text strips them
                self._blanks.append(text)
            return
        self.out.write("".join(self._blanks) + core if self.out.tell() else core.lstrip())
        self._blanks = [text[len(core):]]


_MAYBE_OPENER = re.compile(r"```[A-Za-z0-9_-]*\s*\Z|``?\Z")  # where a piece's end may become ```lang\s*
_FENCE_LANG = re.compile(r"[A-Za-z0-9_-]*")
_TAIL_GROWS = {"lang": re.compile(r"[A-Za-z0-9_-]*\s*"), "blank": re.compile(r"\s*")}


class StreamParser:
    """Parse a reply as it streams in: each item as soon as it is certain, all of them equal to parse_tool_calls'.

    feed(chunk) returns the calls and errors this chunk settled, in order; close() those the end of the reply
    settles (a call cut off: truncated, as in a whole reply). `text` is the prose so far, a prefix of what
    parse_tool_calls(reply).text will be; take_text() returns what was added since it was last called, for a
    UI that prints the prose as it comes. `scanned` counts the characters the attempts to judge a call read.
    Example: feed('Hi <tool_call>{"name": "f", "arguments": {}}</tool') -> []; feed('_call> bye') -> [f({})];
             close() -> []; text -> 'Hi  bye'
    """

    BUDGET = 4  # the looks at one undecided call read at most about this many times its length (linear time)

    def __init__(self) -> None:
        self._pending: list[str] = []  # the reply from _base on: the call being judged, or prose that may hold a tag
        self._base = 0  # where _pending starts in the reply
        self._size = 0  # characters received
        self._last = ""  # the last 9 received, to find a tag cut between two chunks
        self._judging = False  # _pending starts with a <tool_call> whose verdict is not certain yet
        self._tag_came = False  # a tag arrived after that <tool_call> since the last attempt
        self._quote_came = False  # a '"' arrived since then
        self._in_string = False  # the last attempt ended inside a string of the call: it needs a '"' to end
        self._spent = 0  # characters the attempts on that call read
        self._prose = _Prose()
        self._taken = 0
        self._closed = False
        self.scanned = 0

    def feed(self, chunk: str) -> list[ToolCall | ParseError]:
        """Take the next chunk of the reply; return the calls and errors it settled, in text order."""
        if self._closed:
            raise ValueError("feed() after close(): this reply has ended; use a new StreamParser for the next one")
        if not isinstance(chunk, str):
            hint = ": decode it first, e.g. chunk.decode('utf-8')" if isinstance(chunk, (bytes, bytearray)) else ""
            raise TypeError(f"feed() takes the next chunk of the reply as a str, got {type(chunk).__name__}{hint}")
        if self._judging:
            self._tag_came = self._tag_came or self._tag_arrives(chunk)
            self._quote_came = self._quote_came or '"' in chunk
        self._last = (self._last + chunk)[-(len(CLOSE) - 3):]
        self._size += len(chunk)
        if not self._pending and "<" not in chunk:  # prose, and no tag begun: the commonest chunk, straight through
            self._prose.add(chunk)
            self._base = self._size
            return []
        self._pending.append(chunk)
        if self._judging and not self._worth_a_look():
            return []
        return self._advance()

    def close(self) -> list[ToolCall | ParseError]:
        """End the reply: return the items only its end settles, as parse_tool_calls decides them."""
        if self._closed:
            raise ValueError("close() was already called for this reply")
        self._closed = True
        text, self._pending = "".join(self._pending), []
        self.scanned += len(text)
        items, pos = parse_tool_calls(text).items if text else [], 0  # the verdicts read only the text from here on
        for item in items:
            self._prose.add(text[pos:item.span[0]])
            self._prose.cut()
            pos = item.span[1]
        self._prose.add(text[pos:])
        self._prose.end()
        return [self._in_reply(item) for item in items]

    @property
    def text(self) -> str:
        """Return the prose outside the calls so far (at the end: parse_tool_calls(reply).text)."""
        return self._prose.out.getvalue()

    def take_text(self) -> str:
        """Return the prose added since the last take_text(): what a UI prints next."""
        out = self._prose.out
        out.seek(self._taken)
        new = out.read()  # and the position is at the end again, where the next prose is written
        self._taken += len(new)
        return new

    def _worth_a_look(self) -> bool:
        """Say whether the call being judged may be settled now, and the attempts on it so far leave room for one more.

        Rules A-D each need a tag to arrive after the call's <tool_call>; a call whose string ran on to the end of
        the text also needs a '"' (so a long argument that quotes </tool_call> many times costs one attempt, not one
        per quote); and the budget keeps the work linear where neither helps ({"a": "</tool_call>", "b": ...}).
        """
        return self._tag_came and (self._quote_came or not self._in_string) \
            and self._spent <= self.BUDGET * (self._size - self._base)

    def _tag_arrives(self, chunk: str) -> bool:
        """Say whether a tag ends in this chunk after the <tool_call> being judged (both tags end in 'tool_call>')."""
        seen, offset = self._last + chunk, self._size - len(self._last)
        at = seen.find("tool_call>")
        while at >= 0 and offset + at + len("tool_call>") <= self._base + len(OPEN):
            at = seen.find("tool_call>", at + 1)  # the call's own tag, cut between chunks
        return at >= 0

    def _advance(self) -> list[ToolCall | ParseError]:
        """Report every item the text so far settles; keep the rest for the next chunks."""
        text = "".join(self._pending)
        self.scanned += len(text)
        found, pos, start = [], 0, text.find(OPEN)
        while start >= 0:
            tag_after = text.find("tool_call>", start + 2) >= 0  # rules A-D each need a tag after the call's own
            if not tag_after or (item := _settled(text, start)) is None:
                break
            self._prose.add(text[pos:start])
            self._prose.cut()
            pos = item.span[1]
            found.append(self._in_reply(item))
            start = text.find(OPEN, pos)
        if start < 0:  # no call is being judged: keep only an end that may still become a <tool_call>
            start = text.rfind("<", max(pos, len(text) - len(OPEN) + 1))
            start = start if start >= 0 and OPEN.startswith(text[start:]) else len(text)
            self._judging = False
        else:
            self._in_string = tag_after and _string_runs_on(text, start)
            self._spent = (0 if found or not self._judging else self._spent) + 2 * (len(text) - start)
            self._judging, self._tag_came, self._quote_came = True, False, False
        self._prose.add(text[pos:start])
        self._pending, self._base = [text[start:]] if start < len(text) else [], self._base + start
        return found

    def _in_reply(self, item: ToolCall | ParseError) -> ToolCall | ParseError:
        """Count the span of a new item from the start of the reply, as parse_tool_calls counts it; return the item."""
        item.span = (item.span[0] + self._base, item.span[1] + self._base)
        return item


# ---------------------------------------------------------------------------------------------
# --- 7. The loop: ScriptedLM, tool_choice, run_agent, Transcript ---
# ---------------------------------------------------------------------------------------------

Message = dict  # {"role": "system" | "user" | "assistant" | "tool", "content": str} (native turns hold more: Turn)
LM = Callable[..., str]  # lm(messages, stop=[...]) -> reply text


class ModelError(Exception):
    """A turn the model could not give: its API refused the request or failed, or the reply broke off.

    run_agent ends the run on it with stop_reason "model_error" and the message (Transcript.error):
    an outcome of the trajectory, as a refusal is. stops_run=True is for what every later request would
    meet the same way (a wrong key, a spent budget, nobody listening): run_agent raises it instead.
    """

    def __init__(self, message: str, stops_run: bool = False):
        super().__init__(message)
        self.stops_run = stops_run


@dataclass
class Turn:
    """One assistant turn, as every model of the lab gives it: its text, its calls, why it stopped, what it cost.

    `calls` are ToolCalls (or ParseErrors for calls that could not be read), each with the id its results must
    carry (bfcl_lab's stand-in also takes (name, arguments) pairs from the policies that play its model). `raw` is the turn as the vendor sent it, sent back verbatim in the next request (thinking blocks
    included); `usage` holds the API's token counts, where it reports them.
    """

    text: str = ""
    calls: list = field(default_factory=list)
    stop_reason: str = "end_turn"  # end_turn | tool_use | max_tokens | refusal | ... (the vendor's word)
    usage: dict = field(default_factory=dict)  # {"input_tokens": n, "output_tokens": m}
    raw: Any = None
    stop_sequence: str | None = None  # the stop sequence the text ended at (stop_reason "stop_sequence")

    @property
    def refused(self) -> bool:
        """Say whether the model declined (Anthropic's stop_reason "refusal"; OpenAI's message.refusal)."""
        return self.stop_reason == "refusal"

    @property
    def cut(self) -> bool:
        """Say whether the turn was cut at max_tokens (Anthropic "max_tokens"; OpenAI "length")."""
        return self.stop_reason in ("max_tokens", "length")


class TextModel:
    """A model of the text protocol: lm(messages, stop) -> str (ScriptedLM, or a real API asked for text).

    The tools are in the system prompt; the model writes <tool_call> tags, which parse_tool_calls reads;
    it is stopped at <tool_result so that it cannot invent a result.
    """

    native = False

    def __init__(self, lm: LM):
        self.lm = lm

    def turn(self, messages: list[Message], tools: list[Tool] = (), tool_choice: str = "auto") -> Turn:
        """Ask for the next turn (tool_choice is already in the system prompt of a text-protocol request)."""
        reply = self.lm(messages, stop=STOP_SEQUENCES)
        if not isinstance(reply, str):  # a programmer's mistake in the model adapter, not the model's
            raise TypeError(f"the model must return a str, got {type(reply).__name__}")
        parsed = parse_tool_calls(reply)
        return Turn(parsed.text, parsed.items, "tool_use" if parsed.items else "end_turn", raw=reply)


class ScriptedModel:
    """A fake model of native tool calling: plays back Turns in order, or asks a function of the conversation.

    What it was shown is kept in `requests` (messages, tools, tool_choice). Calls without an id get one
    (toolu_1, ...), as an API assigns them.
    """

    native = True

    def __init__(self, turns: list[Turn] | Callable[[list[Message], list[Tool], str], Turn]):
        self.turns, self.requests, self.issued = turns, [], 0

    def turn(self, messages: list[Message], tools: list[Tool] = (), tool_choice: str = "auto") -> Turn:
        """Return the next scripted turn."""
        self.requests.append(([dict(m) for m in messages], list(tools), tool_choice))
        if callable(self.turns):
            turn = self.turns(messages, list(tools), tool_choice)
        elif len(self.requests) <= len(self.turns):
            turn = copy.deepcopy(self.turns[len(self.requests) - 1])
        else:
            raise ValueError(f"ScriptedModel has only {len(self.turns)} turns and was asked for another")
        for call in turn.calls:
            if not getattr(call, "id", ""):
                self.issued += 1
                call.id = f"toolu_{self.issued}"
        return turn


NATIVE_SYSTEM = "You are a helpful assistant. Use the tools you are given when one fits the request."


class ScriptedLM:
    """A fake model: plays back scripted replies in order, or asks a function of the conversation.

    Like a real API it honours stop sequences: a reply is cut where a stop string begins.
    """

    def __init__(self, replies: list[str] | Callable[[list[Message]], str]):
        self.replies = replies
        self.prompts: list[list[Message]] = []  # every conversation it was shown, for inspection

    def __call__(self, messages: list[Message], stop: list[str] | None = None) -> str:
        self.prompts.append([dict(m) for m in messages])
        if callable(self.replies):
            reply = self.replies(messages)
        elif len(self.prompts) <= len(self.replies):
            reply = self.replies[len(self.prompts) - 1]
        else:
            raise ValueError(f"ScriptedLM has only {len(self.replies)} replies and was asked for another")
        cuts = [reply.find(s) for s in stop or [] if s in reply]
        return reply[: min(cuts)] if cuts else reply


@dataclass
class CallRecord:
    """One executed (or refused) call in the loop's log."""

    id: str
    name: str | None
    arguments: JSON
    ok: bool
    error_kind: str | None
    seconds: float
    step: int
    batch: int  # calls with the same (step, batch) ran concurrently


@dataclass
class Transcript:
    """The conversation and the per-call log of one run_agent."""

    messages: list[Message] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)
    stop_reason: str = ""  # final_answer | max_steps | repeated_failure | refused | truncated | model_error
    final_answer: str | None = None
    error: str = ""  # what the API said, when stop_reason is model_error
    steps: int = 0
    usage: Counter = field(default_factory=Counter)  # the API's token counts, summed over the turns

    def add(self, role: str, content: str) -> None:
        """Append a message."""
        self.messages.append({"role": role, "content": content})

    def render(self, width: int = 96, system: bool = False) -> str:
        """Show the conversation as '[role ] text' lines (the system prompt only if asked); prose wraps at width."""
        lines = []
        for m in self.messages:
            if m["role"] == "system" and not system:
                continue
            label = {"assistant": "model"}.get(m["role"], m["role"])
            content = m["content"] or ""
            if m.get("calls"):  # a native turn: its calls are fields of the reply, not text
                content += "".join(f"\n<{getattr(c, 'id', '')}> " + (f"{c.name}({json.dumps(c.arguments, ensure_ascii=False)})"
                                   if isinstance(c, ToolCall) else f"unreadable call: {c.kind}") for c in m["calls"])
            for i, line in enumerate(content.strip("\n").splitlines() or [""]):
                # a call or result stays on one line: wrapping inside its JSON would misquote it
                pieces = [line] if "<tool_" in line else textwrap.wrap(line, width - 8) or [""]
                for j, piece in enumerate(pieces):
                    lines.append(f"[{label:<5}] {piece}" if i == j == 0 else f"        {piece}")
        lines.append(f"-- stop: {self.stop_reason} after {self.steps} model turn(s), {len(self.calls)} call(s)")
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        """Show the conversation in a notebook: a table of messages (tags escaped), then why it stopped."""
        rows = [[m["role"], (m["content"] or "") + "".join(f" [{c.name if isinstance(c, ToolCall) else c.kind}]"
                                                           for c in m.get("calls", ()))]
                for m in self.messages if m["role"] != "system"]
        return markdown_block(markdown_table(["role", "message"], rows), f"stop: {markdown_cell(self.stop_reason)} "
                              f"after {self.steps} model turn(s), {len(self.calls)} call(s)")

    def __repr__(self) -> str:
        """Say how long the conversation is and why it stopped (render() shows it)."""
        return (f"Transcript({len(self.messages)} messages, {len(self.calls)} calls, "
                f"stop: {self.stop_reason or '(running)'} after {self.steps} model turns)")


TOOL_CHOICES = ("auto", "required", "none")


def allowed_tools(tool_choice: str, registry: ToolRegistry) -> set[str]:
    """Return the tool names a reply may call under a tool_choice (auto/required/none/a name)."""
    if tool_choice in ("auto", "required"):
        return set(registry.names())
    return set() if tool_choice == "none" else {tool_choice}


def tool_choice_problem(tool_choice: str, items: list[ToolCall | ParseError]) -> str | None:
    """Say what a reply violates under tool_choice, or None when it complies (or only misformed a call).

    Vendors enforce tool_choice while decoding; a text protocol can only ask in the prompt and
    check the reply, then tell the model what was expected. A malformed call already gets its
    own error, so it is not reported twice.
    """
    if any(isinstance(i, ParseError) for i in items):
        return None
    names = [i.name for i in items]
    if tool_choice == "required" and not names:
        return "tool_choice is 'required': your reply must contain at least one <tool_call>."
    if tool_choice not in TOOL_CHOICES and tool_choice not in names:
        return f"tool_choice names {tool_choice!r}: your reply must call {tool_choice}."
    return None


def run_agent(lm: "LM | TextModel | ScriptedModel", registry: ToolRegistry, user: str, *, system: str | None = None,
              tool_choice: str = "auto", max_steps: int = 8, max_workers: int = 4,
              reset_tool_choice: bool = True, transcript: Transcript | None = None) -> Transcript:
    """Run the round trip until a final answer, the step limit, or the same failing call twice.

    Each model turn: parse the reply; a reply with no call is the final answer. Otherwise every
    call gets an id, is validated and executed by the registry (consecutive read-only calls
    concurrently, calls with side effects one by one in order), and all results of the turn go
    back in one message, in call order. Parse and tool errors go back as results too; a call
    that fails the same way in two turns ends the run. tool_choice (auto, required, none or a
    tool's name, as the vendors define them) is asked for in the system prompt of each request
    and checked on the reply; it applies until a call has succeeded, then resets to 'auto'
    (reset_tool_choice, as the OpenAI Agents SDK does) so a forced call cannot loop forever
    (a forced call that failed keeps the choice, so the model can correct it).
    transcript: continue a conversation: the user's next message is appended to it and the
    agent takes its next turn (a multi-turn dialogue is one run_agent per user message);
    max_steps then counts this turn's model calls, and call ids go on from the last one.
    lm: a text model (lm(messages, stop) -> str, or a TextModel) or a native one (model.turn(messages,
    tools, tool_choice) -> Turn, native = True: a backend of bfcl_lab, ScriptedModel). Natively the
    tools and tool_choice travel with each request, the calls keep the ids the model gave them, and
    the results go back as one "tool" message whose `results` the backend writes in its dialect.
    """
    if not isinstance(tool_choice, str) or (tool_choice not in TOOL_CHOICES and tool_choice not in registry):
        # subtle: checked for a str first: the dialects' {"name": ...} would crash the registry's lookup (unhashable)
        raise ValueError(f"tool_choice must be one of {TOOL_CHOICES} or the name of a tool in the registry "
                         f"({', '.join(registry.names()) or 'none'}), as a string; got {tool_choice!r}")
    model = lm if hasattr(lm, "turn") else TextModel(lm)
    native = getattr(model, "native", False)
    if transcript is None:
        t = Transcript()
        t.add("system", system if system is not None else NATIVE_SYSTEM if native else render_tool_prompt(registry))
    elif not transcript.messages or transcript.messages[0]["role"] != "system":
        raise ValueError("a transcript to continue must start with its system message")
    else:
        t = transcript
        t.stop_reason, t.final_answer = "", None
    t.add("user", user)
    failures: Counter = Counter()
    choice, next_id, turns = tool_choice, len(t.calls) + 1, 0
    while turns < max_steps:
        turns += 1
        t.steps += 1
        request = t.messages
        if choice != "auto" and not native:  # in the text protocol, tool_choice travels in the system prompt
            request = [{"role": "system", "content": f"{t.messages[0]['content']}\n{tool_choice_rule(choice)}"}] + t.messages[1:]
        try:
            turn = model.turn(request, list(registry), choice)
        except ModelError as exc:  # a failed request or a broken stream: the trajectory's outcome, said
            if exc.stops_run:
                raise
            t.stop_reason, t.error = "model_error", str(exc)
            return t
        t.usage.update(turn.usage)
        items = turn.calls
        if native:
            t.messages.append({"role": "assistant", "content": turn.text, "calls": items, "raw": turn.raw})
        else:
            t.add("assistant", turn.raw)
        for item in items:
            if not native or not getattr(item, "id", ""):  # a native call keeps the id its results must carry
                item.id, next_id = f"call_{next_id}", next_id + 1
        if turn.stop_reason in ("refusal", "max_tokens", "length") and not items:
            t.stop_reason = "refused" if turn.stop_reason == "refusal" else "truncated"
            t.final_answer = turn.text
            return t
        problem = tool_choice_problem(choice, items)
        if not items and not problem:
            t.stop_reason, t.final_answer = "final_answer", turn.text
            return t
        results = _run_turn(registry, items, allowed_tools(choice, registry), choice, t, max_workers)
        if items:
            t.add("tool", render_tool_results(zip(items, results)))
            if native:  # every call of the turn answered, by its id, in this one message
                t.messages[-1]["results"] = list(zip(items, results))
        if problem:
            t.add("user", f"[harness] {problem}")
        if reset_tool_choice and any(r.ok for r in results):
            choice = "auto"
        failures.update({_failure_key(item) for item, result in zip(items, results) if not result.ok})
        if failures and max(failures.values()) >= 2:  # the model saw this error and made the same call again
            t.stop_reason = "repeated_failure"
            return t
    t.stop_reason = "max_steps"
    return t


def _failure_key(item: ToolCall | ParseError) -> tuple:
    if isinstance(item, ParseError):
        return ("parse", item.kind, item.raw)
    return ("call", item.name, json.dumps(item.arguments, sort_keys=True, default=str))


def _run_turn(registry: ToolRegistry, items: list[ToolCall | ParseError], allowed: set[str], choice: str,
              transcript: Transcript, max_workers: int) -> list[ToolResult]:
    """Execute one turn's calls: read-only runs concurrently, side effects one by one, in order."""
    from concurrent.futures import ThreadPoolExecutor

    results: list[ToolResult | None] = [None] * len(items)
    records: list[CallRecord | None] = [None] * len(items)
    batch: list[int] = []
    batch_no = 0

    def run(i: int) -> None:
        item, began = items[i], time.perf_counter()
        result = results[i] = _one_result(registry, item, allowed, choice)
        call = item if isinstance(item, ToolCall) else None
        records[i] = CallRecord(item.id, call and call.name, call and call.arguments, result.ok,
                                result.error_kind, time.perf_counter() - began, transcript.steps, batch_no)

    def flush() -> None:
        nonlocal batch_no
        if len(batch) > 1:
            with ThreadPoolExecutor(max_workers=min(max_workers, len(batch))) as pool:
                list(pool.map(run, batch))
        elif batch:
            run(batch[0])
        batch.clear()
        batch_no += 1

    for i, item in enumerate(items):
        tool = registry.get(item.name) if isinstance(item, ToolCall) else None
        if tool is None or tool.read_only or tool.name not in allowed:
            batch.append(i)  # read-only, or refused before it could touch anything
        else:
            flush()
            batch.append(i)
            flush()
    flush()
    transcript.calls.extend(records)  # type: ignore[arg-type]
    return results  # type: ignore[return-value]


def _one_result(registry: ToolRegistry, item: ToolCall | ParseError, allowed: set[str], choice: str) -> ToolResult:
    if isinstance(item, ParseError):
        return ToolResult(False, error_kind=item.kind, message=item.message)
    if item.name in registry and item.name not in allowed:
        reason = "no tool may be called" if choice == "none" else f"only {choice} may be called"
        return ToolResult(False, error_kind="not_allowed",
                          message=f"{item.name} exists but is not allowed in this turn: tool_choice is {choice!r}, "
                                  f"so {reason}. Nothing was executed.")
    return registry.call(item.name, item.arguments)


# ---------------------------------------------------------------------------------------------
# --- 8. Orrin Grid: the demo tools ---
# ---------------------------------------------------------------------------------------------

class OrrinGrid:
    """The power utility's back end, in memory: incidents, substations, and the tickets created.

    The class constants are the seed data; every back end copies them, so one registry's
    changes never reach another, and the tools return copies, never live records.
    """

    INCIDENTS = {
        "E-1474": {"code": "E-1474", "substation_id": "SS-218", "status": "resolved",
                   "cause": "a tree branch across the 11 kV feeder", "customers_affected": 312},
        "E-1502": {"code": "E-1502", "substation_id": "SS-031", "status": "open",
                   "cause": "under investigation", "customers_affected": 57},
    }
    ARCHIVED = frozenset({"E-0931"})  # lives on the archive back end, which times out
    SUBSTATIONS = {
        "SS-218": {"id": "SS-218", "name": "Kestrel Road", "maintainer": "Dana Okafor", "capacity_mw": 205},
        "SS-031": {"id": "SS-031", "name": "Mill Lane", "maintainer": "Ivo Brandt", "capacity_mw": 90},
    }

    def __init__(self) -> None:
        self.incidents: dict[str, dict] = copy.deepcopy(self.INCIDENTS)
        self.substations: dict[str, dict] = copy.deepcopy(self.SUBSTATIONS)
        self.archived: set[str] = set(self.ARCHIVED)
        self.tickets: list[dict] = []
        self.lock = threading.Lock()


def orrin_grid_registry(grid: OrrinGrid | None = None) -> tuple[ToolRegistry, OrrinGrid]:
    """Build the four Orrin Grid tools over a fresh back end (or the one given)."""
    grid = grid or OrrinGrid()
    registry = ToolRegistry()

    @registry.tool(read_only=True)
    def get_incident(code: str) -> dict:
        """Look up a grid incident: its cause, substation, status and customers affected.

        Args:
            code: the incident code, e.g. "E-1474"
        """
        if code in grid.archived:
            raise TimeoutError("the incident archive did not answer within 2.0 s")
        if code not in grid.incidents:
            raise LookupError(f"no incident {code!r}; incident codes look like 'E-1474'")
        return copy.deepcopy(grid.incidents[code])

    @registry.tool(read_only=True)
    def get_substation(substation_id: str) -> dict:
        """Look up a substation: its name, maintainer and capacity in megawatts.

        Args:
            substation_id: the substation id, e.g. "SS-218"
        """
        if substation_id not in grid.substations:
            raise LookupError(f"no substation {substation_id!r}; known: {sorted(grid.substations)}")
        return copy.deepcopy(grid.substations[substation_id])

    @registry.tool(read_only=True)
    def search_incidents(filters: dict, limit: int = 10) -> list:
        """Search incidents by substation and status; returns the matching incident codes.

        Args:
            filters: an object with optional keys "substation_id" and "status" ("open" or "resolved")
            limit: the most codes to return
        """
        found = [i["code"] for i in grid.incidents.values()
                 if all(i.get(k) == v for k, v in filters.items() if k in ("substation_id", "status"))]
        return found[:limit]

    @registry.tool
    def create_ticket(substation_id: str, summary: str, priority: Literal["low", "normal", "high"] = "normal") -> dict:
        """Open a maintenance ticket for a substation. This writes to the work-order system.

        Args:
            substation_id: the substation id, e.g. "SS-218"
            summary: one line saying what is wrong
            priority: how soon a crew must go
        """
        if substation_id not in grid.substations:
            raise LookupError(f"no substation {substation_id!r}; known: {sorted(grid.substations)}")
        with grid.lock:
            ticket = {"ticket": f"WO-{5001 + len(grid.tickets)}", "substation_id": substation_id,
                      "summary": summary, "priority": priority}
            grid.tickets.append(ticket)
        return dict(ticket)

    return registry, grid


# ---------------------------------------------------------------------------------------------
# --- 9. Demos: print_demos (every script's layout), then the demos of scripts/03_harness.py ---
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HandoutFigure:
    """A figure that handout 001 states and a demo computes: one row of the crosswalk `--vs-handout` prints.

    `run` is a regular expression with one group: where this run's figure stands in the demo's output, so that
    the figure shown beside the handout's is always the one the code just computed. `reason` says in one line why
    the two differ ('' where they agree); `closer` names a knob value that brings the run nearer the handout,
    where only a knob or the seed makes the difference."""

    demo: int
    section: str
    what: str
    handout: str
    run: str
    reason: str = ""
    closer: str = ""

    def find(self, output: str) -> str:
        """Read this run's figure out of the demo's output (white space folded; the handout notes left out)."""
        return " ".join(self._match(without_notes(output)).group(1).split())

    def _match(self, output: str) -> re.Match:
        match = re.search(self.run, output, re.M)
        if match is None:
            raise ValueError(f"demo {self.demo} no longer prints {self.what!r} where /{self.run}/ looks for it")
        return match

    def note(self) -> str:
        """The line a demo prints under a figure that differs from the handout's: its value, why, and the knob.

        Example: '  ^ handout 001 §7.3: 78.1% (success by final database state). Why: the seed draws the failures
        (53/64 here, 50/64 in the handout). Closer: --seed 17: 50/64 = 78.1%.'
        """
        why = re.sub(r" \([^()]*\bhere\b[^()]*\)", "", self.reason.split(";")[0].strip())  # no "(53/64 here)"
        if len(why.split(" (")[0]) >= 25:  # a long clause keeps the rule, not its details in parentheses
            why = why.split(" (")[0]
        if len(why) > 110 and ": " in why:  # still long: what its colon introduces goes too
            why = why.split(": ")[0]
        closer = f" Closer: {self.closer.rstrip('.')}." if self.closer else ""
        return f"{NOTE_MARK} {self.section}: {self.handout} ({self.what}). Why: {why}.{closer}"


HANDOUT_HEADERS = ["script", "demo", "handout 001", "figure", "handout", "this run", "why they differ"]
NOTE_MARK = "  ^ handout 001"  # how a note line under a figure starts (without_notes removes such lines)


def without_notes(output: str) -> str:
    """Remove the handout notes print_demos adds, leaving the demo's own text."""
    return "\n".join(line for line in output.split("\n") if not line.startswith(NOTE_MARK))


def with_notes(output: str, figures: list[HandoutFigure], tables: list[str] = ()) -> str:
    """Put a note under every figure of this demo's output that differs from handout 001's (HandoutFigure.note).

    The note goes on the line after the figure's; a figure inside one of `tables` (the tables the demo printed)
    gets it after that table, so the table stays whole. Notes at one place keep the figures' order.
    """
    lines, notes = output.split("\n"), {}
    spans = [(i, i + len(t)) for t in tables if (i := output.find(t)) >= 0]
    for f in figures:
        match = re.search(f.run, output, re.M)
        if f.reason and match and " ".join(match.group(1).split()) != " ".join(f.handout.split()):
            # the crosswalk says this figure differs from the handout's, and this run's does (a seed may match it)
            where = match.start()
            where = next((end for start, end in spans if start <= where < end), where)
            notes.setdefault(output.count("\n", 0, where), []).append(f.note())
    return "\n".join(line for i, text in enumerate(lines) for line in [text] + notes.get(i, []))


def add_vs_handout(parser) -> None:
    """Give a demo script's command line the flags every script shares: --vs-handout [text|markdown], --svg DIR
    and --csv DIR."""
    parser.add_argument("--vs-handout", nargs="?", const="text", choices=["text", "markdown"],
                        help="instead of the demos, print each figure handout 001 states beside this run's and why "
                             "they differ (markdown: the rows of README's table)")
    parser.add_argument("--svg", metavar="DIR", help="also write the demos' charts into DIR as SVG files")
    parser.add_argument("--csv", metavar="DIR", help="also write every table the demos print into DIR as CSV files")


@dataclass(frozen=True)
class Run:
    """How print_demos runs a script: its number, its handout figures, and what the command line asked for."""

    script: str
    figures: list[HandoutFigure]
    style: str | None = None  # --vs-handout: "text" or "markdown"; None prints the demos
    svg: str | None = None
    csv: str | None = None


def vs_handout(args, script: str, figures: list[HandoutFigure]) -> Run:
    """What print_demos needs from the command line: args (parsed with add_vs_handout's flags) or --vs-handout's
    value alone."""
    if args is None or isinstance(args, str):
        return Run(script, figures, args)
    return Run(script, figures, args.vs_handout, getattr(args, "svg", None), getattr(args, "csv", None))


def handout_rows(script: str, figures: list[HandoutFigure], outputs: dict[int, str]) -> list[list[str]]:
    """The crosswalk rows of one script: each figure beside this run's, read from outputs {demo number: its text}."""
    rows = []
    for f in figures:
        why = f.reason + (f" Closer: {f.closer}." if f.closer else "")
        rows.append([script, str(f.demo), f.section, f.what, f.handout, f.find(outputs[f.demo]), why or "the same"])
    return rows


def readme_row(cells: list[str]) -> str:
    """One Markdown table row as README.md holds it (GitHub: | and < escaped, the rest as written)."""
    return "| " + " | ".join(c.replace("|", "\\|").replace("<", "&lt;") for c in cells) + " |"


def markdown_cells(row: str) -> list[str]:
    """Read a readme_row back into its cells. Example: '| a | b \\| c |' -> ['a', 'b | c']"""
    cells = re.split(r"(?<!\\) \| ", row.strip()[2:-2])
    return [c.replace("\\|", "|").replace("&lt;", "<") for c in cells]


def print_demos(sections: list[tuple[str, Callable[[], str]]], run: Run | None = None, out=None, err=None) -> None:
    """Print each demo's output under an '=== title ===' banner, the layout every demo script shares.

    With run=vs_handout(args, ...): under every figure that differs from handout 001's, a note saying the handout's
    value and why (with_notes); --svg and --csv write the demos' charts and tables; --vs-handout prints instead
    the crosswalk with handout 001, a table or README's Markdown rows.
    A reader that stops early (`| head`) ends the script quietly, with exit status 1, not with a traceback.
    out and err: where to print (sys.stdout and sys.stderr when None)."""
    run, out, err = run or Run("", []), out or sys.stdout, err or sys.stderr
    try:
        if run.style is not None:
            print_crosswalk(sections, run)
            return
        for directory in (run.svg, run.csv):
            if directory:
                os.makedirs(directory, exist_ok=True)
        written = []
        for i, (title, demo) in enumerate(sections):
            print(("\n" if i else "") + f"=== {title} ===\n", file=out, flush=True)  # a reader gone: stop now
            number = banner_number(title)
            collected: list = []
            token = _COLLECTED.set(collected)
            try:
                text = demo()
            finally:
                _COLLECTED.reset(token)
            figures = [f for f in run.figures if f.demo == number]
            print(with_notes(text, figures, [t for t in collected if isinstance(t, Table)]), file=out, flush=True)
            slug = f"demo{number}" if title.startswith("Demo ") else re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")
            written += write_outputs(collected, run.script, slug, run.svg, run.csv)
        if run.svg or run.csv:
            print(f"[{len(written)} file(s) written: {', '.join(os.path.basename(p) for p in written) or 'none'}]",
                  file=err)
    except BrokenPipeError:
        quiet_broken_pipe()


def banner_number(title: str) -> int:
    """The demo's number from its banner title ('Demo 3. ...' -> 3); a section that is not 'Demo N.' is demo 0."""
    return int(title.split(".")[0].split()[-1]) if title.startswith("Demo ") else 0


def print_crosswalk(sections: list[tuple[str, Callable[[], str]]], run: Run) -> None:
    """Print --vs-handout's crosswalk: every figure of handout 001 beside this run's, as a table or Markdown rows."""
    if not run.figures:  # nothing to compare: no demo needs computing
        print(f"Handout 001 describes scripts 01 to 07; script {run.script} comes from lectures 002 and 003, so "
              "there is no figure of handout 001 to compare.")
        return
    outputs = {banner_number(title): demo() for title, demo in sections}
    rows = handout_rows(run.script, run.figures, outputs)
    if run.style == "markdown":
        print("\n".join([readme_row(HANDOUT_HEADERS), readme_row(["---"] * len(HANDOUT_HEADERS))]
                         + [readme_row(row) for row in rows]))
    else:
        print(format_table(HANDOUT_HEADERS[1:], [row[1:] for row in rows], [0, 0, 24, 24, 24, 40]))


def quiet_broken_pipe() -> typing.NoReturn:
    """Exit after stdout's reader has gone: point stdout at os.devnull so that the interpreter's last flush
    raises nothing more (the recipe of Python's signal documentation), then exit with status 1."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(1)


ERROR_CASES = [  # (call, arguments, who must act)
    ("get_weather", {"city": "Stanford"}, "the model: pick a listed tool, or answer directly"),
    ("create_ticket", {"substation_id": "SS-218", "summary": "relay trips", "priority": "urgent"},
     "the model: fix the arguments (nothing ran)"),
    ("get_substation", {"id": "SS-218"}, "the model: fix the arguments (nothing ran)"),
    ("get_incident", {"code": "E-0931"}, "the model may retry later (the error says it is temporary)"),
    ("get_incident", {"code": "E-9999"}, "the model: change the arguments or tell the user"),
]


@preformatted
def demo_error_kinds() -> str:
    """Show the registry's three error kinds side by side, and that a refused call has no side effect."""
    registry, grid = orrin_grid_registry()
    rows = []
    for name, arguments, who in ERROR_CASES:
        result = registry.call(name, arguments)
        kind = result.error_kind + (" (retryable)" if result.retryable else "")
        rows.append([f"{name}({show(arguments, 80)})", kind, result.message, who])
    table = format_table(["call", "kind", "what the model sees", "who must act"], rows, [34, 17, 50, 24])
    return (f"{table}\n\nChecks run in order: tool exists -> arguments are an object -> schema -> execute."
            f"\nTickets in the work-order system after these calls: {len(grid.tickets)} "
            "(the invalid create_ticket never reached it).")


PARSER_CASES = [  # (label, model output, what a correct parser must report: ("call", name, args) or ("error", kind))
    ("truncated mid-JSON", '<tool_call>{"name": "get_incident", "arguments": {"code": "E-14',
     [("error", "truncated")]),
    ("missing closing tag", "I'll check.<tool_call>" + '{"name": "get_incident", "arguments": {"code": "E-1474"}}',
     [("error", "truncated")]),
    ("nested, over lines", '<tool_call>{"name": "search_incidents", "arguments": {\n'
     '  "filters": {"substation_id": "SS-218", "status": "open"},\n  "limit": 5}}</tool_call>',
     [("call", "search_incidents", {"filters": {"substation_id": "SS-218", "status": "open"}, "limit": 5})]),
    ("code fence", '<tool_call>\n```json\n{"name": "get_substation", "arguments": {"substation_id": "SS-218"}}\n```\n</tool_call>',
     [("call", "get_substation", {"substation_id": "SS-218"})]),
    ("two calls", call_text("get_incident", {"code": "E-1474"}) + "\n" + call_text("get_substation", {"substation_id": "SS-218"}),
     [("call", "get_incident", {"code": "E-1474"}), ("call", "get_substation", {"substation_id": "SS-218"})]),
    ("text before and after", "Let me look that up. " + call_text("get_incident", {"code": "E-1474"}) + " One moment.",
     [("call", "get_incident", {"code": "E-1474"})]),
    ("tag inside a string", call_text("create_ticket", {"substation_id": "SS-218", "summary": "log shows </tool_call> in relay output"}),
     [("call", "create_ticket", {"substation_id": "SS-218", "summary": "log shows </tool_call> in relay output"})]),
    ("single quotes", "<tool_call>{'name': 'get_incident', 'arguments': {'code': 'E-1474'}}</tool_call>",
     [("error", "invalid_json")]),
    ("trailing comma", '<tool_call>{"name": "get_incident", "arguments": {"code": "E-1474",}}</tool_call>',
     [("error", "invalid_json")]),
    ("arguments as a string", '<tool_call>{"name": "get_incident", "arguments": "{\\"code\\": \\"E-1474\\"}"}</tool_call>',
     [("error", "bad_arguments")]),
    ("empty call", "<tool_call></tool_call>", [("error", "invalid_json")]),
    ("no call at all", "E-1474 was caused by a tree branch across the feeder.", []),
]


def _outcome(items: list[ToolCall | ParseError]) -> list[tuple]:
    return [("call", i.name, i.arguments) if isinstance(i, ToolCall) else ("error", i.kind) for i in items]


def _regex_verdict(calls: list[ToolCall], truth: list[tuple]) -> str:
    got = _outcome(calls)
    if got == truth:
        return "ok"
    if not got:
        return "SILENT: looks like no call"
    bad = [c for c in got if c not in truth]
    if bad and not isinstance(bad[0][2], dict):
        return f"WRONG: {bad[0][1]} with {json_type(bad[0][2])} arguments"
    return f"WRONG: {len(got)} call(s), expected {len(truth)} outcome(s)"


def _robust_cell(items: list[ToolCall | ParseError]) -> str:
    """Each call as name(argument=value, ...), values in JSON; each error by its kind."""
    return ", ".join(f"{i.name}({', '.join(f'{k}={json.dumps(v)}' for k, v in i.arguments.items())})"
                     if isinstance(i, ToolCall) else f"error: {i.kind}" for i in items) or "no call"


@preformatted
def demo_parsers() -> str:
    """Run twelve odd model outputs through the regex parser and the robust one, in one table."""
    rows, regex_bad, robust_ok = [], 0, 0
    for n, (label, text, truth) in enumerate(PARSER_CASES, 1):
        naive = _regex_verdict(parse_tool_calls_regex(text), truth)
        parsed = parse_tool_calls(text)
        right = _outcome(parsed.items) == truth
        regex_bad += naive != "ok"
        robust_ok += right
        rows.append([n, label, naive, _robust_cell(parsed.items), "ok" if right else "MISMATCH"])
    listing = "\n".join(f"{n:>2}. {label:<22} {text!r}" for n, (label, text, _) in enumerate(PARSER_CASES, 1))
    table = format_table(["#", "case", "regex + json.loads", "parse_tool_calls", "verdict"], rows, [0, 0, 0, 48, 0])
    sample = parse_tool_calls(PARSER_CASES[1][1])
    return (f"The twelve model outputs (Python string literals):\n{listing}\n\n{table}\n\nregex parser: silently wrong or silent on {regex_bad} of {len(PARSER_CASES)}; "
            f"it has no way to say 'this call is broken'.\nrobust parser: {robust_ok} of {len(PARSER_CASES)} as "
            "expected: every well-formed call found, every broken one named.\n\n"
            f"Case 2 ({PARSER_CASES[1][0]}), as the harness sees it:\n"
            f"  outside text: {sample.text!r}\n  {sample.errors[0].kind}: {sample.errors[0].message}")


def _batches(transcript: Transcript) -> str:
    groups: dict[tuple, list[str]] = {}
    for c in transcript.calls:
        groups.setdefault((c.step, c.batch), []).append(f"{c.id} {c.name}")
    return "; ".join(f"turn {step}: " + (" + ".join(ids) + (" (concurrently)" if len(ids) > 1 else ""))
                     for (step, _), ids in groups.items())


def _answer_from_results(messages: list[Message]) -> str:
    results = {r["name"]: json.loads(r["content"]) for r in parse_tool_results(messages[-1]["content"])}
    incident, station = results["get_incident"], results["get_substation"]
    return (f"E-1474 was caused by {incident['cause']}. {station['id']} ({station['name']}) "
            f"is maintained by {station['maintainer']}.")


@preformatted
def demo_loop() -> str:
    """Run the loop three times: parallel calls, relevance (no weather tool), and self-correction."""
    out = []
    registry, _ = orrin_grid_registry()
    first = call_text("get_incident", {"code": "E-1474"}) + "\n" + call_text("get_substation", {"substation_id": "SS-218"})
    lm = ScriptedLM(lambda msgs: first if len(msgs) == 2 else _answer_from_results(msgs))
    t = run_agent(lm, registry, "What caused E-1474, and who maintains SS-218?")
    out += ["(a) Parallel calls: two independent read-only lookups in one reply", t.render(),
            f"   execution: {_batches(t)}; each result carries its call's id, all in one message, in call order", ""]

    question = "What's the weather in Stanford tomorrow?"
    good = run_agent(ScriptedLM(["I can't check the weather: none of my tools gives forecasts. "
                                 "I can look up Orrin Grid incidents, substations and tickets."]), registry, question)
    bad = run_agent(ScriptedLM([call_text("get_weather", {"city": "Stanford", "day": "tomorrow"}),
                                "Sorry, I have no weather tool, so I cannot answer that."]), registry, question)
    out += ["(b) Relevance: no weather tool is offered", "good model:", good.render(), "model that invents a tool:",
            bad.render(), ""]

    registry, grid = orrin_grid_registry()
    args = {"substation_id": "SS-218", "summary": "relay trips twice an hour", "priority": "urgent"}
    lm = ScriptedLM([call_text("create_ticket", args), call_text("create_ticket", args | {"priority": "high"}),
                     "Done: ticket WO-5001 is open for SS-218 with high priority."])
    t = run_agent(lm, registry, "Open an urgent ticket for SS-218: the relay trips twice an hour.")
    out += ["(c) Correction: 'urgent' is not an allowed priority", t.render(),
            f"   tickets created: {len(grid.tickets)} ({', '.join(x['ticket'] + ' ' + x['priority'] for x in grid.tickets)})"]
    return "\n".join(out)


@preformatted
def demo_prompt_cost() -> str:
    """Count what the tools cost in the system prompt, per tool and in all."""
    registry, _ = orrin_grid_registry()
    per_tool = [[t.name, count_tokens(json.dumps(t.spec(), ensure_ascii=False))] for t in registry]  # as the prompt writes it
    definitions = sum(n for _, n in per_tool)
    total = count_tokens(render_tool_prompt(registry))
    return (format_table(["tool", "tokens"], per_tool) +
            f"\n\n{len(per_tool)} tools ~ {total} tokens in the system prompt: {definitions} for the tool definitions "
            f"(~{round(definitions / len(per_tool))} per tool) and {total - definitions} for the format and rules.\n"
            f"The prompt is sent again on every model turn, so a 5-turn task pays it 5 times ({5 * total} tokens).\n"
            "Counted with count_tokens, the lab's fixed stand-in tokenizer, over the lab's four tools. The handout gives\n"
            "521 tokens (~104 per tool) for its four tools and does not say how it counted them; what carries over is\n"
            "the size per tool and its growth.")


# Handout 001, figure by figure: what `scripts/03_harness.py --vs-handout` prints, and README's table
HANDOUT_03: list[HandoutFigure] = [
    HandoutFigure(1, "§6.1, §12 ex. 4(a)", "kind of error for an unknown tool (get_weather)",
                  "tool does not exist", r'(?m)^get_weather\(\{"city": "Stanford"\}\)\s+(\w+)'),
    HandoutFigure(1, "§6.1, §12 ex. 4(c)", "kind of error for a backend timeout (get_incident)",
                  "execution error (may retry)", r'(?m)^get_incident\(\{"code": "E-0931"\}\)\s+(\w+)'),
    HandoutFigure(1, "§6.1", "order of the registry's checks",
                  "tool exists -> arguments are an object -> schema -> execute", r"Checks run in order: (.+)\."),
    HandoutFigure(1, "§6.1", "tickets written by the invalid create_ticket",
                  "0 (stopped before the database)", r"after these calls: (\d+) \("),
    HandoutFigure(2, "§5.5", "odd model outputs compared", "12", r"silent on \d+ of (\d+)"),
    HandoutFigure(2, "§11", "regex parser silently wrong", "9/12", r"silently wrong or silent on (\d+ of \d+)"),
    HandoutFigure(2, "§5.5, §12 ex. 3", "regex parser on a missing closing tag",
                  "silently returns an empty list", r"(?m)^2\s+missing closing tag\s+(SILENT: looks like no call)"),
    HandoutFigure(2, "§5.5, §12 ex. 3", "robust parser on a missing closing tag",
                  "reports it, and tells truncated from invalid JSON",
                  r"(?m)^2\s+missing closing tag\s+SILENT: looks like no call\s+(error: \w+)"),
    HandoutFigure(2, "§5.5", "robust parser on single quotes (no guessed repair)",
                  "reported, not repaired", r"(?m)^8\s+single quotes\s+SILENT: looks like no call\s+(error: \w+)"),
    HandoutFigure(2, "§5.5", "robust parser overall",
                  "reports every bad case", r"robust parser: (\d+ of \d+) as expected"),
    HandoutFigure(3, "§6.2", "parallel calls: two independent read-only calls in one reply, run together",
                  "2 calls, executed concurrently",
                  r"execution: turn 1: (call_1 get_incident \+ call_2 get_substation \(concurrently\))"),
    HandoutFigure(3, "§6.2", "relevance: the invented get_weather gets",
                  "unknown_tool and the list of tools", r'<tool_result name="get_weather" id="call_1" error="(\w+)">'),
    HandoutFigure(3, "§6.2", "correction: the priority of the second, right call",
                  "a value from the enum", r'"priority": "(high)"\}\}</tool_call>'),
    HandoutFigure(3, "§6.2", "correction: tickets created", "1 (once)", r"tickets created: (\d+)"),
    HandoutFigure(0, "§6.1", "tools in the system prompt (after demo 3)", "4", r"(\d+) tools ~ \d+ tokens"),
    HandoutFigure(0, "§6.1", "tokens of the system prompt with the 4 tools",
                  "521", r"tools ~ (\d+) tokens in the system prompt",
                  "counted with count_tokens, the lab's fixed stand-in rule (within ~20% of a real BPE), over the "
                  "lab's own four tool descriptions and rules; the handout does not say how it counted; the script "
                  "says what it counts with"),
    HandoutFigure(0, "§6.1", "tokens per tool", "104", r"\(~(\d+) per tool\) and",
                  "the same stand-in tokenizer and the lab's own tool descriptions; the rules cost 198 here against "
                  "about 105 implied by the handout (521 - 4 x 104)"),
]


# ---------------------------------------------------------------------------------------------
# --- 9a. Charts and CSV files: the figures for slides, notebooks and spreadsheets ---
# ---------------------------------------------------------------------------------------------
# A demo that computes a figure worth seeing hands it to record(Chart(...)); every table it prints
# (format_table) is noted the same way. print_demos then writes them with --svg DIR and --csv DIR.
# Outside print_demos, record() only returns the chart: a demo computes and prints exactly as before.

_COLLECTED: contextvars.ContextVar[list | None] = contextvars.ContextVar("collected", default=None)
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]  # distinct in print and on screen


@dataclass
class Chart:
    """Bars (grouped by category) or lines over categories: the computed values, labelled for a slide.

    `series` holds (legend name, one value per category). `y_label` names the unit; `source` says
    where the numbers come from (the script and demo). Each bar or point carries its exact value
    (data-value), so a test can read the SVG back and compare.
    """

    name: str  # the file's stem, e.g. "06_pass_k"
    title: str
    x_label: str
    y_label: str
    categories: list[str]
    series: list[tuple[str, list[float]]]
    source: str
    kind: Literal["bars", "lines"] = "bars"
    y_max: float | None = None  # the axis's top (e.g. 1 for a share); None: from the data

    def __post_init__(self):
        if not re.fullmatch(r"[A-Za-z0-9_-]+", self.name):
            raise ValueError(f"chart name {self.name!r}: use letters, digits, _ and - (it becomes a file name)")
        for label, values in self.series:
            if len(values) != len(self.categories):
                raise ValueError(f"series {label!r} has {len(values)} values for {len(self.categories)} categories")
            if not all(isinstance(v, (int, float)) and math.isfinite(v) and v >= 0 for v in values):
                raise ValueError(f"series {label!r}: every value must be a finite number >= 0, got {values!r}")

    def svg(self) -> str:
        """Return the chart as a standalone SVG document (640 x 420, the fonts of the viewer)."""
        return _svg(self)

    def _repr_svg_(self) -> str:
        return self.svg()


def record(chart: Chart) -> Chart:
    """Note a chart for the demo's DemoText and print_demos' --svg (nothing else happens to it); return it."""
    _noted(chart)
    return chart


def _noted(item: "Chart | Table") -> None:
    """Hand a chart or a printed table to whoever collects them now (preformatted, print_demos), if anyone."""
    collected = _COLLECTED.get()
    if collected is not None:
        collected.append(item)


def _ticks(top: float) -> tuple[float, list[float]]:
    """A 'nice' axis top (1, 2, 2.5, 4, 5 or 8 times a power of ten, at least `top`) and its ticks, five steps."""
    top = top if top > 0 else 1.0
    step = 10 ** math.floor(math.log10(top / 5))
    step = next(step * m for m in (1, 2, 2.5, 4, 5, 8, 10) if step * m * 5 >= top)
    return step * 5, [step * i for i in range(6)]


def _number(value: float) -> str:
    """An axis or tooltip number: no trailing zeros, thousands grouped (0.5, 12, 1,323)."""
    text = f"{value:,.4f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


def _svg(chart: Chart) -> str:
    width, height, left, right, top, bottom = 640, 420, 70, 20, 50, 115
    plot_w, plot_h = width - left - right, height - top - bottom
    highest = max((v for _, values in chart.series for v in values), default=0)
    y_top, ticks = _ticks(chart.y_max if chart.y_max is not None else highest)
    y_of = lambda v: top + plot_h - plot_h * v / y_top  # noqa: E731 (a small local scale)
    esc = lambda text: html.escape(str(text), quote=True)  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'font-family="sans-serif" font-size="12" data-chart="{esc(chart.name)}">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">{esc(chart.title)}</text>']
    for tick in ticks:  # the y axis: grid lines and their numbers
        y = y_of(tick)
        out += [f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#ddd"/>',
                f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{esc(_number(tick))}</text>']
    out += [f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="black"/>',
            f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="black"/>',
            f'<text transform="translate(16 {top + plot_h / 2}) rotate(-90)" text-anchor="middle">'
            f'{esc(chart.y_label)}</text>',
            f'<text x="{left + plot_w / 2}" y="{top + plot_h + 36}" text-anchor="middle">{esc(chart.x_label)}</text>']
    slot = plot_w / len(chart.categories)
    for i, category in enumerate(chart.categories):  # the x axis: one slot per category
        out.append(f'<text x="{left + slot * (i + 0.5):.1f}" y="{top + plot_h + 18}" text-anchor="middle">'
                   f'{esc(category)}</text>')
    for s, (label, values) in enumerate(chart.series):
        color = PALETTE[s % len(PALETTE)]
        if chart.kind == "lines":
            points = [(left + slot * (i + 0.5), y_of(v)) for i, v in enumerate(values)]
            out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" '
                       f'points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in points)}"/>')
        bar_w = slot * 0.8 / len(chart.series)
        for i, (category, value) in enumerate(zip(chart.categories, values)):
            data = (f'data-series="{esc(label)}" data-category="{esc(category)}" data-value="{value!r}"'
                    f'><title>{esc(label)}, {esc(category)}: {esc(_number(value))}</title>')
            if chart.kind == "lines":
                out.append(f'<circle cx="{left + slot * (i + 0.5):.1f}" cy="{y_of(value):.1f}" r="4" fill="{color}" '
                           f'{data}</circle>')
            else:
                x, y = left + slot * i + slot * 0.1 + bar_w * s, y_of(value)
                out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" height="{top + plot_h - y:.1f}" '
                           f'fill="{color}" {data}</rect>')
    x, y = left, top + plot_h + 50
    for s, (label, _) in enumerate(chart.series):  # the legend, under the axis title, wrapped to the width
        if x > left and x + 30 + 7 * len(label) > width - right:
            x, y = left, y + 18
        out += [f'<rect x="{x}" y="{y}" width="12" height="12" fill="{PALETTE[s % len(PALETTE)]}"/>',
                f'<text x="{x + 16}" y="{y + 10}">{esc(label)}</text>']
        x += 30 + 7 * len(label)
    out += [f'<text x="{left}" y="{height - 10}" font-size="10" fill="#555">Source: {esc(chart.source)}</text>',
            "</svg>"]
    return "\n".join(out) + "\n"


def write_outputs(collected: list, script: str, slug: str, svg_dir: str | None, csv_dir: str | None) -> list[str]:
    """Write a demo's charts as SVG and its tables as CSV (a header row, then the rows); return the paths."""
    import csv
    written = []
    if svg_dir:
        for chart in (c for c in collected if isinstance(c, Chart)):
            path = os.path.join(svg_dir, f"{chart.name}.svg")
            with open(path, "w", encoding="utf-8") as out:
                out.write(chart.svg())
            written.append(path)
    if csv_dir:
        for n, table in enumerate((t for t in collected if isinstance(t, Table)), 1):
            path = os.path.join(csv_dir, f"{script}_{slug}_table{n}.csv")
            with open(path, "w", encoding="utf-8", newline="") as out:
                csv.writer(out).writerows([table.headers] + table.rows)
            written.append(path)
    return written


# --- 9b. The demo of scripts/10_under_the_hood.py here: parallel calls (one turn or four; dependent calls) ---

class SimulatedClock:
    """Declared latencies instead of sleeps, so a demo about waiting takes no time and prints the same figure each run.

    A timed tool advances busy_ms by its declared milliseconds when it runs: what the calls cost one by one.
    A call cannot see which calls run beside it, so what overlapped is the loop's to say: run_agent logs each
    call's (step, batch), one pair for the read-only calls it ran concurrently (on at most max_workers threads)
    and a batch of its own for a call with side effects. wall_ms lays the declared latencies out on that log
    as the thread pool runs them: the waiting a real clock would measure.
    """

    def __init__(self) -> None:
        self.latency_ms: dict[str, int] = {}  # declared, per tool
        self.busy_ms = 0
        self._lock = threading.Lock()  # concurrent calls advance the clock from several threads

    def timed(self, tool: Tool, ms: int, read_only: bool | None = None) -> Tool:
        """Return a copy of the tool that advances this clock by `ms` when it runs, instead of sleeping that long."""
        def run(**arguments):
            with self._lock:
                self.busy_ms += ms
            return tool.fn(**arguments)
        self.latency_ms[tool.name] = ms
        timed = copy.copy(tool)
        timed.fn, timed.read_only = run, tool.read_only if read_only is None else read_only
        return timed

    def wall_ms(self, transcript: Transcript, max_workers: int) -> int:
        """Return a run's tool time as the loop scheduled it: batch after batch, each as long as its thread pool."""
        batches: dict[tuple[int, int], list[int]] = {}
        for c in transcript.calls:
            ran = c.ok or c.error_kind == "execution_error"  # a refused call (invalid, not allowed) never ran
            batches.setdefault((c.step, c.batch), []).append(self.latency_ms.get(c.name, 0) if ran else 0)
        return sum(pool_ms(latencies, max_workers) for latencies in batches.values())


def pool_ms(latencies: list[int], workers: int) -> int:
    """Return how long a thread pool takes for one batch: each call starts, in order, on the first free worker.

    Example: ([200, 200, 200, 200, 200], 4) -> 400 (four at once, then the fifth)
    """
    free = [0] * max(1, min(workers, len(latencies)))
    for ms in latencies:
        free[free.index(min(free))] += ms
    return max(free)


def invented_ids(transcript: Transcript) -> list[str]:
    """Name each id argument (key `id` or `..._id`) whose value no user message or tool result showed before its turn.

    A call written in the same reply as the call whose result it needs has not seen that result: whatever id
    it carries is a guess, even when the guess exists. service_env's classify names the same thing in a
    whole trajectory "invented argument". The system prompt does not count: an example in a description is
    no evidence.
    Example: find_customer + get_account(customer_id="C-212") in one reply -> ['call_2 get_account: customer_id ...']
    """
    shown, before_turn = [], {}
    for m in transcript.messages[1:]:
        if m["role"] == "assistant":
            before_turn[len(before_turn) + 1] = "\n".join(shown)  # model turn n is CallRecord.step n
        else:
            shown.append(m["content"])
    found = []
    for c in transcript.calls:
        for key, value in (c.arguments.items() if isinstance(c.arguments, dict) else ()):
            if (key == "id" or key.endswith("_id")) and not _shows(before_turn.get(c.step, ""), value):
                found.append(f"{c.id} {c.name}: {key}={show(value)} was in no user message or tool result "
                             "before this turn")
    return found


def _shows(text: str, value: JSON) -> bool:
    """Say whether text holds the value as a whole token ("C-11" is not shown by "C-118")."""
    whole = rf"(?<![\w-]){re.escape(str(value))}(?![\w-])"
    return isinstance(value, (str, int)) and re.search(whole, text) is not None


TOOL_MS = 200  # every tool's declared latency in this demo, as in lesson 002's "five 200 ms fetches"
LOOKUPS = [("get_incident", {"code": "E-1474"}), ("get_incident", {"code": "E-1502"}),
           ("get_substation", {"substation_id": "SS-218"}), ("get_substation", {"substation_id": "SS-031"})]
LOOKUP_QUESTION = "Are E-1474 and E-1502 resolved, and who maintains SS-218 and SS-031?"
# what scripts/benchmark.py's parallel_speedup measured with real 200 ms sleeps (README, Performance)
BENCHMARK_PARALLEL = "1.0 s one by one, 0.2 s concurrently"  # its row "five 200 ms tools in one reply"


def _results_so_far(messages: list[Message]) -> list[dict]:
    return [r for m in messages if m["role"] == "tool" for r in parse_tool_results(m["content"])]


def lookup_model(per_turn: int) -> ScriptedLM:
    """A scripted model for LOOKUPS: `per_turn` calls a reply until all are answered, then the answer they give."""
    def reply(messages: list[Message]) -> str:
        done = _results_so_far(messages)
        if len(done) < len(LOOKUPS):
            return "\n".join(call_text(name, args) for name, args in LOOKUPS[len(done): len(done) + per_turn])
        found = [json.loads(r["content"]) for r in done]
        return "; ".join([f"{x['code']} is {x['status']}" for x in found if "code" in x]
                         + [f"{x['id']} is maintained by {x['maintainer']}" for x in found if "maintainer" in x]) + "."
    return ScriptedLM(reply)


def _timed_run(lm: ScriptedLM, question: str, registry: ToolRegistry, clock: SimulatedClock,
               max_workers: int = 4) -> tuple[Transcript, int]:
    """Run the loop over timed tools; return the transcript and its simulated tool time in ms."""
    t = run_agent(lm, registry, question, max_workers=max_workers)
    return t, clock.wall_ms(t, max_workers)


def _timed_grid(clock: SimulatedClock, read_only: bool | None = None) -> ToolRegistry:
    """Return the Orrin Grid tools, each taking TOOL_MS on the clock (read_only=False: all with side effects)."""
    registry, _ = orrin_grid_registry()
    return ToolRegistry(clock.timed(t, TOOL_MS, read_only) for t in registry)


def _input_tokens(lm: ScriptedLM) -> int:
    """Count what the model was sent over a run: every request carries the whole conversation again."""
    return sum(count_tokens(m["content"]) for prompt in lm.prompts for m in prompt)


def _one_reply_ms(calls: list[tuple[str, dict]], read_only: bool | None, max_workers: int) -> int:
    """Simulated tool time of one reply that makes all these calls, then a final answer."""
    clock = SimulatedClock()
    lm = ScriptedLM(["\n".join(call_text(n, a) for n, a in calls), "Done."])
    return _timed_run(lm, LOOKUP_QUESTION, _timed_grid(clock, read_only), clock, max_workers)[1]


DEMO_CUSTOMERS = {"C-107": {"name": "Gil Varga", "outage_logged": True},  # two of service_env's customers
                  "C-212": {"name": "Ana Reyes", "outage_logged": False}}


def customer_registry(clock: SimulatedClock) -> ToolRegistry:
    """Build find_customer and get_account (the second needs the first's result), each taking TOOL_MS on the clock."""
    registry = ToolRegistry()

    @registry.tool(read_only=True)
    def find_customer(name: str) -> dict:
        """Find a customer by full name; returns the customer id.

        Args:
            name: the customer's full name
        """
        for customer_id, c in DEMO_CUSTOMERS.items():
            if c["name"].lower() == name.strip().lower():
                return {"customer_id": customer_id}
        raise LookupError(f"no customer named {name!r}")

    @registry.tool(read_only=True)
    def get_account(customer_id: str) -> dict:
        """Get a customer's account: name and whether an outage is logged.

        Args:
            customer_id: the id find_customer returns
        """
        if customer_id not in DEMO_CUSTOMERS:
            raise LookupError(f"no customer {customer_id!r}; look customers up by name with find_customer")
        return dict(DEMO_CUSTOMERS[customer_id])

    return ToolRegistry(clock.timed(t, TOOL_MS) for t in registry)


CUSTOMER_QUESTION = "Is an outage logged on Gil Varga's account?"
FIND = call_text("find_customer", {"name": "Gil Varga"})


def _account_answer(messages: list[Message]) -> str:
    account = next(json.loads(r["content"]) for r in _results_so_far(messages) if r["name"] == "get_account")
    return f"Gil Varga has {'an' if account['outage_logged'] else 'no'} outage logged."


def guessing_model() -> ScriptedLM:
    """Both calls in one reply: get_account cannot wait for find_customer's result, so it carries a guessed id."""
    return ScriptedLM(lambda messages: _account_answer(messages) if _results_so_far(messages) else
                      FIND + "\n" + call_text("get_account", {"customer_id": "C-212"}))


def waiting_model() -> ScriptedLM:
    """One call a turn: get_account takes the id out of find_customer's result."""
    def reply(messages: list[Message]) -> str:
        done = _results_so_far(messages)
        if not done:
            return FIND
        if len(done) == 1:
            return call_text("get_account", {"customer_id": json.loads(done[0]["content"])["customer_id"]})
        return _account_answer(messages)
    return ScriptedLM(reply)


def _seconds(ms: int) -> str:
    return f"{ms / 1000:.1f} s"


@preformatted
def demo_parallel_turns() -> str:
    """Show four independent lookups as one call a turn and as one reply, then why dependent calls need two turns."""
    rows, answers, runs = [], set(), []
    for label, per_turn in (("one call per turn", 1), ("all four in one reply", len(LOOKUPS))):
        clock, lm = SimulatedClock(), lookup_model(per_turn)
        t, wall = _timed_run(lm, LOOKUP_QUESTION, _timed_grid(clock), clock)
        answers.add(t.final_answer)
        rows.append([label, t.steps, len(t.messages), sum(m["role"] == "tool" for m in t.messages),
                     _seconds(clock.busy_ms), _seconds(wall), _input_tokens(lm)])
        runs.append((t.steps, _input_tokens(lm), clock.busy_ms / 1000, wall / 1000))
    ways, source = [row[0] for row in rows], "scripts/10_under_the_hood.py, demo 3: tool_core.demo_parallel_turns"
    record(Chart("10_requests", f"{len(LOOKUPS)} lookups: one call per turn or all in one reply", "way",
                 "model requests (each resends the conversation)", ways, [("model requests", [r[0] for r in runs])],
                 source))
    record(Chart("10_time", f"{len(LOOKUPS)} lookups of {TOOL_MS} ms each: tool time", "way",
                 "seconds (a simulated clock)", ways,
                 [("tools, summed", [r[2] for r in runs]), ("tools, waited", [r[3] for r in runs])], source))
    (_, one, _, _, summed, one_wall, _), (_, both, _, _, _, both_wall, _) = rows
    five = LOOKUPS + [("search_incidents", {"filters": {"status": "open"}})]
    schedule = [["four calls with side effects (read_only=False): one by one, in order",
                 _seconds(_one_reply_ms(LOOKUPS, False, 4))],
                ["four read-only calls, max_workers=2: two at a time", _seconds(_one_reply_ms(LOOKUPS, None, 2))],
                ["five read-only calls, the default max_workers=4: the fifth waits for a worker",
                 _seconds(_one_reply_ms(five, None, 4))],
                ["five calls, max_workers=5: with side effects / read-only (scripts/benchmark.py's case)",
                 f"{_seconds(_one_reply_ms(five, False, 5))} / {_seconds(_one_reply_ms(five, None, 5))}"]]
    return "\n".join([
        f"(a) One turn or four: {len(LOOKUPS)} independent lookups, each tool {TOOL_MS} ms on a simulated clock "
        "(declared, no sleep)", f"question: {LOOKUP_QUESTION}", "",
        format_table(["", "model requests", "messages", "result messages", "tools, summed", "tools, waited",
                      "input tokens"], rows), "",
        f"model requests: Transcript.steps, one per model turn: {one - 1} that call + 1 that answers, against 1 + 1. "
        "N calls one", f"  per turn take N + 1 requests, all in one reply {both} whatever N (slides 003 §7: three "
        "searches, 4 requests against 2).",
        "messages: system + user, then each turn's reply and, if it called, one message with all that turn's results.",
        f"tools, summed: {TOOL_MS} ms a call, added up ({summed} both ways). tools, waited: as run_agent ran them, "
        "by its log's", "  (step, batch): a turn's read-only calls at once on its thread pool, turn after turn: "
        f"{one_wall} against {both_wall}.",
        "input tokens: count_tokens over every request, since each request sends the whole conversation again.",
        "both runs give the same answer:", f"  {' | '.join(sorted(answers))}", "",
        "The waiting follows the loop's schedule; the same one reply, other settings:",
        format_table(["reply and settings", "tools, waited"], schedule),
        f"  measured by scripts/benchmark.py (parallel_speedup, real 200 ms sleeps): {BENCHMARK_PARALLEL}",
        '  lesson 002: "five 200 ms fetches: about 1 s sequential vs about 200 ms parallel"', ""]
        + _dependent_calls())


def _dependent_calls() -> list[str]:
    """Part (b): find a customer, then read the account; in one reply the id is a guess, in two turns it is read."""
    out = ["(b) Dependent calls cannot share a turn: get_account needs the id that find_customer returns"]
    for label, lm in (("both in one reply: the model must guess the id", guessing_model()),
                      ("two turns: the second call takes the id from the first result", waiting_model())):
        clock = SimulatedClock()
        t, wall = _timed_run(lm, CUSTOMER_QUESTION, customer_registry(clock), clock)
        flagged = invented_ids(t)
        registry_says = ", ".join(f"{c.id} {'ok' if c.ok else c.error_kind}" for c in t.calls)
        out += [f"{label}:", t.render(width=118),
                f"   registry: {registry_says} (each id exists and matches the schema); "
                f"{t.steps} model requests, {_seconds(wall)} waited",
                "   invented_ids: " + ("; ".join(flagged) if flagged else "none: every id came from a result")]
    out += ["The guess ran beside find_customer, so it could not have seen C-107. It named a real customer, so nothing",
            "failed, and Ana Reyes's account was reported as Gil Varga's. Only a check of where an argument came from",
            "catches it (service_env's classify: 'invented argument'). The system prompt's rule 1 asks for several",
            "calls in one reply only when none needs another's result."]
    return out


# --- 9c. A reply parsed as it streams in: each call reported at the chunk that closes it ---

STREAMED_REPLY = ("Let me look up the incident and its substation. " + call_text("get_incident", {"code": "E-1474"})
                  + " " + call_text("get_substation", {"substation_id": "SS-218"}) + " I will read both, then answer.")


def _streamed(reply: str, width: int) -> tuple[list[list], list, int]:
    """Feed a reply to a StreamParser `width` characters at a time: (a row per chunk, every item, the chunks)."""
    parser, rows, items = StreamParser(), [], []
    chunks = [reply[i:i + width] for i in range(0, len(reply), width)]
    for n, chunk in enumerate(chunks, 1):
        found = parser.feed(chunk)
        items += found
        rows.append([n, repr(chunk), _robust_cell(found) if found else "", repr(parser.take_text())])
    found = parser.close()
    rows.append(["close()", "", _robust_cell(found) if found else "", repr(parser.take_text())])
    return rows, items + found, len(chunks)


@preformatted
def demo_streamed_calls(width: int = 16) -> str:
    """Stream a reply `width` characters a chunk: each call comes at the chunk that closes it, before the reply ends."""
    rows, items, chunks = _streamed(STREAMED_REPLY, width)
    at = [next(row[0] for row in rows if row[2].startswith(item.name)) for item in items]
    same = items == parse_tool_calls(STREAMED_REPLY).items
    label, quoted, _ = PARSER_CASES[6]  # "tag inside a string": a </tool_call> that only a string holds
    quoted_rows, (call,), _ = _streamed(quoted, width)
    inside = (quoted.index(CLOSE) + len(CLOSE) - 1) // width + 1  # the chunk its last character comes in
    closed = next(row[0] for row in quoted_rows if row[2])
    cut = PARSER_CASES[0][1]  # "truncated mid-JSON"
    _, cut_items, _ = _streamed(cut, width)
    return "\n".join([
        f"A reply streamed {width} characters a chunk (a stand-in for tokens), through StreamParser:", "",
        format_table(["chunk", "text", "feed() reports", "prose shown (take_text)"], rows), "",
        f"{items[0].name} is ready at chunk {at[0]} of {chunks} and {items[1].name} at chunk {at[1]}: the harness can "
        "start each while the model", "is still writing. feed() and close() give the items parse_tool_calls gives the "
        f"whole reply, spans and all: {'yes' if same else 'NO'}.",
        "Blanks at the end of the prose wait until more prose follows them.",
        f"Lecture case 7 ({label}), streamed the same way: the </tool_call> in its summary comes in chunk {inside} and",
        f"settles nothing; the call comes in chunk {closed}, at its own close, summary {call.arguments['summary']!r}.",
        f"Lecture case 1 (truncated mid-JSON): feed() reports nothing; close() reports {_robust_cell(cut_items)}, as "
        "parse_tool_calls", "does for the whole reply."])
