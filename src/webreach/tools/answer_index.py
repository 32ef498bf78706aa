"""Zero-based per-answer indexes: which refs the session's latest search answer showed, kept in the session store.

    await keep_answer(sessions, session, [7, 3, 8])   # the answer showed indexes 0, 1, 2
    await answer_ref(sessions, session, 1)            # -> 3: web_fetch(index=1) reads ref 3

The answer is an entry of a companion session (the session's name and a tab, then "answers"), so it lives where
the refs live (memory, SQLite or Redis), expires with them (the store's TTL) and is shared by every worker. The
store numbers entries and offers no "latest" read, so finding the latest answer takes one marker entry: its ref
is the store's counter, and the highest answer entry below it is the latest answer. An answer found below a
marker is kept again on top, so only lookups running at the same moment lie between (at most MAX_WALK entries are
looked at). A lookup racing a search of the same session may re-keep the older answer above the newer one: which
search is "latest" is undefined for calls made at the same moment anyway.
"""

from __future__ import annotations

import hashlib
import json
import uuid

from webreach.errors import InvalidInputError, UnknownRefError
from webreach.state.sessions import SessionStore

ANSWER = "answer\t"
MARKER = "marker\t"
MAX_WALK = 64


def answers_session(session: str) -> str:
    """The companion session holding `session`'s answers (a long name shortened by its digest, within the store's
    200 characters)."""
    if len(session) > 180:
        session = f"{session[:100]}\t{hashlib.sha256(session.encode()).hexdigest()[:32]}"
    return f"{session}\tanswers"


async def keep_answer(sessions: SessionStore, session: str, refs: list[int]) -> None:
    """Remember `refs` (index i -> refs[i]) as `session`'s latest answer."""
    await sessions.remember(answers_session(session), [f"{ANSWER}{uuid.uuid4().hex}\t{json.dumps(refs)}"])


async def answer_ref(sessions: SessionStore, session: str, index: int) -> int:
    """The ref index `index` of the session's latest answer stands for; UnknownRefError when there is none."""
    companion = answers_session(session)
    (top,) = await sessions.remember(companion, [f"{MARKER}{uuid.uuid4().hex}"])
    for ref in range(top - 1, max(0, top - 1 - MAX_WALK), -1):
        try:
            entry = await sessions.resolve(companion, ref)
        except UnknownRefError:
            break
        if entry.startswith(ANSWER):
            refs: list[int] = json.loads(entry.rsplit("\t", 1)[1])
            if ref != top - 1:  # markers lie above it: keep it again on top, so lookups never walk far
                await keep_answer(sessions, session, refs)
            if index >= len(refs):
                raise InvalidInputError(
                    f"index {index} is not in the latest search (indexes 0-{len(refs) - 1})",
                    hint="Pass an index the latest web_search showed.",
                )
            return refs[index]
    raise UnknownRefError(
        "there is no search in this session to take an index from",
        hint="Call web_search first, then web_fetch(index=N) with an index it showed.",
    )
