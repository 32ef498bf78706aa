"""`webreach fetch` and `webreach extract`: a page read as the web_fetch tool call through the pipeline (compact,
JSON or raw), and local files extracted offline as the reader would."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import click

from webreach.defaults import DEFAULT_MAX_CHARS
from webreach.errors import WebreachError, error_body
from webreach.frontends._cli_hints import cli_syntax
from webreach.frontends._cli_progress import verbosity_options
from webreach.frontends._cli_run import AGENT_OPTION, TEXT, call_tool, calling, run
from webreach.frontends._cli_types import PageUrl, Seconds
from webreach.frontends._errors import exit_code

if TYPE_CHECKING:  # the Gateway and the models load when the command runs, not with the CLI (start-up)
    from webreach.gateway import Gateway
    from webreach.models import Page

# the longest deadline `fetch --timeout` takes: an hour is far past any page, and a read holds a worker meanwhile
MAX_FETCH_SECONDS = 3600.0


@click.command()
@click.argument("url", required=False, type=TEXT)
@click.option("--ref", type=int, help="Read result N of an earlier `webreach search` in --session.")
@click.option("--session", type=TEXT, help="Session the ref belongs to (default: as for `webreach search`).")
@click.option("--start", default=0, show_default=True, help="Character offset of the window (a next_start).")
@click.option("--max-chars", default=DEFAULT_MAX_CHARS, show_default=True, help="Window size in characters.")
@click.option("--max-tokens", type=int, help="Also cap the window at this many tokens (with --question: the budget).")
@click.option("--question", type=TEXT, help="Read for this question: only the passages that answer it, with anchors.")
@click.option("--passage", type=int, help="Read passage N (an anchor's n); with --max-tokens, on from it.")
@click.option("--format", "content_format", type=click.Choice(["markdown", "text", "html", "json"]), default="markdown")
@click.option("--reader", type=click.Choice(["auto", "direct", "browser", "jina"]), default="auto", show_default=True)
@click.option(
    "--resolve", multiple=True, type=TEXT, help="HOST:ADDR[,ADDR...]: use these addresses for HOST (still guarded)."
)
@click.option("--allow-cidr", multiple=True, type=TEXT, help="Also allow this private network (metadata stays denied).")
@click.option("--timeout", type=Seconds(MAX_FETCH_SECONDS), help="Total seconds for the read (at most 3600).")
@click.option(
    "--output",
    type=click.Choice(["compact", "json", "raw"]),
    default="compact",
    show_default=True,
    help="compact: header + fenced content (what agents get); json: the Page; raw: the content only.",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --output json.")
@verbosity_options
@AGENT_OPTION
def fetch(
    url: str | None,
    ref: int | None,
    session: str | None,
    agent: str | None,
    resolve: tuple[str, ...],
    allow_cidr: tuple[str, ...],
    timeout: float | None,
    output: str,
    as_json: bool,
    content_format: str,
    **fields: Any,
) -> None:
    """Read a page safely (SSRF-guarded) as clean text, one window at a time."""
    from webreach.frontends import _render
    from webreach.gateway import ReadOverrides
    from webreach.models import ReadRequest
    from webreach.tools import page_text

    output = "json" if as_json else output

    async def work(gateway: Gateway) -> None:
        given = (url.strip() if url else None) or None  # url or --ref: web_fetch's own check says which is missing
        reader = fields.pop("reader")
        if given is not None:  # every option checked before anything is asked
            with calling("web_fetch"):
                ReadRequest.create(url=given, format=content_format, reader=reader, **fields)
        report = _render.Reporter(gateway.clock)
        what = given or f"ref {ref}"
        if (given is None) != (ref is None):  # else web_fetch's own check refuses the call before anything is read
            report.note(f"reading {what} (reader {reader})")
        arguments = {"url": given, "ref": ref, "format": content_format, **fields}
        async with report.working(f"reading {what}"):
            result = await call_tool(
                gateway,
                agent,
                "web_fetch",
                arguments,
                session=session,
                as_json=output == "json",
                extra={"reader": reader},
            )
        page: Page = result.value
        cached = " (cached)" if page.cached else ""
        report.note(f"read {page.url} by the {page.reader} reader{cached}: {page.total_chars} chars")
        if output == "raw":
            click.echo(page.content)
        elif output == "json":
            click.echo(page.model_dump_json())
        else:
            click.echo(page_text(page, ref=ref, syntax=cli_syntax))

    run(output == "json", work, ReadOverrides(resolve=resolve, allow_cidrs=allow_cidr, timeout=timeout))


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--url", type=PageUrl(), help="The URL the files came from (resolves relative links, helps metadata).")
@click.option("--format", "content_format", type=click.Choice(["markdown", "text"]), default="markdown")
@click.option("--jsonl", is_flag=True, help="One JSON object per file: path, title, text, error.")
def extract(files: tuple[Path, ...], url: str | None, content_format: Literal["markdown", "text"], jsonl: bool) -> None:
    """Extract local HTML, PDF, text or JSON files (gzip-compressed too) offline, as the reader would."""
    from webreach.frontends import _render

    async def work(gateway: Gateway) -> int:
        worst = 0
        for path in files:
            try:
                extracted = await gateway.extract_file(path, url=url, format=content_format)
            except WebreachError as error:
                worst = max(worst, exit_code(error))
                row = {"path": str(path), "title": None, "text": None, "error": error_body(error)}
                if not jsonl:
                    click.echo(f"error [{error.code}] {path}: {error.describe(cli_syntax)}", err=True)
            else:
                row = {"path": str(path), "title": extracted.title, "text": extracted.text, "error": None}
                if not jsonl:
                    click.echo(_render.extracted_file(path, extracted.title, extracted.text, several=len(files) > 1))
            if jsonl:
                click.echo(json.dumps(row, ensure_ascii=False))
        return worst

    sys.exit(run(False, work))
