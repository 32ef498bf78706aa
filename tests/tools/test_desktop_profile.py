"""The desktop-agent profile's rules (tools/desktop_profile.py) over the fake backend: which provider it searches,
the answer's mark, cut and hidden key, the sentence per error type, and the tool hidden with no provider."""

from __future__ import annotations

import pytest
from pydantic import SecretStr, ValidationError

from secret_keys import TEST_KEY
from webreach import Settings
from webreach.config import EngineSettings
from webreach.errors import (
    AuthFailedError,
    BadRequestError,
    EngineTimeoutError,
    RateLimitedError,
    SuspendedError,
    ThrottledError,
    UnavailableError,
    UnreachableError,
    WebreachError,
)
from webreach.models import Hit
from webreach.tools import Toolbox
from webreach.tools.desktop_profile import MAX_CHARS, default_provider, desktop_text, providers, user_error

from .fakes import FakeBackend, response

KEYED = EngineSettings(api_key=SecretStr(TEST_KEY))


def test_the_default_provider_is_the_marked_one_else_the_first_configured() -> None:
    table = {"serpapi": KEYED, "bocha": KEYED, "bing": KEYED}
    assert providers(table) == ["bocha", "serpapi"]  # the table's order; bing is no provider
    assert default_provider(table) == "bocha"
    assert default_provider({**table, "serpapi": KEYED.model_copy(update={"default": True})}) == "serpapi"
    off = EngineSettings(api_key=SecretStr(TEST_KEY), enabled=False, default=True)
    assert default_provider({"tavily": off, "metaso": EngineSettings(default=True)}) is None  # disabled, no key
    assert default_provider({}) is None


def test_only_one_engine_may_be_the_default_in_the_file() -> None:
    with pytest.raises(ValidationError, match="only one engine"):
        Settings(engines={"tavily": {"default": True}, "bocha": {"default": True}})  # type: ignore[dict-item]


def test_the_answer_is_marked_external_hides_the_key_and_is_cut() -> None:
    leaky = Hit(rank=1, title="t", url="https://e.com/", snippet=f"key {TEST_KEY} echoed", engine="tavily")
    text = desktop_text("Tavily", (leaky,), TEST_KEY)
    assert text.startswith("[search results - from Tavily]\n") and TEST_KEY not in text and "[hidden]" in text
    long = tuple(
        Hit(rank=i, title=f"title {i}", url=f"https://e.com/{i}", snippet="x" * 5000, engine="tavily")
        for i in range(1, 11)
    )
    cut = desktop_text("Tavily", long, None)
    assert len(cut) == MAX_CHARS and cut.endswith("[cut at 30,000 characters]")
    assert desktop_text("Tavily", (), None) == "[search results - from Tavily]\n\nNo results.\n"


@pytest.mark.parametrize(
    ("error", "sentence"),
    [
        (AuthFailedError("HTTP 401", engine="bocha"), "Invalid API key for Bocha: check the settings."),
        (EngineTimeoutError("slow", engine="bocha"), "Bocha did not answer in time: check the network."),
        (UnreachableError("refused", cause="refused", engine="bocha"), "Bocha cannot be reached: check the network."),
        (RateLimitedError("429", engine="bocha", retry_after=9), "Searches are too frequent, retry later."),
        (ThrottledError("paced", engine="bocha", retry_after=2), "Searches are too frequent, retry later."),
        (UnavailableError("HTTP 503", engine="bocha"), "Search service unavailable: Bocha."),
        (SuspendedError("resting", engine="bocha", retry_after=30), "Search service unavailable: Bocha."),
    ],
)
def test_errors_become_the_contracts_sentences_keeping_type_and_retry_after(
    error: WebreachError, sentence: str
) -> None:
    said = user_error(error, "Bocha")
    assert type(said) is type(error) and said.code == error.code and said.retry_after == error.retry_after
    assert str(said) == sentence


def test_other_errors_pass_unchanged() -> None:
    refused = BadRequestError("HTTP 422", engine="bocha")
    assert user_error(refused, "Bocha") is refused


async def test_the_tool_is_listed_only_while_a_provider_is_configured() -> None:
    backend = FakeBackend(answers={"rust": response("rust", "https://rust-lang.org/")})
    tools = Toolbox(backend, None, tool_profile="desktop-agent")
    assert await tools.visible_tools(None) == []
    refused = await tools.call("web_search", {"query": "rust"})
    assert refused.error is not None and refused.error.code == "not_configured"
    backend.configured = {"bocha": KEYED}  # a key entered in the settings: offered from the next listing on
    assert await tools.visible_tools(None) is None  # every tool of the toolbox
    answer = await tools.call("web_search", {"query": "rust", "count": 3, "freshness": "month"})
    assert answer.text.startswith("[search results - from Bocha]\n") and "https://rust-lang.org/" in answer.text
    (searched,) = backend.searches
    assert searched.engine == "bocha" and searched.request.limit == 3 and searched.request.freshness == "month"
