// Command detour is an OpenAI-compatible LLM gateway with typed failover.
//
//	detour serve [-c detour.yaml]   serve a configuration
//	detour check [-c detour.yaml]   validate it and print what each route does per class
//	detour demo [--listen ADDR]     serve simulated providers (no keys, no network)
//	detour classify [...]           classify one upstream answer (or --jsonl a batch;
//	                                --suggest: rules for the unknowns of a decision log)
//	detour decisions [-f FILE] [...] read, filter, summarise or follow a decision log
//	detour usage -f decisions.jsonl   requests, tokens, cost and failovers by client, route, …
//	detour version                  the version, commit and Go version of this binary
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `usage: detour <command> [flags]

commands:
  serve     [-c detour.yaml] [--grace 30s]   serve the gateway
  check     [-c detour.yaml]                 validate a configuration and print the routes
  demo      [--listen 127.0.0.1:8080]        serve simulated providers: no keys, no network
  classify  [-c FILE] [--dialect D] [--provider P] [--status N] [--header K:V]... [--stream] [FILE|-]
            classify [-c FILE] --jsonl        classify upstream answers
            classify --suggest [--jsonl] [-c FILE] [FILE|-]
                                              suggest classify.rules for unknown answers
  decisions [-f decisions.jsonl] [--route R] [--target T] [--class C] [--outcome O]
            [--client K] [--id ID] [--since 15m] [--summary | --follow] [--json]
                                              read a decision log (--id: one X-Detour-Decision)
  usage     -f decisions.jsonl [--by client|route|target|provider|day] [--since 24h]
                                              requests, tokens, cost and failovers from a decision log
  version                                    the version, commit and Go version of this binary
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return runServe(args[1:], stderr)
	case "check":
		return runCheck(args[1:], stdout, stderr)
	case "demo":
		return runDemo(args[1:], stdout, stderr)
	case "classify":
		return runClassify(args[1:], stdin, stdout, stderr)
	case "decisions":
		return runDecisions(args[1:], stdin, stdout, stderr)
	case "usage":
		return runUsage(args[1:], stdin, stdout, stderr)
	case "version", "--version":
		return runVersion(stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "detour: unknown command %q\n%s", args[0], usage)
	return 2
}
