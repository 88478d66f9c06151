"""Players and their devices: the player id credential, transfer codes, recovery keys and
sign-outs (docs/devices.md). Every feature reads who is asking through `devices.public`."""
