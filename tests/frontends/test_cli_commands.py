"""CLI commands in-process: extract batches, fetch refusals and messages, parse's engine hint, tools and engines.

The agent tools' argument message for an empty query is checked here too: it is what the CLI's sibling doors
(MCP, REST) show an agent, and this file owns the messages users see.
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from webreach.engines import engine_class
from webreach.errors import InvalidInputError
from webreach.frontends.cli import cli
from webreach.schema_patterns import EMPTY_QUERY
from webreach.tools.arguments import WebSearchArguments

PAGE = "<html><head><title>{title}</title></head><body><article><p>{text}</p></article></body></html>"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env={"WEBREACH_STATE__BACKEND": "memory"})
    assert "Traceback" not in result.stdout + result.stderr
    return result.exit_code, result.stdout, result.stderr


def rows(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def page(path: Path, title: str) -> Path:
    path.write_text(PAGE.format(title=title, text=f"{title} has enough words in one paragraph to count as content."))
    return path


def png(path: Path) -> Path:
    """A valid 1x1 grey PNG, built here (signature, IHDR, IDAT, IEND)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    body = (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b"")
    )
    path.write_bytes(body)
    return path


# --- extract -----------------------------------------------------------------------------------------------------


def test_extract_of_a_missing_file_is_invalid_input_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "gone.html"
    code, out, _ = invoke("extract", str(missing), "--jsonl")
    (row,) = rows(out)
    assert code == 2
    assert row["path"] == str(missing) and row["text"] is None
    assert row["error"]["code"] == "invalid_input"
    assert str(missing) in row["error"]["message"] and "No such file or directory" in row["error"]["message"]


def test_extract_batch_goes_on_past_bad_files_in_input_order(tmp_path: Path) -> None:
    first, last = page(tmp_path / "a.html", "Alpha"), page(tmp_path / "c.html", "Gamma")
    missing, folder = tmp_path / "b.html", tmp_path / "folder"
    folder.mkdir()
    code, out, _ = invoke("extract", str(first), str(missing), str(folder), str(last), "--jsonl")
    found = rows(out)
    assert [row["path"] for row in found] == [str(first), str(missing), str(folder), str(last)]
    assert [row["error"] and row["error"]["code"] for row in found] == [None, "invalid_input", "invalid_input", None]
    assert [row["title"] for row in found] == ["Alpha", None, None, "Gamma"]
    assert code == 2  # the worst file's code


def test_extract_of_a_png_is_unsupported_content_and_the_worst_code_wins(tmp_path: Path) -> None:
    image, missing = png(tmp_path / "pixel.png"), tmp_path / "gone.html"
    code, out, _ = invoke("extract", str(missing), str(image), "--jsonl")
    assert [row["error"]["code"] for row in rows(out)] == ["invalid_input", "unsupported_content"]
    assert code == 4


def test_extract_without_jsonl_reports_bad_files_on_stderr(tmp_path: Path) -> None:
    good, missing = page(tmp_path / "a.html", "Alpha"), tmp_path / "gone.html"
    code, out, err = invoke("extract", str(missing), str(good))
    assert code == 2
    assert "# Alpha" in out
    assert "invalid_input" in err and str(missing) in err


def test_extract_of_several_files_names_each_and_prints_its_title_once(tmp_path: Path) -> None:
    first, second = page(tmp_path / "a.html", "Alpha"), page(tmp_path / "b.html", "Beta")
    code, out, _ = invoke("extract", str(first), str(second))
    assert code == 0
    sections = out.split("==> ")[1:]
    assert [section.partition(" <==")[0] for section in sections] == [str(first), str(second)]
    for section, title in zip(sections, ["Alpha", "Beta"], strict=True):
        lines = section.splitlines()
        assert [line for line in lines if title in line and "enough words" not in line] == [f"# {title}"], section


def test_extract_of_one_file_prints_its_text_only(tmp_path: Path) -> None:
    code, out, _ = invoke("extract", str(page(tmp_path / "a.html", "Alpha")))
    assert code == 0
    assert "==>" not in out
    assert out.strip() == "Alpha has enough words in one paragraph to count as content."


# --- fetch -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["fetch", "--json"], ["fetch", "", "--json"], ["fetch", "  ", "--json"]])
def test_fetch_with_nothing_to_read_says_what_to_give(args: list[str]) -> None:
    code, out, _ = invoke(*args)
    body = json.loads(out)
    assert code == 2
    assert body["code"] == "invalid_input"
    assert body["message"].startswith("give exactly one of url or ref (none was given)")  # web_fetch's own check
    assert "gateway" not in body["message"]


def test_fetch_with_both_a_url_and_a_ref_is_invalid_input() -> None:
    code, out, _ = invoke("fetch", "https://example.com/", "--ref", "2", "--json")
    assert code == 2
    assert json.loads(out)["message"].startswith("give exactly one of url or ref (url and ref were given)")


def test_fetch_says_the_url_or_ref_hint_as_options() -> None:
    code, _, err = invoke("fetch")
    assert code == 2
    assert "Pass URL (`webreach fetch URL`) or --ref." in err


def test_fetch_of_a_private_address_is_refused_with_its_rule() -> None:
    # the guard refuses the literal address before any connection is attempted
    code, out, _ = invoke("fetch", "http://10.0.0.1/", "--json")
    body = json.loads(out)
    assert code == 3
    assert body["code"] == "url_not_allowed"
    assert body["rule"] == "private"


def test_fetch_with_a_malformed_resolve_is_invalid_input() -> None:
    code, out, _ = invoke("fetch", "https://example.com/", "--resolve", "bad", "--json")
    body = json.loads(out)
    assert code == 2
    assert body["code"] == "invalid_input" and "--resolve" in body["message"]


# --- parse, tools, engines ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["altavista", "multi"])
def test_parse_hint_lists_real_engines_and_auto(tmp_path: Path, name: str) -> None:
    # parse takes one real engine, or auto (the engine guessed from the page); multi routes searches only
    saved = page(tmp_path / "p.html", "Saved")
    code, out, _ = invoke("parse", name, str(saved), "--json")
    message = json.loads(out)["message"]
    assert code == 2
    valid = message.partition("Valid engines: ")[2].rstrip(".").split(", ")
    assert "mojeek" in valid and "duckduckgo" in valid and "auto" in valid
    assert "multi" not in valid


def test_parse_auto_on_a_page_of_no_known_engine_asks_for_the_engine(tmp_path: Path) -> None:
    saved = page(tmp_path / "p.html", "Saved")
    code, out, _ = invoke("parse", "auto", str(saved), "--json")
    message = json.loads(out)["message"]
    assert code == 2
    assert "cannot tell which engine" in message and "mojeek" in message


def test_search_hint_still_offers_the_routing_modes() -> None:
    code, _, err = invoke("search", "x", "-e", "altavista")
    assert code == 2
    assert "Valid engines: auto, multi, baidu" in err
    # --json prints the body an agent calling web_search gets (issue 36): the tool's modes, the tool named
    code, out, _ = invoke("search", "x", "-e", "altavista", "--json")
    body = json.loads(out)
    assert code == 2 and body["tool"] == "web_search" and "Valid engines: auto, baidu" in body["message"]


def test_registry_hint_without_modes() -> None:
    with pytest.raises(InvalidInputError) as caught:
        engine_class("altavista", allow_modes=False)
    assert caught.value.hint.startswith("Valid engines: baidu, ")


def _tools(dialect: str) -> list[dict[str, Any]]:
    code, out, _ = invoke("tools", "--format", dialect)
    assert code == 0
    tools: list[dict[str, Any]] = json.loads(out)
    return tools


def test_tools_anthropic_shape() -> None:
    tools = _tools("anthropic")
    assert [t["name"] for t in tools] == ["web_search", "web_search_multi", "web_fetch"]  # the default surface
    env = {"WEBREACH_STATE__BACKEND": "memory", "WEBREACH_TOOLS__PROFILE": "images"}
    result = CliRunner().invoke(cli, ["tools", "--format", "anthropic"], env=env)
    assert [t["name"] for t in json.loads(result.stdout)] == [
        "web_search",
        "web_search_multi",
        "web_fetch",
        "image_search",
        "crop_images",
        "reverse_image_search",
    ]
    for tool in tools:
        assert set(tool) == {"name", "description", "input_schema"}
        assert tool["input_schema"]["type"] == "object"


def test_tools_openai_shape() -> None:
    tools = _tools("openai")
    for tool in tools:
        assert tool["type"] == "function"
        assert set(tool["function"]) >= {"name", "description", "parameters"}
        assert tool["function"]["parameters"]["type"] == "object"
    search = next(t["function"] for t in tools if t["function"]["name"] == "web_search")
    assert "query" in search["parameters"]["required"]


def test_tools_mcp_shape() -> None:
    tools = _tools("mcp")
    for tool in tools:
        assert {"name", "description", "inputSchema"} <= set(tool)
        assert tool["inputSchema"]["type"] == "object"
    fetch = next(t for t in tools if t["name"] == "web_fetch")
    assert {"url", "ref"} <= set(fetch["inputSchema"]["properties"])


def test_engines_json_has_one_row_per_engine_with_its_status() -> None:
    code, out, _ = invoke("engines", "--json")
    found = json.loads(out)
    assert code == 0
    verticals = [row["vertical"] for row in found]
    # web search's engines, then image search's, then reverse image search's backends
    assert verticals == sorted(verticals, key=["web", "images", "reverse"].index)
    web = [row["name"] for row in found if row["vertical"] == "web"]
    assert web == sorted(web) and {"bing", "mojeek", "tavily", "searxng"} <= set(web)
    assert {"images_bing", "images_tavily"} <= {row["name"] for row in found if row["vertical"] == "images"}
    assert {"serpapi_lens", "tineye"} <= {row["name"] for row in found if row["vertical"] == "reverse"}
    keys = {"name", "kind", "index", "needs_key", "key_configured", "usable", "reason", "breaker", "retry_after"}
    assert all(keys <= set(row) for row in found)
    by_name = {row["name"]: row for row in found}
    assert by_name["tavily"]["needs_key"] is True and by_name["tavily"]["reason"]
    assert by_name["bing"]["kind"] == "scraped" and by_name["bing"]["usable"] is True
    # an image engine's key is its web engine's: the reason names the setting to make
    assert by_name["images_tavily"]["shares_settings_of"] == "tavily"
    assert "WEBREACH_ENGINES__TAVILY__API_KEY" in by_name["images_tavily"]["reason"]


# --- the agent's web_search arguments ----------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "   ", [""]])
def test_a_blank_query_gets_the_one_empty_query_message(query: Any) -> None:
    with pytest.raises(InvalidInputError) as caught:
        WebSearchArguments.parse({"query": query})
    assert caught.value.message.startswith(f"query: {EMPTY_QUERY} (got ")


@pytest.mark.parametrize("query", [[], ["q"] * 6])
def test_an_unusable_query_gets_a_plain_message(query: Any) -> None:
    with pytest.raises(InvalidInputError) as caught:
        WebSearchArguments.parse({"query": query})
    message = caught.value.message
    assert message.startswith("query: must be a non-empty string")
    assert "or a list of up to 5 such strings" in message
    assert "constrained" not in message and "list[" not in message


def test_engines_reset_closes_a_stored_suspension(tmp_path: Path) -> None:
    env = {"WEBREACH_STATE__PATH": str(tmp_path / "state.sqlite3"), "WEBREACH_CONFIG": os.devnull}
    runner = CliRunner()
    result = runner.invoke(cli, ["engines", "--reset", "mojeek", "--json"], env=env)
    assert result.exit_code == 0
    assert {row["name"]: row["breaker"] for row in json.loads(result.stdout)}["mojeek"] == "closed"
    result = runner.invoke(cli, ["engines", "--reset", "tineye", "--reset", "images_bing", "--json"], env=env)
    assert result.exit_code == 0, result.output
    assert "closed the circuit breaker of tineye, images_bing" in result.stderr
    result = runner.invoke(cli, ["engines", "--reset", "altavista", "--json"], env=env)
    assert result.exit_code == 2
    assert json.loads(result.stdout)["code"] == "invalid_input"
