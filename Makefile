# Detour: `make test` is the whole test suite (what CI runs after installing
# redis-server); `make demo` runs the gateway with simulated providers.
GO ?= go
FUZZTIME ?= 5s

.PHONY: build test lint unit fuzz bench-smoke bench demo

build:
	$(GO) build -o detour ./cmd/detour

demo: build
	./detour demo

test: lint unit fuzz bench-smoke

# gofmt, vet, and the closed class set: every switch over classify.Class must
# name all twelve classes (a default case does not count), so adding a class
# fails here until its behaviour is decided everywhere.
lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool exhaustive -typeonly 'classify\.Class$$' ./...

unit:
	$(GO) test -race -count=1 ./...

# Each fuzz target runs for FUZZTIME, seeded from its corpus.
fuzz:
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' .); do \
	  pkg=./$$(dirname $$f); \
	  for t in $$(grep -h '^func Fuzz' $$f | sed 's/func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do \
	    echo "fuzz $$pkg $$t"; \
	    $(GO) test $$pkg -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) >/dev/null || \
	      $(GO) test $$pkg -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME); \
	  done; \
	done

# Every benchmark once, so they keep compiling and running; figures come from `make bench`.
bench-smoke:
	$(GO) test -run '^$$' -bench . -benchtime 1x ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 3 ./...
