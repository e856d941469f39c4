package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunJSONFollowsTheContract(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, runCmd([]string{"../../scenes/acks-1-lost.yaml", "--json"}, &out, &errOut), errOut.String())
	var rep map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	for _, k := range []string{"scene", "seed", "output", "verdict", "messages", "errors", "anomalies", "outputs", "traceHash", "events", "endMs"} {
		assert.Contains(t, rep, k)
	}
	msgs := rep["messages"].(map[string]any)
	for _, k := range []string{"sent", "acked", "delivered", "lost", "duplicated", "unavailable", "failed"} {
		assert.Contains(t, msgs, k)
	}
	assert.GreaterOrEqual(t, msgs["lost"].(float64), 1.0, "acks=1 loses an acknowledged message")

	out.Reset()
	require.Equal(t, 0, runCmd([]string{"acks-all-safe", "--json"}, &out, &errOut))
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	assert.Equal(t, 0.0, rep["messages"].(map[string]any)["lost"], "acks=all loses nothing acknowledged")
}

func TestRunPrintsATimelineAndTheLedger(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, runCmd([]string{"retry-duplicate"}, &out, &errOut))
	assert.Contains(t, out.String(), "fault drop")
	assert.Contains(t, out.String(), "p1#3     duplicated")
	assert.Contains(t, out.String(), "---- p1 sends with acks=all but enable.idempotence=false.", "captions appear in the timeline")
	assert.NotContains(t, out.String(), "Heartbeat")
}

func TestAnInvalidSceneExitsWith2AndSaysWhere(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("cluster:\n  brokers: 3\n  tpoics: []\napps: []\n"), 0o644))
	var out, errOut bytes.Buffer
	assert.Equal(t, 2, runCmd([]string{bad}, &out, &errOut))
	assert.Contains(t, errOut.String(), "bad.yaml:3: cluster.tpoics: unknown key")
	assert.Equal(t, 2, dispatch([]string{"nonsense"}))
}

func TestCheckFailsASceneWhoseExpectationIsWrong(t *testing.T) {
	data, err := os.ReadFile("../../scenes/acks-1-lost.yaml")
	require.NoError(t, err)
	wrong := bytes.Replace(data, []byte("verdict: at-most-once"), []byte("verdict: exactly-once"), 1)
	f := filepath.Join(t.TempDir(), "wrong.yaml")
	require.NoError(t, os.WriteFile(f, wrong, 0o644))
	var out, errOut bytes.Buffer
	assert.Equal(t, 1, checkCmd([]string{f}, &out, &errOut))
	assert.Contains(t, out.String(), "verdict: expected exactly-once, got at-most-once")

	out.Reset()
	assert.Equal(t, 0, checkCmd(nil, &out, &errOut), out.String())
}
