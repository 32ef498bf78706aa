"""`python -m webreach` runs the CLI."""

from webreach.frontends.cli import main

main()
