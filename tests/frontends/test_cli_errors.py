"""How the CLI fails: exit-code and HTTP tables, argument errors under --json, bad configuration, missing extras,
bad ports. Nothing a user can cause may end in a traceback."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import webreach.errors
from webreach.errors import BlockedError, PageBlockedError, WebreachError
from webreach.frontends._errors import EXIT_CODES, HTTP_STATUS
from webreach.frontends.cli import cli


def invoke(*args: str, **env: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env={"WEBREACH_STATE__BACKEND": "memory", **env})
    assert "Traceback" not in result.stdout + result.stderr
    return result.exit_code, result.stdout, result.stderr


def run(args: list[str], *, prelude: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """`webreach ARGS` in a fresh process (after `prelude`), with a clean environment and no config file."""
    code = f"import sys\n{prelude}\nfrom webreach.frontends.cli import main\nsys.argv = ['webreach', *{args!r}]\nmain()"
    environment = {"PATH": os.environ.get("PATH", ""), "WEBREACH_STATE__BACKEND": "memory", **env}
    if "PYTHONPATH" in os.environ:  # the tree under test, when it is not the installed one (a worktree)
        environment["PYTHONPATH"] = os.environ["PYTHONPATH"]
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
        stdin=subprocess.DEVNULL,
    )
    print(done.stdout)
    print(done.stderr, file=sys.stderr)
    return done


# --- the tables --------------------------------------------------------------------------------------------------


def _error_codes() -> set[str]:
    found: set[str] = set()
    pending: list[type[WebreachError]] = [WebreachError]
    while pending:
        cls = pending.pop()
        if cls.__module__ == webreach.errors.__name__:
            found.add(cls.code)
        pending.extend(cls.__subclasses__())
    kinds = {BlockedError("x", kind=k).code for k in ("captcha", "blocked")}
    return found | kinds | {PageBlockedError("x", kind=k).code for k in ("captcha", "blocked")}


def test_every_error_code_has_an_exit_code_and_an_http_status() -> None:
    codes = _error_codes()
    assert {"captcha", "blocked", "unknown_ref", "robots_disallowed", "not_configured"} <= codes
    assert codes - set(EXIT_CODES) == set(), "add these codes to EXIT_CODES in frontends/_errors.py"
    assert codes - set(HTTP_STATUS) == set(), "add these codes to HTTP_STATUS in frontends/_errors.py"
    assert "quota_exceeded" not in EXIT_CODES and "quota_exceeded" not in HTTP_STATUS


@pytest.mark.parametrize(
    ("code", "exit_code"),
    [
        ("invalid_input", 2),
        ("unknown_ref", 2),
        ("not_configured", 3),
        ("suspended", 3),
        ("url_not_allowed", 3),
        ("robots_disallowed", 3),
        ("captcha", 4),
        ("all_engines_failed", 4),
        ("timeout", 4),
    ],
)
def test_exit_codes_say_whose_fault_it_is(code: str, exit_code: int) -> None:
    assert EXIT_CODES[code] == exit_code


def test_unknown_ref_exits_2() -> None:
    code, out, _ = invoke("fetch", "--ref", "7", "--session", "fresh", "--json")
    assert code == 2
    assert json.loads(out)["code"] == "unknown_ref"


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
@pytest.mark.parametrize("ref", ["99999999999999999999", "9223372036854775808", "0", "-5"])
def test_a_ref_out_of_range_is_invalid_input_saying_the_range(ref: str, tmp_path: Path) -> None:
    # a real state file: SQLite cannot bind an integer past 2**63, which used to end in an OverflowError traceback
    state = {"WEBREACH_STATE__BACKEND": "sqlite", "WEBREACH_STATE__PATH": str(tmp_path / "state.sqlite3")}
    for args in ([f"--ref={ref}"], [f"--ref={ref}", "--json"]):
        done = run(["fetch", *args, "--session", "s"], **state)
        assert done.returncode == 2
        assert "Traceback" not in done.stderr and "OverflowError" not in done.stderr
        said = json.loads(done.stdout)["message"] if "--json" in args else done.stderr
        assert "from 1 to 2147483647" in said


# --- argument errors ---------------------------------------------------------------------------------------------


def test_a_bad_option_value_with_json_prints_the_error_json() -> None:
    code, out, err = invoke("search", "x", "-n", "abc", "--json")
    body = json.loads(out)
    assert code == 2
    assert body["status"] == "error" and body["code"] == "invalid_input"
    assert "--limit" in body["message"] and "abc" in body["message"]
    assert "Usage:" not in out + err


def test_a_missing_argument_with_json_prints_the_error_json() -> None:
    code, out, _ = invoke("search", "--json")
    assert code == 2
    assert "QUERY" in json.loads(out)["message"]


def test_format_json_counts_as_asking_for_json() -> None:
    code, out, _ = invoke("search", "--format", "json")
    assert code == 2
    assert json.loads(out)["code"] == "invalid_input"


def test_without_json_the_usage_goes_to_stderr() -> None:
    code, out, err = invoke("search", "x", "-n", "abc")
    assert code == 2
    assert out == ""
    assert "search [OPTIONS] QUERY" in err and "'abc' is not a valid integer" in err


def test_help_and_version_still_exit_0() -> None:
    code, out, _ = invoke("--help")
    assert code == 0 and "search" in out
    code, out, _ = invoke("search", "--help")
    assert code == 0 and "--engine" in out
    code, out, _ = invoke("--version")
    assert code == 0 and "version" in out


def test_fetch_timeout_must_be_positive() -> None:
    code, out, _ = invoke("fetch", "https://example.com/", "--timeout", "0", "--json")
    assert code == 2
    assert "--timeout" in json.loads(out)["message"]


@pytest.mark.parametrize("seconds", ["nan", "inf", "1e400", "-inf", "3601"])
def test_fetch_timeout_must_be_a_finite_deadline(seconds: str) -> None:
    # click's FloatRange passes nan (no comparison refuses it) and inf: "did not finish within its nan s deadline"
    offline = {"WEBREACH_FAKE_WEB": "http://127.0.0.1:9"}  # nothing can leave the machine if it were read
    code, _, err = invoke("fetch", "http://127.0.0.1:9/", "--timeout", seconds, **offline)
    assert code == 2
    assert "--timeout" in err and "at most 3600" in err


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
@pytest.mark.parametrize("url", ["http://[::1", "http://a:99999/", "javascript:alert(1)", "", "example.com/page"])
def test_extract_url_must_be_an_absolute_http_url(url: str, tmp_path: Path) -> None:
    # "http://[::1" used to reach the extractor, which logged a ValueError traceback for every file
    page = tmp_path / "page.html"
    page.write_text("<html><body><a href='/x'>x</a><p>hello</p></body></html>")
    done = run(["extract", "--url", url, str(page)])
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "Invalid value for '--url'" in done.stderr
    assert run(["extract", "--url", "https://example.com/a", str(page)]).returncode == 0


# --- configuration -----------------------------------------------------------------------------------------------


def test_malformed_config_file_is_invalid_input_naming_file_and_line(tmp_path: Path) -> None:
    broken = tmp_path / "webreach.toml"
    broken.write_text("retries = 1\nretries = = 2\n")
    code, out, _ = invoke("engines", "--json", WEBREACH_CONFIG=str(broken))
    body = json.loads(out)
    assert code == 2
    assert body["code"] == "invalid_input"
    assert str(broken) in body["message"] and "line 2" in body["message"]


def test_named_config_file_must_exist(tmp_path: Path) -> None:
    code, out, _ = invoke("engines", "--json", WEBREACH_CONFIG=str(tmp_path / "typo.toml"))
    body = json.loads(out)
    assert code == 2
    assert body["code"] == "invalid_input" and "config file not found" in body["message"]


def test_unknown_engine_under_engines_lists_the_valid_ones() -> None:
    code, out, _ = invoke("engines", "--json", WEBREACH_ENGINES__NOSUCH__API_KEY="k")
    body = json.loads(out)
    assert code == 2
    assert body["code"] == "invalid_input"
    assert "nosuch" in body["message"] and "mojeek" in body["message"] and "tavily" in body["message"]


def test_long_running_doors_check_the_configuration_before_starting() -> None:
    """`webreach mcp` checks it while its tools open, after answering `initialize` (every request gets the error,
    tests/frontends/test_mcp_startup.py), and exits with its code; a process, as the server reads the real stdin."""
    done = run(["mcp"], WEBREACH_ENGINES__NOSUCH__API_KEY="k")
    assert done.returncode == 2
    assert done.stdout == "" and "unknown engine under [engines]: nosuch" in done.stderr
    assert "Traceback" not in done.stderr


# --- missing extras and ports (real processes) -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "missing"), [("mcp", "mcp"), ("serve", "mcp"), ("serve", "uvicorn"), ("serve", "starlette")]
)
@pytest.mark.slow
def test_a_door_without_its_extra_says_how_to_install_it(command: str, missing: str) -> None:
    # None in sys.modules makes `import NAME` fail as it does when the package is not installed
    done = run([command], prelude=f"sys.modules[{missing!r}] = None")
    assert done.returncode == 3
    assert "Traceback" not in done.stderr
    assert "not_configured" in done.stderr and repr(missing) in done.stderr
    assert "pip install 'webreach[server]'" in done.stderr


@pytest.mark.parametrize("command", ["fakeweb", "serve"])
def test_out_of_range_ports_are_invalid_input(command: str) -> None:
    code, _, err = invoke(command, "--port", "99999")
    assert code == 2
    assert "0<=x<=65535" in err


@pytest.mark.network
@pytest.mark.slow
def test_fakeweb_on_a_port_in_use_is_invalid_input() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = run(["fakeweb", "--port", str(port)])
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "invalid_input" in done.stderr and f"127.0.0.1:{port}" in done.stderr
    assert "in use" in done.stderr
