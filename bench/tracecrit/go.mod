module github.com/detour-llm/detour/bench/tracecrit

go 1.26.0

require golang.org/x/exp v0.0.0-20261113113407-e3970619a1a4
