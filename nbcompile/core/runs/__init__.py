"""Runs on copies: the toolkit compare, profile, suggest and diagnose share. Copies of the
user's objects with their own Dynamo cache, their eager behaviour, the module inside a
wrapper, the sandbox that puts the user's state back, private graph captures, timed calls."""
