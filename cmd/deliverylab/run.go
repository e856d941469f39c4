package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"deliverylab/core/check"
	"deliverylab/core/diagram"
	"deliverylab/core/fate"
	"deliverylab/core/play"
	"deliverylab/core/scene"
	"deliverylab/scenes"
)

// loadScene reads a scene file, or a shipped scene by its bare name (a name without a
// slash and without .yaml, such as acks-1-lost) when no file of that name exists. A
// path that does not exist is an error, never the shipped scene of the same name.
func loadScene(arg string) (*scene.Scene, error) {
	name, data, err := loadSceneData(arg)
	if err != nil {
		return nil, err
	}
	return scene.Parse(name, data)
}

// loadSceneData reads a scene file, or a shipped scene by its bare name: the name to
// parse it as, and its text.
func loadSceneData(arg string) (string, []byte, error) {
	data, err := readSceneFile(arg)
	if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(arg, `/\`) && !strings.HasSuffix(arg, ".yaml") {
		if embedded, embErr := scenes.Read(arg); embErr == nil {
			return arg, embedded, nil
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		base := strings.TrimSuffix(filepath.Base(arg), ".yaml")
		if _, embErr := scenes.Read(base); embErr == nil {
			return "", nil, fmt.Errorf("%s: no such file; the shipped scene of that name is run by its bare name: %s", arg, base)
		}
		return "", nil, fmt.Errorf("%s: no such file; expected a scene file, or the bare name of a shipped scene (%s)", arg, strings.Join(scenes.Names(), ", "))
	}
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", arg, err)
	}
	return arg, data, nil
}

// readSceneFile reads at most one byte more than a scene file may have, so that a huge
// file (or /dev/zero) is refused by scene.Parse without being read whole.
func readSceneFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.IsDir() {
		return nil, errors.New("is a directory; expected a scene file")
	}
	data, err := io.ReadAll(io.LimitReader(f, scene.MaxSceneBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read it: %w", err)
	}
	return data, nil
}

// runCmd runs `deliverylab run [--json] [--svg FILE] SCENE`: the scene to its end, its
// timeline and ledger (or the report as JSON), and with --svg the run as a space-time
// diagram (core/diagram) written to FILE.
func runCmd(args []string, stdout, stderr io.Writer) int {
	asJSON := false
	var file, svgFile string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--json":
			asJSON = true
		case a == "--svg":
			if i+1 >= len(args) {
				fmt.Fprintln(stderr, "run: --svg needs a file to write the diagram to")
				return 2
			}
			i++
			svgFile = args[i]
		case strings.HasPrefix(a, "--svg="):
			svgFile = strings.TrimPrefix(a, "--svg=")
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
	// The JSON report carries the trace's hash, not its lines: a run to the event limit
	// kept 2,000,000 of them (a gigabyte) only to let them go.
	r.World.Trace().Keep = !asJSON
	if svgFile != "" {
		r.World.KeepWire()
	}
	r.ToEnd()
	rep := r.Judge()
	if svgFile != "" {
		if err := os.WriteFile(svgFile, diagram.SVG(play.DiagramInput(s, r)), 0o644); err != nil {
			fmt.Fprintf(stderr, "run: writing the diagram: %v\n", err)
			return 1
		}
	}
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
	if t := rep.Total; t != nil {
		fmt.Fprintf(w, "total: shown %d, expected %d%s\n", t.Shown, t.Expected, totalGap(*t))
	}
	if len(rep.Errors) > 0 {
		fmt.Fprintf(w, "errors: %s\n", counts(rep.Errors))
	}
	fmt.Fprintf(w, "anomalies: %s\n", counts(rep.Anomalies))
}

// totalGap says by how much a counter's shown total is off.
func totalGap(t check.Total) string {
	switch {
	case t.Shown > t.Expected:
		return fmt.Sprintf(" (overcounts by %d)", t.Shown-t.Expected)
	case t.Shown < t.Expected:
		return fmt.Sprintf(" (undercounts by %d)", t.Expected-t.Shown)
	}
	return ""
}

func counts[K ~string](m map[K]int) string {
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
	failed, invalid := 0, 0
	for _, f := range files {
		s, err := loadScene(f)
		if err != nil {
			fmt.Fprintf(stdout, "FAIL %v\n", err) // the error names the file
			failed++
			invalid++
			continue
		}
		r := s.NewRun()
		r.ToEnd()
		rep := r.Judge()
		if bad := append(s.Check(rep), s.QuizProblems(rep)...); len(bad) > 0 {
			fmt.Fprintf(stdout, "FAIL %s: %s\n", s.Name, strings.Join(bad, "; "))
			failed++
			continue
		}
		fmt.Fprintf(stdout, "ok   %s: %s, %s\n", s.Name, rep.Verdict, counts(rep.Messages))
	}
	if failed > 0 {
		fmt.Fprintf(stdout, "%d of %d scenes failed\n", failed, len(files))
	}
	switch {
	case invalid > 0:
		return 2 // a file that is not a valid scene, as for run
	case failed > 0:
		return 1
	}
	return 0
}
