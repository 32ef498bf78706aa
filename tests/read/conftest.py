"""Reads here run under deadlines of a second or two; every page is extracted in a child forked from the
forkserver (extract/worker.py), whose first start imports the extractor, which alone can take that long on a
loaded machine. It is started once, before the first test, so no test's deadline pays for it."""

from __future__ import annotations

from multiprocessing import forkserver

import pytest

from webreach.extract.worker import process_context


@pytest.fixture(scope="session", autouse=True)
def _forkserver_running() -> None:
    if process_context().get_start_method() == "forkserver":
        forkserver.ensure_running()
