"""Poker Squares and Kings Corner on one device: their routes, JSON, stored games and a
player's records. Other features use it only through `games.public`."""
