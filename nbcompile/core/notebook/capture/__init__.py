"""The capture hub: the session hearing torch's trace and log records, its side channels
and listeners, and a target's record snapshot."""
