"""`webreach parse auto` (the engine guessed from the page, on every capture and variant fixture) and which
parser `webreach parse` says produced the hits."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import SHARED_DATA
from webreach.config import Settings, StateSettings
from webreach.errors import InvalidInputError
from webreach.frontends.cli import cli
from webreach.gateway import Gateway
from webreach.testing import rename_classes

FIXTURES = Path(__file__).parents[1] / "fixtures" / "serp"
BLOCKED_ENGINE = {"baidu": "baidu", "ddg": "duckduckgo", "google": "google", "sogou": "sogou", "bing": "bing"}
PAGES = sorted(SHARED_DATA.glob("serp/*/*.html")) + sorted(FIXTURES.glob("*/*.html"))


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env={"WEBREACH_STATE__BACKEND": "memory"})
    return result.exit_code, result.stdout, result.stderr


def engine_of(path: Path) -> str:
    if path.parent.name != "_blocked":
        return path.parent.name
    return next(engine for key, engine in BLOCKED_ENGINE.items() if key in path.name)


@pytest.fixture(scope="module")
def gateway() -> Iterator[Gateway]:
    opened = Gateway.from_settings(Settings(state=StateSettings(backend="memory")))
    yield opened
    asyncio.run(opened.aclose())


@pytest.mark.parametrize("path", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_auto_guesses_the_engine_of_every_capture_and_fixture(gateway: Gateway, path: Path) -> None:
    assert gateway.engines.guess(path.read_bytes()) == engine_of(path)


def test_a_page_of_no_known_engine_is_invalid_input(gateway: Gateway) -> None:
    with pytest.raises(InvalidInputError, match="which engine"):
        gateway.engines.parse_saved("auto", b"<html><body><p>hello</p></body></html>")


def test_parse_auto_on_the_command_line_names_the_engine_and_its_parser(shared_data: Path) -> None:
    code, out, err = invoke("parse", "auto", str(shared_data / "serp/bing/celina__bing.html"), "--json")
    assert code == 0
    attempt = json.loads(out)["meta"]["attempts"][0]
    assert attempt == attempt | {"engine": "bing", "status": "ok", "count": 10, "parsed_by": "engine"}
    code, out, err = invoke("parse", "auto", str(shared_data / "serp/bing/celina__bing.html"))
    assert code == 0
    assert "bing: ok, 10 hits" in err and "parsed by the engine parser" in err


def test_parse_says_when_the_generic_parser_produced_the_hits(shared_data: Path, tmp_path: Path) -> None:
    page = tmp_path / "relaid-out.html"
    page.write_text(rename_classes((shared_data / "serp/bing/celina__bing.html").read_text()), encoding="utf-8")
    code, out, _ = invoke("parse", "bing", str(page), "--json")
    assert code == 0
    body = json.loads(out)
    assert body["meta"]["attempts"][0]["parsed_by"] == "generic"
    assert len(body["results"]) == 10
    code, _, err = invoke("parse", "auto", str(page))
    assert code == 0 and "GENERIC" in err
