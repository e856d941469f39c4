package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"deliverylab/core/explore"
	"deliverylab/core/scene"
)

// exploreJSON is explore's --json output (the CLI contract: "schedules" and
// "counterexamples", each a fault schedule that run replays to the same broken outcome).
type exploreJSON struct {
	Scene           string            `json:"scene"`
	Claim           string            `json:"claim"`
	Depth           int               `json:"depth"`
	Budget          int               `json:"budget"`
	Points          int               `json:"points"`
	Faults          int               `json:"faults"`
	Schedules       int               `json:"schedules"`
	Pruned          int               `json:"pruned"`
	Found           int               `json:"found"`
	Exhausted       bool              `json:"exhausted"`
	Counterexamples []counterexampleJ `json:"counterexamples"`
}

type counterexampleJ struct {
	Verdict   string         `json:"verdict"`
	Breaks    bool           `json:"breaksClaim"`
	Invariant string         `json:"invariant,omitempty"`
	Schedule  int            `json:"schedule"`
	Faults    string         `json:"faults"` // YAML, ready to paste under faults:
	Messages  map[string]int `json:"messages"`
}

// exploreCmd searches the fault schedules of a scene's explore block.
func exploreCmd(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("explore", flag.ContinueOnError)
	fl.SetOutput(stderr)
	depth := fl.Int("depth", 0, "faults in one schedule, at most (default: the scene's explore.depth)")
	budget := fl.Int("budget", 0, "schedules to run, at most (default: the scene's explore.budget)")
	asJSON := fl.Bool("json", false, "print the result as JSON")
	workers := fl.Int("workers", 0, "cores to search on (default: every core; the result is the same)")
	file, rest := "", args
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		file, rest = rest[0], rest[1:]
	}
	if err := fl.Parse(rest); err != nil {
		return 2
	}
	if file == "" && fl.NArg() == 1 {
		file = fl.Arg(0)
	} else if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "explore: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	if file == "" {
		fmt.Fprintln(stderr, "explore: expected a scene file")
		return 2
	}
	if *depth < 0 || *depth > scene.MaxExploreDepth || *budget < 0 {
		fmt.Fprintf(stderr, "explore: --depth is 1 to %d and --budget a positive count\n", scene.MaxExploreDepth)
		return 2
	}
	s, err := loadScene(file)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	start := time.Now()
	res := searchInParallel(s, explore.Options{Depth: *depth, Budget: *budget}, *workers,
		func(schedules, pruned, found int64) {
			fmt.Fprintf(stderr, "explore %s: %d schedules, %d pruned, %d found\n", s.Name, schedules, pruned, found)
		})
	if *asJSON {
		out := exploreJSON{Scene: res.Scene, Claim: res.Claim, Depth: res.Depth, Budget: res.Budget, Points: res.Points,
			Faults: res.Faults, Schedules: res.Schedules, Pruned: res.Pruned, Found: res.Found, Exhausted: res.Exhausted,
			Counterexamples: []counterexampleJ{}}
		for _, f := range res.Findings {
			out.Counterexamples = append(out.Counterexamples, counterexampleJ{Verdict: f.Verdict, Breaks: f.Breaks,
				Invariant: f.Invariant, Schedule: f.Schedule, Faults: scene.FaultsYAML(f.Faults), Messages: f.Report.Messages})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		return 0
	}
	printExplore(stdout, res, time.Since(start))
	return 0
}

func printExplore(w io.Writer, res explore.Result, took time.Duration) {
	fmt.Fprintf(w, "%s: claim %s; %d protocol points x %d faults, depth %d\n", res.Scene, res.Claim, res.Points, res.Faults, res.Depth)
	how := "every schedule tried"
	if !res.Exhausted {
		how = fmt.Sprintf("stopped at the budget of %d", res.Budget)
	}
	fmt.Fprintf(w, "%d schedules run, %d pruned, %d found something (%s) in %s\n", res.Schedules, res.Pruned, res.Found, how,
		took.Round(time.Millisecond))
	if len(res.Findings) == 0 {
		fmt.Fprintf(w, "no schedule lost or duplicated a message: the claim holds against these faults\n")
		return
	}
	for _, f := range res.Findings {
		what := "shows what the claim admits"
		if f.Breaks {
			what = "BREAKS the claim"
		}
		if f.Invariant != "" {
			fmt.Fprintf(w, "\nschedule %d breaks an invariant: %s\n", f.Schedule, f.Invariant)
		} else {
			fmt.Fprintf(w, "\nschedule %d %s: %s, %s\n", f.Schedule, what, f.Verdict, counts(f.Report.Messages))
		}
		fmt.Fprintf(w, "faults:\n%s", indent(scene.FaultsYAML(f.Faults), "  "))
	}
}

func indent(text, pad string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	return pad + strings.Join(lines, "\n"+pad) + "\n"
}
