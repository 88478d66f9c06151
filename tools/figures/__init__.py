"""Figures of the how-to-play pages, generated from engine positions (``make figures``)."""
