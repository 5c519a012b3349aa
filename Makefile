# The two commands: `make run` serves the API on the embedded default (SQLite, in-process
# work, bundled data); `make test` installs everything and runs lint, types and tests.
# Each step says what it does on one line before it starts (the first install is the long one).
VENV := .venv
BIN := $(VENV)/bin
# The pinned runtime dependencies: what `make run` needs.
RUN_STAMP := $(VENV)/.run-installed-stamp
# The same plus the dev tools (lint, types, tests, browser driver): what `make test` needs.
STAMP := $(VENV)/.installed-stamp
# pip byte-compiles what it installs one file at a time: most of a fresh install's CPU time.
# It installs without, and compileall compiles the same files on every core afterwards
# (skipping, as pip does, any file that does not compile). They are compiled at install
# rather than on first import because PYTHONDONTWRITEBYTECODE would make every process
# compile them again.
PIP_INSTALL := $(BIN)/python -m pip install --quiet --quiet --disable-pip-version-check --no-compile
COMPILE := $(BIN)/python -m compileall -q -q -j 0 $(VENV)/lib
PORT ?= 8000
SAY := @echo "==>"

.PHONY: run test lint typecheck pytest install services-up clean screenshots

# A new venv's pip is upgraded first: Python 3.11's bundled pip installs the lock about
# three times slower than the current one (measured on a fresh clone), so it pays for itself.
$(BIN)/python:
	$(SAY) "creating the virtual environment in $(VENV)"
	@python3 -m venv $(VENV) && $(PIP_INSTALL) --upgrade pip || { rm -rf $(VENV); exit 1; }

$(RUN_STAMP): pyproject.toml constraints.txt | $(BIN)/python
	$(SAY) "installing the pinned dependencies (constraints.txt) into $(VENV): about 30 s on a fresh clone"
	@$(PIP_INSTALL) -c constraints.txt -e .
	@$(COMPILE) || true
	@touch $(RUN_STAMP)

$(STAMP): pyproject.toml constraints.txt | $(BIN)/python
	$(SAY) "installing the pinned dependencies and dev tools (constraints.txt) into $(VENV)"
	@$(PIP_INSTALL) -c constraints.txt -e '.[dev]'
	@$(COMPILE) || true
	@touch $(STAMP) $(RUN_STAMP)

install: $(STAMP)

run: $(RUN_STAMP)
	$(SAY) "migrating the database and loading the bundled data (about 10 s on a first start)"
	$(SAY) "serving http://127.0.0.1:$(PORT) once that is done (Ctrl-C stops it)"
	@$(BIN)/gpu-advisor serve --host 127.0.0.1 --port $(PORT)

services-up:
	bash infra/dev/services-up.sh
	bash infra/dev/browser-up.sh

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy shared services tests bench

pytest: $(STAMP) services-up
	$(BIN)/pytest -n 2 --dist loadfile

test: lint typecheck pytest

# The browser tests, writing their pictures to docs/screenshots/ (make test leaves them alone).
screenshots: $(STAMP) services-up
	GPU_ADVISOR_SCREENSHOT_DIR=docs/screenshots $(BIN)/pytest tests/services/api/web/test_browser.py

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
