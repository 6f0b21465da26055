# Ladder: make run · make test · make lint · make bench · make bench-history · make bench-web ·
# make worker
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint bench bench-history bench-web bench-search bench-fide-list worker install browser clean messages

# The settings fail closed (debug off, a secret key required); local targets use the settings
# for local tools, which add a throwaway key (ladder/settings_local.py). Never for deployment.
export DJANGO_SETTINGS_MODULE ?= ladder.settings_local

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The translations (German, French) are compiled from locale/<code>/LC_MESSAGES/django.po; the
# .mo files are built here, never committed (docs/translations.md).
LOCALES := de fr
MO := $(foreach code,$(LOCALES),locale/$(code)/LC_MESSAGES/django.mo)
locale/%/LC_MESSAGES/django.mo: locale/%/LC_MESSAGES/django.po $(STAMP)
	$(PY) manage.py compilemessages --locale $* --ignore $(VENV)

install: $(STAMP) $(MO)

## Gather new and changed texts into the .po files for translators (then translate, and
## make test checks that nothing is left untranslated).
messages: $(STAMP)
	$(PY) manage.py makemessages $(foreach code,$(LOCALES),--locale $(code)) --ignore '$(VENV)/*' --no-obsolete

## Bring the demo club up on SQLite at http://127.0.0.1:8000/ (admin: /admin/); PORT=8001 for
## another port.
PORT ?= 8000
run: $(STAMP) $(MO)
	DJANGO_DEBUG=1 $(PY) manage.py migrate --noinput
	DJANGO_DEBUG=1 $(PY) manage.py seed_demo --if-empty
	DJANGO_DEBUG=1 $(PY) manage.py runserver 127.0.0.1:$(PORT)

## A background worker that executes rating runs (LADDER_RECOMPUTE=background; any number of
## them, on any machine that reaches the database: one run executes at a time).
worker: $(STAMP)
	LADDER_RECOMPUTE=background $(PY) manage.py rating_worker

## Run the whole test suite (DATABASE_URL picks the database; SQLite by default), in parallel
## with pytest-xdist: one worker per core (PYTEST_WORKERS=0 runs it in one process).
PYTEST_WORKERS ?= auto
test: $(STAMP) $(MO)
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache
	$(PY) manage.py makemigrations --check --dry-run

## Benchmark a federation-sized recompute against the I/O floor, last line ratio_to_floor=<x.xx>
## (PostgreSQL: DATABASE_URL=postgres://.../postgres make bench; see scripts/bench.py --help).
bench: $(STAMP)
	$(PY) scripts/bench.py $(BENCH_ARGS)

## Benchmark ten years of a federation's monthly periods (replay, corrections) against the
## floor summed over them, last line history_ratio_to_floor=<x> ... (PostgreSQL: DATABASE_URL=...;
## BENCH_HISTORY_ARGS="--scale 0.02" for a fraction; see scripts/bench_history.py --help).
bench-history: $(STAMP)
	$(PY) scripts/bench_history.py $(BENCH_HISTORY_ARGS)

## Benchmark the reads (pages and API) with gunicorn and wrk against a DRF hello served the same
## way (PostgreSQL: DATABASE_URL=postgres://.../postgres make bench-web; needs Debian's wrk).
bench-web: $(STAMP)
	$(PY) scripts/bench_web.py $(BENCH_WEB_ARGS)

## Benchmark the name search over a million players (PostgreSQL: DATABASE_URL=postgres://.../postgres
## make bench-search; last line p50_ms=<x> p95_ms=<y> players=<n>; see scripts/bench_search.py).
bench-search: $(STAMP)
	$(PY) scripts/bench_search.py $(BENCH_SEARCH_ARGS)

## FIDE's whole combined list (1.93 million lines) imported; last line seconds=<x> peak_mib=<y>
## (PostgreSQL: DATABASE_URL=postgres://.../postgres make bench-fide-list).
bench-fide-list: $(STAMP)
	$(PY) scripts/bench_fide_list.py $(BENCH_FIDE_ARGS)

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
