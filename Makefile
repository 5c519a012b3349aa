# The two commands: `make run` serves the API on the embedded default (SQLite, in-process
# work, bundled data); `make test` installs everything and runs lint, types and tests.
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PORT ?= 8000

.PHONY: run test lint typecheck pytest install services-up clean screenshots

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/gpu-advisor serve --host 127.0.0.1 --port $(PORT)

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
