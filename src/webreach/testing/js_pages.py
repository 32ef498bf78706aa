"""JavaScript-rendered test pages for the browser reader, served by the fake web under `/_js/`.

    GET /_js/article[?probe=URL...][&img=URL...]
        The HTML is an empty <div id="app"> and a script that writes the article into it, fills in a note from
        /_js/comments.json (an allowed same-origin call), then tries every `probe` URL with fetch() and every `img`
        URL as an image, and only then adds the closing paragraph (so its presence proves the probes ran).
        Without probe/img parameters it tries DEFAULT_PROBES and DEFAULT_IMAGES, all of them private.
    GET /_js/comments.json                 the JSON the article script reads
    GET /_js/redirect?hops=N&to=URL        302 through N more /_js/redirect hops, then 302 to `to`
    GET /_js/goto?to=URL                   a page whose script sends the whole window to `to`
    GET /_js/webrtc?stun=HOST:PORT&ws=URL  a page that gathers WebRTC candidates against that STUN server and
                                           opens a WebSocket, then reports both outcomes in the page

Every page reads its parameters in the browser (nothing is templated into the HTML); only the redirect route
reads `to` on the server, and refuses control characters so a test cannot inject headers by accident.
"""

from __future__ import annotations

import asyncio
import json
from urllib.parse import parse_qs, urlencode

from webreach.testing.wire import Request, write_response

JS_PREFIX = "/_js"
JS_ROUTE = "_js"  # the name js requests are logged under in FakeWeb.requests()
ARTICLE_TITLE = "How tide pools survive the summer"
ARTICLE_PARAGRAPHS = (
    "Tide pools are small worlds that the sea fills twice a day and leaves alone in between.",
    "In summer the water left behind warms quickly, loses oxygen and grows saltier as it evaporates, so the "
    "animals that live there close up, hide under stones or wait in the shade of seaweed until the tide returns.",
    "Anemones fold their tentacles inward, snails seal their shells with a small door, and crabs move to the "
    "deepest corner of the pool, where the water stays coolest through the afternoon.",
    "Visitors help most by looking without lifting: every stone turned over exposes creatures that were "
    "sheltering from the sun, and putting it back carefully matters more than anything else.",
)
CLOSING_PARAGRAPH = "Thanks for reading: every background request of this page has finished."
COMMENTS_NOTE = "Readers' note: the coolest pools are the ones shaded by the cliff at low tide."
DEFAULT_PROBES = (
    "http://10.0.0.1/",
    "http://169.254.169.254/latest/meta-data/",
    "/_js/redirect?" + urlencode({"hops": 2, "to": "http://10.0.0.1/"}),
)
DEFAULT_IMAGES = ("http://127.0.0.2:9/x.png",)

_HTML = "text/html; charset=utf-8"

_ARTICLE_SCRIPT = """
(async () => {
  const params = new URLSearchParams(location.search);
  const app = document.getElementById("app");
  const article = document.createElement("article");
  const add = (tag, text) => { const el = document.createElement(tag); el.textContent = text; article.append(el); };
  add("h1", %(title)s);
  for (const text of %(paragraphs)s) add("p", text);
  app.append(article);
  try { add("p", (await (await fetch("/_js/comments.json")).json()).note); } catch (e) { add("p", "no comments"); }
  const probes = params.has("probe") || params.has("img") ? params.getAll("probe") : %(probes)s;
  const images = params.has("probe") || params.has("img") ? params.getAll("img") : %(images)s;
  const loads = images.map((src) => new Promise((done) => {
    const img = new Image(); img.onload = img.onerror = done; img.src = src; document.body.append(img);
  }));
  for (const url of probes) { try { await fetch(url); } catch (e) { /* refused, as it should be */ } }
  await Promise.all(loads);
  add("p", %(closing)s);
})();
"""

_GOTO_SCRIPT = """
const target = new URLSearchParams(location.search).get("to");
document.getElementById("app").textContent = "Leaving for " + target;
location.href = target;
"""

_WEBRTC_SCRIPT = """
(async () => {
  const params = new URLSearchParams(location.search);
  const status = [];
  try {
    const pc = new RTCPeerConnection({iceServers: [{urls: "stun:" + params.get("stun")}]});
    pc.createDataChannel("probe");
    const gathered = new Promise((done) => { pc.onicecandidate = (e) => { if (!e.candidate) done(); }; });
    await pc.setLocalDescription(await pc.createOffer());
    await Promise.race([gathered, new Promise((done) => setTimeout(done, 3000))]);
    status.push("WebRTC gathering finished.");
  } catch (e) { status.push("WebRTC unavailable."); }
  const closed = await new Promise((done) => {
    const ws = new WebSocket(params.get("ws"));
    ws.onopen = () => done("WebSocket opened."); ws.onclose = () => done("WebSocket closed.");
  });
  status.push(closed);
  const app = document.getElementById("app");
  for (const text of status) { const p = document.createElement("p"); p.textContent = text; app.append(p); }
})();
"""


def is_js_page(path: str) -> bool:
    """Whether a request path belongs to the JavaScript test pages."""
    return path == JS_PREFIX or path.startswith(JS_PREFIX + "/")


def _shell(title: str, script: str) -> bytes:
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>\n'
        f'<body><div id="app"></div>\n<script>{script}</script></body></html>\n'
    ).encode()


def _article_script() -> str:
    values = {
        "title": ARTICLE_TITLE,
        "paragraphs": ARTICLE_PARAGRAPHS,
        "closing": CLOSING_PARAGRAPH,
        "probes": DEFAULT_PROBES,
        "images": DEFAULT_IMAGES,
    }
    return _ARTICLE_SCRIPT % {name: json.dumps(value) for name, value in values.items()}


def _redirect(query: str) -> tuple[int, tuple[tuple[str, str], ...], bytes]:
    params = parse_qs(query)
    target = params.get("to", [""])[0]
    hops_text = params.get("hops", ["0"])[0]
    if not target or not hops_text.isdigit() or any(ord(char) < 0x20 or ord(char) == 0x7F for char in target):
        return 400, (("content-type", "text/plain"),), b"redirect needs to=URL (no control characters) and hops=N\n"
    hops = int(hops_text)
    location = target if hops == 0 else f"{JS_PREFIX}/redirect?" + urlencode({"hops": hops - 1, "to": target})
    return 302, (("location", location), ("content-type", "text/plain")), b"redirecting\n"


def js_page(request: Request) -> tuple[int, tuple[tuple[str, str], ...], bytes]:
    """Status, headers and body for one request under /_js/."""
    name = request.path[len(JS_PREFIX) :].strip("/")
    if name == "article":
        return 200, (("content-type", _HTML),), _shell(ARTICLE_TITLE, _article_script())
    if name == "comments.json":
        return 200, (("content-type", "application/json"),), json.dumps({"note": COMMENTS_NOTE}).encode()
    if name == "redirect":
        return _redirect(request.query)
    if name == "goto":
        return 200, (("content-type", _HTML),), _shell("Leaving", _GOTO_SCRIPT)
    if name == "webrtc":
        return 200, (("content-type", _HTML),), _shell("Realtime probes", _WEBRTC_SCRIPT)
    return 404, (("content-type", "text/plain"),), f"no JavaScript test page {name!r}\n".encode()


async def serve_js_page(writer: asyncio.StreamWriter, request: Request) -> bool:
    """Answer one /_js/ request; True when the connection stays open for another."""
    status, headers, body = js_page(request)
    keep_alive = request.keep_alive
    await write_response(writer, status, headers, body, keep_alive=keep_alive, head_only=request.method == "HEAD")
    return keep_alive
