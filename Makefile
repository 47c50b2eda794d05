# Two commands matter: `make demo` (install and run an example end to end) and `make test`.
PYTHON ?= python3

.PHONY: install demo test test-all bench

install:
	$(PYTHON) -m pip install --quiet -e ".[test]"

demo: install
	$(PYTHON) examples/demo.py

test: install
	$(PYTHON) -m pytest -q -n 2  # two worker processes (pytest-xdist): the CI machine has two cores

test-all: install  # every case of the sampled sweeps too (random programs, third orders; tests/conftest.py SAMPLED)
	MOONCAKE_AST_ALL_PROBES=1 $(PYTHON) -m pytest -q -n 2

bench: install
	$(PYTHON) examples/bench.py
	$(PYTHON) examples/bench_startup.py
	$(PYTHON) examples/bench_memory.py
