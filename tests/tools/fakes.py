"""A ToolBackend (what the tools need of the Gateway) over canned answers, recording every call it gets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from webreach.config import EngineSettings
from webreach.errors import WebreachError
from webreach.models import EngineAttempt, Hit, Page, ReadRequest, SearchMeta, SearchRequest, SearchResponse

ENGINES = ("bing", "duckduckgo", "mojeek")


def hits(*urls: str, engine: str = "duckduckgo") -> tuple[Hit, ...]:
    return tuple(
        Hit(rank=i, title=f"Title {i}", url=url, snippet=f"Snippet {i}: about this page.", engine=engine)
        for i, url in enumerate(urls, 1)
    )


def response(query: str, *urls: str, attempts: Sequence[EngineAttempt] = (), mode: str = "auto") -> SearchResponse:
    engine = "duckduckgo"
    attempts = tuple(attempts) or (EngineAttempt(engine=engine, status="ok", count=len(urls)),)
    meta = SearchMeta(mode=mode, engines_used=(engine,), attempts=attempts)
    return SearchResponse(query=query, results=hits(*urls, engine=engine), meta=meta)


def page(url: str, content: str = "Hello page.", *, start: int = 0, total: int | None = None) -> Page:
    total = len(content) if total is None else total
    end = start + len(content)
    return Page(
        url=url,
        final_url=url,
        status=200,
        content_type="text/html",
        title="A page",
        content=content,
        start=start,
        total_chars=total,
        next_start=end if end < total else None,
    )


@dataclass
class SearchCall:
    request: SearchRequest
    engine: str
    engines: tuple[str, ...] | None


@dataclass
class FakeBackend:
    """Answers by query text (or URL); unknown queries get three results of their own."""

    answers: Mapping[str, SearchResponse | WebreachError] = field(default_factory=dict)
    pages: Mapping[str, Page | WebreachError] = field(default_factory=dict)
    engines: tuple[str, ...] = ENGINES
    searches: list[SearchCall] = field(default_factory=list)
    reads: list[ReadRequest] = field(default_factory=list)
    configured: Mapping[str, EngineSettings] = field(default_factory=dict)

    async def search(self, request: SearchRequest, *, engine: str, engines: Sequence[str] | None) -> SearchResponse:
        self.searches.append(SearchCall(request, engine, tuple(engines) if engines is not None else None))
        answer = self.answers.get(request.query)
        if answer is None:
            slug = request.query.replace(" ", "-")
            return response(request.query, *(f"https://{slug}.example/{i}" for i in range(1, 4)))
        if isinstance(answer, WebreachError):
            raise answer
        return answer

    async def read(self, request: ReadRequest) -> Page:
        self.reads.append(request)
        assert request.url.startswith("http"), "tools resolve refs to URLs before reading"
        answer = self.pages.get(request.url, page(request.url))
        if isinstance(answer, WebreachError):
            raise answer
        return answer

    def answers_at_once(self, request: SearchRequest, *, engine: str, engines: Sequence[str] | None) -> bool:
        return False  # canned answers: every search is "asked"

    def engine_names(self) -> list[str]:
        return list(self.engines)

    def engine_settings(self) -> Mapping[str, EngineSettings]:
        return self.configured
