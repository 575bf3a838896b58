# The two commands a newcomer runs: `make demo` and `make test` (`make help` lists the rest).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# uv (a fast installer, from PyPI) is put into .tools/uv on first use; where it cannot be
# installed, or with `make ... USE_UV=0`, pip installs instead. Neither fetches anything but
# packages from the package index.
USE_UV ?= 1
UV     := .tools/uv/bin/uv
export UV_PYTHON_DOWNLOADS ?= never
# PyMC/PyTensor compile cache kept inside the project so it is warm after the first run.
export PYTENSOR_FLAGS ?= compiledir=$(CURDIR)/.pytensor

.PHONY: help install demo test integration lint study bench bench-peers notebooks docs clean

help:
	@echo "make demo         runtime only: install passhat, run the bundled examples, write reports"
	@echo "make test         the default test tier: unit, property, doctest and CLI checks"
	@echo "make integration  docs build (-W), notebooks, real browser, NUTS fits, Monte-Carlo subsets"
	@echo "make study        the long statistical studies (pytest -m slow) and their reports"
	@echo "make lint         ruff and mypy"
	@echo "make docs         the documentation site into docs/_build/html"
	@echo "make notebooks    re-execute the notebooks in place"
	@echo "make bench        the speed and memory benchmarks"
	@echo "make bench-peers  passhat against agentrel, passk-inference, evalstats (own .venv-peers)"
	@echo "make install      everything a contributor uses (.[dev]), e.g. to open the notebooks"
	@echo "make clean        remove .venv, .tools and build output"
	@echo "Each target installs what it needs into .venv/ (nothing global), once per pyproject.toml."

# $(call install,EXTRAS): the venv, then `pip install -e .EXTRAS` into it, by uv when possible.
define install
	@if [ "$(USE_UV)" = 1 ] && { [ -x $(UV) ] || \
		$(PYTHON) -m pip install --quiet --upgrade --target .tools/uv uv >/dev/null 2>&1; }; \
	then \
		echo "installing passhat$(1) with uv"; \
		[ -x $(BIN)/python ] || $(UV) venv --quiet --seed --python $(PYTHON) $(VENV); \
		$(UV) pip install --quiet --compile-bytecode --python $(BIN)/python -e '.$(1)'; \
	else \
		echo "installing passhat$(1) with pip"; \
		[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV); \
		$(BIN)/python -m pip install --quiet -e '.$(1)'; \
	fi
	@touch $@
endef

# One stamp per environment; each adds to the one before (runtime ⊂ test ⊂ integration ⊂ dev).
$(VENV)/.runtime: pyproject.toml
	$(call install,)
$(VENV)/.test: pyproject.toml
	$(call install,[test])
$(VENV)/.integration: pyproject.toml
	$(call install,[test$(comma)docs$(comma)fast])
$(VENV)/.lint: pyproject.toml
	$(call install,[lint])
$(VENV)/.dev: pyproject.toml
	$(call install,[dev])
comma := ,

install: $(VENV)/.dev

# The bundled examples: τ-bench's real gpt-4o airline results (with six tasks' trajectories)
# and the two simulated systems. Needs the runtime dependencies only.
demo: $(VENV)/.runtime
	$(BIN)/passhat estimate --example tau-airline --k 1-4 --ci 0.95
	$(BIN)/passhat report --example tau-airline -o reports/demo/tau-airline \
		--traces src/passhat/examples/tau_airline/traces/gpt-4o-airline.json
	$(BIN)/passhat estimate --example agents --k 1,2,5 --ci 0.95
	$(BIN)/passhat report --example agents -o reports/example --k 1,2,5
	$(BIN)/passhat rank --example leaderboard --k 1,5
	$(BIN)/passhat report --example leaderboard -o reports/demo/leaderboard --k 1,5 --no-model
	@echo
	@echo "Reports written (open the index.html files in a browser):"
	@echo "  reports/example/index.html              two simulated systems, the main report"
	@echo "  reports/demo/tau-airline/index.html     tau-bench gpt-4o airline, with traces"
	@echo "  reports/demo/leaderboard/index.html     six systems: the leaderboard section"

# The default tier (pyproject's addopts: not slow, not integration) on two workers.
test: $(VENV)/.test
	$(BIN)/python -m pytest -q -n 2

# What CI runs after `make test` (.ci/run): the docs build, the notebooks, headless Chromium
# (tests/report/test_report_browser.py), NUTS fits and the studies' Monte-Carlo subsets.
integration: $(VENV)/.integration
	$(BIN)/python -m pytest -q -n 2 -m 'integration and not slow'

lint: $(VENV)/.lint
	$(BIN)/ruff check src tests benchmarks studies
	$(BIN)/ruff format --check src tests benchmarks studies
	$(BIN)/mypy

study: $(VENV)/.test
	$(BIN)/python studies/run_all.py
	$(BIN)/python -m pytest -q -m slow

# The documentation site, warnings as errors (make integration builds it too).
docs: $(VENV)/.integration
	$(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html
	@echo "open docs/_build/html/index.html"

# Re-execute the notebooks in place (the docs render their committed outputs; the tests compare).
notebooks: $(VENV)/.integration
	$(BIN)/python docs/execute_notebooks.py

bench: $(VENV)/.test
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

# The peer packages (benchmarks/peers/requirements.txt) go into their own environment with
# passhat's runtime, never into .venv: they are baselines to time, not dependencies.
PEERS := .venv-peers
$(PEERS)/.stamp: pyproject.toml benchmarks/peers/requirements.txt
	@if [ "$(USE_UV)" = 1 ] && { [ -x $(UV) ] || \
		$(PYTHON) -m pip install --quiet --upgrade --target .tools/uv uv >/dev/null 2>&1; }; \
	then \
		[ -x $(PEERS)/bin/python ] || $(UV) venv --quiet --seed --python $(PYTHON) $(PEERS); \
		$(UV) pip install --quiet --python $(PEERS)/bin/python -e . -r benchmarks/peers/requirements.txt; \
	else \
		[ -x $(PEERS)/bin/python ] || $(PYTHON) -m venv $(PEERS); \
		$(PEERS)/bin/python -m pip install --quiet -e . -r benchmarks/peers/requirements.txt; \
	fi
	@touch $@

bench-peers: $(PEERS)/.stamp
	nice $(PEERS)/bin/python benchmarks/bench_peers.py > benchmarks/bench_peers.txt.part
	mv benchmarks/bench_peers.txt.part benchmarks/bench_peers.txt
	cat benchmarks/bench_peers.txt

clean:
	rm -rf $(VENV) $(PEERS) .tools .pytest_cache .mypy_cache .ruff_cache docs/_build docs/api/generated
