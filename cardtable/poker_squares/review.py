"""Engine review of a finished deal (issue 15): filled in by the review work."""
