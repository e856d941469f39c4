package scene

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"deliverylab/core/sim"
)

// scheduleRun is what one run of a scene under a fault schedule left.
type scheduleRun struct {
	Note   EndNote
	Detail string
	Hash   string
	EndMs  int64
	Events int64
	// Broken is the first invariant violation, with when it was seen ("" if none).
	Broken string
	// CutShort says the run was stopped at its test's event budget, before its end.
	CutShort bool
}

// fuzzEventBudget is how many events FuzzFaultSchedule runs of one input: well past
// what any shipped scene takes to its time limit under a fault that never heals (the
// busiest swarm run, a permanent sink crash under auto-commit, takes 123,000 events and
// under a second with settling and invariants checked incrementally), short of the
// run's own event limit, which would take the fuzzer long enough to call a worker hung.
// TestSwarm runs every schedule to its end.
const fuzzEventBudget = 200_000

// runSchedule parses the scene text and runs it to its end; with checks, it checks the
// nodes' invariants (Run.Invariants) each time the clock is about to move, and at the
// end, and judges the ledger. (After every event instead costs two to six times the run
// itself in the shipped scenes with a long __consumer_offsets log; once per instant
// about as much as the run.) maxEvents > 0 stops the run after that many events.
func runSchedule(file string, text []byte, checks bool, maxEvents int64) (scheduleRun, error) {
	s, err := Parse(file, text)
	if err != nil {
		return scheduleRun{}, err
	}
	r := s.NewRun()
	r.World.Trace().Keep = false
	var out scheduleRun
	for r.Step() {
		if maxEvents > 0 && r.World.EventsRun() >= maxEvents {
			out.CutShort = true
			break
		}
		if !checks || r.World.NextEventMs() == r.World.NowMs() {
			continue
		}
		if bad := r.Invariants(); len(bad) > 0 {
			out.Broken = fmt.Sprintf("at %d ms, event %d: %s", r.World.NowMs(), r.World.EventsRun(), strings.Join(bad, "; "))
			break
		}
	}
	if checks {
		if bad := r.Invariants(); out.Broken == "" && len(bad) > 0 {
			out.Broken = fmt.Sprintf("at the end (%d ms): %s", r.World.NowMs(), strings.Join(bad, "; "))
		}
		r.Judge()
	}
	out.Note, out.Detail = r.EndNote, r.EndDetail
	out.Hash, out.EndMs, out.Events = r.World.Trace().Hash(), r.World.NowMs(), r.World.EventsRun()
	if !r.Ended && out.Broken == "" && !out.CutShort {
		return out, fmt.Errorf("the run stopped at %d ms without an end note", out.EndMs)
	}
	return out, nil
}

// checkScheduleRun is what every run under any schedule must give: it ends, in the
// event budget and with its clock moving, keeps every invariant, and a second run of the
// same text has the same trace. maxEvents > 0 checks only that many events of it.
func checkScheduleRun(file string, text []byte, maxEvents int64) (scheduleRun, error) {
	first, err := runSchedule(file, text, true, maxEvents)
	switch {
	case err != nil:
		return first, err
	case first.Broken != "":
		return first, fmt.Errorf("invariant broken %s", first.Broken)
	case first.Note == EndFrozen || first.Note == EndEvents:
		return first, fmt.Errorf("the run ended with %q at %d ms after %d events: %s", first.Note, first.EndMs, first.Events, first.Detail)
	}
	again, err := runSchedule(file, text, false, maxEvents)
	if err != nil {
		return first, err
	}
	if again.Hash != first.Hash {
		return first, fmt.Errorf("two runs of the same scene differ: trace hash %s, then %s", first.Hash, again.Hash)
	}
	return first, nil
}

// fuzzSeeds are the fault shapes of issue 8 that a fuzz pass starts from, each over a
// shipped scene that has the nodes it names.
func fuzzSeeds(gs []genScene) []fuzzSeed {
	byName := map[string]int{}
	for i, g := range gs {
		byName[g.name] = i
	}
	kind := func(k string) int { return index(genKinds, k) }
	eventIn := func(specs []sim.EventSpec, e string) int {
		i := slices.IndexFunc(specs, func(s sim.EventSpec) bool { return string(s.Event) == e })
		if i < 0 {
			panic("no event " + e + " here")
		}
		return i
	}
	event := func(e string) int { return eventIn(genEvents, e) }
	response := func(e string) int { return eventIn(genResponseEvents, e) }
	sceneIndex := func(g genScene) byte { return byte(byName[g.name]) }
	shipped := func(name string) genScene {
		i, ok := byName[name]
		if !ok {
			panic("no shipped scene " + name)
		}
		return gs[i]
	}
	safe, commit := shipped("acks-all-safe"), shipped("commit-after-processing")
	return []fuzzSeed{
		// A lost MetadataUpdate: the controller's pushes to broker-2 are lost for 10 s
		// after broker-1 crashed, so broker-2 must learn it leads some other way.
		{"metadata-update-lost", sceneIndex(safe), encodeSchedule([]genFault{
			{Kind: kind("crash"), AtMs: 50, A: index(safe.wire, "broker-1")},
			{Kind: kind("cut-oneway"), AtMs: 5000, A: index(safe.wire, "controller"), B: index(safe.wire, "broker-2"), ForMs: 10000},
		})},
		// A dropped offset-commit response: the consumer's commit times out.
		{"commit-response-dropped", sceneIndex(commit), encodeSchedule([]genFault{
			{Kind: kind("drop"), When: true, Response: true, Event: response("offset-committed")},
		})},
		// A 10 ms cut between the consumer and its leader as it is given its partition,
		// when it asks for offsets (OffsetFetch, then ListOffsets or its first fetch).
		{"offsets-request-cut", sceneIndex(commit), encodeSchedule([]genFault{
			{Kind: kind("cut"), When: true, Event: event("assigned"), OnNode: 1 + commit.reporterIndex("assigned", "c1"),
				A: index(commit.wire, "c1"), B: index(commit.wire, "broker-1"), ForMs: 10},
		})},
		// A one-second cut between the consumer and its sink, from its first poll.
		{"sink-cut", sceneIndex(commit), encodeSchedule([]genFault{
			{Kind: kind("cut"), When: true, Event: event("polled"), OnNode: 1 + commit.reporterIndex("polled", "c1"),
				A: index(commit.wire, "c1"), B: index(commit.wire, "db"), ForMs: 1000},
		})},
	}
}

// FuzzFaultSchedule turns bytes into one to six faults over a shipped scene (the first
// byte picks the scene) and checks checkScheduleRun. The seeds are every shipped scene
// without extra faults, and the fault shapes of issue 8 (fuzzSeeds, written to
// testdata/fuzz/FuzzFaultSchedule by TestFuzzSeedCorpus).
func FuzzFaultSchedule(f *testing.F) {
	gs, err := shippedGenScenes()
	if err != nil {
		f.Fatal(err)
	}
	for i := range gs {
		f.Add(byte(i), []byte{})
	}
	f.Fuzz(func(t *testing.T, which byte, schedule []byte) {
		g := gs[int(which)%len(gs)]
		fs := decodeSchedule(schedule)
		text, err := g.withSchedule(fs)
		if err != nil {
			t.Fatalf("%s: the schedule does not make a scene:\n%s\n%v", g.name, g.scheduleText(fs), err)
		}
		if _, err := checkScheduleRun(g.name+"+faults.yaml", text, fuzzEventBudget); err != nil {
			t.Fatalf("%s with\n%s\n%v", g.name, g.scheduleText(fs), err)
		}
	})
}

// The seed files in testdata/fuzz/FuzzFaultSchedule are the fuzzSeeds as this
// generator and the shipped scenes' order encode them: `go test ./core/scene -run
// TestFuzzSeedCorpus -update` rewrites them after a change to either.
func TestFuzzSeedCorpus(t *testing.T) {
	gs, err := shippedGenScenes()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzFaultSchedule")
	for _, seed := range fuzzSeeds(gs) {
		want := fmt.Sprintf("go test fuzz v1\nbyte(%q)\n[]byte(%q)\n", seed.scene, seed.schedule)
		file := filepath.Join(dir, seed.name)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil || string(got) != want {
			t.Errorf("%s is not the seed %s over %s encodes (%v): run `go test ./core/scene -run TestFuzzSeedCorpus -update`",
				file, seed.name, gs[seed.scene].name, err)
		}
	}
}

// fuzzSeed is one FuzzFaultSchedule input: a shipped scene's index and a schedule.
type fuzzSeed struct {
	name     string
	scene    byte
	schedule []byte
}
