"""Decisions: a /recommend answer kept as given, with its query and the prices behind it."""
