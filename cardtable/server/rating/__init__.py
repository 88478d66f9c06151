"""Ratings of rated quick-play matches (docs/rating.md): OpenSkill's Plackett-Luce model over
each match's finishing order, computers at fixed ratings, a provisional mark until a rating
settles, the player's history and the public board of the last 30 days."""
