"""The push feature's entry for the other features: the only module of `push` that they may
import (`make contracts` holds them to it).

It exports nothing: the app assembles the feature itself (`routes.router`, and the
per-process `service.Push` it hooks to the online tables' saves).
"""

__all__: list[str] = []
