package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// explore --json follows the contract: "schedules" and "counterexamples", each a fault
// schedule run replays to the same broken outcome.
func TestExploreJSONFollowsTheContract(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, exploreCmd([]string{"retry-duplicate", "--json"}, &out, &errOut), errOut.String())
	var res struct {
		Schedules, Pruned, Found int
		Exhausted                bool
		Claim                    string
		Counterexamples          []struct {
			Verdict     string
			BreaksClaim bool
			Faults      string
			Messages    map[string]int
		}
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	assert.Positive(t, res.Schedules)
	assert.True(t, res.Exhausted)
	assert.Equal(t, "at-least-once", res.Claim)
	require.NotEmpty(t, res.Counterexamples)
	cx := res.Counterexamples[0]
	assert.Equal(t, "at-least-once", cx.Verdict)
	assert.False(t, cx.BreaksClaim, "a duplicate is what at-least-once admits")

	// the faults, pasted into the scene, replay the outcome under run
	src, err := os.ReadFile("../../scenes/retry-duplicate.yaml")
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "found.yaml")
	require.NoError(t, os.WriteFile(file, replaceFaults(t, src, cx.Faults), 0o644))
	out.Reset()
	require.Equal(t, 0, runCmd([]string{file, "--json"}, &out, &errOut), errOut.String())
	var rep map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	assert.Equal(t, cx.Verdict, rep["verdict"])
	for k, v := range cx.Messages {
		assert.Equal(t, float64(v), rep["messages"].(map[string]any)[k], k)
	}
}

// Bad arguments exit with 2 and say what was expected.
func TestExploreRefusesBadArguments(t *testing.T) {
	for _, args := range [][]string{{}, {"retry-duplicate", "--depth", "9"}, {"retry-duplicate", "extra"}, {"no-such-scene"}} {
		var out, errOut bytes.Buffer
		assert.Equal(t, 2, exploreCmd(args, &out, &errOut), "%v", args)
		assert.NotEmpty(t, errOut.String(), "%v", args)
	}
}

// replaceFaults puts a faults list (as explore prints it) in place of a scene's faults block.
func replaceFaults(t *testing.T, src []byte, faults string) []byte {
	t.Helper()
	var out []string
	skipping := false
	for _, line := range strings.Split(string(src), "\n") {
		top := line != "" && line[0] != ' ' && line[0] != '#' && line[0] != '-'
		switch {
		case strings.HasPrefix(line, "faults:"):
			skipping = true
			out = append(out, "faults:")
			for _, f := range strings.Split(strings.TrimSuffix(faults, "\n"), "\n") {
				out = append(out, "  "+f)
			}
		case skipping && top:
			skipping = false
			out = append(out, line)
		case !skipping:
			out = append(out, line)
		}
	}
	return []byte(strings.Join(out, "\n"))
}

// The search runs on every core, cut into parts; the answer does not depend on how many:
// one core and three give the same JSON, schedule numbers and all.
func TestExploreOnMoreCoresAnswersTheSame(t *testing.T) {
	var one, three, errOut bytes.Buffer
	require.Equal(t, 0, exploreCmd([]string{"acks-1-lost", "--json", "--workers", "1"}, &one, &errOut), errOut.String())
	require.Equal(t, 0, exploreCmd([]string{"acks-1-lost", "--json", "--workers", "3"}, &three, &errOut), errOut.String())
	assert.Equal(t, one.String(), three.String())
	assert.Contains(t, one.String(), `"counterexamples": [`)
}
