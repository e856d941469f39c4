package play

import (
	"deliverylab/core/check"
	"deliverylab/core/show"

	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScenesListsEveryShippedSceneInBothLanguages(t *testing.T) {
	list := Scenes()
	require.NotEmpty(t, list)
	for _, s := range list {
		assert.NotEmpty(t, s.Title.En, s.Name)
		assert.NotEmpty(t, s.Title.Zh, s.Name)
	}
	_, err := Load("no-such-scene")
	assert.ErrorContains(t, err, "no scene named")
}

func TestClickingTheLeaderOfAcks1LosesAMessage(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	// As the browser test does: stop when broker-1's first answer is on the wire, drop
	// the copies it sent its far-away followers, and crash it: an acknowledged message
	// only broker-1 had.
	inFlight := func(from, kind string) []Flight {
		var out []Flight
		for _, f := range s.State().InFlight {
			if f.From == from && f.Kind == kind && (kind != "FetchResponse" || strings.Contains(f.Label, "#")) {
				out = append(out, f)
			}
		}
		return out
	}
	for len(inFlight("broker-1", "ProduceResponse")) == 0 {
		require.True(t, s.Step(), "broker-1 answers a produce request")
	}
	for _, f := range inFlight("broker-1", "FetchResponse") {
		require.NoError(t, s.Inject(`{"drop": "message", "id": `+strconv.FormatInt(f.ID, 10)+`}`))
	}
	require.NoError(t, s.Inject(`{"crash": "broker-1"}`))
	st := s.State()
	assert.False(t, nodeNamed(st, "broker-1").Up)
	assert.Contains(t, st.Faults[len(st.Faults)-1], "crash broker-1")
	s.RunToEnd()
	st = s.State()
	assert.True(t, st.Ended)
	assert.GreaterOrEqual(t, st.Ledger.Counts["lost"], 1)
	assert.Equal(t, "at-most-once", st.Ledger.Verdict)
}

func TestSeekReplaysTheSameRun(t *testing.T) {
	s := twoFaults(t)
	want := s.run.World.Trace().Hash()
	at := s.NowMs()

	require.NoError(t, s.SeekTo(50))
	assert.Equal(t, int64(50), s.NowMs())
	assert.Len(t, s.State().Faults, 0, "faults after the seek target have not happened yet")
	assert.Len(t, s.State().FaultList, 2, "but they are kept, to happen again")

	s2 := twoFaults(t)
	require.NoError(t, s2.SeekTo(at))
	assert.Equal(t, want, s2.run.World.Trace().Hash(), "a seek replays the user's faults exactly")
}

func TestInjectRejectsBadFaultsWithAReason(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	assert.ErrorContains(t, s.Inject(`{crash: broker-9}`), "expected a node of this scene")
	assert.ErrorContains(t, s.Inject(`{crash: controller}`), "KRaft quorum")
	assert.ErrorContains(t, s.Inject(`{explode: broker-1}`), "unknown key")
	assert.ErrorContains(t, s.Inject(`{"drop": "message", "id": 99999}`), "no message #99999 is in flight")
	assert.ErrorContains(t, s.Inject(`{at.ms: 5, crash: broker-1}`), "happens now")
	assert.ErrorContains(t, s.Inject(`[[[`), "expected a mapping")
}

func TestDroppingAMessageInFlight(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	s.Advance(30)
	st := s.State()
	require.NotEmpty(t, st.InFlight)
	id := st.InFlight[0].ID
	require.NoError(t, s.Inject(`{"drop": "message", "id": `+strconv.FormatInt(id, 10)+`}`))
	for _, f := range s.State().InFlight {
		assert.NotEqual(t, id, f.ID)
	}
}

func TestStateShowsTheClusterAsDrawn(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	v := s.Version()
	s.Advance(200) // past the first metadata answer and its retry.backoff.ms
	assert.Greater(t, s.Version(), v)
	st := s.State()
	b1 := nodeNamed(st, "broker-1")
	require.Equal(t, "broker", b1.Kind)
	require.NotEmpty(t, b1.Partitions)
	p := b1.Partitions[0]
	assert.Equal(t, "__consumer_offsets-38", p.Partition, "group dashboard lives on partition 38 of 50")
	orders := b1.Partitions[1]
	assert.Equal(t, "orders-0", orders.Partition)
	assert.True(t, orders.Leader)
	assert.Equal(t, []string{"broker-1", "broker-2", "broker-3"}, orders.ISR)
	assert.NotEmpty(t, orders.Records)
	assert.LessOrEqual(t, orders.HW, orders.LEO)
	assert.NotEmpty(t, st.Captions, "the narration at 0 ms was reached")
	assert.Equal(t, "", st.Ledger.Verdict, "no verdict before the run ends")
	assert.Equal(t, "producer", nodeNamed(st, "p1").Kind)
	assert.Equal(t, "sink", nodeNamed(st, "db").Kind)
}

func nodeNamed(st State, name string) NodeState {
	for _, n := range st.Nodes {
		if n.Name == name {
			return n
		}
	}
	return NodeState{}
}

func TestStateSaysWhenTheUserLeftTheScript(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	assert.Equal(t, int64(-1), s.State().FaultsFromMs)
	s.Advance(120)
	require.NoError(t, s.Inject(`{crash: broker-2}`))
	assert.Equal(t, int64(120), s.State().FaultsFromMs)
}

func TestPendingMessagesSayWhereTheyStand(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	s.Advance(300)
	pending := 0
	for _, m := range s.State().Ledger.Messages {
		if m.Fate != "pending" {
			assert.Equal(t, "delivered", m.Fate, "%s: only delivered and duplicated are known before the end", m.ID)
			continue
		}
		pending++
		assert.Contains(t, m.Reason.En, "in progress")
		assert.Contains(t, m.Reason.Zh, "进行中")
	}
	assert.Positive(t, pending, "at 300 ms some messages are still on their way")
}

func TestFastForwardStopsAtAMessageWorthWatching(t *testing.T) {
	s, err := Load("rebalance-takeover")
	require.NoError(t, err)
	// c1 died at 3875 ms and the producer is done by about 4100 ms: until c1's session
	// times out (45 s after its SyncGroup at 3135 ms) only heartbeats and empty long polls
	// are on the wire.
	s.Advance(4300)
	require.True(t, s.State().Quiet)
	s.FastForward(60000)
	st := s.State()
	assert.False(t, st.Quiet, "it stopped at a message worth watching")
	assert.Greater(t, st.NowMs, int64(48000), "it hurried through the session timeout")
	assert.Less(t, st.NowMs, int64(53000), "and stopped when c2 rejoined")
	kinds := map[string]bool{}
	for _, f := range st.InFlight {
		kinds[f.Kind] = true
	}
	assert.True(t, kinds["JoinGroup"], "c2's JoinGroup is on the wire: %v", kinds)
}

// The page's ledger carries Jepsen's anomalies once the run has ended, each with its
// count and what it means in both languages: acks-all-safe's retried p1#5 is in the log
// twice and lands behind p1#6..p1#10, which p1 sent after it.
func TestLedgerShowsAnomaliesAtTheEnd(t *testing.T) {
	s, err := Load("acks-all-safe")
	require.NoError(t, err)
	assert.Empty(t, s.State().Ledger.Anomalies, "none before the end")
	s.RunToEnd()
	got := map[check.Anomaly]AnomalyCount{}
	for _, a := range s.State().Ledger.Anomalies {
		got[a.Name] = a
		assert.NotEmpty(t, a.Meaning.En, a.Name)
		assert.NotEmpty(t, a.Meaning.Zh, a.Name)
	}
	assert.Len(t, got, len(check.AllAnomalies))
	assert.Equal(t, 1, got[check.Duplicate].Count)
	assert.Equal(t, 1, got[check.NonmonotonicSend].Count)
	assert.Equal(t, 0, got[check.PollSkip].Count)
	assert.Contains(t, got[check.NonmonotonicSend].Meaning.Zh, "发送乱序")
	assert.Contains(t, got[check.NonmonotonicSend].Meaning.En, "out of send order")
}

// A producer whose send() waits for buffer memory says so to the canvas, and only then.
func TestStateShowsABlockedProducer(t *testing.T) {
	s, err := Load("producer-blocked")
	require.NoError(t, err)
	s.Advance(4000) // p1 is running; the link to broker-1 is cut (since p1#2 was acked), p1#3 in flight
	assert.False(t, nodeNamed(s.State(), "p1").Blocked)
	s.Advance(600) // 4600 ms: p1#4's send() has waited since 4100 ms for p1#3's batch
	assert.True(t, nodeNamed(s.State(), "p1").Blocked)
	s.RunToEnd()
	assert.False(t, nodeNamed(s.State(), "p1").Blocked)
}

// The log cells carry the record key, so the canvas can see a key out of send order.
func TestStateCarriesRecordKeys(t *testing.T) {
	s, err := Load("reordered-key")
	require.NoError(t, err)
	s.RunToEnd()
	var recs []RecordView
	for _, r := range nodeNamed(s.State(), "broker-1").Partitions {
		if r.Partition == "orders-0" {
			recs = r.Records
		}
	}
	require.NotEmpty(t, recs)
	assert.Equal(t, "p1#5", recs[0].Msg, "the retried batch landed behind p1#5")
	assert.Equal(t, "k", recs[0].Key)
}

// The leader's log of a topic partition carries where its readers stand: the group's
// committed offset (from its coordinator) and the consumer's position.
func TestStateMarksCommittedOffsetAndPosition(t *testing.T) {
	s, err := Load("commit-after-processing")
	require.NoError(t, err)
	s.Advance(3350) // c1 has committed orders-0=3 and polled p1#4..p1#6; it crashes at 3380
	var orders *ReplicaState
	for _, n := range s.State().Nodes {
		for i, p := range n.Partitions {
			if p.Partition == "orders-0" && p.Leader {
				orders = &n.Partitions[i]
			}
			if p.Partition != "orders-0" || !p.Leader {
				assert.Empty(t, p.Marks, "%s %s: only the leader of a topic partition is marked", n.Name, p.Partition)
			}
		}
	}
	require.NotNil(t, orders)
	assert.Equal(t, []show.Mark{{Kind: show.CommittedMark, Who: "dashboard", Offset: 3}, {Kind: show.PositionMark, Who: "c1", Offset: 6}},
		orders.Marks)
}

// A broker the controller fenced while it is up says so to the canvas: broker-1, cut off
// from the controller, from its fencing until it has caught up after the heal.
func TestStateShowsAFencedBroker(t *testing.T) {
	s, err := Load("zombie-leader-rejoins")
	require.NoError(t, err)
	s.Advance(2000) // cut off since 1100 ms, its session still valid
	assert.False(t, nodeNamed(s.State(), "broker-1").Fenced)
	s.Advance(4000) // 6000 ms: fenced at 4100 ms, still leading epoch 0 as it believes
	assert.True(t, nodeNamed(s.State(), "broker-1").Fenced)
	assert.False(t, nodeNamed(s.State(), "broker-2").Fenced)
	s.Advance(4000) // 10000 ms: the link healed at 8800 ms and its heartbeat unfenced it
	assert.False(t, nodeNamed(s.State(), "broker-1").Fenced)
}

// The records a truncation cut from a replica stay on the canvas, struck out, for a few
// seconds: zombie-leader-rejoins' broker-1 cuts p1#5..p1#9 at 8820 ms.
func TestStateShowsTruncatedRecordsForAWhile(t *testing.T) {
	s, err := Load("zombie-leader-rejoins")
	require.NoError(t, err)
	cut := func() []string {
		var out []string
		for _, r := range nodeNamed(s.State(), "broker-1").Partitions {
			if r.Partition == "orders-0" {
				for _, c := range r.Truncated {
					out = append(out, c.Msg)
				}
			}
		}
		return out
	}
	s.Advance(8000)
	assert.Empty(t, cut())
	s.Advance(1000) // 9000 ms
	assert.Equal(t, []string{"p1#5", "p1#6", "p1#7", "p1#8", "p1#9"}, cut())
	s.Advance(4000) // 13000 ms: three seconds on, gone
	assert.Empty(t, cut())
}

// An idempotent producer shows its producer id, epoch and next sequence numbers on the
// canvas; until InitProducerId is answered, that it waits for one.
func TestStateShowsTheIdempotentProducersIdentity(t *testing.T) {
	s, err := Load("idempotent-retry")
	require.NoError(t, err)
	s.Advance(1)
	assert.Contains(t, nodeNamed(s.State(), "p1").Detail, "pid ?")
	s.Advance(2500)
	assert.Contains(t, nodeNamed(s.State(), "p1").Detail, "pid 0 e0 orders-0:")
	r, err := Load("retry-duplicate")
	require.NoError(t, err)
	r.Advance(2500)
	assert.NotContains(t, nodeNamed(r.State(), "p1").Detail, "pid", "not idempotent: no producer id")
}

// TestAbortedRecordsAreMarkedOnTheLogs: the canvas greys the records of the aborted
// transaction in every replica, and the committed ones are not; each leader of a
// transactional partition carries its LSO.
func TestAbortedRecordsAreMarkedOnTheLogs(t *testing.T) {
	s, err := Load("txn-commit-and-abort")
	require.NoError(t, err)
	s.RunToEnd()
	marked := map[string]bool{}
	leaders := 0
	for _, n := range s.State().Nodes {
		for _, l := range n.Partitions {
			if l.Leader && strings.HasPrefix(l.Partition, "orders-") {
				leaders++
				assert.True(t, l.HasLSO, l.Partition)
				assert.Equal(t, l.HW, l.LSO, "nothing is open at the end: the LSO is the HW")
			}
			for _, c := range l.Records {
				if c.Msg != "" {
					marked[c.Msg] = marked[c.Msg] || c.Aborted
				}
			}
		}
	}
	assert.Equal(t, 2, leaders)
	assert.Equal(t, map[string]bool{"p1#1": false, "p1#2": false, "p1#3": true, "p1#4": true}, marked)
}
