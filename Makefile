# Detour: `make test` is the whole test suite (what CI runs after installing
# redis-server); `make demo` runs the gateway with simulated providers;
# `make test-short` is the quick inner loop (not the suite: see below).
GO ?= go
# The suite's fuzzing is a smoke run (51 targets, each seeded from its
# corpus); fuzz deeper with `make fuzz FUZZTIME=1m`.
FUZZTIME ?= 2s
# Fuzz targets run FUZZJOBS at a time, each with FUZZJOBS fewer workers
# (-parallel), so the machine fuzzes as much as one target at a time would,
# in 1/FUZZJOBS of the wall time.
FUZZJOBS ?= 2

.PHONY: build test test-short lint unit fuzz bench-smoke bench demo

build:
	$(GO) build -ldflags "-X main.commit=$$(git rev-parse HEAD 2>/dev/null)" -o detour ./cmd/detour

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

# The stack guards (a stream's handler stays on an 8 KiB stack: 1,000 open
# streams' memory, docs/benchmarks.md "Round 6") skip themselves under the
# race detector, which doubles the stack guard; they run once more without it.
# The e2e package takes 6 to 10 minutes under the race detector on two
# loaded cores, past go test's default 10-minute timeout (a clean-clone run
# of round 53 hit it): 30 minutes.
unit:
	$(GO) test -race -count=1 -timeout 30m ./...
	$(GO) test -count=1 -run 'StackStays8KiB' ./internal/server

# The inner loop, about 1½ minutes with a warm cache on a busy 2-core
# machine (README.md, "Contributing"): every package's tests
# without -race and with -short (the slowest end-to-end tests skip
# themselves), leaving out the subprocess and browser suites (e2e/process,
# e2e/browser), fuzzing and benchmarks. Run `make test` before you push.
test-short:
	$(GO) test -short -count=1 $$($(GO) list ./... | grep -v -e '/e2e/process$$' -e '/e2e/browser$$' -e '/bench$$')

# Each fuzz target runs for FUZZTIME, seeded from its corpus (the seeds also
# run as plain tests in `unit`). A failing target's output is shown. Go 1.26's
# fuzz coordinator can end a clean run with a bare "context deadline exceeded"
# at the -fuzztime boundary on a loaded machine (golang/go#75804, fixed in Go
# 1.27): that is no finding, and it is only reported. A real finding writes
# its input ("Failing input written to testdata/fuzz/...") or fails otherwise,
# and fails here.
fuzz:
	@grep -r --include='*_test.go' '^func Fuzz' . | \
	  sed 's|^\(.*\)/[^/]*_test.go:func \(Fuzz[A-Za-z0-9_]*\).*|\1 \2|' | \
	  xargs -P $(FUZZJOBS) -n 2 sh -c 'echo "fuzz $$0 $$1"; out=$$(mktemp); \
	    if $(GO) test $$0 -run "^$$" -fuzz "^$$1$$" -fuzztime $(FUZZTIME) -parallel $$(( ($$(nproc) + $(FUZZJOBS) - 1) / $(FUZZJOBS) )) >$$out 2>&1; then rm -f $$out; exit 0; fi; \
	    if grep -q "context deadline exceeded" $$out && ! grep -q -e "Failing input written" -e "panic:" -e "_test.go:[0-9]" $$out; then \
	      echo "fuzz $$0 $$1: ended at the -fuzztime boundary with Go'"'"'s coordinator race (golang/go#75804), no input written: not a finding"; rm -f $$out; exit 0; fi; \
	    cat $$out; rm -f $$out; exit 255'

# Every benchmark once, so they keep compiling and running; figures come from
# `make bench`. Only the packages that have benchmarks: building the others'
# test binaries again without -race would prove nothing `unit` did not.
bench-smoke:
	$(GO) test -run '^$$' -bench . -benchtime 1x $$(grep -rl --include='*_test.go' '^func Bench' . | xargs -n 1 dirname | sort -u)

bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 3 ./...
