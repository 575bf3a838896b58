# The two commands a newcomer runs: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# PyMC/PyTensor compile cache kept inside the project so it is warm after the first run.
export PYTENSOR_FLAGS ?= compiledir=$(CURDIR)/.pytensor

.PHONY: install demo test lint study bench notebooks docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# The bundled examples: τ-bench's real gpt-4o airline results (with six tasks' trajectories)
# and the two simulated systems.
demo: $(STAMP)
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

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks studies
	$(BIN)/ruff format --check src tests benchmarks studies
	$(BIN)/mypy

study: $(STAMP)
	$(BIN)/python studies/run_all.py
	$(BIN)/python -m pytest -q -m slow

# The documentation site, warnings as errors (tests/test_docs.py builds it too, in make test).
docs: $(STAMP)
	$(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html
	@echo "open docs/_build/html/index.html"

# Re-execute the notebooks in place (the docs render their committed outputs; the tests compare).
notebooks: $(STAMP)
	$(BIN)/python docs/execute_notebooks.py

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache docs/_build docs/api/generated
