# tujie: `make page` builds the example (setting everything up on a fresh machine), `make test`
# runs every test. Each set-up step is guarded by a stamp, so re-running downloads nothing.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
NPM_DIR := .cache/npm
NPM_PACKAGES := @fontsource/ma-shan-zheng@5.3.1 @fontsource/patrick-hand@5.3.0 axe-core@4.14.1
SRC    ?= examples/llm-inference
ARGS   ?=
PORT   ?= 8000

.PHONY: setup page test lint bench publish serve clean help readme

help:
	@echo "make page [SRC=folder]   set up (first time) and build the page through review"
	@echo "make test                run the whole test suite (+ ruff and mypy)"
	@echo "make publish [ARGS=...]  publish the last build (e.g. ARGS=--allow-unverified)"
	@echo "make serve               serve output/site/ on http://127.0.0.1:$(PORT)/"
	@echo "make bench               print the simulator, link-check, review and build (check vs Chromium floor) benchmarks and page bytes by part"
	@echo "make readme              regenerate README.md's tujie command section from the CLI"

$(VENV)/.installed: pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test]'
	@touch $@

$(NPM_DIR)/.installed: Makefile
	@mkdir -p $(NPM_DIR)
	npm install --prefix $(NPM_DIR) --no-audit --no-fund --no-save --loglevel=error $(NPM_PACKAGES)
	@touch $@

setup: $(VENV)/.installed $(NPM_DIR)/.installed
	@$(PY) -m pipeline.envsetup

page: setup
	$(PY) -m pipeline.cli build $(SRC)

test: setup
	$(PY) -m ruff check pipeline sim tests
	$(PY) -m mypy pipeline sim
	$(PY) -m pytest tests -ra

lint: setup
	$(PY) -m ruff check pipeline sim tests
	$(PY) -m mypy pipeline sim

readme: $(VENV)/.installed
	$(PY) -m pipeline.readme_cli README.md

bench: setup
	$(PY) -m sim bench
	$(PY) tests/bench/bench_links.py
	$(PY) tests/bench/bench_review.py
	$(PY) tests/bench/bench_build.py
	$(PY) tests/bench/page_bytes.py

publish: setup
	$(PY) -m pipeline.cli publish $(SRC) $(ARGS)

serve: setup
	$(PY) -c "from pipeline.publish.local import serve; serve('output/site', $(PORT))"

clean:
	rm -rf output/*/ .cache/fonts
