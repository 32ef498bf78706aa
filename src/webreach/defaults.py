"""The defaults and limits a door shows before anything else loads: `webreach --help` prints them without importing
pydantic, the models or the search service. models.py enforces the request limits, search/canary.py sends the query.
"""

MAX_LIMIT = 50
# results a person or program gets by default (library, CLI, REST JSON); agents get tools/arguments.py's
# DEFAULT_TOOL_LIMIT, smaller because every result costs context tokens
DEFAULT_LIMIT = 10
MAX_PAGE = 10
DEFAULT_MAX_CHARS = 8000
# the fixed query of `webreach canary` and the canary checks
CANARY_QUERY = "python programming language"
