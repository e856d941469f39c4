package play

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func settingNamed(st State, key string) Setting {
	for _, s := range st.Settings {
		if s.Key == key {
			return s
		}
	}
	return Setting{}
}

func TestTheScenesKeySettingsAreToggles(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	st := s.State()
	acks := settingNamed(st, "producers.p1.config.acks")
	assert.Equal(t, "1", acks.Value)
	assert.Equal(t, []string{"0", "1", "all"}, acks.Choices)
	assert.Equal(t, "p1 acks", acks.Label.En)
	assert.False(t, acks.Changed)
	assert.Equal(t, "false", settingNamed(st, "producers.p1.config.enable.idempotence").Value, "Kafka's default, settled by acks=1")
	assert.Equal(t, "false", settingNamed(st, "consumers.c1.config.enable.auto.commit").Value)
	assert.Equal(t, "read_uncommitted", settingNamed(st, "consumers.c1.config.isolation.level").Value, "a default")
	isr := settingNamed(st, "cluster.config.min.insync.replicas")
	assert.Equal(t, "1", isr.Value)
	assert.Equal(t, []string{"1", "2", "3"}, isr.Choices)
	assert.Equal(t, "false", settingNamed(st, "cluster.config.unclean.leader.election.enable").Value)
	assert.Empty(t, settingNamed(st, "streams.x.config.processing.guarantee").Key, "no Streams application, no toggle")

	st2, err := Load("streams-exactly-once")
	require.NoError(t, err)
	found := false
	for _, set := range st2.State().Settings {
		if set.Choices[0] == "at_least_once" {
			found = true
			assert.Equal(t, "exactly_once_v2", set.Value)
		}
	}
	assert.True(t, found, "a Streams application's processing.guarantee")
}

func TestAcksAllKeepsTheMessageAcks1Lost(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	require.NoError(t, s.SeekTo(3000)) // past the caption that pauses the run
	require.NoError(t, s.SetSetting("producers.p1.config.acks", "all"))
	assert.Equal(t, int64(3000), s.NowMs(), "back at the time it was")
	st := s.State()
	assert.Equal(t, "all", settingNamed(st, "producers.p1.config.acks").Value)
	assert.True(t, settingNamed(st, "producers.p1.config.acks").Changed)
	s.RunToEnd()
	assert.Equal(t, 0, s.State().Ledger.Counts["lost"])
	assert.Equal(t, s.NowMs(), st.Timeline.LengthMs)

	require.NoError(t, s.SetSetting("producers.p1.config.acks", "1"))
	s.RunToEnd()
	assert.Equal(t, 1, s.State().Ledger.Counts["lost"], "and back: the scene's own run")
	assert.False(t, settingNamed(s.State(), "producers.p1.config.acks").Changed)
}

func TestARefusedSettingLosesNothing(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	s.Advance(700)
	require.NoError(t, s.Inject(`{crash: broker-3}`))
	before, _ := traceOf(s)
	err = s.SetSetting("producers.p1.config.enable.idempotence", "true")
	var ue UserError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, ue.En, "enable.idempotence=true is refused")
	assert.Contains(t, ue.En, "acks", "the parser's own reason")
	assert.Contains(t, ue.Zh, "被拒绝")
	after, _ := traceOf(s)
	assert.Equal(t, before, after)
	assert.Len(t, s.State().FaultList, 1)
	assert.ErrorContains(t, s.SetSetting("producers.p1.config.acks", "2"), "expected one of")
	assert.ErrorContains(t, s.SetSetting("producers.p9.config.acks", "1"), "no setting")
}

// crashAndDrop is acks-1-lost with a crash at 700 ms and a drop of the newest message
// on the wire after 900 ms.
func crashAndDrop(t *testing.T) (*Session, int64) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	s.Advance(700)
	require.NoError(t, s.Inject(`{crash: broker-3}`))
	var id int64
	for id == 0 && s.Step() {
		if f := s.State().InFlight; len(f) > 0 && s.NowMs() > 900 {
			id = f[len(f)-1].ID
		}
	}
	require.NoError(t, s.Inject(`{"drop": "message", "id": `+itoa(id)+`}`))
	s.Advance(500)
	return s, id
}

func TestAChangedRunReplaysTheFaultsByTime(t *testing.T) {
	s, _ := crashAndDrop(t)
	require.NoError(t, s.SetSetting("cluster.config.min.insync.replicas", "2"))
	st := s.State()
	require.Len(t, st.FaultList, 2, "the same messages are on the wire then: both replay")
	assert.Nil(t, st.Branch)
	assert.Equal(t, int64(700), st.FaultList[0].AtMs)
	assert.Contains(t, st.Faults[0], "crash broker-3", "the crash happens again at its time")
	// From now on the changed run replays exactly: scrubbing changes nothing.
	at := s.NowMs()
	h1, _ := traceOf(s)
	require.NoError(t, s.SeekTo(10))
	require.NoError(t, s.SeekTo(at))
	h2, _ := traceOf(s)
	assert.Equal(t, h1, h2)
}

func TestAWireFaultWhoseMessageIsGoneIsDroppedWithANotice(t *testing.T) {
	s, id := crashAndDrop(t)
	require.NoError(t, s.SetSetting("producers.p1.config.acks", "all")) // other messages, other ids
	st := s.State()
	require.Len(t, st.FaultList, 1)
	assert.Contains(t, st.FaultList[0].Syntax, "broker-3")
	require.NotNil(t, st.Branch)
	assert.Equal(t, 1, st.Branch.Discarded)
	assert.Contains(t, st.Branch.Text.En, "cannot replay 1 recorded fault(s)")
	assert.Contains(t, st.Branch.Text.En, "drop #"+itoa(id))
	assert.Contains(t, st.Branch.Text.Zh, "无法重放")
}

func TestAnotherSeedIsAnotherRun(t *testing.T) {
	s, err := Load("retry-duplicate")
	require.NoError(t, err)
	s.RunToEnd()
	h1, _ := traceOf(s)
	seed := s.State().Seed
	s.SetSeed(seed + 7)
	assert.Equal(t, seed+7, s.State().Seed, "the state says the seed in force")
	s.RunToEnd()
	h2, _ := traceOf(s)
	assert.NotEqual(t, h1, h2)
}

func TestASettingSaysWhatResetGoesBackTo(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	require.NoError(t, s.SetSetting("producers.p1.config.acks", "all"))
	for _, st := range s.State().Settings {
		if st.Key == "producers.p1.config.acks" {
			assert.Equal(t, "all", st.Value)
			assert.Equal(t, "1", st.Default)
			assert.True(t, st.Changed)
			return
		}
	}
	t.Fatal("acks-1-lost has no acks setting")
}
