"""Cluster quotes: POST /quotes/cluster, POST /quotes/compare, GET /quotes."""
