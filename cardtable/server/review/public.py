"""The review feature's entry for the other features. No other feature uses anything of it
(the layers in docs/architecture.md), so it exports nothing; its routes are assembled by the
app."""

__all__: list[str] = []
