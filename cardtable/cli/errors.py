"""Errors shared by the subcommands."""


class UsageError(Exception):
    """Bad input from the command line: printed as one line, exit status 2."""
