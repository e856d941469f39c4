package scene

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// consumerProtocolScene is two consumers of Kafka 4's consumer group protocol
// (KIP-848) in one group over a topic of two partitions, c2 joining once c1 has read
// everything; tests append their own settings and faults.
const consumerProtocolScene = `
kafka.version: "4.x"
seed: 1
cluster:
  brokers: 3
  config: {group.consumer.session.timeout.ms: 3000, group.consumer.heartbeat.interval.ms: 500}
  topics:
    - {name: orders, partitions: 2, replication.factor: 3}
apps:
  - producer: p1
    config: {acks: all}
    send: {topic: orders, count: 10, interval.ms: 50, value: "{n}"}
  - consumer: c1
    group: g
    topics: [orders]
    config: {group.protocol: consumer, enable.auto.commit: AUTO, auto.offset.reset: earliest, request.timeout.ms: 1000}
    commit: COMMIT
    sink: db
  - consumer: c2
    group: g
    topics: [orders]
    config: {group.protocol: consumer, enable.auto.commit: AUTO, auto.offset.reset: earliest, request.timeout.ms: 1000}
    commit: COMMIT
    sink: db
    start.ms: 6000
sinks:
  - {name: db, kind: table}
`

func consumerProtocolRun(t *testing.T, autoCommit string, extra string) *Run {
	t.Helper()
	s, err := Parse("kip-848.yaml", []byte(consumerProtocolText(autoCommit)+extra))
	require.NoError(t, err)
	r := s.NewRun()
	r.ToEnd()
	require.Equal(t, EndSettled, r.EndNote)
	return r
}

// consumerProtocolText is the scene with auto-commit on ("true": commit auto) or off
// ("false": commit none).
func consumerProtocolText(autoCommit string) string {
	commit := "auto"
	if autoCommit == "false" {
		commit = "none"
	}
	return strings.NewReplacer("AUTO", autoCommit, "COMMIT", commit).Replace(consumerProtocolScene)
}

// firstLine is the index of the first trace line containing every part, -1 if none.
func firstLine(lines []string, parts ...string) int {
	return slices.IndexFunc(lines, func(l string) bool {
		for _, p := range parts {
			if !strings.Contains(l, p) {
				return false
			}
		}
		return true
	})
}

// With auto-commit, the member that gives up a partition commits what it read first,
// then acknowledges the revocation: the coordinator hands orders-1 to c2 only after the
// acknowledgement, and c2 starts at c1's commit. Nothing is read twice.
func TestConsumerProtocolCommitsBeforeItGivesAPartitionUp(t *testing.T) {
	r := consumerProtocolRun(t, "true", "")
	assert.Equal(t, 10, r.Judge().Messages["delivered"])
	assert.Zero(t, r.Judge().Messages["duplicated"])
	lines := r.World.Trace().Texts(true)
	revoking := firstLine(lines, "member c1-1", "UNREVOKED_PARTITIONS", "revoking=[orders-1]")
	require.Positive(t, revoking, "c1 is asked to give orders-1 up")
	commit := firstLine(lines[revoking:], "send", "c1->", "OffsetCommit")
	ack := firstLine(lines[revoking:], "send", "c1->", "ConsumerGroupHeartbeat", "owned=[orders-0]")
	handed := firstLine(lines[revoking:], "member c2-1", "STABLE assigned=[orders-1]")
	require.True(t, commit >= 0 && ack >= 0 && handed >= 0, "commit %d, acknowledgement %d, handover %d", commit, ack, handed)
	assert.Less(t, commit, ack, "the commit before the revocation goes first")
	assert.Less(t, ack, handed, "orders-1 moves only once c1 gave it up")
}

// Without a commit, what c1 read of orders-1 is read again by c2, and nothing of
// orders-0, which c1 keeps with its position (the classic protocol would revoke both).
func TestConsumerProtocolKeepsThePositionsOfWhatDoesNotMove(t *testing.T) {
	r := consumerProtocolRun(t, "false", "")
	rep := r.Judge()
	assert.Equal(t, 5, rep.Messages["delivered"])
	assert.Equal(t, 5, rep.Messages["duplicated"])
	classic := strings.ReplaceAll(consumerProtocolText("false"), "group.protocol: consumer", "group.protocol: classic")
	s, err := Parse("classic.yaml", []byte(classic))
	require.NoError(t, err)
	cr := s.NewRun()
	cr.ToEnd()
	assert.Equal(t, 10, cr.Judge().Messages["duplicated"], "the classic protocol gives every partition up")
}

// A member cut off from its coordinator for longer than the session is fenced: when it
// gets through again it is told UNKNOWN_MEMBER_ID, loses its partitions without a commit
// and joins again with epoch 0; the group goes on.
func TestConsumerProtocolFencedMemberJoinsAgain(t *testing.T) {
	r := consumerProtocolRun(t, "false", "faults:\n  - {at.ms: 7500, cut: [c1, broker-1], for.ms: 6000}\n")
	lines := r.World.Trace().Texts(true)
	removed := firstLine(lines, "group g", "c1-1", "session expired")
	fenced := firstLine(lines, "member c1-1 fenced")
	rejoin := -1
	if fenced >= 0 {
		rejoin = firstLine(lines[fenced:], "c1->", "ConsumerGroupHeartbeat g member=c1-1 epoch=0")
	}
	require.True(t, removed >= 0 && fenced >= 0 && rejoin >= 0, "removed %d, fenced %d, rejoined %d", removed, fenced, rejoin)
	assert.Less(t, removed, fenced)
	assert.Zero(t, r.Judge().Messages["lost"])
}

// The coordinator's broker crashes: the members keep their partitions and epochs,
// look for the coordinator with a growing backoff, and go on with the broker that
// takes the group's __consumer_offsets partition, which loads the group from its last
// snapshot there: nobody joins again, nothing is read twice.
func TestConsumerProtocolGroupOutlivesItsCoordinator(t *testing.T) {
	r := consumerProtocolRun(t, "true", "faults:\n  - {at.ms: 7000, crash: broker-1, for.ms: 8000}\n")
	lines := r.World.Trace().Texts(true)
	loaded := firstLine(lines, "broker-2 group g loaded: consumer group epoch 3")
	require.Positive(t, loaded, "the new coordinator loads the group")
	assert.Negative(t, firstLine(lines[loaded:], "ConsumerGroupHeartbeat g", "epoch=0"), "no member joins again")
	assert.Positive(t, firstLine(lines[loaded:], "c1->broker-2 ConsumerGroupHeartbeat g member=c1-1 epoch=3"))
	assert.Equal(t, 10, r.Judge().Messages["delivered"])
	assert.Zero(t, r.Judge().Messages["duplicated"])
}
