"""What every feature shares: settings, errors, the store and its migrations, admission of
expensive work and rate limits, retention, serving, health, the site's pages and files, and the
JSON bases. It imports no feature (`make contracts`); docs/architecture.md has the map."""
