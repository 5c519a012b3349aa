"""The bundled benchmark data sets, one loader a source (see `shared/perfmodel/benchmarks.py`)."""
