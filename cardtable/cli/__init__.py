"""The `cardtable` command line: one module per subcommand, wired together in `main`."""
