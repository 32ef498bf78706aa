"""`webreach image search|reverse|crop` (issue 41): the image tools from the command line, through the same
tool pipeline as MCP and REST, against the fake web on loopback."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from webreach.frontends.cli import cli
from webreach.testing import FakeWeb

pytestmark = [pytest.mark.network]


@pytest.fixture(scope="module")
def web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:
        yield server


def _env(web: FakeWeb, tmp_path: Path) -> dict[str, str]:
    return {"WEBREACH_FAKE_WEB": web.url, "WEBREACH_STATE__PATH": str(tmp_path / "state.sqlite3"),
            "WEBREACH_CONFIG": "/dev/null", "WEBREACH_CACHE__BACKEND": "memory"}  # fmt: skip


def _png(tmp_path: Path) -> Path:
    picture = tmp_path / "p.png"
    buffer = io.BytesIO()
    Image.new("RGB", (120, 90), "red").save(buffer, format="PNG")
    picture.write_bytes(buffer.getvalue())
    return picture


def test_image_search_lists_images_with_their_pages(web: FakeWeb, tmp_path: Path) -> None:
    done = CliRunner().invoke(cli, ["image", "search", "red panda", "-n", "3"], env=_env(web, tmp_path))
    assert done.exit_code == 0, done.output
    assert "image: https://" in done.output and "page: https://" in done.output
    body = CliRunner().invoke(cli, ["image", "search", "red panda", "--json"], env=_env(web, tmp_path))
    answer = json.loads(body.output)
    assert answer["results"] and all(hit["image_url"].startswith("https://") for hit in answer["results"])


def test_image_crop_cuts_a_token_of_the_session_into_a_new_one(web: FakeWeb, tmp_path: Path) -> None:
    env = _env(web, tmp_path)
    added = CliRunner().invoke(cli, ["image", "add", str(_png(tmp_path)), "--session", "s1"], env=env)
    assert added.exit_code == 0 and added.output.startswith("<obs_1>"), added.output
    done = CliRunner().invoke(cli, ["image", "crop", "<obs_1>=0,0,60,45", "--session", "s1", "--json"], env=env)
    assert done.exit_code == 0, done.output
    crop = json.loads(done.output)["crops"]["<obs_1>"]
    assert (crop["token"], crop["width"], crop["height"]) == ("<obs_2>", 60, 45)
    other = CliRunner().invoke(cli, ["image", "crop", "<obs_1>=0,0,60,45", "--session", "s2"], env=env)
    assert other.exit_code != 0 and "Traceback" not in other.output  # tokens belong to their session


def test_a_crop_that_is_not_token_and_box_is_invalid_input(web: FakeWeb, tmp_path: Path) -> None:
    done = CliRunner().invoke(cli, ["image", "crop", "<obs_1>=0,0,1", "--json"], env=_env(web, tmp_path))
    assert done.exit_code == 2
    assert json.loads(done.output)["code"] == "invalid_input" and "TOKEN=LEFT,TOP,RIGHT,BOTTOM" in done.output


def test_image_reverse_takes_a_local_file_or_a_token(web: FakeWeb, tmp_path: Path) -> None:
    env = _env(web, tmp_path)
    by_file = CliRunner().invoke(cli, ["image", "reverse", str(_png(tmp_path)), "-n", "2", "--json"], env=env)
    assert by_file.exit_code == 0, by_file.output
    answer = json.loads(by_file.output)
    assert answer["token"] == "<obs_1>" and answer["results"][0]["page_url"].startswith("https://")
    by_token = CliRunner().invoke(cli, ["image", "reverse", "<obs_1>", "-n", "2"], env=env)
    assert by_token.exit_code == 0 and "page: https://" in by_token.output
