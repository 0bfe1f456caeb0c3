package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/demo"
)

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "address to serve on")
	if fs.Parse(args) != nil {
		return 2
	}
	if fs.NArg() > 0 {
		return strayArgument(stderr, "demo", fs.Arg(0), "")
	}
	hup := make(chan os.Signal, 1) // the demo has nothing to reload: SIGHUP is ignored
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "detour demo: %v (try --listen 127.0.0.1:0)\n", err)
		return 1
	}
	d := demo.Start(stderr)
	defer d.Close()
	cfg, err := config.Parse("demo.yaml", []byte(d.Config(ln.Addr().String())), nil)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	log := newLogger(cfg.Log, stderr)
	a, err := app.New(cfg, app.Options{Logger: log})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprint(stdout, demo.Tour("http://"+ln.Addr().String()))
	return serve(a, ln, nil, 5*time.Second, log, hup, nil)
}
