"""The CLI in-process (click's runner): parse, engines, docs generated from the registry, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from webreach.frontends.cli import cli

DOCS = Path(__file__).resolve().parents[2] / "docs" / "engines.md"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env={"WEBREACH_STATE__BACKEND": "memory"})
    return result.exit_code, result.stdout, result.stderr


def test_engine_catalogue_in_docs_is_generated_from_the_registry() -> None:
    code, out, _ = invoke("engines", "--markdown")
    assert code == 0
    assert DOCS.read_text(encoding="utf-8") == out, "regenerate: webreach engines --markdown > docs/engines.md"


def test_engines_json_lists_every_engine_with_key_and_breaker_state() -> None:
    code, out, _ = invoke("engines", "--json")
    rows = {row["name"]: row for row in json.loads(out)}
    assert code == 0
    assert rows["tavily"]["usable"] is False and rows["tavily"]["key_configured"] is False
    assert rows["mojeek"]["usable"] is True and rows["mojeek"]["breaker"] == "closed"


def test_parse_prints_the_same_response_json_as_search(shared_data: Path) -> None:
    code, out, _ = invoke("parse", "bing", str(shared_data / "serp/bing/celina__bing.html"), "--json")
    body = json.loads(out)
    assert code == 0
    assert len(body["results"]) == 10
    assert body["meta"]["attempts"][0] == body["meta"]["attempts"][0] | {"engine": "bing", "status": "ok", "count": 10}


def test_parse_of_a_captcha_page_is_the_error_json_with_upstream_exit(shared_data: Path) -> None:
    page = shared_data / "serp/_blocked/wsmcp__bing_CHALLENGE_one_last_step.html"
    code, out, _ = invoke("parse", "bing", str(page), "--json")
    assert code == 4
    assert json.loads(out)["code"] == "captcha"


def test_parse_readable_table_and_errors_on_stderr(shared_data: Path) -> None:
    code, out, err = invoke("parse", "mojeek", str(shared_data / "serp/mojeek/wsmcp__mojeek.html"))
    assert code == 0
    assert "The Modern JavaScript Tutorial" in out
    code, out, err = invoke("parse", "mojeek", "/nonexistent/page.html")
    assert code == 2
    assert "invalid_input" in err and out == ""


def test_unknown_engine_in_parse_lists_valid_engines(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text("<html></html>")
    code, out, _ = invoke("parse", "altavista", str(page), "--json")
    assert code == 2
    assert "duckduckgo" in json.loads(out)["message"]
