"""The fake web: recorded engine responses served on loopback, with faults on demand."""

from webreach.testing.clock import FakeClock
from webreach.testing.fakeweb import FakeWeb, LoggedRequest, UnknownEngineError, serve
from webreach.testing.markup import rename_classes
from webreach.testing.recordings import (
    RECORDINGS_DIR,
    Recording,
    engine_recordings,
    format_recording,
    load_recording,
    parse_recording,
)
from webreach.testing.scenarios import Fault, Limits, Scenario

__all__ = [
    "RECORDINGS_DIR",
    "FakeClock",
    "FakeWeb",
    "Fault",
    "Limits",
    "LoggedRequest",
    "Recording",
    "Scenario",
    "UnknownEngineError",
    "engine_recordings",
    "format_recording",
    "load_recording",
    "parse_recording",
    "rename_classes",
    "serve",
]
