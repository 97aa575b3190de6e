# Two commands do everything on a fresh machine (README):
#   make dev   - the whole console with local stand-ins at http://127.0.0.1:8000 (PORT overrides)
#   make test  - every check and test, installing what it needs first
SHELL := /bin/bash
PY := .venv/bin/python
VENV_STAMP := .venv/.installed
WEB_STAMP := web/node_modules/.package-lock.json

.PHONY: dev test lint audit test-api test-web test-e2e test-fuzz test-deploy scale-check contract bench chromium nginx deps

deps: $(VENV_STAMP) $(WEB_STAMP)

$(VENV_STAMP): requirements.lock requirements-dev.lock
	test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock -r requirements-dev.lock
	touch $@

$(WEB_STAMP): web/package-lock.json
	cd web && npm ci --no-audit --no-fund

# Debian's chromium drives the browser tests (no browser downloads); CHROMIUM=/path overrides.
chromium:
	@test -n "$$CHROMIUM" || command -v chromium >/dev/null || \
		{ apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }

# Debian's nginx, the proxy of `make scale-check` (run from a folder of ours, never as a service).
nginx:
	@test -n "$$NGINX" || command -v nginx >/dev/null || test -x /usr/sbin/nginx || \
		{ apt-get update -qq && apt-get install -y -qq nginx >/dev/null; }

dev: deps
	$(PY) -m devstack

lint: $(VENV_STAMP)
	$(PY) -m ruff check api devstack tests bench migrations tools
	$(PY) -m ruff format --check api devstack tests bench migrations tools
	$(PY) -m mypy
	.venv/bin/lint-imports --no-cache
	@# Comments name the reason, the rule or the SPEC/README section, never an issue number:
	@# issue numbers mean nothing to the next reader (design history is in commit messages).
	@! grep -rnIE '\b[Ii]ssues? #?[0-9]+' api devstack tools web/src openapi.json \
		|| { echo "lint: name the reason or the SPEC/README section, not an issue number"; exit 1; }

test-api: $(VENV_STAMP)
	$(PY) -m pytest tests/api

# deploy/k8s rendered per overlay and validated with kubernetes-validate (tests/deploy).
test-deploy: $(VENV_STAMP)
	$(PY) -m pytest tests/deploy

test-web: $(WEB_STAMP)
	cd web && npm run check:api && npm run typecheck && npm run lint && npm test
	cd web && npm run build
	node bench/bundle/measure.mjs

test-e2e: deps chromium
	$(PY) -m pytest tests/e2e

# Against a dev stack of their own: Schemathesis (settings in schemathesis.toml) and the
# generated TypeScript client's contract suite (web/src/**/*.live.ts).
test-fuzz: $(VENV_STAMP) $(WEB_STAMP)
	$(PY) -m pytest tests/fuzz

# Three replicas behind nginx through a SIGTERM and a SIGKILL: 0 failed requests (bench/scale.py).
scale-check: deps nginx
	$(PY) -m bench.scale

# Known vulnerabilities in the lock files (pip-audit) and the SPA's runtime packages (npm audit,
# high or critical): fails on a finding; prints "audit skipped: advisory service unreachable"
# and passes when the advisory services cannot be asked (tools/audit.py, README "Supply chain").
audit: deps
	$(PY) -m tools.audit

test: deps chromium nginx
	$(MAKE) lint
	$(MAKE) audit
	$(MAKE) test-api
	$(MAKE) test-deploy
	$(MAKE) scale-check
	$(MAKE) test-web
	$(MAKE) test-e2e
	$(MAKE) test-fuzz

# Regenerate the contract and the web client types after changing a /web route or schema.
contract: deps
	$(PY) -m api.ops.openapi
	cd web && npm run gen:api

bench: deps
	$(PY) -m bench.api
	$(PY) -m bench.metering
	cd web && npm run build && cd .. && node bench/bundle/measure.mjs
