"""Price sources: when each last ran, succeeded or failed, and which are stale."""
