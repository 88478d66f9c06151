"""The hint engine's research scripts: experiments that trained, corrected and compared Poker
Squares value tables (research/README.md; the record is research/NOTEBOOK.md)."""
