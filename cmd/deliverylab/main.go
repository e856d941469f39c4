// Command deliverylab runs Delivery Lab scenes headless, checks their expectations and
// serves the browser playground.
//
//	deliverylab run FILE.yaml|NAME [--json]
//	deliverylab check [FILE.yaml|NAME ...]
//	deliverylab explore FILE.yaml|NAME [--depth N] [--budget N] [--json]
//	deliverylab serve [--addr 127.0.0.1:8080] [--dir web]
//	deliverylab conform [--runs N] [--dir conformance] [FILE ...]
//
// NAME is a shipped scene's bare name (acks-1-lost). A file that is not a valid scene,
// or a path that does not exist, exits with 2.
package main

import (
	"fmt"
	"os"
)

func main() {
	os.Exit(dispatch(os.Args[1:]))
}

const usage = `usage:
  deliverylab run FILE.yaml|NAME [--json]  run a scene file, or a shipped scene by name; print the timeline and the ledger (or JSON)
  deliverylab check [FILE.yaml|NAME ...]  run scenes (all shipped ones when none is named) and check their expect
  deliverylab explore FILE.yaml|NAME [--depth N] [--budget N] [--json]  search the fault schedules of the scene's explore block for one that loses or duplicates a message
  deliverylab serve [--addr A] [--dir D]  serve the browser playground
  deliverylab conform [--runs N] [FILE ...]  run scenes in the simulator and against a real Kafka cluster, and compare`

func dispatch(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, usage)
		return 2
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], os.Stdout, os.Stderr)
	case "check":
		return checkCmd(args[1:], os.Stdout, os.Stderr)
	case "serve":
		return serveCmd(args[1:])
	case "conform":
		return conformCmd(args[1:], os.Stdout, os.Stderr)
	case "explore":
		return exploreCmd(args[1:], os.Stdout, os.Stderr)
	}
	fmt.Fprintf(os.Stderr, "unknown command %q\n%s\n", args[0], usage)
	return 2
}
