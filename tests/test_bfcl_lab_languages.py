"""bfcl_lab grades simple_java and simple_javascript as BFCL's own checker does (issue 21, item 1).

Every expected value below comes from BFCL (bfcl-eval 2026.3.23), never from bfcl_lab:
* the converter tables are the outputs of its type converters (eval_checker/ast_eval/
  type_convertor/java_type_converter.py and js_type_converter.py) on these inputs;
* the decoder tables are the outputs of its tree-sitter parsers (model_handler/parser/
  java_parser.py and js_parser.py) on these inputs, FAILS where they raise;
* the graded entries are real simple_java / simple_javascript questions, possible answers and
  results with the verdicts `bfcl evaluate` gave them (the gold and corrupt reference runs,
  and rounds of variants of the gold lines). The function documents are copied without their
  description texts, which grading never reads.
"""
import json
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # for script_runs, however the tests are started

import bfcl_lab  # noqa: E402
import script_runs  # noqa: E402
from bfcl_lab import DecodeError, ast_grade, decode_java_calls, decode_js_calls, java_value, js_value  # noqa: E402

PASS = ""  # the expected error_type of a passing verdict
FAILS = "FAILS"  # BFCL's decoder raises: the runner reports ast_decoder:decoder_failed


def outcome(verdict):
    return PASS if verdict.valid else verdict.error_type


def decoded(decoder, text):
    try:
        return decoder(text)
    except DecodeError:
        return FAILS


# --- 1. The converters: source text -> the value the checker compares ---

JAVA_VALUES = [  # (text, Java type, items type, what BFCL's java_type_converter returns)
    ("127", "byte", None, 127),
    ("-32768", "short", None, -32768),
    ("42", "integer", None, 42),
    ("42.0", "integer", None, "42.0"),  # no match: stays text, so the type check fails
    ("true", "integer", None, "true"),
    ("5L", "long", None, 5),
    ("5", "long", None, "5"),  # the L is required
    ("-9l", "long", None, -9),
    ("1.5f", "float", None, 1.5),
    ("3e3F", "float", None, 3000.0),
    ("1.5", "float", None, "1.5"),  # the f is required
    ("3.14", "double", None, 3.14),
    ("3.14e-2", "double", None, 0.0314),
    ("1.5d", "double", None, "1.5d"),  # a d suffix is not accepted
    ("true", "boolean", None, True),
    ("True", "boolean", None, "True"),
    ("c", "char", None, "c"),
    ("'c'", "char", None, "'c'"),  # the char pattern never matches: the text as is
    ("abc", "String", None, "abc"),
    ('"abc"', "String", None, '"abc"'),
    ("42", "any", None, "42"),
    ("new int[]{1, 2, 3}", "Array", "integer", [1, 2, 3]),
    ("new int[] { }", "Array", "integer", []),
    ('new String[]{"a", "b"}', "Array", "String", ['"a"', '"b"']),  # the quotes stay: a String[] never matches
    ('new Object[]{1, "abc", true, 5L}', "Array", None, [1, "abc", True, 5]),
    ("new long[]{1L, 2}", "Array", "long", [1, "2"]),
    ("int[]{1, 2}", "Array", "integer", "int[]{1, 2}"),
    ('new ArrayList<>(Arrays.asList("a", "b"))', "ArrayList", "String", ["a", "b"]),
    ("new ArrayList<>(Arrays.asList(101L, 202L))", "ArrayList", "long", [101, 202]),
    ("new ArrayList<>(Arrays.asList(userID, 42, true))", "ArrayList", "any", ["userID", "42", "true"]),
    ("new ArrayList<>(Arrays.asList(42, x))", "ArrayList", "String", ["", ""]),  # first and last char dropped
    ('new ArrayList<String>() {{ add("a"); add("b"); }}', "ArrayList", "String", ["a", "b"]),
    ("new ArrayList<>()", "ArrayList", "integer", []),
    ("Arrays.asList(1, 2)", "ArrayList", "integer", "Arrays.asList(1, 2)"),
    ('new HashMap<String, Object>() {{ put("limit", 50); put("schemaFilter", "public"); }}', "HashMap", None,
     {"limit": 50, "schemaFilter": "public"}),
    ('new HashMap<String, Object>() {{ put("k", 5L); put("f", 1.5f); put("b", true); }}', "HashMap", None,
     {"k": 5, "f": 1.5, "b": True}),
    ("new HashMap<String,Object>()", "HashMap", None, {}),  # what the prompt-mode decoder leaves of a map
    ("new HashMap<>() {{ }}", "HashMap", None, {}),
    ("new HashMap<String, Integer>() {{ put(limit, 50); }}", "HashMap", None, {}),  # only "quoted" keys
    ("Map.of()", "HashMap", None, "Map.of()"),
]

JS_VALUES = [  # (text, JavaScript type, items type, what BFCL's js_type_converter returns)
    ("'urgent'", "String", None, "urgent"),
    ('"urgent"', "String", None, "urgent"),
    ("urgent", "String", None, "urgent"),
    ('"a" + "b"', "String", None, 'a" + "b'),
    ("42", "integer", None, 42),
    ("4.0", "integer", None, "4.0"),
    ("2.5", "float", None, 2.5),
    ("3", "float", None, 3.0),
    ("1e3", "float", None, "1e3"),  # no exponent for a JavaScript float
    ("10n", "Bigint", None, 10),
    ("10", "Bigint", None, "10"),
    ("true", "Boolean", None, True),
    ("TRUE", "Boolean", None, "TRUE"),
    ("x", "any", None, "x"),
    ("[3, 1, 2]", "array", "integer", [3, 1, 2]),
    ("[]", "array", "integer", []),
    ("[\"a\", 'b']", "array", "String", ["a", "b"]),
    ("[1, 'two', true]", "array", None, [1, "two", True]),
    ("[1.5, 2]", "array", "float", [1.5, 2.0]),
    ("new Array(4, 5)", "array", "integer", [4, 5]),
    ("[[1, 2], [3, 4]]", "array", "array", [[1, 2], [3, 4]]),
    ("[10.0, 15.0]", "array", "float", [10.0, 15.0]),
    ("myList", "array", "String", "myList"),
    ('[{"a": 1}, {"b": 2}]', "array", "dict", [{"a": 1}, {"b": 2}]),
    ("{}", "dict", None, {}),
    ('{method: "GET"}', "dict", None, {"method": "GET"}),
    ("{'key': 123, \"q\": '5', b: true}", "dict", None, {"key": 123, "q": 5, "b": True}),  # a quoted '5' is 5
    ('{m: ["a", "b"], n: {x: 1}}', "dict", None, {"m": ["a", "b"], "n": "{x: 1"}),  # up to the first }
    ("{a: {b: 1}, c: 2}", "dict", None, {"a": "{b: 1"}),
    ("config", "dict", None, "config"),
]


class Converters(unittest.TestCase):
    """java_value and js_value return what BFCL's converters return, text for a mismatch included."""

    def test_java_values(self):
        for text, java_type, items, expected in JAVA_VALUES:
            with self.subTest(text=text, type=java_type, items=items):
                got = java_value(text, java_type, items)
                self.assertEqual((type(got), got), (type(expected), expected))

    def test_js_values(self):
        for text, js_type, items, expected in JS_VALUES:
            with self.subTest(text=text, type=js_type, items=items):
                got = js_value(text, js_type, items)
                self.assertEqual((type(got), got), (type(expected), expected))

    def test_unsupported_and_unknown_types(self):
        for java_type in ("Set", "Hashtable", "Queue", "Stack"):  # BFCL: NotImplementedError, the run stops
            with self.subTest(java_type), self.assertRaisesRegex(ValueError, "not supported"):
                java_value("x", java_type)
        for convert, name in ((java_value, "string"), (java_value, "int"), (js_value, "object"), (js_value, "str")):
            with self.subTest(name), self.assertRaisesRegex(ValueError, "unknown"):
                convert("x", name)

    def test_the_type_tables(self):
        self.assertEqual(sorted(bfcl_lab.JAVA_TYPES), sorted(
            ["byte", "short", "integer", "long", "float", "double", "boolean", "char", "String", "any", "Array",
             "ArrayList", "Queue", "Stack", "HashMap", "Hashtable", "Set"]))
        self.assertEqual(sorted(bfcl_lab.JS_TYPES), sorted(
            ["String", "integer", "float", "Bigint", "Boolean", "any", "array", "dict"]))
        self.assertEqual([bfcl_lab.JAVA_TYPES[t] for t in ("long", "double", "char", "Stack", "Hashtable", "Set")],
                         [int, float, str, list, dict, set])
        self.assertEqual([bfcl_lab.JS_TYPES[t] for t in ("Bigint", "Boolean", "any", "array", "dict")],
                         [int, bool, str, list, dict])

    def test_language_of(self):
        cases = [("simple_java", "java"), ("simple_javascript", "javascript"), ("simple_python", "python"),
                 ("simple", "python"), ("multiple", "python"), ("live_simple", "python"), ("irrelevance", "python")]
        for category, language in cases:
            with self.subTest(category):
                self.assertEqual(bfcl_lab.language_of(category), language)


# --- 2. The prompt-mode decoders: call text -> [{name: {argument: source text}}] ---

JAVA_DECODE = [  # (the text after BFCL's strip and bracket steps, what its Java parser returns)
    ("[Intro.step(w=800, h=600)]", [{"Intro.step": {"w": "800", "h": "600"}}]),
    ("[Intro.step(w=800, h=600);]", [{"Intro.step": {"w": "800", "h": "600"}}]),
    ("", {}),  # no call: the runner says decoder_wrong_output_format
    ("[]", {}),
    ("hello world", {}),  # a declaration: valid Java, no call
    ('[JNIBridge.setLauncherInfo(launcher="/usr/local/bin/dbeaver", name="DBeaverLauncher")]',
     [{"JNIBridge.setLauncherInfo": {"launcher": "/usr/local/bin/dbeaver", "name": "DBeaverLauncher"}}]),
    ('[A.setValue(text="a\\"b\\n", ch=\'x\', big=5L, f=1.5f, neg=-3, nothing=null)]',  # quotes off, not unescaped
     [{"A.setValue": {"text": 'a\\"b\\n', "ch": "x", "big": "5L", "f": "1.5f", "neg": "-3", "nothing": "null"}}]),
    ("[TwoSum.twoSum(nums=new int[]{2, 7, 11, 15}, target=9)]",  # an array is written without spaces
     [{"TwoSum.twoSum": {"nums": "new int[]{2,7,11,15}", "target": "9"}}]),
    ('[RedissonConnection.bitOp(op=BitOperation.AND, keys=new String[] {"today", "yesterday"})]',
     [{"RedissonConnection.bitOp": {"op": "BitOperation.AND", "keys": 'new String[]{"today","yesterday"}'}}]),
    ('[SQLCompletionAnalyzer.makeProposalsFromObject(object=Customers, params=new HashMap<String, Object>() '
     '{{ put("limit", 50); }})]',  # the anonymous class body is dropped
     [{"SQLCompletionAnalyzer.makeProposalsFromObject": {"object": "Customers",
                                                        "params": "new HashMap<String,Object>()"}}]),
    ("[EFSNIOResource.copy(destination=new Path('/backup/data.txt'), force=true)]",
     [{"EFSNIOResource.copy": {"destination": "new Path('/backup/data.txt')", "force": "true"}}]),
    ("[PmsProductServiceImpl.updateNewStatus(ids=new ArrayList<>(Arrays.asList(101L, 202L)), newStatus=2)]",
     [{"PmsProductServiceImpl.updateNewStatus": {"ids": "new ArrayList<>(Arrays.asList(101L, 202L))",
                                                "newStatus": "2"}}]),
    ("[MethodInvokeTest.checkInjectedInvoker(csm=csmInstance, expected=MyExpectedClass.class)]",
     [{"MethodInvokeTest.checkInjectedInvoker": {"csm": "csmInstance", "expected": "MyExpectedClass.class"}}]),
    ("[Builder.run(fn=x -> x + 1, ref=ActiveMQCollector.Builder::getConcurrency, sum=a + b * 2)]",
     [{"Builder.run": {"fn": "x->x+1", "ref": "ActiveMQCollector.Builder::getConcurrency", "sum": "a+b*2"}}]),
    ("[AltibaseGrantee.prepareObjectsStatement(JDBC_session, JohnDoe)]", FAILS),  # two positionals share None
    ("[AltibaseGrantee.prepareObjectsStatement(JDBC_session, owner=JohnDoe)]",
     [{"AltibaseGrantee.prepareObjectsStatement": {None: "JDBC_session", "owner": "JohnDoe"}}]),
    ('[NFILibrary.isMemberReadable("getVersion")]', [{"NFILibrary.isMemberReadable": {}}]),  # a literal: dropped
    ("[NFILibrary.isMemberReadable(a=5, a=6)]", FAILS),
    ("[A.bbbbbbbbbbbbbbb(x=1), C.dddddddddddddd(y=2)]", FAILS),  # two calls
    ("[None of the provided functions can be used to answer this question.]", FAILS),
    ("[A.b(x=1)]", FAILS),  # at most 10 characters without ";": tree-sitter's ERROR
    ("[A.b(x=1);]", [{"A.b": {"x": "1"}}]),
    ("[Abc.def(x=1)]", [{"Abc.def": {"x": "1"}}]),
    ("[NFILibrary.isMemberReadable(a=5)\nLibraryExport.createDelegate(b=6)]",
     [{"NFILibrary.isMemberReadable": {"a": "5"}}]),
    ("[NFILibrary.isMemberReadable(a=5)\nIntro.step(w=800)]", FAILS),  # a short name after a missing ";"
    ("[Answer: Intro.step(w=800, h=600)]", [{"Intro.step": {"w": "800", "h": "600"}}]),  # a labeled statement
    ("[java\nIntro.step(w=800, h=600)]", FAILS),  # what BFCL's strip leaves of a ```java fence
    ("[Intro.step(w=800, h=600)\nThis calls the function.]", FAILS),
    ("[Intro.step(w=800, h=600, )]", [{"Intro.step": {"w": "800", "h": "600", None: ""}}]),  # MISSING identifier
    ("[EFSNIOFile.setContents(force=true, monitor=progressMonitor, )]",
     [{"EFSNIOFile.setContents": {"force": "true", "monitor": "progressMonitor", None: ""}}]),
    ('[Geo.locate(city="São Paulo", zoom=5)]',  # BFCL cuts the str at byte offsets: ã is 2 bytes
     [{"Geo.locate": {"city": 'São Paulo"', "oom=": ")"}}]),
    ("[Arrays.fill(a=new int[5], v=0)]", FAILS),  # an array without {...}
    ("[int result = Intro.step(w=800, h=600);]", [{"Intro.step": {"w": "800", "h": "600"}}]),
]

JS_DECODE = [  # (the text after BFCL's strip and bracket steps, what its JavaScript parser returns)
    ('[setText(newText="Hello, World!", start=5.0, length=7.0)]',
     [{"setText": {"newText": "Hello, World!", "start": "5.0", "length": "7.0"}}]),
    ("[setText(newText='Hi', start=5.0);]", [{"setText": {"newText": "Hi", "start": "5.0"}}]),
    ("", None),  # no call: the runner says decoder_wrong_output_format
    ("[]", None),
    ("[getUniqueSorted(array=[3, 1, 2, 1, 4, 3]), getUniqueSorted(array=[3, 1])]", None),  # one comma expression
    ("[None of the provided functions can be used to answer this question.]", FAILS),
    ("[hello]", None),
    ('[manageReactState(store={initialState: "init", middlewares: ["logger"]}, context="React.createContext()")]',
     [{"manageReactState": {"store": '{initialState: "init", middlewares: ["logger"]}',
                            "context": "React.createContext()"}}]),
    ('[f(x="a" + "b", y=`t${v}`, z=(a) => a + 1, w=null, v=-1.5, u=/ab+c/g)]',
     [{"f": {"x": 'a" + "b', "y": "`t${v}`", "z": "(a) => a + 1", "w": "null", "v": "-1.5", "u": "/ab+c/g"}}]),
    ("[prioritizeAndSort(myItemList, ascending=true)]",
     [{"prioritizeAndSort": {None: "myItemList", "ascending": "true"}}]),
    ("[prioritizeAndSort(items, true)]", FAILS),  # an identifier and true both go under None
    ("[prioritizeAndSort(false, 1, 'urgent', ascending=true)]", [{"prioritizeAndSort": {"ascending": "true"}}]),
    ("[f(x=1, x=2)]", FAILS),
    ("[api.client.fetch(url='/x')]", [{"api.client.fetch": {"url": "/x"}}]),
    ("[f(x=1)\ng(y=2)]", [{"f": {"x": "1"}}]),  # a line break ends a statement
    ("[ffffffffffff(x=1) g(y=2)]", FAILS),  # one line: g is read as an ERROR before (y=2)
    ("[f(x=1) g(y=2)]", FAILS),
    ('[javascript\nsTe(r="2023-04-01")]', [{"sTe": {"r": "2023-04-01"}}]),  # a ```javascript fence passes
    ('[Answer: sTe(r="2023-04-01")]', None),  # a labeled statement is not an expression statement
    ("[const r = f(x=1);]", None),
    ("[f(x=1, )]", [{"f": {"x": "1"}}]),
    ("[await f(x=1)]", None),
    ("[new F(x=1)]", None),
    ("[f(x=1))]", FAILS),
    ('[f(x="unclosed)]', FAILS),
    # an outside check (bfcl evaluate on simple_javascript_41 and _45): a JSON object is an object expression to
    # tree-sitter, not a block with string labels: no call, BFCL's wrong output format, not a failed decode
    ('[{"name": "queue_1", "arguments": {"worker": "w", "concurrency": 5.0}}]', None),
    ('{"name": "Sde"}', None),
]


class Decoders(unittest.TestCase):
    """decode_java_calls and decode_js_calls read call text as BFCL's tree-sitter parsers do."""

    def test_java(self):
        for text, expected in JAVA_DECODE:
            with self.subTest(text):
                self.assertEqual(decoded(decode_java_calls, text), expected)

    def test_javascript(self):
        for text, expected in JS_DECODE:
            with self.subTest(text):
                self.assertEqual(decoded(decode_js_calls, text), expected)

    def test_a_bare_call_needs_no_brackets(self):
        self.assertEqual(decode_java_calls("Intro.step(w=800, h=600)"), [{"Intro.step": {"w": "800", "h": "600"}}])
        self.assertEqual(decode_js_calls("B(t=5.0)"), [{"B": {"t": "5.0"}}])

    def test_a_failure_says_where(self):
        with self.assertRaisesRegex(DecodeError, r"java: expected ';' at character 25, got ','"):
            decode_java_calls("[Intro.step(w=800, h=600), Intro.step(w=1, h=2)]")


# --- 2b. Text nested past what a recursive reader can hold: a DecodeError, never a RecursionError ---

def nested(depth):
    """Call texts (language, what nests, text) that nest depth levels deep in one argument's value."""
    return [
        ("javascript", "arrays", "[f(a=" + "[" * depth + "1" + "]" * depth + ")]"),
        ("javascript", "parentheses", "f(a=" + "(" * depth + "x" + ")" * depth + ")"),
        ("javascript", "objects", "[f(a=" + "{k: " * depth + "1" + "}" * depth + ")]"),
        ("javascript", "negations", "[f(a=" + "!" * depth + "x)]"),
        ("javascript", "calls in arguments", "[f(a=" + "g(" * depth + ")" * depth + ")]"),
        ("javascript", "templates", "[f(a=" + "`${" * depth + "1" + "}`" * depth + ")]"),
        ("javascript", "JSX elements", "[f(a=" + "<a>" * depth + "</a>" * depth + ")]"),
        ("javascript", "JSX in {...}", "[f(a=" + "<a>{" * depth + "1" + "}</a>" * depth + ")]"),
        ("javascript", "blocks", "[" + "{" * depth + "f(a=1)" + "}" * depth + "]"),
        ("java", "parentheses", "[A.b(x=" + "(" * depth + "1" + ")" * depth + ")]"),
        ("java", "array initializers", "[A.b(x=new int[]" + "{" * depth + "1" + "}" * depth + ")]"),
        ("java", "minus signs", "[A.b(x=" + "- " * depth + "1)]"),
        ("java", "type arguments", "[A.b(x=new " + "List<" * depth + "X" + ">" * depth + "())]"),
        ("java", "a member chain", "[A.b(x=y" + ".z" * depth + ")]"),  # a loop to read, a deep tree to write back
        ("java", "blocks", "[" + "{" * depth + "A.b(x=1);" + "}" * depth + "]"),
    ]


class DeepNesting(unittest.TestCase):
    """decode_ast promises DecodeError for text it cannot read, however deeply the text nests (issue 31, item 5)."""

    def test_shallow_nesting_still_decodes(self):
        cases = [  # (language, text, the value as BFCL's readers write it back: the source text)
            ("javascript", "[f(a=[[[1]]])]", [{"f": {"a": "[[[1]]]"}}]),
            ("javascript", "[f(a=!!!x)]", [{"f": {"a": "!!!x"}}]),
            ("java", "[A.b(x=(((1))))]", [{"A.b": {"x": "(((1)))"}}]),
            ("java", "[A.b(x=new int[]{{{1}}})]", [{"A.b": {"x": "new int[]{{{1}}}"}}]),
        ]
        for language, text, expected in cases:
            with self.subTest(language=language, text=text):
                self.assertEqual(bfcl_lab.decode_ast(text, "prompt", language), expected)

    def test_deep_nesting_is_a_decode_error(self):
        limit = bfcl_lab.MAX_NESTING
        for depth in (limit + 50, 1_500):  # 1,500: past the interpreter's recursion limit (1,000) on 3.10 to 3.13
            for language, what, text in nested(depth):
                with self.subTest(language=language, what=what, depth=depth):
                    with self.assertRaisesRegex(DecodeError, f"^{language}: .*nested more than {limit} levels"):
                        bfcl_lab.decode_ast(text, "prompt", language)

    def test_grade_counts_a_deep_line_as_a_decoder_failure(self):
        """`bfcl_lab.py grade`, run as a user runs it: the deep line fails to decode, the run ends normally."""
        for category, argv in DEEP_GRADES:
            with self.subTest(category):
                run = script_runs.command(*argv)
                self.assertEqual((run.returncode, run.stderr), (0, ""))
                self.assertRegex(run.stdout, rf"(?m)^{category} +1 +2 +50\.00%$")
                self.assertRegex(run.stdout, rf"(?m)^  {category}_1: ast_decoder:decoder_failed: .*nested more than")


def deep_grade_files(folder: str, depth: int = 5_000) -> list[tuple[str, tuple[str, ...]]]:
    """Write a question, an answer and a result file per category, the second result nested depth deep; return
    (category, the `bfcl_lab.py grade` command line) for each."""
    cases = [  # (category, function, ground truth, a passing result, a result nested depth deep)
        ("simple_javascript", jdoc("f", ["a"], a=t("String")), {"f": {"a": ["x"]}}, '[f(a="x")]',
         "[f(a=" + "[" * depth + "1" + "]" * depth + ")]"),
        ("simple_java", jdoc("Intro.step", ["x"], x=t("String")), {"Intro.step": {"x": ["x"]}},
         '[Intro.step(x="x")]',  # not A.b(x="x"): tree-sitter reads a first call of 10 characters as an ERROR
         "[Intro.step(x=" + "(" * depth + "1" + ")" * depth + ")]"),
    ]
    commands = []
    for category, function, truth, good, deep in cases:
        ids = [f"{category}_0", f"{category}_1"]
        files = {"questions.json": [{"id": i, "question": [[{"role": "user", "content": "."}]],
                                     "function": [function]} for i in ids],
                 "answers.json": [{"id": i, "ground_truth": [truth]} for i in ids],
                 "results.json": [{"id": i, "result": r} for i, r in zip(ids, (good, deep))]}
        for name, lines in files.items():
            Path(folder, f"{category}_{name}").write_text("\n".join(json.dumps(x) for x in lines) + "\n",
                                                          encoding="utf-8")
        commands.append((category, (str(ROOT / "bfcl_lab.py"), "grade",
                                    *(str(Path(folder, f"{category}_{name}")) for name in files), "--mode", "prompt")))
    return commands


# --- 3. Real entries, graded with the language ---

def jdoc(function, required, /, **properties):
    """A BFCL function document (positional-only: a parameter may be called name)."""
    return {"name": function, "parameters": {"type": "dict", "properties": properties, "required": required}}


def t(type_name, items=None, /, **properties):
    """A parameter's type: items for an array's item type, properties for a dict's."""
    spec = {"type": type_name}
    if items:
        spec["items"] = {"type": items}
    if properties:
        spec["properties"] = properties
    return spec


MAP_1 = 'new HashMap<String, Object>() {{ put("limit", 50); put("schemaFilter", "public"); }}'
MAP_64 = 'new HashMap<String, Object>() {{ put("format", "epoch_millis"); }}'
STORE_5 = ('{initialState: "initialStateObject", reducers: "reducersMap", middlewares: ["loggerMiddleware"], '
           'enhancers: ["applyMiddleware(\'myMiddleWare\')"]}')
HOOKS_5 = '{useStateSelector: "useStateSelectorHook", useDispatchAction: "useDispatchActionHook"}'
FETCH_12 = 'requestConfig={method: "GET"}, expectedResponse={key: "value"}'

ENTRIES = [  # (id, function document, ground truth, [(mode, result, official error_type; "" = pass)])
    ("simple_java_1",
     jdoc("SQLCompletionAnalyzer.makeProposalsFromObject", ["object", "useShortName", "params"],
          object=t("any"), useShortName=t("boolean"), params=t("HashMap")),
     [{"SQLCompletionAnalyzer.makeProposalsFromObject": {"object": ["Customers"], "useShortName": [True],
                                                        "params": [{"limit": [50], "schemaFilter": ["public"]}]}}],
     [("prompt", f"[SQLCompletionAnalyzer.makeProposalsFromObject(object=Customers, useShortName=true, params={MAP_1})]",
       "value_error:dict_key"),  # gold: the prompt decoder drops the map's body
      ("fc", [{"SQLCompletionAnalyzer_makeProposalsFromObject": json.dumps(
          {"object": "Customers", "useShortName": "true", "params": MAP_1})}], PASS),  # gold
      ("fc", [{"SQLCompletionAnalyzer_makeProposalsFromObject": json.dumps(
          {"object": "Customers", "useShortName": "True", "params": MAP_1})}], "type_error:simple"),
      ("fc", [{"SQLCompletionAnalyzer_makeProposalsFromObject": json.dumps(
          {"object": '"Customers"', "useShortName": '"true"', "params": MAP_1})}], "value_error:string"),
      ("prompt", f"[SQLCompletionAnalyzer.makeProposalsFromObject(Customers, useShortName=true, params={MAP_1})]",
       "simple_function_checker:missing_required")]),
    ("simple_java_27",
     jdoc("TwoSum.twoSum", ["nums", "target"], nums=t("Array", "integer"), target=t("integer")),
     [{"TwoSum.twoSum": {"nums": [[2, 7, 11, 15]], "target": [9]}}],
     [("prompt", "[TwoSum.twoSum(nums=new int[]{2, 7, 11, 15}, target=9)]", PASS),
      ("fc", [{"TwoSum_twoSum": '{"nums": "new int[]{2, 7, 11, 15}", "target": "9"}'}], PASS),
      ("fc", [{"TwoSum_twoSum": '{"nums": "new int[]{2, 7, 11, 15, 2}", "target": "9"}'}], "value_error:list/tuple"),
      ("fc", [{"TwoSum_twoSum": '{"nums": "new int[]{2, 7, 11, 15}", "target": 9}'}], "type_error:java"),
      ("fc", [{"TwoSum_twoSum": '{"nums": "new int[]{2, 7, 11, 15}", "target": "9", "zqExtra": "1"}'}],
       "simple_function_checker:unexpected_param")]),
    ("simple_java_32",
     jdoc("RedissonPermitExpirableSemaphore.tryAcquireAsync", ["waitTime", "leaseTime", "unit"],
          waitTime=t("long"), leaseTime=t("long"), unit=t("String")),
     [{"RedissonPermitExpirableSemaphore.tryAcquireAsync": {"waitTime": [5], "leaseTime": [120], "unit": ["SECONDS"]}}],
     [("prompt", '[RedissonPermitExpirableSemaphore.tryAcquireAsync(waitTime=5L, leaseTime=120L, unit="SECONDS")]', PASS),
      ("fc", [{"RedissonPermitExpirableSemaphore_tryAcquireAsync":
               '{"waitTime": "5L", "leaseTime": "120L", "unit": "SECONDS"}'}], PASS),
      ("prompt", '[RedissonPermitExpirableSemaphore.tryAcquireAsync(waitTime=5, leaseTime=120, unit="SECONDS")]',
       "type_error:simple"),  # a long needs its L
      ("fc", [{"RedissonPermitExpirableSemaphore_tryAcquireAsync":
               '{"waitTime": "5", "leaseTime": "120", "unit": "SECONDS"}'}], "type_error:simple"),
      ("prompt", "[RedissonPermitExpirableSemaphore.tryAcquireAsync(waitTime=5L, leaseTime=120L, unit='SECONDS')]",
       PASS)]),
    ("simple_java_35",
     jdoc("RedissonConnection.bitOp", ["op", "destination", "keys"], op=t("any"),
          destination=t("Array", "String"), keys=t("Array", "String")),
     [{"RedissonConnection.bitOp": {"op": ["BitOperation.AND"], "destination": ["user:online:both"],
                                   "keys": [["user:online:today", "user:online:yesterday"]]}}],
     [("prompt", '[RedissonConnection.bitOp(op=BitOperation.AND, destination="user:online:both", '
                 'keys=new String[]{"user:online:today", "user:online:yesterday"})]', "value_error:list/tuple"),
      ("fc", [{"RedissonConnection_bitOp": json.dumps(
          {"op": "BitOperation.AND", "destination": "user:online:both",
           "keys": 'new String[]{"user:online:today", "user:online:yesterday"}'})}], "value_error:list/tuple")]),
    ("simple_java_36",
     jdoc("ObjectMapEntryReplayDecoder.decode", ["parts", "state"], parts=t("ArrayList", "any"), state=t("any")),
     [{"ObjectMapEntryReplayDecoder.decode": {"parts": [["userID", 42, "username", "johndoe", "isActive", True]],
                                             "state": ["processingState"]}}],
     [("prompt", "[ObjectMapEntryReplayDecoder.decode(parts=new ArrayList<>(Arrays.asList(userID, 42, username, "
                 "johndoe, isActive, true)), state=processingState)]", "value_error:list/tuple")]),
    ("simple_java_63",
     jdoc("withinQuery", ["field", "from", "to", "includeFrom", "includeTo"], field=t("String"), to=t("integer"),
          includeFrom=t("boolean"), includeTo=t("boolean"), **{"from": t("integer")}),
     [{"withinQuery": {"field": ["age"], "from": [30], "to": [40], "includeFrom": [True], "includeTo": [False]}}],
     [("prompt", '[withinQuery(field="age", from=30, to=40, includeFrom=true, includeTo=false)]', PASS),
      ("fc", [{"withinQuery": '{"field": "age", "from": 30, "to": 40, "includeFrom": true, "includeTo": false}'}],
       "type_error:java"),
      ("fc", [{"withinQuery": '{"field": "age", "from": "30.0", "to": "40.0", "includeFrom": "true", '
                              '"includeTo": "false"}'}], "type_error:simple"),
      ("prompt", '[withinQuery(field="age", from=30.0, to=40, includeFrom=true, includeTo=false)]', "type_error:simple"),
      ("prompt", '```java\nwithinQuery(field="age", from=30, to=40, includeFrom=true, includeTo=false)\n```',
       "ast_decoder:decoder_failed"),
      ("prompt", '[withinQuery(field="age", from=30, to=40, includeFrom=true, includeTo=false)\n'
                 'DateScriptFieldType.createFieldType(name="timestamp", factory=dateFactory)]', PASS)]),
    ("simple_java_64",
     jdoc("DateScriptFieldType.createFieldType", ["name", "factory", "script", "meta", "onScriptError"],
          name=t("String"), factory=t("any"), script=t("any"), meta=t("HashMap"), onScriptError=t("any")),
     [{"DateScriptFieldType.createFieldType": {"name": ["timestamp"], "factory": ["dateFactory"],
                                              "script": ["dateScript"], "meta": [{"format": "epoch_millis"}],
                                              "onScriptError": ["FAIL"]}}],
     [("prompt", f'[DateScriptFieldType.createFieldType(name="timestamp", factory=dateFactory, script=dateScript, '
                 f'meta={MAP_64}, onScriptError=FAIL)]', PASS),  # the map decodes to {}: "" is in the string
      ("fc", [{"DateScriptFieldType_createFieldType": json.dumps(
          {"name": "timestamp", "factory": "dateFactory", "script": "dateScript", "meta": MAP_64,
           "onScriptError": "FAIL"})}], "value_error:dict_value")]),  # the answer's value is not a list
    ("simple_java_76",
     jdoc("Intro.step", ["w", "h"], w=t("integer"), h=t("integer")),
     [{"Intro.step": {"w": [800], "h": [600]}}],
     [("prompt", "[Intro.step(w=801, h=600)]", "value_error:others"),
      ("fc", [{"Intro_step": '{"w": "\\"800\\"", "h": "\\"600\\""}'}], "type_error:simple"),
      ("fc", [{"Intro_step": "{}"}], "simple_function_checker:missing_required"),
      ("prompt", '[Intro.step(w=800, h=600), JndiLoginModule.verifyPassword(password="P@ssw0rd!")]',
       "ast_decoder:decoder_failed")]),
    ("simple_java_94",
     jdoc("NFILibrary.isMemberReadable", ["symbol"], symbol=t("String"), recursive=t("any")),
     [{"NFILibrary.isMemberReadable": {"symbol": ["getVersion"], "recursive": ["", "null"]}}],
     [("prompt", '[NFILibrary.isMemberReadable("getVersion")]', "simple_function_checker:missing_required"),
      ("fc", [{"NFILibrary_isMemberReadable": {"symbol": "getVersion"}}], "ast_decoder:decoder_failed"),
      ("prompt", "[NFILibrary.isMemberReadable(symbol=getVersion)]", PASS),
      ("prompt", '[NFILibrary.isMemberReadable(symbol="getVersion")\nThis calls the function.]',
       "ast_decoder:decoder_failed")]),
    ("simple_javascript_5",
     jdoc("manageReactState", ["store", "context", "hooks"], context=t("any"), hooks=t("dict"),
          store=t("dict", initialState=t("dict"), reducers=t("dict"), middlewares=t("array", "String"),
                  enhancers=t("array", "String"))),
     [{"manageReactState": {"store": [{"initialState": ["initialStateObject"], "reducers": ["reducersMap"],
                                       "middlewares": [["loggerMiddleware"]],
                                       "enhancers": [["applyMiddleware('myMiddleWare')"]]}],
                            "context": ["React.createContext()"],
                            "hooks": [{"useStateSelector": ["useStateSelectorHook"],
                                       "useDispatchAction": ["useDispatchActionHook"]}]}}],
     [("prompt", f'[manageReactState(store={STORE_5}, context="React.createContext()", hooks={HOOKS_5})]', PASS),
      ("fc", [{"manageReactState": json.dumps({"store": STORE_5, "context": "React.createContext()",
                                               "hooks": HOOKS_5})}], PASS),
      ("prompt", f'[manageReactState(store={STORE_5[:-1]}, zqKey: "Zq"}}, context="React.createContext()", '
                 f'hooks={HOOKS_5})]', "value_error:dict_key")]),
    ("simple_javascript_12",
     jdoc("performDataFetch", ["apiEndpoint", "requestConfig", "expectedResponse"], apiEndpoint=t("String"),
          requestConfig=t("dict", method=t("String"), headers=t("dict"), body=t("String")),
          expectedResponse=t("dict"), handleErrors=t("Boolean")),
     [{"performDataFetch": {"apiEndpoint": ["https://api.example.com/data"], "requestConfig": [{"method": ["GET"]}],
                            "expectedResponse": [{"key": ["value"]}], "handleErrors": [True]}}],
     [("prompt", f'[performDataFetch(apiEndpoint="https://api.example.com/data", {FETCH_12}, handleErrors=True)]',
       "type_error:simple"),
      ("prompt", f'[Answer: performDataFetch(apiEndpoint="https://api.example.com/data", {FETCH_12}, '
                 f'handleErrors=true)]', "ast_decoder:decoder_wrong_output_format"),
      ("prompt", f'[performDataFetch(apiEndpoint="https://api.example.com/data", {FETCH_12}, handleErrors=true, )]',
       PASS),
      ("prompt", f'[performDataFetch(apiEndpoint="https://api.example.com/dataZq", {FETCH_12}, handleErrors=true)]',
       "value_error:string")]),
    ("simple_javascript_24",
     jdoc("getUniqueSorted", ["array"], array=t("array", "integer")),
     [{"getUniqueSorted": {"array": [[3, 1, 2, 1, 4, 3]]}}],
     [("prompt", "[getUniqueSorted(array=[3, 1, 2, 1, 4, 3])]", PASS),
      ("prompt", "[getUniqueSorted(array=[3, 1, 2, 1, 4, 3]), getUniqueSorted(array=[3, 1, 2, 1, 4, 3])]",
       "ast_decoder:decoder_wrong_output_format"),
      ("fc", [{"getUniqueSorted": '{"array": "[3, 1, 2, 1, 4, 3]"}'}], PASS),
      ("prompt", '[getUniqueSorted(array=["3", "1", "2", "1", "4", "3"])]', "type_error:nested"),
      ("fc", [{"getUniqueSorted": json.dumps({"array": '["3", "1", "2", "1", "4", "3"]'})}], "type_error:nested")]),
    ("simple_javascript_47",
     jdoc("sTe", ["r", "e", "t"], r=t("String"), e=t("String"), t=t("String")),
     [{"sTe": {"r": ["2023-04-01"], "e": ["2023-04-15"], "t": ["days"]}}],
     [("prompt", '[sTe("2023-04-01", "2023-04-15", "days")]', "simple_function_checker:missing_required"),
      ("fc", [{"sTe": "{}"}], "simple_function_checker:missing_required"),
      ("prompt", "[sTe(r='2023-04-01', e='2023-04-15', t='days')]", PASS),
      ("prompt", '[sTe(r="2023-04-01", e="2023-04-15", t="days")\nThis calls the function.]',
       "ast_decoder:decoder_failed")]),
    ("simple_javascript_11",
     jdoc("prioritizeAndSort", ["items", "priorityStatus", "ascending"], items=t("array", "String"),
          priorityStatus=t("String"), ascending=t("Boolean")),
     [{"prioritizeAndSort": {"items": ["myItemList"], "priorityStatus": ["urgent"], "ascending": [True]}}],
     [("fc", [{"prioritizeAndSort": '{"items": "\\"myItemList\\"", "priorityStatus": "\\"urgent\\"", '
                                    '"ascending": "\\"true\\""}'}], "value_error:others"),
      ("fc", [{"prioritizeAndSort": '{"items": "myItemList", "priorityStatus": "urgent", "ascending": true}'}],
       "type_error:js"),
      ("prompt", '[prioritizeAndSort(items=myItemList, priorityStatus="urgent", ascending=true);]', PASS),
      ("prompt", '```javascript\nprioritizeAndSort(items=myItemList, priorityStatus="urgent", ascending=true)\n```',
       PASS)]),
]


def grade(doc, truth, mode, result, category):
    """Decode as BFCL's OpenAI handler does, apply the runner's two checks, then grade with the language."""
    language = bfcl_lab.language_of(category)
    try:
        if mode == "fc":  # [{name: json.loads(arguments)}]; dict arguments fail in json.loads
            calls = [{name: json.loads(args)} for item in result for name, args in [next(iter(item.items()))]]
        else:  # default_decode_ast_prompting: strip backticks, newlines and spaces, then put in [ ]
            text = result.strip("`\n ")
            text = ("" if text.startswith("[") else "[") + text + ("" if text.endswith("]") else "]")
            calls = (decode_java_calls if language == "java" else decode_js_calls)(text)
    except (DecodeError, TypeError, ValueError):
        return "ast_decoder:decoder_failed"
    if not bfcl_lab.is_call_list(calls):
        return "ast_decoder:decoder_wrong_output_format"
    return outcome(ast_grade([doc], truth, calls, category, dots_to_underscores=mode == "fc", language=language))


class RealEntries(unittest.TestCase):
    """ast_grade with the language gives `bfcl evaluate`'s verdict on real simple_java / simple_javascript lines."""

    def test_official_verdicts(self):
        for entry_id, doc, truth, cases in ENTRIES:
            for mode, result, expected in cases:
                with self.subTest(entry_id, mode=mode, result=str(result)[:80]):
                    self.assertEqual(grade(doc, truth, mode, result, entry_id.rsplit("_", 1)[0]), expected)

    def test_type_errors_say_what_bfcl_says(self):
        doc = jdoc("Intro.step", ["w", "h"], w=t("integer"), h=t("integer"))
        for language, short in (("java", "java"), ("javascript", "js")):
            with self.subTest(language):
                verdict = ast_grade([doc], [{"Intro.step": {"w": [800], "h": [600]}}],
                                    [{"Intro.step": {"w": 800, "h": "600"}}], "simple", language=language)
                self.assertEqual((verdict.error_type, verdict.message), (
                    f"type_error:{short}", "Incorrect type for parameter 'w'. Expected type String, got int. "
                    "Parameter value: 800."))

    def test_the_language_is_explicit(self):
        doc = jdoc("f", ["n"], n=t("integer"))
        truth = [{"f": {"n": [5]}}]
        self.assertTrue(ast_grade([doc], truth, [{"f": {"n": 5}}], "simple_java").valid)  # Python by default
        self.assertEqual(outcome(ast_grade([doc], truth, [{"f": {"n": 5}}], "simple_java", language="java")),
                         "type_error:java")
        with self.assertRaisesRegex(ValueError, "unknown language"):
            ast_grade([doc], truth, [{"f": {"n": 5}}], "simple", language="ruby")

    def test_documents_bfcl_cannot_grade(self):
        cases = [  # BFCL stops with KeyError or NotImplementedError on these: the lab says why
            (jdoc("f", ["s"], s=t("Set")), "not supported"),
            (jdoc("f", ["s"], s=t("List")), "unknown java parameter type"),
            (jdoc("f", ["s"], s=t("Array")), "item type None"),
        ]
        for doc, message in cases:
            with self.subTest(message), self.assertRaisesRegex(ValueError, message):
                ast_grade([doc], [{"f": {"s": ["x"]}}], [{"f": {"s": "x"}}], "simple_java", language="java")


# --- 4. Regex literals and JSX, where the lab's reader was more lenient than tree-sitter, or stricter (issue 36) ---

JS_REGEX_DECODE = [  # (text, what BFCL's JavaScript parser returns): tree-sitter's regex_flags are /[a-z]+/
    ("[f(a=/p/A)]", FAILS),  # a capital after the closing /: a name with no operator before it
    ("[f(a=/p/g1)]", FAILS),
    ("[getDirectoryToWatchFromFailedLookupLocationDirectory(dir=/projects/myApp/node_modules/react, "
     "dirPath=/projects/myApp/node_modules/react)]", FAILS),  # simple_javascript_38, unquoted: /projects/my App ...
    ("[f(a=/p/x, b=/p/gg, c=/p/gimsuyvd)]",  # any lower case letters, repeated too: ECMAScript's set is not checked
     [{"f": {"a": "/p/x", "b": "/p/gg", "c": "/p/gimsuyvd"}}]),
    ("[f(a=/[/]/g, b=/a\\/b/i)]", [{"f": {"a": "/[/]/g", "b": "/a\\/b/i"}}]),
    ("[f(a=typeof /x/g, b=x.in / 2)]", [{"f": {"a": "typeof /x/g", "b": "x.in / 2"}}]),  # after typeof a value begins
    ("[f(a=/p/ig.test(s))]", [{"f": {"a": "/p/ig.test(s)"}}]),
]

JSX_DECODE = [  # (text, what BFCL's JavaScript parser returns): tree-sitter-javascript reads JSX wherever a value may
    ("[f(a=<div/>)]", [{"f": {"a": "<div/>"}}]),
    ("[f(a=<div className=\"x\" data-id='7' {...p}>{y} &amp; text</div>, b=2)]",
     [{"f": {"a": "<div className=\"x\" data-id='7' {...p}>{y} &amp; text</div>", "b": "2"}}]),
    ("[f(a=<></>, b=<a.b.c/>, c=<svg:rect/>)]", [{"f": {"a": "<></>", "b": "<a.b.c/>", "c": "<svg:rect/>"}}]),
    ("[f(a=<a></b>)]", [{"f": {"a": "<a></b>"}}]),  # the closing tag's name is not compared
    ("[f(a=<a x={<b/>}>{[1, 2]}</a>.props)]", [{"f": {"a": "<a x={<b/>}>{[1, 2]}</a>.props"}}]),
    ("[f(<div/>)]", [{"f": {}}]),  # a positional value that is not a name: dropped
    ("[<a/>(x=1)]", [{"<a/>": {"x": "1"}}]),
    ("[<div/>]", None),  # no call
    ("[f(a=1 < 2, b=x<y>z)]", [{"f": {"a": "1 < 2", "b": "x<y>z"}}]),  # after a value, < compares
    ("[f(a=<div>a > b</div>)]", FAILS),  # > and a bare & are not JSX text
    ("[f(a=<div>a & b</div>)]", FAILS),
    ('[f(a=<a b="x&y"/>)]', FAILS),  # &y without ; is no entity
    ("[f(a=<a x=1/>)]", FAILS),  # an attribute's value: a string, {...} or an element
    ("[f(a=<a>{x y}</a>)]", FAILS),
    ("[f(a=new <div/>)]", FAILS),
    ("[f(a=<div / >)]", FAILS),  # /> is one token
    ("[f(a=<div>)]", FAILS),  # not closed
    ("[f(a=<a-b.c/>)]", FAILS),  # a.b.c of plain names only
    ("[f(a=<div/><span/>)]", FAILS),
]

SJS_38 = jdoc("getDirectoryToWatchFromFailedLookupLocationDirectory", ["dir", "dirPath"], dir=t("String"),
              dirPath=t("String"))
SJS_38_PATH = "/projects/myApp/node_modules/react"
SJS_38_TRUTH = [{"getDirectoryToWatchFromFailedLookupLocationDirectory": {"dir": [SJS_38_PATH],
                                                                         "dirPath": [SJS_38_PATH]}}]
SJS_38_CASES = [  # (the result, the verdict of BFCL's decoder and ast_checker)
    (f'[getDirectoryToWatchFromFailedLookupLocationDirectory(dir="{SJS_38_PATH}", dirPath="{SJS_38_PATH}")]', PASS),
    (f"[getDirectoryToWatchFromFailedLookupLocationDirectory(dir={SJS_38_PATH}, dirPath={SJS_38_PATH})]",
     "ast_decoder:decoder_failed"),  # the real line: 1/1 for the lab before, a decoder failure for bfcl
    (f'[getDirectoryToWatchFromFailedLookupLocationDirectory(dir=/projects/myapp/, dirPath="{SJS_38_PATH}")]',
     "ast_decoder:decoder_failed"),
    (f'[getDirectoryToWatchFromFailedLookupLocationDirectory(dir=<div/>, dirPath="{SJS_38_PATH}")]',
     "value_error:string"),  # JSX decodes: the value is then compared
]


class ReadersAtTheEdges(unittest.TestCase):
    """decode_js_calls reads regex literals and JSX as tree-sitter-javascript 0.21.4 does (bfcl-eval 2026.3.23)."""

    def test_regex_flags_are_lower_case_letters(self):
        for text, expected in JS_REGEX_DECODE:
            with self.subTest(text):
                self.assertEqual(decoded(decode_js_calls, text), expected)

    def test_jsx_decodes_where_a_value_may_stand(self):
        for text, expected in JSX_DECODE:
            with self.subTest(text):
                self.assertEqual(decoded(decode_js_calls, text), expected)

    def test_simple_javascript_38(self):
        for result, expected in SJS_38_CASES:
            with self.subTest(result[55:95]):
                self.assertEqual(grade(SJS_38, SJS_38_TRUTH, "prompt", result, "simple_javascript"), expected)

    def test_a_jsx_failure_says_where(self):
        with self.assertRaisesRegex(DecodeError, r"^javascript: in JSX, expected .* at character 12, got '> b</div>"):
            decode_js_calls("[f(a=<div>a > b</div>)]")


_DEEP = tempfile.TemporaryDirectory(prefix="bfcl-deep-")
DEEP_GRADES = deep_grade_files(_DEEP.name)
for _, _argv in DEEP_GRADES:  # run beside the tests from now on
    script_runs.queue_command(*_argv)


def tearDownModule():
    _DEEP.cleanup()


if __name__ == "__main__":
    unittest.main()
