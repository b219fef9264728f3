"""MCP resources, resource templates (RFC 6570 level 1), prompts, completion, content blocks and elicitation
schemas in interfaces.py, as plain functions (no transport).

Expected values come from the MCP specification (revisions 2024-11-05 to 2025-11-25: server/resources,
server/prompts, server/utilities/completion, server/tools content, client/elicitation), RFC 6570 section 3.2.2
(simple string expansion: everything outside the unreserved set is percent-encoded as UTF-8), RFC 3986
section 2.3 (the unreserved characters), the PNG and WAV formats, JSON-RPC 2.0's reserved error codes, and
the texts the conformance suite's scenarios name (tests/conformance_server.py).
"""
import base64
import io
import json
import struct
import sys
import unittest
import wave
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # tests/, for conformance_server

import interfaces as P  # noqa: E402
from interfaces import RPCError  # noqa: E402
import conformance_server  # noqa: E402
from tool_core import ToolRegistry, tool_from_function  # noqa: E402

INVALID_PARAMS, INTERNAL_ERROR = -32602, -32603  # JSON-RPC 2.0, section 5.1


def text_resource(uri="test://a", text="hello", **kw):
    return P.Resource(uri, "a", lambda: text, **kw)


class TemplateTests(unittest.TestCase):
    def test_names_in_order_without_duplicates(self):
        self.assertEqual(P.template_names("file:///{dir}/{name}.{ext}/{dir}"), ["dir", "name", "ext"])
        self.assertEqual(P.template_names("test://fixed"), [])

    def test_malformed_templates(self):
        for bad, words in [("test://{id", "unbalanced"), ("test://id}", "unbalanced"), ("test://{}", "empty"),
                           ("test://{a{b}}", "unbalanced"), ("test://{a b}", "not a valid variable name"),
                           ("test://{+path}", "level 1 only"), ("test://{#frag}", "level 1 only"),
                           ("test://x{?q}", "level 1 only"), ("test://{a,b}", "level 1 only"),
                           ("test://{a:3}", "level 1 only"), ("test://{a*}", "level 1 only")]:
            with self.subTest(bad=bad):
                with self.assertRaises(ValueError) as caught:
                    P.template_names(bad)
                self.assertIn(words, str(caught.exception))

    def test_expand_percent_encodes_outside_unreserved(self):
        self.assertEqual(P.expand_template("test://t/{id}/data", {"id": "a b/c?d#e"}),
                         "test://t/a%20b%2Fc%3Fd%23e/data")
        self.assertEqual(P.expand_template("test://t/{id}", {"id": "A-z_0.9~"}), "test://t/A-z_0.9~")
        self.assertEqual(P.expand_template("test://t/{id}", {"id": "é"}), "test://t/%C3%A9")  # UTF-8 bytes

    def test_expand_refuses_missing_or_non_string_value(self):
        with self.assertRaises(ValueError):
            P.expand_template("test://t/{id}", {})
        with self.assertRaises(ValueError):
            P.expand_template("test://t/{id}", {"id": 3})

    def test_match_decodes_and_round_trips(self):
        template = "test://template/{id}/data"
        self.assertEqual(P.match_template(template, "test://template/123/data"), {"id": "123"})
        for value in ["123", "a b", "x/y", "?#%", "naïve ☃", "100%", "~._-"]:
            with self.subTest(value=value):
                uri = P.expand_template(template, {"id": value})
                self.assertEqual(P.match_template(template, uri), {"id": value})

    def test_match_rejects(self):
        template = "test://template/{id}/data"
        for uri in ["test://template/a/b/data", "test://template//data", "test://template/1/datax",
                    "TEST://template/1/data", "test://template/1?x/data", "test://template/%FF/data"]:
            with self.subTest(uri=uri):
                self.assertIsNone(P.match_template(template, uri))

    def test_repeated_variable_must_repeat_value(self):
        self.assertEqual(P.match_template("x://{a}/{a}", "x://1/1"), {"a": "1"})
        self.assertIsNone(P.match_template("x://{a}/{a}", "x://1/2"))

    def test_literal_regex_characters_are_literal(self):
        self.assertEqual(P.match_template("x://a.b/{n}", "x://a.b/1"), {"n": "1"})
        self.assertIsNone(P.match_template("x://a.b/{n}", "x://aXb/1"))


class PrimitiveTests(unittest.TestCase):
    def test_resource_validation(self):
        for kwargs, words in [({"uri": "no-scheme"}, "scheme"), ({"uri": "test://{id}"}, "ResourceTemplate"),
                              ({"mime_type": "plain"}, "type/subtype")]:
            with self.subTest(kwargs=kwargs), self.assertRaises(ValueError) as caught:
                text_resource(**kwargs)
            self.assertIn(words, str(caught.exception))
        with self.assertRaises(ValueError):
            P.Resource("test://a", "", lambda: "x")

    def test_template_and_prompt_validation(self):
        with self.assertRaises(ValueError):
            P.ResourceTemplate("test://{+x}", "t", lambda x: "")
        with self.assertRaises(ValueError):
            P.ResourceTemplate("test://fixed", "t", lambda: "")
        with self.assertRaises(ValueError) as caught:
            P.ResourceTemplate("test://{x}", "t", lambda x: "", complete={"y": ["a"]})
        self.assertIn("'y'", str(caught.exception))
        with self.assertRaises(ValueError):
            P.Prompt("", "d", lambda: "")
        with self.assertRaises(ValueError):
            P.Prompt("p", "d", lambda a: "", (P.PromptArgument("a"), P.PromptArgument("a")))

    def test_entries_per_revision(self):
        resource = text_resource(title="The A", description="first")
        self.assertEqual(resource.entry("2025-03-26"),
                         {"uri": "test://a", "name": "a", "description": "first", "mimeType": "text/plain"})
        self.assertEqual(resource.entry("2025-06-18")["title"], "The A")
        template = P.ResourceTemplate("test://t/{id}", "t", lambda id: "", title="T", mime_type="application/json")
        self.assertEqual(template.entry("2024-11-05"), {"uriTemplate": "test://t/{id}", "name": "t", "description": "",
                                                        "mimeType": "application/json"})
        self.assertEqual(template.entry("2025-11-25")["title"], "T")
        prompt = P.Prompt("p", "d", lambda team: "", (P.PromptArgument("team", "which team", True),), title="P")
        self.assertEqual(prompt.entry("2025-03-26"), {"name": "p", "description": "d", "arguments": [
            {"name": "team", "description": "which team", "required": True}]})
        self.assertEqual(prompt.entry("2025-06-18")["title"], "P")
        self.assertNotIn("title", text_resource().entry("2025-11-25"))


class ReadTests(unittest.TestCase):
    def test_text_and_blob(self):
        self.assertEqual(P.resource_contents("test://a", "hé", "text/plain"),
                         {"uri": "test://a", "mimeType": "text/plain", "text": "hé"})
        out = P.resource_contents("test://b", b"\x00\xff", "application/octet-stream")
        self.assertEqual(base64.b64decode(out["blob"]), b"\x00\xff")
        self.assertNotIn("text", out)

    def test_wrong_type(self):
        with self.assertRaises(RPCError) as caught:
            P.resource_contents("test://a", {"x": 1}, "text/plain")
        self.assertEqual(caught.exception.code, INTERNAL_ERROR)
        self.assertIn("dict", caught.exception.message)

    def test_bounded(self):
        with self.assertRaises(RPCError) as caught:
            P.read_resource([text_resource(text="x" * 2_000_000)], [], "test://a")
        self.assertEqual(caught.exception.code, -32603)
        self.assertIn("2000000", caught.exception.message)
        self.assertIn("1000000", caught.exception.message)
        self.assertEqual(len(P.resource_contents("test://a", "x" * 1_000_000, "text/plain")["text"]), 1_000_000)
        with self.assertRaises(RPCError):  # 4 characters, 5 bytes of UTF-8: the size counted is the bytes
            P.resource_contents("test://a", "éxyz", "text/plain", limit=4)
        P.resource_contents("test://a", b"12345", "text/plain", limit=5)
        with self.assertRaises(RPCError):
            P.resource_contents("test://a", b"123456", "text/plain", limit=5)

    def test_unknown_uri(self):
        with self.assertRaises(RPCError) as caught:
            P.read_resource([text_resource()], [], "test://nope")
        self.assertEqual(caught.exception.code, INVALID_PARAMS)
        self.assertEqual(caught.exception.data, {"uri": "test://nope"})
        self.assertIn("'test://nope'", caught.exception.message)
        self.assertIn("resources/templates/list", caught.exception.message)

    def test_resource_before_template_and_variables(self):
        seen = []
        template = P.ResourceTemplate("test://t/{id}", "t", lambda id: seen.append(id) or f"id={id}")
        fixed = P.Resource("test://t/fixed", "f", lambda: "fixed")
        self.assertEqual(P.read_resource([fixed], [template], "test://t/fixed")["contents"][0]["text"], "fixed")
        self.assertEqual(P.read_resource([fixed], [template], "test://t/a%2Fb")["contents"],
                         [{"uri": "test://t/a%2Fb", "mimeType": "text/plain", "text": "id=a/b"}])
        self.assertEqual(seen, ["a/b"])

    def test_a_uri_that_only_extends_a_served_one_is_not_served(self):
        # the Cardinal server's resources: one per team (cardinal://teams/firmware) and the template naming them all;
        # a URI is served when it is a resource's URI exactly, or the whole of it matches the template
        def list_people(team: str) -> list:
            """List a team's people.

            Args:
                team: the team
            """
            return [{"name": "Ada Quist", "id": "p-1", "role": "lead"}] if team == "firmware" else []
        spec = {"components": {"schemas": {"Team": {"enum": ["firmware", "design"]}}}}
        registry = ToolRegistry([tool_from_function(list_people, read_only=True)])
        resources, templates, _ = P.cardinal_primitives(registry, spec)
        page = "# The firmware team\n- Ada Quist (p-1), lead\n"
        served = P.read_resource(resources, templates, "cardinal://teams/firmware")["contents"]
        self.assertEqual(served, [{"uri": "cardinal://teams/firmware", "mimeType": "text/markdown", "text": page}])
        for uri in ("cardinal://teams/firmware-x", "cardinal://teams/firmwarex", "cardinal://teams/firmware/x",
                    "cardinal://teams/firmware/", "cardinal://teams/firmware?x=1", "cardinal://teams/firmware#x"):
            with self.subTest(uri=uri):
                with self.assertRaises(RPCError) as caught:
                    P.read_resource(resources, templates, uri)
                self.assertEqual((caught.exception.code, caught.exception.data), (INVALID_PARAMS, {"uri": uri}))

    def test_reader_that_raises(self):
        def broken():
            raise OSError("disk gone")
        with self.assertRaises(RPCError) as caught:
            P.read_resource([P.Resource("test://x", "x", broken)], [], "test://x")
        self.assertEqual(caught.exception.code, INTERNAL_ERROR)
        self.assertEqual(caught.exception.message, "reading test://x failed: OSError: disk gone")


class PromptTests(unittest.TestCase):
    def setUp(self):
        self.prompts = [P.Prompt("report", "a weekly report", lambda team, days="7": f"{team}/{days}",
                                 (P.PromptArgument("team", "the team to report on", True),
                                  P.PromptArgument("days", "how many days"))),
                        P.Prompt("hello", "greets", lambda: [{"role": "assistant", "content": P.text_block("hi")}])]

    def error(self, name, arguments):
        with self.assertRaises(RPCError) as caught:
            P.get_prompt(self.prompts, name, arguments)
        self.assertEqual(caught.exception.code, INVALID_PARAMS)
        return caught.exception.message

    def test_text_render(self):
        self.assertEqual(P.get_prompt(self.prompts, "report", {"team": "ops"}),
                         {"description": "a weekly report",
                          "messages": [{"role": "user", "content": {"type": "text", "text": "ops/7"}}]})

    def test_message_list(self):
        self.assertEqual(P.get_prompt(self.prompts, "hello", None)["messages"][0]["role"], "assistant")
        bad = [P.Prompt("x", "d", lambda: [{"role": "system", "content": P.text_block("no")}])]
        with self.assertRaises(RPCError) as caught:
            P.get_prompt(bad, "x", {})
        self.assertEqual(caught.exception.code, INTERNAL_ERROR)

    def test_unknown_prompt(self):
        self.assertEqual(self.error("nope", {}), "Unknown prompt: 'nope'; the prompts are: report, hello")

    def test_missing_required(self):
        message = self.error("report", {"days": "3"})
        self.assertIn("needs the argument 'team' (the team to report on)", message)
        self.assertIn("days (optional)", message)

    def test_unknown_argument(self):
        message = self.error("report", {"team": "ops", "colour": "red"})
        self.assertIn("'colour'", message)
        self.assertIn("team (required)", message)

    def test_non_string_argument(self):
        self.assertIn("must be a string", self.error("report", {"team": 3}))
        self.assertIn("object", self.error("report", ["ops"]))


class CompletionTests(unittest.TestCase):
    def setUp(self):
        many = [f"item{i:03d}" for i in range(250)]
        self.prompts = [P.Prompt("p", "d", lambda city, n="": "", (P.PromptArgument("city"), P.PromptArgument("n")),
                                 complete={"city": ["Paris", "park", "Lyon", "party"]})]
        self.templates = [P.ResourceTemplate("test://{kind}/{id}", "t", lambda kind, id: "",
                                             complete={"kind": many,
                                                       "id": lambda value, ctx: [ctx.get("kind", "?") + value]})]

    def ask(self, ref, name, value, version="2025-11-25", **extra):
        params = {"ref": ref, "argument": {"name": name, "value": value}} | extra
        return P.complete(self.prompts, self.templates, params, version)["completion"]

    def test_prefix_case_insensitive_in_order(self):
        self.assertEqual(self.ask({"type": "ref/prompt", "name": "p"}, "city", "PAR"),
                         {"values": ["Paris", "park", "party"], "total": 3, "hasMore": False})

    def test_cap_total_has_more(self):
        found = self.ask({"type": "ref/resource", "uri": "test://{kind}/{id}"}, "kind", "item")
        self.assertEqual(len(found["values"]), 100)
        self.assertEqual(found["values"][0], "item000")
        self.assertEqual((found["total"], found["hasMore"]), (250, True))
        found = self.ask({"type": "ref/resource", "uri": "test://{kind}/{id}"}, "kind", "item1")
        self.assertEqual((len(found["values"]), found["total"], found["hasMore"]), (100, 100, False))

    def test_function_gets_context_from_2025_06_18(self):
        ref = {"type": "ref/resource", "uri": "test://{kind}/{id}"}
        self.assertEqual(self.ask(ref, "id", "7", context={"arguments": {"kind": "book"}})["values"], ["book7"])
        self.assertEqual(self.ask(ref, "id", "7", "2025-03-26", context={"arguments": {"kind": "book"}})["values"],
                         ["?7"])

    def test_context_from_exactly_2025_06_18(self):
        # CompleteRequest's context.arguments came with 2025-06-18: from that revision on, not one later
        ref = {"type": "ref/resource", "uri": "test://{kind}/{id}"}
        for version, values in (("2024-11-05", ["?7"]), ("2025-03-26", ["?7"]), ("2025-06-18", ["book7"]),
                                ("2025-11-25", ["book7"])):
            with self.subTest(version=version):
                self.assertEqual(self.ask(ref, "id", "7", version, context={"arguments": {"kind": "book"}})["values"],
                                 values)

    def test_no_completer_is_empty(self):
        self.assertEqual(self.ask({"type": "ref/prompt", "name": "p"}, "n", ""),
                         {"values": [], "total": 0, "hasMore": False})

    def test_errors(self):
        for ref, name in [({"type": "ref/prompt", "name": "zz"}, "city"),
                          ({"type": "ref/resource", "uri": "x://1"}, "a"),
                          ({"type": "ref/tool", "name": "p"}, "city"), ({"type": "ref/prompt", "name": "p"}, "zz")]:
            with self.subTest(ref=ref, name=name), self.assertRaises(RPCError) as caught:
                self.ask(ref, name, "")
            self.assertEqual(caught.exception.code, INVALID_PARAMS)
        with self.assertRaises(RPCError) as caught:
            self.ask({"type": "ref/tool"}, "city", "")
        self.assertIn("ref/prompt", caught.exception.message)
        self.assertIn("ref/resource", caught.exception.message)


def png_chunks(data: bytes):
    at, chunks = 8, []
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        chunks.append((kind, body, crc))
        at += 12 + length
    return chunks


class ContentTests(unittest.TestCase):
    def test_png(self):
        self.assertEqual(P.TINY_PNG[:8], b"\x89PNG\r\n\x1a\n")
        chunks = png_chunks(P.TINY_PNG)
        self.assertEqual([c[0] for c in chunks], [b"IHDR", b"IDAT", b"IEND"])
        for kind, body, crc in chunks:
            self.assertEqual(crc, zlib.crc32(kind + body), kind)
        self.assertEqual(struct.unpack(">IIBB", chunks[0][1][:10]), (1, 1, 8, 2))
        self.assertEqual(zlib.decompress(chunks[1][1]), b"\x00\xff\x00\x00")  # filter 0, then one red pixel

    def test_wav(self):
        with wave.open(io.BytesIO(P.TINY_WAV)) as audio:
            self.assertEqual((audio.getnchannels(), audio.getsampwidth(), audio.getframerate()), (1, 2, 8000))
            self.assertEqual(audio.getnframes(), 80)
            self.assertEqual(set(audio.readframes(80)), {0})

    def test_builders(self):
        self.assertEqual(P.text_block("hi"), {"type": "text", "text": "hi"})
        image = P.image_block(P.TINY_PNG, "image/png")
        self.assertEqual((image["type"], image["mimeType"], base64.b64decode(image["data"])),
                         ("image", "image/png", P.TINY_PNG))
        self.assertEqual(P.audio_block(b"ab", "audio/wav"), {"type": "audio", "data": "YWI=", "mimeType": "audio/wav"})
        self.assertEqual(P.resource_link("test://a", "a"), {"type": "resource_link", "uri": "test://a", "name": "a"})
        self.assertEqual(P.resource_link("test://a", "a", "text/plain", "d")["description"], "d")
        self.assertEqual(P.embedded_resource("test://a", "t", "text/plain"),
                         {"type": "resource", "resource": {"uri": "test://a", "mimeType": "text/plain", "text": "t"}})
        with self.assertRaises(ValueError):
            P.image_block("not bytes", "image/png")

    def test_blocks_for(self):
        blocks = [P.text_block("t"), P.image_block(b"i", "image/png"), P.audio_block(b"a", "audio/wav"),
                  P.resource_link("test://r", "r"), P.embedded_resource("test://e", "e", "text/plain")]
        self.assertEqual(P.blocks_for("2025-06-18", blocks), blocks)
        old = P.blocks_for("2024-11-05", blocks)
        self.assertEqual([b["type"] for b in old], ["text", "image", "text", "text", "resource"])
        self.assertEqual(old[2]["text"], "[an audio/wav block: MCP 2024-11-05 has no audio content]")
        self.assertTrue(old[3]["text"].startswith("[a link to test://r:"))
        mid = P.blocks_for("2025-03-26", blocks)
        self.assertEqual([b["type"] for b in mid], ["text", "image", "audio", "text", "resource"])

    def test_mcp_content(self):
        content = P.MCPContent([P.text_block("x")], {"a": 1})
        self.assertEqual(content.structured, {"a": 1})
        with self.assertRaises(ValueError):
            P.MCPContent([{"text": "no type"}])


class ElicitationTests(unittest.TestCase):
    def schema(self, **properties):
        return {"type": "object", "properties": properties}

    def test_good_schema(self):
        schema = self.schema(name={"type": "string", "minLength": 1}, email={"type": "string", "format": "email"},
                             age={"type": "integer", "minimum": 0}, ok={"type": "boolean", "default": False},
                             size={"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
                             colour={"type": "string", "oneOf": [{"const": "r", "title": "Red"}]},
                             tags={"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 2})
        schema["required"] = ["name"]
        self.assertEqual(P.check_requested_schema(schema), [])

    def test_nested_and_bad(self):
        problems = P.check_requested_schema(self.schema(address={"type": "object", "properties": {}}))
        self.assertEqual(len(problems), 1)
        self.assertIn("nested", problems[0])
        self.assertTrue(P.check_requested_schema(self.schema(x={"type": "string", "format": "phone"})))
        self.assertTrue(P.check_requested_schema(self.schema(x={"type": "array", "items": {"type": "string"}})))
        self.assertTrue(P.check_requested_schema(self.schema(x={"type": "null"})))
        self.assertTrue(P.check_requested_schema({"type": "object", "properties": {}, "required": ["ghost"]}))

    # Found by this file's first run: a schema without "properties", or whose "required" is not a list, crashed
    # the check (a TypeError) instead of coming back as a problem; a host calls it on a server's schema.
    def test_schema_without_properties_is_a_problem_not_a_crash(self):
        self.assertTrue(P.check_requested_schema({"type": "array"}))

    def test_required_not_a_list_is_a_problem_not_a_crash(self):
        self.assertTrue(P.check_requested_schema({"type": "object", "properties": {}, "required": 5}))

    def test_multi_select_only_from_2025_11_25(self):
        schema = self.schema(tags={"type": "array", "items": {"type": "string", "enum": ["a"]}})
        self.assertEqual(P.check_requested_schema(schema, "2025-11-25"), [])
        self.assertTrue(P.check_requested_schema(schema, "2025-06-18"))

    def test_check_elicited(self):
        schema = self.schema(name={"type": "string"}, age={"type": "integer", "minimum": 0},
                             size={"type": "string", "enum": ["s", "m"]})
        schema["required"] = ["name"]
        self.assertEqual(P.check_elicited(schema, {"name": "Ada", "age": 3, "size": "m"}), [])
        self.assertTrue(P.check_elicited(schema, {"age": 3}))  # name is required
        self.assertTrue(P.check_elicited(schema, {"name": "Ada", "size": "xl"}))
        self.assertTrue(P.check_elicited(schema, {"name": {"first": "Ada"}}))
        self.assertTrue(P.check_elicited(schema, "Ada"))


class ConformanceTests(unittest.TestCase):
    def setUp(self):
        self.resources, self.templates, self.prompts = conformance_server.conformance_primitives()

    def test_resources(self):
        self.assertEqual(P.read_resource(self.resources, self.templates, "test://static-text"), {"contents": [
            {"uri": "test://static-text", "mimeType": "text/plain",
             "text": "This is the content of the static text resource."}]})
        blob = P.read_resource(self.resources, self.templates, "test://static-binary")["contents"][0]
        self.assertEqual((blob["mimeType"], base64.b64decode(blob["blob"])[:8]), ("image/png", b"\x89PNG\r\n\x1a\n"))
        data = P.read_resource(self.resources, self.templates, "test://template/123/data")["contents"][0]
        self.assertEqual(data["text"], '{"id":"123","templateTest":true,"data":"Data for ID: 123"}')
        self.assertEqual(data["mimeType"], "application/json")
        self.assertIn("test://watched-resource", [r.uri for r in self.resources])
        self.assertTrue(all(isinstance(r.entry("2025-06-18")["description"], str) for r in self.resources))

    def test_prompts(self):
        get = lambda name, args=None: P.get_prompt(self.prompts, name, args)["messages"]
        self.assertEqual(get("test_simple_prompt"),
                         [{"role": "user",
                           "content": {"type": "text", "text": "This is a simple prompt for testing."}}])
        self.assertEqual(get("test_prompt_with_arguments", {"arg1": "hello", "arg2": "world"})[0]["content"]["text"],
                         "Prompt with arguments: arg1='hello', arg2='world'")
        embedded = get("test_prompt_with_embedded_resource", {"resourceUri": "test://x"})
        self.assertEqual(embedded[0]["content"], {"type": "resource", "resource": {
            "uri": "test://x", "mimeType": "text/plain", "text": "Embedded resource content for testing."}})
        self.assertEqual(embedded[1]["content"]["text"], "Please process the embedded resource above.")
        image = get("test_prompt_with_image")
        self.assertEqual((image[0]["content"]["type"], image[0]["content"]["mimeType"]), ("image", "image/png"))
        self.assertEqual(image[1]["content"]["text"], "Please analyze the image above.")
        required = {a["name"]: a["required"] for p in self.prompts for a in p.entry()["arguments"]}
        self.assertEqual(required, {"arg1": True, "arg2": True, "resourceUri": True})

    def test_completion(self):
        params = {"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                  "argument": {"name": "arg1", "value": "par"}}
        found = P.complete(self.prompts, self.templates, params, "2025-06-18")["completion"]
        self.assertEqual(found["values"], ["paris", "park", "party"])
        json.dumps(found)  # JSON-serialisable


class BoundTests(unittest.TestCase):
    def test_max_resource_bytes_is_the_default_bound(self):
        self.assertEqual(P.MAX_RESOURCE_BYTES, 1_000_000)  # the bound the brief states
        P.resource_contents("test://a", b"x" * P.MAX_RESOURCE_BYTES, "application/octet-stream")
        with self.assertRaises(RPCError):
            P.resource_contents("test://a", b"x" * (P.MAX_RESOURCE_BYTES + 1), "application/octet-stream")

    def test_find_resource(self):
        resources, templates, _ = conformance_server.conformance_primitives()
        found, variables = P.find_resource(resources, templates, "test://template/abc/data")
        self.assertEqual((found.name, variables), ("template", {"id": "abc"}))
        found, variables = P.find_resource(resources, templates, "test://static-text")
        self.assertEqual((found.uri, variables), ("test://static-text", {}))
        with self.assertRaises(RPCError) as caught:
            P.find_resource(resources, templates, "test://nothing")
        self.assertEqual(caught.exception.code, INVALID_PARAMS)


if __name__ == "__main__":
    unittest.main()
