"""The engine table (engines/_catalog.py) is the one owner of every engine's metadata, and agrees with the modules:
each module has a row and each row a module, every class carries its row's values and sets none of them itself,
and the configuration check read from the row answers as the engine built from it does."""

from __future__ import annotations

import ast
import functools
import inspect
import pkgutil
from pathlib import Path
from typing import Any, ClassVar

import pytest

from webreach import engines
from webreach.config import EngineSettings
from webreach.engines import ENGINES, Engine, check_configured, keyless, pace
from webreach.engines._catalog import ROW_FIELDS
from webreach.engines.bing import Bing
from webreach.engines.serpapi import MAX_RESULTS
from webreach.errors import NotConfiguredError

PACKAGE = Path(engines.__file__).parent


def engine_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules([str(PACKAGE)]) if not m.name.startswith("_"))


def test_every_module_has_a_row_and_every_row_a_module() -> None:
    assert engine_modules() == sorted(ENGINES)


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_each_module_defines_its_rows_class_with_its_rows_values(name: str) -> None:
    row = ENGINES[name]
    module = __import__(f"webreach.engines.{name}", fromlist=["_"])
    defined = [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, Engine) and obj.__module__ == module.__name__
    ]
    assert [cls.__name__ for cls in defined] == [row.cls_name]
    cls = engines.load(row)
    assert cls is defined[0] and cls.name == name and not inspect.isabstract(cls)
    assert {f: getattr(cls, f) for f in ROW_FIELDS} == {f: getattr(row, f) for f in ROW_FIELDS}


@pytest.mark.parametrize("name", [*engine_modules(), "_images"])
def test_no_engine_module_sets_the_tables_metadata_itself(name: str) -> None:
    tree = ast.parse((PACKAGE / f"{name}.py").read_text())
    for node in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for statement in node.body:
            target = statement.target if isinstance(statement, ast.AnnAssign) else None
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target = statement.targets[0]
            if isinstance(target, ast.Name) and not _is_dataclass(node):
                assert target.id not in ROW_FIELDS, f"{name}.py {node.name}.{target.id}: the table's (_catalog.py)"


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any("dataclass" in ast.unparse(d) for d in node.decorator_list)


SETTINGS: list[dict[str, Any]] = [
    {},
    {"enabled": False},
    {"api_key": "k-123"},
    {"api_key": "k-123", "options": {"cx": "abc"}},
    {"base_url": "http://127.0.0.1:9"},
    {"options": {"keyless": "true"}},
    {"options": {"keyless": "true"}, "rate_per_minute": 7.0},
    {"api_key": "k-123", "options": {"engine": "bing"}},
    {"api_key": "k-123", "options": {"engine": "baidu"}},
    {"api_key": "k-123", "options": {"engine": "yandex"}},
]


def _problem(check: Any) -> str | None:
    try:
        check()
    except NotConfiguredError as exc:
        return exc.message
    return None


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_the_rows_rules_answer_as_the_built_engine_does(name: str) -> None:
    """usable(), auto's order and `webreach engines` read the row; a search asks the engine: they agree."""
    row = ENGINES[name]
    for fields in SETTINGS:
        settings = EngineSettings(**fields)
        engine = engines.create(name, settings)
        assert _problem(functools.partial(check_configured, row, settings)) == _problem(engine.ensure_configured)
        assert keyless(row, settings) == engine.keyless, fields
        assert pace(row, settings) == (engine.settings.rate_per_minute or engine.rate_per_minute), fields
        configured = row.configured(settings)
        assert (configured.index, configured.supports, configured.language_hint) == (
            engine.index, engine.supports, engine.language_hint,
        ), fields  # fmt: skip


def test_the_rules_say_what_is_missing() -> None:
    assert _problem(lambda: check_configured(ENGINES["searxng"], EngineSettings())) == (
        "needs the URL of a SearXNG instance (set WEBREACH_ENGINES__SEARXNG__BASE_URL)"
    )
    cse = EngineSettings(api_key="k-123")
    assert _problem(lambda: check_configured(ENGINES["images_google_cse"], cse)) == (
        "needs a search engine id (set WEBREACH_ENGINES__GOOGLE_CSE__OPTIONS__CX or options.cx)"
    )
    serpapi = EngineSettings(api_key="k-123", options={"engine": "Yandex "})
    assert _problem(lambda: check_configured(ENGINES["serpapi"], serpapi)) == (
        "option engine='yandex' is not one of google, bing, baidu"
    )
    jina = EngineSettings(options={"keyless": "yes"})
    assert _problem(lambda: check_configured(ENGINES["jina"], jina)) is None and pace(ENGINES["jina"], jina) == 100


def test_serpapi_has_a_result_limit_for_each_dialect_the_table_lists() -> None:
    choices = ENGINES["serpapi"].choices
    assert choices is not None and set(MAX_RESULTS) == set(choices[2]) == set(ENGINES["serpapi"].variants)
    assert ENGINES["images_serpapi"].choices == choices


def test_a_class_outside_the_table_keeps_what_it_inherits() -> None:
    class Renamed(Bing):
        name: ClassVar[str] = "zz_renamed"

    row = engines.info_of(Renamed)
    assert (row.kind, row.index, row.base_url, engines.load(row)) == (
        "scraped",
        "bing",
        "https://www.bing.com",
        Renamed,
    )


def test_an_engine_module_without_a_row_is_refused() -> None:
    with pytest.raises(RuntimeError, match=r"no row in engines/_catalog\.py"):
        type(Bing)("Stray", (Bing,), {"name": "stray", "__module__": "webreach.engines.stray"})
