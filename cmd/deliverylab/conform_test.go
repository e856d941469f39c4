package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deliverylab/core/scene"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realFixture is a real run of acks-1-lost against Kafka 3.9.2, as the Java runner wrote
// it (`deliverylab conform --work DIR acks-1-lost`, DIR/acks-1-lost/run-1).
const realFixture = "testdata/real-acks-1-lost"

func shipped(t *testing.T, name string) *scene.Scene {
	s, err := loadScene(name)
	require.NoError(t, err)
	return s
}

// edited loads acks-1-lost as a teacher might have changed it, saved as file.
// shippedRestart is acks-1-lost's restart of broker-1, which the tests below retime.
const shippedRestart = "  - when: {node: controller, event: elected}\n    restart: broker-1\n"

func edited(t *testing.T, file string, edit func(string) string) *scene.Scene {
	data, err := os.ReadFile("../../scenes/acks-1-lost.yaml")
	require.NoError(t, err)
	require.Contains(t, string(data), shippedRestart, "the tests edit acks-1-lost's restart")
	f := filepath.Join(t.TempDir(), file)
	require.NoError(t, os.WriteFile(f, []byte(edit(string(data))), 0o644))
	return shipped(t, f)
}

// The facts a real run leaves are judged by the simulator's own ledger, into the same
// report as `deliverylab run --json` prints.
func TestRealRunIsJudgedIntoTheRunJSONFormat(t *testing.T) {
	s := shipped(t, "acks-1-lost")
	facts, _, err := readFacts(s, realFixture)
	require.NoError(t, err)
	real := s.Judge(facts)

	sim := s.NewRun()
	sim.ToEnd()
	var realJSON, simJSON map[string]any
	data, _ := json.Marshal(real)
	require.NoError(t, json.Unmarshal(data, &realJSON))
	data, _ = json.Marshal(sim.Judge())
	require.NoError(t, json.Unmarshal(data, &simJSON))
	for k := range simJSON {
		assert.Contains(t, realJSON, k)
	}
	assert.Equal(t, outcome(sim.Judge()), outcome(real), "the recorded real run agrees with the simulator")
	assert.Empty(t, s.Check(real), "and meets the scene's expect")
	assert.Equal(t, scene.EndSettled, real.EndNote)
}

// replay is a real runner that answers with the recorded run, or with the reports given.
func replay(t *testing.T, s *scene.Scene, reports ...scene.Report) realRunner {
	i := 0
	return func(scene.Plan, string, bool) (realResult, error) {
		if len(reports) > 0 {
			i++
			return realResult{Report: reports[(i-1)%len(reports)]}, nil
		}
		facts, rf, err := readFacts(s, realFixture)
		require.NoError(t, err)
		return realResult{Report: s.Judge(facts), Faulted: rf.faultedLines(), Phases: rf.phases()}, nil
	}
}

func TestConformAgreesWhenEveryRealRunHasTheSimulatorsOutcome(t *testing.T) {
	s := shipped(t, "acks-1-lost")
	row := conformScene(s, 3, t.TempDir(), replay(t, s))
	assert.Equal(t, resultAgree, row.Result, row.Why)
	assert.Len(t, row.Real, 3)
}

// A scene whose expect is wrong disagrees, even though the real run and the simulator
// agree with each other: the claim the scene makes is what real Kafka is held to.
func TestConformReportsAWrongExpectAsADisagreement(t *testing.T) {
	s := edited(t, "acks-1-lost.yaml", func(text string) string {
		return strings.Replace(text, "verdict: at-most-once", "verdict: exactly-once", 1)
	})
	row := conformScene(s, 1, t.TempDir(), replay(t, s))
	assert.Equal(t, resultDisagree, row.Result)
	assert.Contains(t, strings.Join(row.Why, "\n"), "verdict: expected exactly-once, got at-most-once")
}

// Real runs that differ among themselves are timing-sensitive, never agreeing; a run
// that could not be made is an error of the harness.
func TestConformTellsTimingSensitiveAndFailedRuns(t *testing.T) {
	s := shipped(t, "acks-1-lost")
	facts, _, err := readFacts(s, realFixture)
	require.NoError(t, err)
	one := s.Judge(facts)
	other := one
	other.Messages = map[string]int{"sent": 10, "acked": 10, "delivered": 10}
	other.Verdict = "exactly-once"
	row := conformScene(s, 2, t.TempDir(), replay(t, s, one, other))
	assert.Equal(t, resultTiming, row.Result)

	failing := func(scene.Plan, string, bool) (realResult, error) {
		return realResult{}, errors.New("the runner failed")
	}
	row = conformScene(s, 1, t.TempDir(), failing)
	assert.Equal(t, resultError, row.Result, "the harness failed, not Kafka")
	assert.Contains(t, row.Why[0], "the runner failed")
	assert.Len(t, row.Retried, 1, "a run the harness could not make is made once more")

	// A run made the second time counts, and the table says it was made again.
	tries := 0
	flaky := func(plan scene.Plan, dir string, fresh bool) (realResult, error) {
		if tries++; tries == 1 {
			assert.False(t, fresh, "a first try may use a kept cluster")
			return realResult{}, errors.New("the cluster did not start")
		}
		assert.True(t, fresh, "a run made again starts a fresh cluster")
		return realResult{Report: one}, nil
	}
	row = conformScene(s, 1, t.TempDir(), flaky)
	assert.Equal(t, resultAgree, row.Result)
	assert.Equal(t, []string{"run 1: made again after: the cluster did not start"}, row.Retried)
}

// A scene marked simulator-only is listed as skipped, with its reason, and not run.
func TestConformSkipsSimulatorOnlyScenes(t *testing.T) {
	s := edited(t, "historical.yaml", func(text string) string {
		return "simulator-only: a pre-KIP-101 toggle\n" + text
	})
	never := func(scene.Plan, string, bool) (realResult, error) {
		t.Fatal("a simulator-only scene must not run against a real cluster")
		return realResult{}, nil
	}
	row := conformScene(s, 3, t.TempDir(), never)
	assert.Equal(t, resultSkipped, row.Result)
	assert.Equal(t, []string{"simulator only: a pre-KIP-101 toggle"}, row.Why)
}

// A fault waiting for a protocol point no frame shows cannot run on a real cluster.
func TestConformSkipsTriggersTheRunnerCannotSee(t *testing.T) {
	s := edited(t, "truncated.yaml", func(text string) string {
		return strings.Replace(text, shippedRestart, "  - {when: {event: truncated}, restart: broker-1}\n", 1)
	})
	row := conformScene(s, 1, t.TempDir(), replay(t, s))
	assert.Equal(t, resultSkipped, row.Result)
	assert.Contains(t, row.Why[0], "cannot see the protocol point truncated")
}

// The records of aborted transactions the runner read from the logs reach the checker,
// as "partition@offset"; a run without any (the recorded one) has none.
func TestRealRunsAbortedRecordsAreRead(t *testing.T) {
	s := shipped(t, "acks-1-lost")
	facts, _, err := readFacts(s, realFixture)
	require.NoError(t, err)
	assert.Empty(t, facts.Aborted)

	dir := t.TempDir()
	obs, err := os.ReadFile(filepath.Join(realFixture, "observations.jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "observations.jsonl"), obs, 0o644))
	data, err := os.ReadFile(filepath.Join(realFixture, "facts.json"))
	require.NoError(t, err)
	var raw map[string]any
	require.NoError(t, json.Unmarshal(data, &raw))
	raw["aborted"] = []string{"orders-0@3", "orders-1@2"}
	data, _ = json.Marshal(raw)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "facts.json"), data, 0o644))
	facts, _, err = readFacts(s, dir)
	require.NoError(t, err)
	assert.Equal(t, map[sim.RecordAt]bool{{Partition: "orders-0", Offset: 3}: true, {Partition: "orders-1", Offset: 2}: true}, facts.Aborted)
}

// The row says how the scene's faults are timed; a one-run disagreement of a scene with
// a wall-clock fault is marked suspect (real runs may differ among themselves), one of a
// scene whose faults all wait for protocol points is not.
func TestConformRowSaysHowTheFaultsAreTimed(t *testing.T) {
	s := shipped(t, "acks-1-lost")
	facts, _, err := readFacts(s, realFixture)
	require.NoError(t, err)
	other := s.Judge(facts)
	other.Messages = map[string]int{"sent": 10, "acked": 10, "delivered": 10}
	other.Verdict = "exactly-once"

	clock := edited(t, "clock.yaml", func(text string) string {
		return strings.Replace(text, shippedRestart, "  - {at.ms: 12000, restart: broker-1}\n", 1)
	})
	row := conformScene(clock, 1, t.TempDir(), replay(t, clock, other))
	assert.Equal(t, scene.FaultsAtClock, row.Faults, "the edited scene restarts broker-1 at an at.ms")
	assert.Equal(t, resultDisagree, row.Result)
	assert.Contains(t, strings.Join(row.Why, "\n"), "suspect: one real run of a scene with wall-clock faults")

	row = conformScene(s, 1, t.TempDir(), replay(t, s, other))
	assert.Equal(t, scene.FaultsAtPoints, row.Faults)
	assert.NotContains(t, strings.Join(row.Why, "\n"), "suspect")

	var out strings.Builder
	printConformTable(&out, []conformRow{row}, 1)
	assert.Contains(t, out.String(), "protocol points")
}

// A failing row is repeated after the table with its reasons, and an agreeing one is not:
// CI keeps only the tail of a long log.
func TestFailedRowsAreRepeatedAfterTheTable(t *testing.T) {
	rows := []conformRow{
		{Scene: "fine", Result: resultAgree, Simulator: "exactly-once", Real: []string{"exactly-once"}},
		{Scene: "broken", Result: resultDisagree, Simulator: "exactly-once", Real: []string{"at-least-once"}, Why: []string{"run 1: delivered 9, expected 10"}},
		{Scene: "harness", Result: resultError, Simulator: "exactly-once", Real: []string{runFailed}, Why: []string{"run 1: the runner failed"}},
	}
	var out strings.Builder
	printFailedRows(&out, rows)
	assert.Equal(t, "DISAGREE broken: sim exactly-once; real at-least-once\n    run 1: delivered 9, expected 10\n"+
		"ERROR harness: sim exactly-once; real error\n    run 1: the runner failed\n", out.String())
}

// The table ends with the referee's own speed, in words and as the benchmark line make
// bench's table reads; each run's wall time is kept on its row.
func TestConformSaysHowLongARealRunTakes(t *testing.T) {
	s := shipped(t, "acks-1-lost")
	row := conformScene(s, 2, t.TempDir(), replay(t, s))
	require.Len(t, row.Seconds, 2)
	require.Len(t, row.Took, 2)
	assert.Contains(t, row.Took[0], "run 1: ")
	rows := []conformRow{{Scene: "a", Seconds: []float64{10, 20}}, {Scene: "b", Seconds: []float64{30}}}
	var out strings.Builder
	printRefereeSpeed(&out, rows, 36*time.Second, 2)
	assert.Equal(t, "referee: 3 real runs, 20.0 s a run on average, the slowest 30.0 s (b); 12.0 s of the suite's wall time a run, 2 side by side\n"+
		"BenchmarkRefereeRun\t3\t20000 ms/run\t30000 slowest-ms/run\t12000 wall-ms/run\n", out.String())
}
