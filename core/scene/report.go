package scene

import (
	"fmt"
	"maps"
	"slices"

	"deliverylab/core/check"
)

// Report is the outcome of a run, in the CLI's JSON contract.
type Report struct {
	Scene    string         `json:"scene"`
	Seed     int64          `json:"seed"`
	Output   string         `json:"output"`
	Verdict  string         `json:"verdict"`
	Messages map[string]int `json:"messages"`
	Errors   map[string]int `json:"errors"`
	// ClientErrors: the same errors by the client that received them.
	ClientErrors map[string]map[string]int `json:"clientErrors"`
	Anomalies    map[check.Anomaly]int     `json:"anomalies"`
	Outputs      map[string]OutputReport   `json:"outputs"`
	TraceHash    string                    `json:"traceHash"`
	Events       int64                     `json:"events"`
	EndMs        int64                     `json:"endMs"`
	EndNote      EndNote                   `json:"endNote"`
	EndDetail    string                    `json:"endDetail,omitempty"` // why it did not settle
	// Total: a counter output's total as shown, beside the one it should show.
	Total  *check.Total `json:"total,omitempty"`
	Ledger []check.Fate `json:"-"`
}

// OutputReport is one output's verdict.
type OutputReport struct {
	Verdict  string         `json:"verdict"`
	Messages map[string]int `json:"messages"`
	Total    *check.Total   `json:"total,omitempty"`
}

// Judge runs the checker over the run as it stands.
func (r *Run) Judge() Report {
	rep := r.Scene.Judge(r.Facts())
	rep.TraceHash, rep.Events = r.World.Trace().Hash(), r.World.EventsRun()
	rep.EndDetail = r.EndDetail
	return rep
}

// Judge runs the checker over the facts a run left: the same ledger for a simulated run
// and for a real one.
func (s *Scene) Judge(f Facts) Report {
	l := check.NewLedger(f.Observations)
	rep := Report{Scene: s.Name, Seed: s.Seed, Output: s.Expect.Output, Errors: check.Errors(f.Observations),
		ClientErrors: check.ClientErrors(f.Observations),
		Anomalies:    check.Anomalies(f.Observations, l.Acked, f.Aborted), Outputs: map[string]OutputReport{}, EndMs: f.EndMs, EndNote: f.EndNote}
	for _, name := range s.Outputs() {
		res := l.Judge(s.output(name, f))
		rep.Outputs[name] = OutputReport{Verdict: res.Verdict, Messages: res.Counts, Total: res.Total}
		if name == rep.Output {
			rep.Verdict, rep.Messages, rep.Ledger, rep.Total = res.Verdict, res.Counts, res.Fates, res.Total
		}
	}
	if rep.Output == "" {
		// No output: the ledger still counts what was sent and acknowledged.
		res := l.Judge(check.Output{Effects: map[string]int{}})
		rep.Messages = map[string]int{"sent": res.Counts["sent"], "acked": res.Counts["acked"]}
	}
	return rep
}

// Check compares a finished run's report with the scene's expect block; it returns one
// line per mismatch.
func (s *Scene) Check(rep Report) []string {
	e := s.Expect
	var bad []string
	switch rep.EndNote {
	case EndTimeLimit:
		bad = append(bad, "the run did not settle within 10 minutes of virtual time (set stop.ms if it should stop earlier)"+detail(rep.EndDetail))
	case EndEvents:
		bad = append(bad, fmt.Sprintf("the run did not settle within %d events", MaxRunEvents)+detail(rep.EndDetail))
	case EndFrozen:
		bad = append(bad, "the run never ended an instant"+detail(rep.EndDetail))
	}
	if !s.ExpectApplies() {
		// The expect describes another release's runs: it is not this run's to meet.
		return append(bad, fmt.Sprintf("expect describes Kafka %s (holds.for), and this scene follows %s", s.HoldsForText(), s.KafkaVersion))
	}
	if e.Verdict != "" && rep.Verdict != e.Verdict {
		bad = append(bad, fmt.Sprintf("verdict: expected %s, got %s", e.Verdict, rep.Verdict))
	}
	for _, k := range slices.Sorted(maps.Keys(e.Counts)) {
		if got := rep.Messages[k]; !e.Counts[k].Holds(got) {
			bad = append(bad, fmt.Sprintf("%s: expected %s, got %d", k, e.Counts[k], got))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(e.Errors)) {
		if got := rep.Errors[k]; !e.Errors[k].Holds(got) {
			bad = append(bad, fmt.Sprintf("errors.%s: expected %s, got %d", k, e.Errors[k], got))
		}
	}
	for _, client := range slices.Sorted(maps.Keys(e.ClientErrors)) {
		want := e.ClientErrors[client]
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if got := rep.ClientErrors[client][k]; !want[k].Holds(got) {
				bad = append(bad, fmt.Sprintf("errors.%s.%s: expected %s, got %d", client, k, want[k], got))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(e.Anomalies)) {
		if got := rep.Anomalies[k]; !e.Anomalies[k].Holds(got) {
			bad = append(bad, fmt.Sprintf("anomalies.%s: expected %s, got %d", k, e.Anomalies[k], got))
		}
	}
	slices.Sort(bad)
	return bad
}

// Timeline is the run's readable trace: background traffic left out, and each narration
// step ("42 narrate 1") shown with its English caption ("42 ---- …").
func (r *Run) Timeline() []string {
	lines := r.World.Trace().Texts(false)
	for i, line := range lines {
		var at int64
		var n int
		if k, _ := fmt.Sscanf(line, "%d narrate %d", &at, &n); k == 2 && n >= 0 && n < len(r.Scene.Narration) {
			lines[i] = fmt.Sprintf("%d ---- %s", at, r.Scene.Narration[n].Text.En)
		}
	}
	return lines
}

func detail(d string) string {
	if d == "" {
		return ""
	}
	return ": " + d
}
