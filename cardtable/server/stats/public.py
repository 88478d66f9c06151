"""The statistics feature's entry for the other features. It is the last feature in the
layers (docs/architecture.md): no other feature uses anything of it, so it exports nothing;
its routes are assembled by the app."""

__all__: list[str] = []
