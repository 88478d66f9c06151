"""Suite-wide fixtures: the API fixtures used by tests/server and tests/reliability."""

pytest_plugins = ["tests.support.api_fixtures"]
