package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/scene"
	"deliverylab/core/sim"
	"deliverylab/scenes"
)

// conformCmd runs `deliverylab conform [--runs N] [--dir conformance] [--work DIR] [--json]
// [FILE ...]`: each scene (every shipped one when none is named) in the simulator and
// --runs times against a real Kafka cluster (the Java runner in --dir), judged by the same
// ledger, and prints one table. Exit status 1 if a scene disagrees.
func conformCmd(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("conform", flag.ContinueOnError)
	fl.SetOutput(stderr)
	runs := fl.Int("runs", 3, "real runs per scene (real timing varies)")
	dir := fl.String("dir", "conformance", "the conformance module (its pom.xml)")
	work := fl.String("work", "", "where each run's logs, observations and facts are kept (default: a temporary directory)")
	asJSON := fl.Bool("json", false, "print the rows as JSON")
	kafka := fl.String("kafka", "", "run only the scenes' runs on this Kafka release, 3.9 or 4.x (default: each scene on every release it holds for)")
	try := fl.Bool("try", false, "with --kafka: run every scene on that release, whether its expect holds there or not, holding the real run to the simulated one only (a survey of what the release changes)")
	freshClusters := fl.Bool("fresh-clusters", false, "start a fresh cluster for every real run instead of keeping one for the next run that needs the same")
	parallel := fl.Int("parallel", 1, "real runs side by side, each worker with runners and clusters of its own")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *runs < 1 {
		fmt.Fprintln(stderr, "conform: --runs must be at least 1")
		return 2
	}
	if *parallel < 1 {
		fmt.Fprintln(stderr, "conform: --parallel must be at least 1")
		return 2
	}
	var only *protocol.Version
	if *kafka != "" {
		v, ok := protocol.ParseVersion(*kafka)
		if !ok {
			fmt.Fprintf(stderr, "conform: --kafka %q: expected %s\n", *kafka, strings.Join(protocol.VersionChoices(), " or "))
			return 2
		}
		only = &v
	} else if *try {
		fmt.Fprintln(stderr, "conform: --try needs --kafka: the release to try every scene on")
		return 2
	}
	files := fl.Args()
	if len(files) == 0 {
		files = scenes.Names()
	}
	if *work == "" {
		tmp, err := os.MkdirTemp("", "deliverylab-conform-")
		if err != nil {
			fmt.Fprintf(stderr, "conform: %v\n", err)
			return 2
		}
		*work = tmp
	}
	start := time.Now()
	var cases []conformCase
	for _, f := range files {
		cs, err := conformCases(f, only, *try)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		cases = append(cases, cs...)
	}
	builds := map[string]runnerBuild{}
	for _, c := range cases {
		release := c.version.Release()
		if _, ok := builds[release]; ok {
			continue
		}
		build, err := runnerFor(release)
		if err == nil {
			err = build.build(*dir, stderr)
		}
		if err != nil {
			fmt.Fprintf(stderr, "conform: %v\n", err)
			return 2
		}
		builds[release] = build
	}
	keys := make([]string, len(cases))
	costs := make([]time.Duration, len(cases))
	for i, c := range cases {
		keys[i] = c.key()
		costs[i] = c.cost(*runs)
	}
	rows := make([]conformRow, len(cases))
	var mu sync.Mutex // the progress lines of workers running side by side
	var wg sync.WaitGroup
	failed := make([]error, *parallel)
	for w, queue := range shareRuns(runOrder(keys), keys, costs, *parallel) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			failed[w] = conformQueue(queue, w, *parallel, cases, rows, builds, conformOptions{dir: *dir, work: *work, runs: *runs,
				fresh: *freshClusters}, func(i int) {
				if *asJSON {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				fmt.Fprintf(stderr, "%-34s %-4s %s\n", cases[i].scene.Name, rows[i].Kafka, rows[i].Result)
			})
		}()
	}
	wg.Wait()
	for _, err := range failed {
		if err != nil {
			fmt.Fprintf(stderr, "conform: %v\n", err)
			return 2
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rows)
	} else {
		printConformTable(stdout, rows, *runs)
		printVersionMatrix(stdout, rows)
		fmt.Fprintf(stdout, "\n%d scene runs, %d real run(s) each, against Kafka %s, in %s; runs kept in %s\n", len(rows), *runs,
			releasesText(rows), time.Since(start).Round(time.Second), *work)
		printRefereeSpeed(stdout, rows, time.Since(start), *parallel)
		printFailedRows(stdout, rows)
	}
	for _, r := range rows {
		if r.Result == resultDisagree || r.Result == resultError {
			return 1
		}
	}
	return 0
}

// The results of a scene's comparison.
const (
	resultAgree    = "agree"
	resultDisagree = "DISAGREE"
	resultTiming   = "timing-sensitive"
	resultSkipped  = "skipped"
	resultError    = "ERROR" // a real run could not be made: the harness failed, not Kafka
)

// conformRow is one scene's line of the table.
type conformRow struct {
	Scene string `json:"scene"`
	// Kafka is the release the scene was run on, simulated and real ("3.9", "4.x").
	Kafka     string   `json:"kafka"`
	Simulator string   `json:"simulator"`
	Real      []string `json:"real"`
	Result    string   `json:"result"`
	// Faults is how the scene's faults are timed (scene.FaultTiming): a reader of a
	// one-run table knows that a disagreement of a scene with wall-clock faults may be
	// only how real runs differ among themselves, which one run cannot show.
	Faults string   `json:"faults"`
	Why    []string `json:"why,omitempty"`
	// Faulted is, per real run, how long after its protocol point each triggered fault
	// took effect on the real process (a SIGKILL lands, a SIGSTOP is delivered): the
	// simulator's fault is instant.
	Faulted []string `json:"faulted,omitempty"`
	// Retried: the runs the harness could not make the first time, and why.
	Retried []string `json:"retried,omitempty"`
	// Seconds is each real run's wall time, and Took says where it went (the cluster's
	// start, the applications', the scene, the facts).
	Seconds []float64 `json:"seconds,omitempty"`
	Took    []string  `json:"took,omitempty"`
}

// realRunner runs a scene's plan once against a real cluster, keeping its files in
// runDir, and judges it. fresh asks for a fresh cluster rather than one kept from the last
// run.
type realRunner func(plan scene.Plan, runDir string, fresh bool) (realResult, error)

// realResult is one real run: its report, how long after its protocol point each
// triggered fault took effect, and where the run's wall time went.
type realResult struct {
	Report  scene.Report
	Faulted []string
	Phases  string
}

// simulated is a scene's simulated run: its report, and the plan of its real runs (or
// why it has none).
type simulated struct {
	report  scene.Report
	plan    scene.Plan
	planErr error
}

func simulate(s *scene.Scene) simulated {
	r := s.NewRun()
	r.ToEnd()
	sim := simulated{report: r.Judge()}
	sim.plan, sim.planErr = s.Plan(sim.report.EndMs)
	return sim
}

// clusterKey is the cluster the scene's real runs need (clusterKey), or "" for a scene
// that makes none.
func (sim simulated) clusterKey() string {
	if sim.planErr != nil {
		return ""
	}
	return clusterKey(sim.plan)
}

// conformScene runs a scene in the simulator and then runs times with real.
func conformScene(s *scene.Scene, runs int, work string, real realRunner) conformRow {
	return conformSimulated(s, simulate(s), runs, work, real)
}

// conformSimulated runs the simulated scene times with real.
func conformSimulated(s *scene.Scene, sim simulated, runs int, work string, real realRunner) conformRow {
	simRep, plan := sim.report, sim.plan
	row := conformRow{Scene: s.Name, Simulator: outcome(simRep), Faults: s.FaultTiming()}
	if sim.planErr != nil {
		row.Result, row.Why = resultSkipped, []string{sim.planErr.Error()}
		return row
	}
	for i := 1; i <= runs; i++ {
		runDir := filepath.Join(work, fmt.Sprintf("run-%d", i))
		began := time.Now()
		res, err := real(plan, runDir, false)
		if err != nil {
			// A run the harness could not make (a broker that did not start in time on a
			// loaded machine) says nothing of Kafka: it is made once more, on a fresh
			// cluster, and the table says so.
			row.Retried = append(row.Retried, fmt.Sprintf("run %d: made again after: %v", i, err))
			retryDir := runDir + "-again"
			res, err = real(plan, retryDir, true)
			runDir = retryDir
		}
		// The referee's own speed (issue 22): a retried run counts its first attempt too.
		took := time.Since(began).Seconds()
		row.Seconds = append(row.Seconds, took)
		if err != nil {
			row.Real = append(row.Real, runFailed)
			row.Why = append(row.Why, fmt.Sprintf("run %d: %v (see %s)", i, err, runDir))
			continue
		}
		row.Real = append(row.Real, outcome(res.Report))
		for _, l := range res.Faulted {
			row.Faulted = append(row.Faulted, fmt.Sprintf("run %d: %s", i, l))
		}
		row.Took = append(row.Took, fmt.Sprintf("run %d: %.1f s%s", i, took, res.Phases))
		if s.ExpectApplies() {
			// (a scene tried on a release its expect does not describe is held to the
			// simulated run only: conform --try)
			for _, bad := range s.Check(res.Report) {
				row.Why = append(row.Why, fmt.Sprintf("run %d: %s", i, bad))
			}
		}
	}
	row.Result = judgeRow(row)
	if row.Result == resultDisagree && runs == 1 && row.Faults == scene.FaultsAtClock {
		row.Why = append(row.Why, "suspect: one real run of a scene with wall-clock faults (at.ms) cannot tell a disagreement "+
			"from real runs differing among themselves; run it with --runs 3")
	}
	return row
}

// judgeRow: a scene agrees when every real run has the simulator's outcome and meets the
// scene's expect block; real runs that differ among themselves are timing-sensitive,
// never agreeing; a run that could not be made at all is an error of the harness.
func judgeRow(row conformRow) string {
	distinct := slices.Compact(slices.Sorted(slices.Values(row.Real)))
	switch {
	case slices.Contains(row.Real, runFailed):
		return resultError
	case len(distinct) > 1:
		return resultTiming
	case distinct[0] != row.Simulator || len(row.Why) > 0:
		return resultDisagree
	}
	return resultAgree
}

// runFailed stands for the outcome of a real run that could not be made.
const runFailed = "error"

// outcome is the part of a report the comparison holds the two runs to: the verdict,
// every message count, and a dashboard's total shown and expected.
func outcome(rep scene.Report) string {
	var parts []string
	for _, k := range []string{"sent", "acked", "delivered", "duplicated", "lost", "unavailable", "failed"} {
		parts = append(parts, fmt.Sprintf("%s=%d", k, rep.Messages[k]))
	}
	if t := rep.Total; t != nil {
		parts = append(parts, fmt.Sprintf("total=%d/%d", t.Shown, t.Expected))
	}
	return rep.Verdict + " " + strings.Join(parts, " ")
}

func printConformTable(w io.Writer, rows []conformRow, runs int) {
	fmt.Fprintf(w, "%-34s %-16s %-15s %s\n", "scene", "result", "faults at", fmt.Sprintf("simulator / real (%d run(s))", runs))
	for _, r := range rows {
		name := r.Scene
		if r.Kafka != "" && r.Kafka != protocol.Kafka39.String() {
			name += " @" + r.Kafka // the scene as another release runs it
		}
		fmt.Fprintf(w, "%-34s %-16s %-15s sim  %s\n", name, r.Result, r.Faults, r.Simulator)
		for i, real := range r.Real {
			fmt.Fprintf(w, "%-34s %-16s %-15s real %s\n", "", fmt.Sprintf("run %d", i+1), "", real)
		}
		for _, l := range append(append(slices.Clone(r.Faulted), r.Retried...), r.Took...) {
			fmt.Fprintf(w, "%-34s %-16s %-15s      %s\n", "", "", "", l)
		}
		for _, why := range r.Why {
			fmt.Fprintf(w, "%-34s %-16s %-15s      %s\n", "", "", "", why)
		}
	}
}

// printRefereeSpeed says how long the real runs took, in words and as a benchmark line
// that `make bench`'s table reads: each on average and the slowest (a run lasts at least
// as long as its scene waits), and the suite's wall time shared among them — what CI
// pays, less with runs side by side (issue 22's budget is 20 s a run).
func printRefereeSpeed(w io.Writer, rows []conformRow, wall time.Duration, parallel int) {
	var total, slowest float64
	n, slowScene := 0, ""
	for _, r := range rows {
		for _, sec := range r.Seconds {
			total += sec
			n++
			if sec > slowest {
				slowest, slowScene = sec, r.Scene
			}
		}
	}
	if n == 0 {
		return
	}
	perRun := wall.Seconds() / float64(n)
	fmt.Fprintf(w, "referee: %d real runs, %.1f s a run on average, the slowest %.1f s (%s); %.1f s of the suite's wall time a run, %d side by side\n",
		n, total/float64(n), slowest, slowScene, perRun, parallel)
	fmt.Fprintf(w, "BenchmarkRefereeRun\t%d\t%.0f ms/run\t%.0f slowest-ms/run\t%.0f wall-ms/run\n", n, total/float64(n)*1000, slowest*1000, perRun*1000)
}

// printFailedRows repeats, after the table, every row that fails the run (a
// disagreement or a harness error) with its reasons: CI keeps only a log's tail, and a
// table of 43 scenes pushes the failing row out of it.
func printFailedRows(w io.Writer, rows []conformRow) {
	for _, r := range rows {
		if r.Result != resultDisagree && r.Result != resultError {
			continue
		}
		fmt.Fprintf(w, "%s %s: sim %s; real %s\n", r.Result, r.Scene, r.Simulator, strings.Join(r.Real, " | "))
		for _, why := range r.Why {
			fmt.Fprintf(w, "    %s\n", why)
		}
	}
}

// realRun runs the plan once against a real cluster (through the runner server) and
// judges what the runner saw with the scene's own ledger.
func realRun(server *runnerServer, s *scene.Scene, plan scene.Plan, runDir string, fresh bool) (realResult, error) {
	planFile, err := writePlan(plan, runDir)
	if err != nil {
		return realResult{}, err
	}
	if err := server.run(planFile, runDir, fresh); err != nil {
		return realResult{}, fmt.Errorf("%w (see %s)", err, filepath.Join(runDir, "runner.out"))
	}
	facts, rf, err := readFacts(s, runDir)
	if err != nil {
		return realResult{}, err
	}
	res := realResult{Report: s.Judge(facts), Faulted: rf.faultedLines(), Phases: rf.phases()}
	// The run's outcome in `deliverylab run --json`'s format, beside its facts.
	data, _ := json.MarshalIndent(res.Report, "", "  ")
	return res, os.WriteFile(filepath.Join(runDir, "report.json"), data, 0o644)
}

// realFacts is facts.json as the runner writes it.
type realFacts struct {
	EndMs   int64                     `json:"endMs"`
	EndNote string                    `json:"endNote"`
	Effects map[string]map[string]int `json:"effects"`
	Held    map[string][]struct {
		Msg, Code, Partition, Broker string
	} `json:"held"`
	// Aborted is every record of an aborted transaction that carries a message, as
	// "orders-0@3", read from the logs at the end (a zombie's transaction is aborted by
	// the coordinator's timeout, and no application is told).
	Aborted []string `json:"aborted"`
	// Faulted is each fault the runner applied at a protocol point: when the point was
	// seen and how long the fault took to take effect on the real process or link.
	Faulted []struct {
		Fault     string `json:"fault"`
		Point     string `json:"point"`
		AtMs      int64  `json:"atMs"`
		LatencyMs int64  `json:"latencyMs"`
	} `json:"faulted"`
	// PhasesMs is when each phase of the run ended, in ms since the run began.
	PhasesMs map[string]int64 `json:"phasesMs"`
	// ClusterRun is the run's number on its cluster: 0 when the cluster was started for
	// it, else the cluster was kept from an earlier run and put back as a fresh one.
	ClusterRun int `json:"clusterRun"`
	// Unsettled is what the run waited for last before it settled, and when: where a
	// real run goes on past the simulator's end, what kept it going.
	Unsettled struct {
		AtMs int64  `json:"atMs"`
		Why  string `json:"why"`
	} `json:"unsettled"`
}

// faultedLines says, for each fault applied at a protocol point, how long it took to
// take effect.
func (rf realFacts) faultedLines() []string {
	var out []string
	for _, fl := range rf.Faulted {
		out = append(out, fmt.Sprintf("%s at %s (%d ms): took effect %d ms after the point", fl.Fault, fl.Point, fl.AtMs, fl.LatencyMs))
	}
	return out
}

// phases says where a run's time went, in the order the runner goes through them.
func (rf realFacts) phases() string {
	var parts []string
	prev := int64(0)
	for _, p := range []string{"runner", "cluster", "applications", "scene", "facts"} {
		at, ok := rf.PhasesMs[p]
		if !ok {
			continue
		}
		name := p
		if p == "cluster" && rf.ClusterRun > 0 {
			name = "cluster kept"
		}
		parts = append(parts, fmt.Sprintf("%s %.1f", name, float64(at-prev)/1000))
		prev = at
	}
	if len(parts) == 0 {
		return ""
	}
	waited := ""
	if rf.Unsettled.Why != "" && rf.EndNote == string(scene.EndSettled) {
		waited = fmt.Sprintf("; until %.1f s it waited for: %s", float64(rf.Unsettled.AtMs)/1000, rf.Unsettled.Why)
	}
	return " (" + strings.Join(parts, ", ") + waited + ")"
}

// readFacts reads a real run's observations and facts; a message held in several places
// keeps the first, as in the simulator (one with an effect has its fate from that). It
// also gives each fault applied at a protocol point and its latency, as the table shows
// them.
func readFacts(s *scene.Scene, runDir string) (scene.Facts, realFacts, error) {
	var rf realFacts
	data, err := os.ReadFile(filepath.Join(runDir, "facts.json"))
	if err != nil {
		return scene.Facts{}, rf, err
	}
	if err := json.Unmarshal(data, &rf); err != nil {
		return scene.Facts{}, rf, fmt.Errorf("facts.json: %w", err)
	}
	f := scene.Facts{Effects: rf.Effects, Held: map[string]map[string]fate.Reason{}, Aborted: map[sim.RecordAt]bool{}, EndMs: rf.EndMs,
		EndNote: scene.EndNote(rf.EndNote)}
	for _, at := range rf.Aborted {
		rec, ok := sim.ParseRecordAt(at)
		if !ok {
			return scene.Facts{}, rf, fmt.Errorf("facts.json: aborted record %q is not partition@offset", at)
		}
		f.Aborted[rec] = true
	}
	obs, err := os.Open(filepath.Join(runDir, "observations.jsonl"))
	if err != nil {
		return scene.Facts{}, rf, err
	}
	defer obs.Close()
	sc := bufio.NewScanner(obs)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var seen []sim.Observation
	for sc.Scan() {
		var o sim.Observation
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			return scene.Facts{}, rf, fmt.Errorf("observations.jsonl: %w", err)
		}
		seen = append(seen, o)
	}
	f.Observations = sim.ListOf(seen)
	for _, output := range s.Outputs() {
		held := map[string]fate.Reason{}
		for _, h := range rf.Held[output] {
			if _, seen := held[h.Msg]; !seen {
				held[h.Msg] = fate.Because(fate.Code(h.Code), "partition", h.Partition, "broker", h.Broker)
			}
		}
		f.Held[output] = held
	}
	return f, rf, sc.Err()
}
