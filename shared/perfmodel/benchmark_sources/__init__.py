"""The bundled benchmark data sets, one loader a source (see `lab/benchmarks.py`)."""
