"""schemathesis against the real server: the OpenAPI document states exactly what the server accepts.

`webreach serve` runs as a process on a free loopback port with the fake web behind it (offline mode, so a
generated URL can never leave the machine). For every operation schemathesis sends documents generated from the
schema, valid ones and ones it breaks on purpose, and checks every answer: only documented status codes, bodies
and content types as documented, valid data accepted and invalid data refused, and no server error: never a 500,
and a 5xx only as the documented answer of an upstream or configuration failure (the fake web's engines can be
suspended by their own breakers mid-run: 502/503/504 with that code; a keyed engine without a key: 501). The
engines' rate limits are raised so the run exercises the arguments, not the token buckets. 50 examples per
operation and mode in CI; WEBREACH_FUZZ=long makes it 1,000. Numbers as strings ("limit": "5") are in the
document (a string branch with the exact pattern the server takes); what it cannot say is the rest of the forgiving
side (`engines` as one comma-separated string): the long profile can meet it in negative mode.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.specs.openapi import checks as openapi_checks

from frontends.serving import ServerProcess, http_server
from webreach.engines import names as engine_names
from webreach.frontends._errors import HTTP_STATUS
from webreach.testing import FakeWeb

pytestmark = [pytest.mark.network, pytest.mark.fuzz]
# the 5xx answers the document gives for failures that are not the server's (upstream, configuration)
NOT_OURS = frozenset(code for code, status in HTTP_STATUS.items() if status >= 500 and code != "error")


@schemathesis.check
def no_internal_error(ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case) -> None:
    if response.status_code < 500:
        return
    body = response.json()
    code = body.get("code") if isinstance(body, dict) else None
    if code not in NOT_OURS:
        raise AssertionError(f"{response.status_code} with code {code!r}: {response.text[:300]}")


CHECKS = [
    no_internal_error,
    openapi_checks.status_code_conformance,
    openapi_checks.content_type_conformance,
    openapi_checks.response_schema_conformance,
    openapi_checks.response_headers_conformance,
    openapi_checks.positive_data_acceptance,
    openapi_checks.negative_data_rejection,
]
EXAMPLES = 1000 if os.environ.get("WEBREACH_FUZZ") == "long" else 50


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    home = tmp_path_factory.mktemp("openapi-home")
    fast = {f"WEBREACH_ENGINES__{name.upper()}__RATE_PER_MINUTE": "1000000" for name in engine_names()}
    with FakeWeb.in_thread() as web, http_server(web, Path(home), **fast) as running:
        yield running


@pytest.fixture(scope="module")
def api_schema(server: ServerProcess) -> schemathesis.BaseSchema:
    loaded = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
    # no headers of schemathesis' own invention: a random Host is refused (421) by the DNS-rebinding guard, which
    # is the server's transport policy, not something the document describes
    loaded.config.generation.update(allow_extra_parameters=False)
    return loaded


OPERATIONS = [
    "POST /v1/search", "POST /v1/search_multi", "POST /v1/fetch", "POST /v1/image_search", "POST /v1/crop_images",
    "POST /v1/reverse_image_search", "GET /v1/tools", "GET /healthz", "POST /v1/images", "GET /i/{link_id}",
]  # fmt: skip


def test_the_document_lists_the_operations_tested(api_schema: schemathesis.BaseSchema) -> None:
    # the admin operations change the server's state (agents, breakers); tests/frontends/test_admin_*.py and
    # test_breaker_sharing.py cover them against the same document
    labels = {result.ok().label for result in api_schema.get_all_operations()}
    assert {label for label in labels if not label.split(" ")[1].startswith("/v1/admin")} == set(OPERATIONS)


# every operation with valid and with broken input (GET /healthz takes no input to break)
CASES = [
    (label, mode)
    for label in OPERATIONS
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    if not (label.startswith("GET") and mode is GenerationMode.NEGATIVE)
    # reverse_image_search's image is any string a schema can describe, but whether base64 holds an image is known
    # only once decoded (400/415, tests/images/test_reverse_search.py): valid input cannot be generated blind
    and not (label == "POST /v1/reverse_image_search" and mode is GenerationMode.POSITIVE)
    # the same for an upload's file, and a public link id is valid only once an upload made it (else 404)
    and not (label in ("POST /v1/images", "GET /i/{link_id}") and mode is GenerationMode.POSITIVE)
]


@pytest.mark.parametrize(("label", "mode"), CASES, ids=[f"{label}-{mode.value}" for label, mode in CASES])
def test_the_server_answers_as_its_openapi_document_says(
    api_schema: schemathesis.BaseSchema, label: str, mode: GenerationMode
) -> None:
    operation = api_schema.find_operation_by_label(label)
    assert operation is not None

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    def conforms(case: schemathesis.Case) -> None:
        if case.headers and "Idempotency-Key" in case.headers:
            # a key is one call's: generated keys repeat ("0") across different arguments, which the server rightly
            # refuses (422 idempotency_mismatch) whatever the document says of each request alone
            case.headers["Idempotency-Key"] = uuid.uuid4().hex
        if mode is GenerationMode.POSITIVE:
            one_box_per_image(case.body)
        case.call_and_validate(timeout=30, checks=CHECKS)

    conforms()


def one_box_per_image(body: object) -> None:
    """Keep each image's first crop: one box per image in a call is a rule the document cannot state (JSON Schema
    has no "unique by a member" for a list's items), so valid input keeps it, as the published shape says in words
    (crop_images refuses two boxes for one image with invalid_input naming the fix)."""
    if not isinstance(body, dict) or not isinstance(body.get("crops"), list):
        return
    seen: set[object] = set()
    kept = []
    for crop in body["crops"]:
        image = crop.get("image") if isinstance(crop, dict) else None
        if image is None or image not in seen:
            kept.append(crop)
        seen.add(image)
    body["crops"] = kept
