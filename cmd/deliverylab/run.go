package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"deliverylab/core/fate"
	"deliverylab/core/scene"
	"deliverylab/scenes"
)

// loadScene reads a scene from a path, or a shipped scene by name.
func loadScene(arg string) (*scene.Scene, error) {
	data, err := os.ReadFile(arg)
	if err != nil {
		name := strings.TrimSuffix(arg, ".yaml")
		if i := strings.LastIndex(name, "/"); i >= 0 {
			name = name[i+1:]
		}
		embedded, embErr := scenes.Read(name)
		if embErr != nil {
			return nil, err
		}
		data = embedded
	}
	return scene.Parse(arg, data)
}

func runCmd(args []string, stdout, stderr io.Writer) int {
	asJSON := false
	var file string
	for _, a := range args {
		switch {
		case a == "--json":
			asJSON = true
		case file == "":
			file = a
		default:
			fmt.Fprintf(stderr, "run: unexpected argument %q\n", a)
			return 2
		}
	}
	if file == "" {
		fmt.Fprintln(stderr, "run: expected a scene file")
		return 2
	}
	s, err := loadScene(file)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	r := s.NewRun()
	r.ToEnd()
	rep := r.Judge()
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
		return 0
	}
	for _, line := range r.Timeline() {
		fmt.Fprintln(stdout, line)
	}
	printLedger(stdout, rep)
	return 0
}

func printLedger(w io.Writer, rep scene.Report) {
	fmt.Fprintf(w, "\nended at %d ms (%s), %d events, trace %s\n", rep.EndMs, rep.EndNote, rep.Events, rep.TraceHash)
	if rep.EndDetail != "" {
		fmt.Fprintf(w, "  %s\n", rep.EndDetail)
	}
	if rep.Output != "" {
		fmt.Fprintf(w, "output %s: %s\n", rep.Output, rep.Verdict)
		for _, f := range rep.Ledger {
			fmt.Fprintf(w, "  %-8s %-11s %s\n", f.Msg, f.Fate, f.Reason.Text(fate.En))
		}
	}
	fmt.Fprintf(w, "messages: %s\n", counts(rep.Messages))
	if len(rep.Errors) > 0 {
		fmt.Fprintf(w, "errors: %s\n", counts(rep.Errors))
	}
	fmt.Fprintf(w, "anomalies: %s\n", counts(rep.Anomalies))
}

func counts(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

func checkCmd(args []string, stdout, stderr io.Writer) int {
	files := args
	if len(files) == 0 {
		for _, n := range scenes.Names() {
			files = append(files, n)
		}
	}
	failed := 0
	for _, f := range files {
		s, err := loadScene(f)
		if err != nil {
			fmt.Fprintf(stdout, "FAIL %s: %v\n", f, err)
			failed++
			continue
		}
		r := s.NewRun()
		r.ToEnd()
		rep := r.Judge()
		if bad := s.Check(rep); len(bad) > 0 {
			fmt.Fprintf(stdout, "FAIL %s: %s\n", s.Name, strings.Join(bad, "; "))
			failed++
			continue
		}
		fmt.Fprintf(stdout, "ok   %s: %s, %s\n", s.Name, rep.Verdict, counts(rep.Messages))
	}
	if failed > 0 {
		fmt.Fprintf(stdout, "%d of %d scenes failed\n", failed, len(files))
		return 1
	}
	return 0
}
