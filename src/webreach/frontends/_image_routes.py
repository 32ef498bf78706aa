"""The image routes of `webreach serve` (issue 14): GET /i/<id> serves a public_url link, POST /v1/images takes a
multipart upload.

GET /i/<id> is what a reverse-search backend fetches when [images] storage = "public_url": no agent key (the
backend has none); the id is 192 random bits and expires (images/storage.py), an unknown or expired one is 404.
The answer says nosniff and no-store beyond its life, so a cache never serves it past expiry.

POST /v1/images (multipart/form-data, the image in field `file`) is the REST door of the hidden image_upload
tool: it runs through the tool pipeline (agent key, credits, session header) like POST /v1/<tool>.
"""

from __future__ import annotations

import asyncio
import base64
import re

from starlette.requests import Request
from starlette.responses import Response

from webreach.errors import InvalidInputError, WebreachError
from webreach.frontends._agent_auth import caller_of
from webreach.frontends._asgi import SESSION_HEADER, refusal
from webreach.frontends._errors import http_status
from webreach.frontends._rest_errors import error_response
from webreach.gateway import Gateway
from webreach.tools import Toolbox

LINK_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")


async def public_image(gateway: Gateway, link_id: str) -> Response:
    """The linked image's bytes, or 404."""
    found = await gateway.images.store.linked(link_id) if LINK_ID.fullmatch(link_id) else None
    if found is None:
        return error_response(refusal("not_found", "no such image, or it expired"))
    data, mime, left = found
    headers = {"Cache-Control": f"private, max-age={int(left)}", "X-Content-Type-Options": "nosniff"}
    return Response(data, media_type=mime, headers=headers)


async def upload(gateway: Gateway, toolbox: Toolbox, request: Request) -> Response:
    """A multipart upload through the image_upload tool: its JSON answer (token, url), or the error body."""
    try:
        caller = await caller_of(gateway, request.headers.raw)
    except WebreachError as error:  # no valid key, or the ledger cannot be read now
        return _error(error)
    try:
        data = await _file(request, gateway.settings.images.max_input_bytes)
    except WebreachError as error:
        return _error(error)
    encoded = await asyncio.to_thread(base64.b64encode, data)  # megabytes: off the loop
    result = await toolbox.call(
        "image_upload",
        {"image": encoded.decode("ascii")},
        session=request.headers.get(SESSION_HEADER),
        output="json",
        caller=caller,
        idempotency_key=request.headers.get("idempotency-key"),
    )
    status = http_status(result.error.code) if result.error is not None else 200
    return Response(result.text, status_code=status, media_type="application/json")


async def _file(request: Request, max_bytes: int) -> bytes:
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise InvalidInputError("send multipart/form-data with the image in field 'file'")
    async with request.form(max_files=1, max_fields=4, max_part_size=max_bytes) as form:
        part = form.get("file")
        if part is None or isinstance(part, str):
            raise InvalidInputError("the form has no file field 'file'", hint="curl -F file=@photo.jpg ...")
        data = await part.read()
    return data


def _error(error: WebreachError) -> Response:
    return error_response(error, tool="image_upload")


__all__ = ["public_image", "upload"]
