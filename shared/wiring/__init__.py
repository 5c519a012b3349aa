"""Composition: the Context, the job table, the schedulers and the Celery app: the one
place that knows every domain. Services use it; domains never import it."""
