"""cardtable: Kings Corner and Poker Squares, engines, computer players, server and web UI."""

__version__ = "0.1.0"
