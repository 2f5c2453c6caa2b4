// Live updates (pairings, "my match", the clock): see tournaments/views_live.py.
// Stub: the live-rounds work fills this in.
