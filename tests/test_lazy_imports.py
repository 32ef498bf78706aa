"""Start-up stays light (issue 38): `import webreach`, the CLI module and `webreach --help`/`--version` load none of
the heavy parts (the Gateway, config, rich, the read service, extraction and its libraries, the mcp SDK). Checked on
sys.modules in a fresh interpreter, never by timing."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from webreach.testing import FakeWeb
from webreach.testing.environment import process_env

HEAVY = (
    "webreach.gateway",
    "webreach.config",
    "webreach.read.service",
    "webreach.extract.cascade",
    "webreach.tools",
    "webreach.models",
    "pydantic",
    "rich",
    "trafilatura",
    "pypdf",
    "PIL",
    "httpx",
    "mcp",
)

RUN_CLI = (
    "import sys\n"
    "from click.testing import CliRunner\n"
    "from webreach.frontends.cli import cli\n"
    "result = CliRunner().invoke(cli, sys.argv[1:], prog_name='webreach')\n"
    "assert result.exit_code == 0, result.output\n"
)


def loaded_after(script: str, *args: str) -> list[str]:
    """The HEAVY modules a fresh interpreter has loaded after running `script`."""
    report = f"\nimport json, sys\nprint(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))\n"
    done = subprocess.run(
        [sys.executable, "-c", script + report, *args], capture_output=True, text=True, check=True, timeout=120
    )
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded


def test_import_webreach_loads_nothing_heavy() -> None:
    assert loaded_after("import webreach") == []


def test_the_cli_module_loads_nothing_heavy() -> None:
    assert loaded_after("import webreach.frontends.cli") == []


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["search", "--help"], ["canary", "--help"]])
def test_help_and_version_load_nothing_heavy(args: list[str]) -> None:
    assert loaded_after(RUN_CLI, *args) == []


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_a_public_name_still_loads_its_module() -> None:
    """The control: the check above sees a heavy module when one is loaded."""
    assert "webreach.gateway" in loaded_after("import webreach\nwebreach.Gateway")


SERVE_IDLE = (
    "import json, sys\n"
    "from starlette.testclient import TestClient\n"
    "from webreach.config import ServerSettings, Settings\n"
    "from webreach.frontends.http import build_app\n"
    "app = build_app(Settings(fake_web='http://127.0.0.1:9'), server=ServerSettings(allowed_hosts=['*']))\n"
    "with TestClient(app, base_url='http://127.0.0.1') as client:\n"  # the lifespan ran: a server, idle
    "    idle = [m for m in ('PIL', 'jinja2') if m in sys.modules]\n"
    "    page = client.get('/console/')\n"
    "print(json.dumps({'idle': idle, 'status': page.status_code, 'html': '<html' in page.text,\n"
    "                  'jinja2': 'jinja2' in sys.modules}))\n"
)


def test_an_idle_server_holds_neither_pillow_nor_jinja2(tmp_path: Path) -> None:
    """Issue 38, Deliver 6: the console's templates load with its first page, Pillow with the first image."""
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    env |= {"XDG_CACHE_HOME": str(tmp_path / "cache"), "WEBREACH_CONFIG": os.devnull}
    done = subprocess.run(
        [sys.executable, "-c", SERVE_IDLE], capture_output=True, text=True, check=True, timeout=120, env=env
    )
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["idle"] == []
    assert seen["status"] in (200, 403) and seen["html"] and seen["jinja2"]  # the console still renders


def test_the_mcp_door_loads_no_gateway_or_tools_before_it_serves() -> None:
    """`webreach mcp` answers `initialize` before its gateway is built: the door's module imports the mcp SDK but
    neither the gateway nor the tools (the server opens them in the background, frontends/mcp.py)."""
    script = "import webreach.frontends.cli\nimport webreach.frontends.mcp\n"
    assert set(loaded_after(script)) <= {"webreach.config", "pydantic", "httpx", "mcp"}


SEARCH = ["search", "python asyncio", "-e", "duckduckgo", "--format", "compact"]
READ_SIDE = ("webreach.read.service", "webreach.extract.cascade", "trafilatura", "pypdf", "PIL")
# the images package (its service, models, decoders and crops) and the image-token store load with the gateway's
# `images`, on the first image call
IMAGE_SIDE = (
    "webreach.images.service",
    "webreach.images.hits",
    "webreach.images.crop",
    "webreach.images.decode",
    "webreach.images.pixels",
    "webreach.images.storage",
    "webreach.images.reverse.service",
    "webreach.images.reverse._base",  # the reverse-image backends: the registry lists them from their table
    "webreach.images.reverse.tineye",
    "webreach.state.image_store",
)
# the console's secret box loads cryptography with its first secret; the drop-in profiles load when one is asked for
NOT_FOR_A_SEARCH = (
    *READ_SIDE, *IMAGE_SIDE, "cryptography", "webreach.tools.serp_profile", "webreach.tools.rollout_profile"
)  # fmt: skip
REPORT_READ_SIDE = (
    "print(result.output, file=sys.stderr)\n"
    f"import json\nprint(json.dumps([m for m in {NOT_FOR_A_SEARCH!r} if m in sys.modules]))\n"
)


@pytest.mark.network
async def test_a_cached_search_loads_no_read_side_images_secrets_or_profiles(tmp_path: Path) -> None:
    """A second `webreach search` (a hit in the persistent cache, on the fake web) loads neither the reading side
    (the read service, the extraction cascade, trafilatura, pypdf) nor Pillow: the gateway builds its reader on the
    first read, and images load Pillow with the first image they decode. Nor the images package or its token store
    (the gateway opens `images` on first use), cryptography (no secret is stored) or the drop-in profiles' modules
    (no profile is asked for)."""
    async with FakeWeb() as web:
        env = process_env(tmp_path, WEBREACH_FAKE_WEB=web.url, WEBREACH_CACHE__BACKEND="sqlite")
        loaded: list[list[str]] = []
        asked: list[int] = []
        for _ in range(2):  # the first fills the cache, the second is answered from it
            argv = [sys.executable, "-c", RUN_CLI + REPORT_READ_SIDE, *SEARCH]
            done = await asyncio.to_thread(subprocess.run, argv, env=env, capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, done.stderr
            assert "Results via duckduckgo" in done.stderr
            loaded.append(json.loads(done.stdout.splitlines()[-1]))
            asked.append(len(web.requests("duckduckgo")))
    assert asked[0] >= 1 and asked[1] == asked[0]  # the second search was a cache hit
    assert loaded[1] == []


PROFILE_MODULES = ("serp_profile", "index_profile", "rollout_profile", "credits_profile", "desktop_profile")
TOOLBOX_SURFACES = (
    "import json, sys\n"
    "from webreach.tools import Toolbox\n"
    "class Backend:\n"
    "    def engine_names(self): return ['duckduckgo']\n"
    "toolbox = Toolbox(Backend(), None)\n"
    f"modules = [f'webreach.tools.{{name}}' for name in {PROFILE_MODULES!r}]\n"
    "before = [m for m in modules if m in sys.modules]\n"
    "listed = sorted(toolbox.surfaces)\n"
    "serp = sorted(toolbox.surfaces['serp-chat'])\n"
    "after = [m for m in modules if m in sys.modules]\n"
    "print(json.dumps({'before': before, 'listed': listed, 'serp': serp, 'after': after}))\n"
)


def test_a_toolbox_builds_a_profiles_tools_when_first_asked() -> None:
    """Issue 38, Deliver 5: a Toolbox knows every drop-in profile's name but imports a profile's module (and builds
    its argument models) only when that profile's tools are asked for; the serp-chat surface is the same as ever."""
    done = subprocess.run(
        [sys.executable, "-c", TOOLBOX_SURFACES], capture_output=True, text=True, check=True, timeout=120
    )
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["before"] == []
    assert seen["listed"] == sorted(
        ["images", "visual-agent", "serp-chat", "numeric-index", "rollout-gateway", "credits-server", "desktop-agent"]
    )
    assert seen["serp"] and seen["after"] == ["webreach.tools.serp_profile"]
