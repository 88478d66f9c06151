"""Online tables under load: filled in by the online benchmark work (docs/online.md)."""
