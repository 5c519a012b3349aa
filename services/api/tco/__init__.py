"""GET /tco: own versus rent."""
