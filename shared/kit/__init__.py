"""Infrastructure every domain uses and that uses no domain: settings, database, events,
errors, fault injection, task-run records, broker health."""
