package play

import (
	"strings"
	"testing"

	"deliverylab/core/scene"
	"deliverylab/scenes"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// acks-1-lost's own faults are listed, armed, from the start, and once their protocol
// points come, with the moment each fired; the scrubber marks them where they fire.
func TestTheScenesOwnFaultsAreListedAndMarked(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	st := s.State()
	require.Len(t, st.SceneFaults, 2)
	crash := st.SceneFaults[0]
	assert.True(t, crash.Armed)
	assert.False(t, crash.Done)
	assert.Equal(t, int64(-1), crash.AtMs)
	assert.Equal(t, "when broker-1 responded p1#5: crash broker-1", crash.Text.En)
	assert.Equal(t, "当 broker-1 responded p1#5 时：让 broker-1 崩溃", crash.Text.Zh)
	assert.Equal(t, `{when: {node: broker-1, event: responded, message: "p1#5"}, crash: broker-1}`, crash.Syntax)

	// The whole run is known at load: both faults fire in it, and are marked there.
	var marks []Mark
	for _, m := range st.Timeline.Marks {
		if m.Kind == "scene-fault" {
			marks = append(marks, m)
		}
	}
	require.Len(t, marks, 2)

	s.RunToEnd()
	st = s.State()
	for i, f := range st.SceneFaults {
		assert.True(t, f.Done, "fault %d fired", i)
		assert.Positive(t, f.AtMs)
		assert.Equal(t, f.AtMs, marks[i].AtMs, "the mark of fault %d is where it fired", i)
		assert.Equal(t, i, marks[i].Index)
		assert.Equal(t, f.Text, marks[i].Text)
	}
	assert.Less(t, st.SceneFaults[0].AtMs, st.SceneFaults[1].AtMs, "the crash, then the restart")
	assert.Equal(t, "fault", twoFaults(t).State().Timeline.Marks[0].Kind, "the user's faults come first")
}

// Tagging the scene's triggers changes nothing in the run: the trace is the scene's.
func TestTaggedSceneFaultsKeepTheTrace(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	s.RunToEnd()
	data, err := scenes.Read("acks-1-lost")
	require.NoError(t, err)
	sc, err := scene.Parse("acks-1-lost.yaml", data)
	require.NoError(t, err)
	r := sc.NewRun()
	r.ToEnd()
	assert.Equal(t, r.World.Trace().Hash(), s.run.World.Trace().Hash())
	for _, f := range sc.Faults {
		assert.Empty(t, f.When.Tag, "the parsed scene's own faults are not touched")
	}
}

// A timed fault is listed at its time, done once the run has passed it; one after the
// run's end (stop.ms) is not marked.
func TestTimedSceneFaults(t *testing.T) {
	text := strings.Replace(ownSceneForFaults, "faults: []", `faults:
  - {at.ms: 300, crash: broker-2, for.ms: 500}
  - {at.ms: 400, drop: message, id: 27}
  - {at.ms: 5000, crash: broker-3}`, 1)
	text = strings.Replace(text, "cluster:", "stop.ms: 2000\ncluster:", 1)
	s, err := LoadSource("timed.yaml", []byte(text))
	require.NoError(t, err)
	st := s.State()
	require.Len(t, st.SceneFaults, 3)
	assert.Equal(t, int64(300), st.SceneFaults[0].AtMs)
	assert.False(t, st.SceneFaults[0].Done)
	assert.Equal(t, "crash broker-2 for 500 ms", st.SceneFaults[0].Text.En)
	assert.Equal(t, "drop message #27", st.SceneFaults[1].Text.En)
	assert.Equal(t, "{at.ms: 300, crash: broker-2, for.ms: 500}", st.SceneFaults[0].Syntax)
	var at []int64
	for _, m := range st.Timeline.Marks {
		if m.Kind == "scene-fault" {
			at = append(at, m.AtMs)
		}
	}
	assert.Equal(t, []int64{300, 400}, at, "the fault after the run's end is not marked")

	require.NoError(t, s.SeekTo(300))
	st = s.State()
	assert.True(t, st.SceneFaults[0].Done, "standing at its time, after its event")
	assert.False(t, st.SceneFaults[1].Done)
	require.NoError(t, s.SeekTo(299))
	assert.False(t, s.State().SceneFaults[0].Done)
}

// SourceFile is the file as loaded, with the user's settings and seed.
func TestSourceFileCarriesTheChanges(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	data, err := scenes.Read("acks-1-lost")
	require.NoError(t, err)
	src := s.SourceFile()
	assert.Equal(t, SourceFile{File: "acks-1-lost.yaml", Text: string(data), Shipped: true, Changes: [][2]string{}, Seed: 1}, src)

	require.NoError(t, s.SetSetting("producers.p1.config.acks", "all"))
	s.SetSeed(9)
	src = s.SourceFile()
	assert.Equal(t, [][2]string{{"producers.p1.config.acks", "all"}}, src.Changes)
	assert.Equal(t, int64(9), src.Seed)
	require.Len(t, s.State().SceneFaults, 2, "a changed scene still lists its faults")
	s.RunToEnd()
	assert.True(t, s.State().SceneFaults[0].Done, "and still knows when they fired")

	own, err := LoadSource("mine.yaml", []byte(ownSceneForFaults))
	require.NoError(t, err)
	assert.False(t, own.SourceFile().Shipped)
	assert.Equal(t, ownSceneForFaults, own.SourceFile().Text)
	assert.Empty(t, own.State().SceneFaults)
	assert.NotNil(t, own.State().SceneFaults, "an empty list, not null, for the page")
}

// A share link of a scene with faults lists them again.
func TestALinkKeepsTheScenesFaults(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	require.NoError(t, s.SetSetting("producers.p1.config.acks", "0"))
	s.RunToEnd()
	o, err := OpenLink(s.Link())
	require.NoError(t, err)
	assert.Equal(t, s.State().SceneFaults, o.State().SceneFaults)
}

const ownSceneForFaults = `title: {en: "Timed faults", zh: "定时故障"}
cluster:
  brokers: 3
  topics:
    - {name: orders, partitions: 1, replication.factor: 3, leaders: [broker-1]}
apps:
  - producer: p1
    config: {acks: all}
    send: {topic: orders, count: 3, interval.ms: 200, value: "{n}"}
  - consumer: c1
    group: g
    topics: [orders]
    config: {enable.auto.commit: false, auto.offset.reset: earliest}
    commit: after-processing
    sink: db
sinks:
  - {name: db, kind: table}
faults: []
`
