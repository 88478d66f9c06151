"""Quick play (docs/quickplay.md): the stored queue that seats people who have not met at
online Kings Corner tables, nearest rating first, with computers after a wait; each player's
blocks; the bounds on hostile clients."""
