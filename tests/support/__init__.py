"""Test helpers shared across suites: a throwaway PostgreSQL server and a live HTTP server."""
