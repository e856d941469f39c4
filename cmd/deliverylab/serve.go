package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"deliverylab/internal/webserve"
)

// serveCmd runs `deliverylab serve [--addr 127.0.0.1:8080] [--dir web]` until
// interrupted.
func serveCmd(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, os.Stdout, os.Stderr)
}

// serve is serveCmd with its context and output passed in, so a test can run it.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (loopback by default: the playground is for this machine)")
	dir := fs.String("dir", "web", "directory holding index.html, wasm_exec.js and main.wasm")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: deliverylab serve [--addr 127.0.0.1:8080] [--dir web]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	if _, err := os.Stat(filepath.Join(*dir, "index.html")); err != nil {
		fmt.Fprintf(stderr, "serve: %s has no index.html (run from the repository root or pass --dir)\n", *dir)
		return 1
	}
	if _, err := os.Stat(filepath.Join(*dir, "main.wasm")); err != nil {
		fmt.Fprintf(stderr, "serve: warning: %s/main.wasm is missing; build it with `make wasm`\n", *dir)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "serve: %v\n", err)
		return 1
	}
	srv := &http.Server{Handler: webserve.Handler(*dir), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "Delivery Lab: http://%s/\n", ln.Addr())

	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		fmt.Fprintf(stderr, "serve: %v\n", err)
		return 1
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "serve: %v\n", err)
			return 1
		}
		return 0
	}
}
