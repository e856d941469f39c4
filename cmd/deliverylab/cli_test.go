package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deliverylab/core/scene"

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

// Every refusal of a file exits with 2 and says where and what was expected: a path that
// does not exist (even one ending in a shipped scene's name), a directory, a file over
// the size limit (read no further than the limit: /dev/zero ends at once), a scene that
// YAML accepts but a scene must not hold. A bare shipped name still runs that scene.
func TestRunRefusesBadPathsAndFilesWithExit2(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(f, []byte(text), 0o644))
		return f
	}
	good, err := os.ReadFile("../../scenes/acks-1-lost.yaml")
	require.NoError(t, err)
	dupKey := write("dup.yaml", strings.Replace(string(good), "config: {acks: 1}", "config: {acks: 1, acks: 0}", 1))
	require.NotEqual(t, string(good), mustRead(t, dupKey), "acks-1-lost has config: {acks: 1}")
	big := write("big.yaml", string(good)+"#"+strings.Repeat("x", scene.MaxSceneBytes)+"\n")
	cases := []struct {
		name string
		arg  string
		want []string
	}{
		{"a path that does not exist", "/no/dir/acks-1-lost.yaml",
			[]string{"/no/dir/acks-1-lost.yaml: no such file", "the shipped scene of that name is run by its bare name: acks-1-lost"}},
		{"a shipped name with .yaml, not here", "acks-1-lost.yaml", []string{"acks-1-lost.yaml: no such file"}},
		{"a bare name that is not shipped", "no-such-scene", []string{"no-such-scene: no such file", "the bare name of a shipped scene (acks-0-vanish, acks-1-lost,"}},
		{"a directory", dir, []string{dir + ": is a directory; expected a scene file"}},
		{"a file over the size limit", big, []string{big + ":1: the file is larger than 262144 bytes"}},
		{"a key given twice", dupKey, []string{dupKey + ":", ": apps[0].config.acks: key given twice"}},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, struct {
			name string
			arg  string
			want []string
		}{"/dev/zero", "/dev/zero", []string{"/dev/zero:1: the file is larger than 262144 bytes"}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			assert.Equal(t, 2, runCmd([]string{c.arg, "--json"}, &out, &errOut))
			assert.Empty(t, out.String())
			for _, w := range c.want {
				assert.Contains(t, errOut.String(), w)
			}
			out.Reset()
			assert.Equal(t, 2, checkCmd([]string{c.arg}, &out, &errOut), "check refuses it too")
			assert.Contains(t, out.String(), "FAIL "+c.arg+":")
		})
	}
	var out, errOut bytes.Buffer
	require.Equal(t, 0, runCmd([]string{"acks-1-lost", "--json"}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), `"scene": "acks-1-lost"`)
}

func mustRead(t *testing.T, name string) string {
	data, err := os.ReadFile(name)
	require.NoError(t, err)
	return string(data)
}

// run --svg writes the whole run as a space-time diagram: every node has its line, and
// the run's outcome is printed as ever; --svg without a file is refused.
func TestRunWritesTheDiagram(t *testing.T) {
	file := filepath.Join(t.TempDir(), "run.svg")
	var out, errOut strings.Builder
	require.Equal(t, 0, runCmd([]string{"acks-1-lost", "--svg", file}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "messages:")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	for _, n := range []string{"controller", "broker-1", "broker-2", "broker-3", "p1", "c1", "db"} {
		assert.Contains(t, string(data), `data-node="`+n+`"`)
	}
	assert.Contains(t, string(data), `class="span" data-node="broker-1"`, "broker-1's crash is on its line")

	errOut.Reset()
	assert.Equal(t, 2, runCmd([]string{"acks-1-lost", "--svg"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "--svg needs a file")
}
