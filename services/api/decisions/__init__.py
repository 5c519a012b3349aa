"""Decisions: POST /decisions, GET /decisions/{id}, GET /decisions/{id}/replay."""
