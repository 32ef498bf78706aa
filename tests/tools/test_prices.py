"""Each tool's price is declared on its definition (ToolDefinition.price over its plan), aliases priced as their
target: what metering multiplies the configured price by, and whose engine surcharge it adds (issue 36)."""

from __future__ import annotations

import ast
from pathlib import Path

from webreach.tools.aliases import alias_tools
from webreach.tools.definitions import TOOLS, Price, ToolDefinition

ENGINES = ("bing", "mojeek")


def tool(name: str) -> ToolDefinition:
    return next(each for each in TOOLS if each.name == name)


def price(definition: ToolDefinition, arguments: dict[str, object]) -> Price:
    plan = definition.prepare(definition.arguments.parse(arguments), ENGINES)
    return definition.price(plan)


def test_a_search_is_priced_per_query_with_its_engine() -> None:
    assert price(tool("web_search"), {"query": ["a", "b", "c"], "engine": "bing"}) == Price(units=3, engine="bing")
    assert price(tool("web_search"), {"query": "one"}) == Price(units=1, engine="auto")


def test_image_search_is_priced_once_with_its_engine_and_crops_per_crop() -> None:
    assert price(tool("image_search"), {"query": "cats", "engine": "multi"}) == Price(units=1, engine="multi")
    boxes = {"<image_1>": [0, 0, 10, 10], "<image_2>": [0, 0, 0.5, 0.5]}
    assert price(tool("crop_images"), {"crops": boxes}) == Price(units=2)


def test_the_other_tools_cost_one_unit() -> None:
    assert price(tool("web_fetch"), {"url": "https://example.com/"}) == Price()


def test_an_alias_costs_what_its_target_costs() -> None:
    alias = next(each for each in alias_tools("visual-agent") if each.name == "image_search_by_text")
    assert price(alias, {"query": "cats"}) == Price(units=1, engine="auto")


def test_metering_switches_on_no_plan_type() -> None:
    source = (Path(__file__).parents[2] / "src" / "webreach" / "tools" / "accounting.py").read_text()
    calls = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)]
    checks = [call for call in calls if isinstance(call.func, ast.Name) and call.func.id == "isinstance"]
    assert not [call for call in checks if "plan" in ast.unparse(call.args[0])]
