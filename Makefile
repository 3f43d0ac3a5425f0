# timetable's tasks. Needs Go, Node.js with npm, and Java 17+; everything
# else (DynamoDB Local, the Node client's packages, the AWS CLI when apt
# works) is installed by the scripts in scripts/ on first use.

GO ?= go
# go test runs with the race detector in `make test` (RACE=0 to turn it off).
RACE ?= 1
FUZZTIME ?= 10s
BENCH ?= .
BENCHTIME ?= 1s
# Duration of each wire-endpoint run in bench-compare (e.g. 5s for a quick look).
DURATION ?= 20s
# Parts of bench-compare to run, comma-separated (suite, wire, inprocess,
# series, series-http, many-series, analytics, analytics-range, analytics-collect, fleet-cost,
# prometheus; empty: all, into BENCHMARKS.md; otherwise the
# report goes to BENCHMARKS.<ONLY>.md), and series-http's soak per server.
ONLY ?=
SOAK ?=

.DEFAULT_GOAL := help
.PHONY: help test unit race integration e2e diskfull lint fuzz bench bench-compare serve clean

help: ## print this list
	@echo "usage: make TARGET"
	@echo
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo
	@echo "variables: RACE=$(RACE) FUZZTIME=$(FUZZTIME) BENCH=$(BENCH) BENCHTIME=$(BENCHTIME) DURATION=$(DURATION)"
	@echo "           GOTESTFLAGS (extra go test flags), GOTESTPKGS (default ./...), SKIP_AWSCLI=1"

test: ## everything: go test (with DynamoDB Local started on a free port), the Node and AWS CLI clients against timetable serve, then the browser tests (make e2e)
	RACE=$(RACE) scripts/test.sh all

unit: ## go test ./... alone, no servers: tests that need DynamoDB Local skip
	$(GO) test ./...

race: ## go test -race with DynamoDB Local, without the client tests
	RACE=1 scripts/test.sh go

integration: ## the real-client tests only (Node SDK, AWS CLI) against timetable serve and DynamoDB Local
	scripts/test.sh clients

diskfull: ## timetable serve on a small tmpfs filled up: 507, /readyz, recovery, SIGTERM (skips where a tmpfs cannot be mounted)
	scripts/diskfull.sh

e2e: ## the browser tests (headless Chromium, installed with apt-get when missing; Plausible's npm tracker), screenshots in e2e-screenshots/
	RACE=$(RACE) scripts/e2e.sh

lint: ## gofmt -l, go vet, staticcheck (pinned), on the module and bench/
	scripts/lint.sh

fuzz: ## every fuzz target for FUZZTIME each
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

bench: ## in-process Go benchmarks with allocations
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime $(BENCHTIME) ./...

bench-compare: ## measure against DynamoDB Local, dynalite, Prometheus TSDB and VictoriaMetrics (bench/ module) and rewrite BENCHMARKS.md
	DURATION=$(DURATION) ONLY=$(ONLY) SOAK=$(SOAK) scripts/bench-compare.sh

serve: ## run timetable serve on 127.0.0.1:8000 with data in ./timetable-data
	$(GO) run ./cmd/timetable serve

clean: ## remove installed tools and build output (.tools/, clients/node/node_modules, e2e-screenshots/)
	rm -rf .tools clients/node/node_modules e2e-screenshots
