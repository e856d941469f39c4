package scene

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"deliverylab/core/apps"
	"deliverylab/core/kafka/protocol"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseGood is a small valid scene; the bad inputs below break one thing of it at a
// known line.
const parseGood = `title: {en: "A scene", zh: "一个场景"}
cluster:
  brokers: 3
  topics:
    - {name: orders, partitions: 1, replication.factor: 3}
apps:
  - producer: p1
    config: {acks: all, enable.idempotence: false}
    send: {topic: orders, count: 3}
  - consumer: c1
    topics: [orders]
    config: {enable.auto.commit: false, auto.offset.reset: earliest}
`

// TestParseRejectsBadScenes: every error names the file, the line, the key path and
// what was expected.
func TestParseRejectsBadScenes(t *testing.T) {
	cases := []badScene{
		{
			name: "unknown top-level key",
			text: parseGood + "colour: blue\n",
			line: 13, key: "colour",
			want: []string{"unknown key", "expected one of: apps, cluster,"},
		},
		{
			name: "unknown nested key",
			text: strings.Replace(parseGood, "partitions: 1", "partitons: 1", 1),
			line: 5, key: "cluster.topics[0].partitons",
			want: []string{"unknown key", "leaders, name, partitions, replication.factor"},
		},
		{
			name: "unknown key of an application",
			text: strings.Replace(parseGood, "    topics: [orders]\n", "    topics: [orders]\n    commit.mode: sync\n", 1),
			line: 12, key: "apps[1].commit.mode",
			want: []string{"unknown key", "commit", "processing.ms"},
		},
		{
			name: "unknown Kafka property",
			text: strings.Replace(parseGood, "acks: all,", "colour: all,", 1),
			line: 8, key: "apps[0].config.colour",
			want: []string{"unknown key", "acks", "linger.ms"},
		},
		{
			name: "misspelt Kafka property",
			text: strings.Replace(parseGood, "acks: all,", "enabled.idempotence: false, acks: all,", 1),
			line: 8, key: "apps[0].config.enabled.idempotence",
			want: []string{"unknown key; did you mean enable.idempotence?", "only logs a warning for a key it does not know"},
		},
		{
			name: "missing cluster",
			text: "title: {en: t, zh: t}\napps:\n  - producer: p1\n    send: {topic: orders}\n",
			line: 1, key: "cluster",
			want: []string{"missing", "a scene needs cluster and apps"},
		},
		{
			name: "missing apps",
			text: parseGood[:strings.Index(parseGood, "apps:")],
			line: 1, key: "apps",
			want: []string{"missing", "a scene needs cluster and apps"},
		},
		{
			name: "bad acks value",
			text: strings.Replace(parseGood, "acks: all", "acks: 2", 1),
			line: 8, key: "apps[0].config.acks",
			want: []string{`expected all, -1, 0 or 1, got "2"`},
		},
		{
			name: "idempotence with acks=1 gets Kafka's message",
			text: strings.Replace(parseGood, "{acks: all, enable.idempotence: false}", "{acks: 1, enable.idempotence: true}", 1),
			line: 8, key: "apps[0].config",
			want: []string{"enable.idempotence is true but acks must be all in order to use the idempotent producer"},
		},
		{
			name: "delivery.timeout.ms below linger.ms + request.timeout.ms",
			text: strings.Replace(parseGood, "enable.idempotence: false}", "enable.idempotence: false, delivery.timeout.ms: 1000}", 1),
			line: 8, key: "apps[0].config",
			want: []string{"delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms"},
		},
		{
			// The line is the consumer's: the bound it breaks may come from cluster.config.
			name: "session.timeout.ms below group.min.session.timeout.ms",
			text: strings.Replace(parseGood, "auto.offset.reset: earliest}", "auto.offset.reset: earliest,\n             session.timeout.ms: 1000}", 1),
			line: 13, key: "apps[1].config.session.timeout.ms",
			want: []string{"INVALID_SESSION_TIMEOUT", "session.timeout.ms 1000", "group.min.session.timeout.ms 6000"},
		},
		{
			name: "session.timeout.ms above group.max.session.timeout.ms",
			text: strings.Replace(parseGood, "  brokers: 3\n", "  brokers: 3\n  config: {group.max.session.timeout.ms: 30000}\n", 1),
			line: 11, key: "apps[1].config.session.timeout.ms",
			want: []string{"INVALID_SESSION_TIMEOUT", "session.timeout.ms 45000", "group.max.session.timeout.ms 30000"},
		},
		{
			name: "a producer's sending that is neither sync nor async",
			text: strings.Replace(parseGood, "    send: {topic: orders, count: 3}\n", "    send: {topic: orders, count: 3}\n    sending: blocking\n", 1),
			line: 10, key: "apps[0].sending",
			want: []string{"expected sync or async, got \"blocking\""},
		},
		{
			name: "buffer.memory smaller than one batch",
			text: strings.Replace(parseGood, "enable.idempotence: false}", "enable.idempotence: false, buffer.memory: 100}", 1),
			line: 8, key: "apps[0].config",
			want: []string{"Attempt to allocate 16384 bytes, but there is a hard limit of 100 on memory allocations."},
		},
		{
			name: "commit: auto with enable.auto.commit: false",
			text: parseGood + "    commit: auto\n",
			line: 13, key: "apps[1].commit",
			want: []string{"auto requires enable.auto.commit: true"},
		},
		{
			name: "commit: after-processing with Kafka's default auto commit",
			text: strings.Replace(parseGood, "enable.auto.commit: false, ", "", 1) + "    commit: after-processing\n",
			line: 13, key: "apps[1].commit",
			want: []string{"after-processing requires enable.auto.commit: false"},
		},
		{
			name: "a partition with one group",
			text: parseGood + "faults:\n  - {at.ms: 10, partition: [[broker-1]]}\n",
			line: 14, key: "faults[0].partition",
			want: []string{"expected at least two groups"},
		},
		{
			name: "an error name Kafka does not have",
			text: parseGood + "expect:\n  errors: {NOT_ENOUGH_REPLICA: 1}\n",
			line: 14, key: "expect.errors.NOT_ENOUGH_REPLICA",
			want: []string{"expected one of NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS,"},
		},
		{
			name: "one client's errors naming a node the scene does not have",
			text: parseGood + "expect:\n  errors: {p9: {PRODUCER_FENCED: 1}}\n",
			line: 14, key: "expect.errors.p9",
			want: []string{"expected an error name or a node of this scene", `got "p9"`},
		},
		{
			name: "one client's errors with an error name Kafka does not have",
			text: parseGood + "expect:\n  errors: {p1: {FENCED: 1}}\n",
			line: 14, key: "expect.errors.p1.FENCED",
			want: []string{"expected one of NOT_LEADER_OR_FOLLOWER,"},
		},
		{
			name: "an explore pattern that names no node",
			text: parseGood + "explore:\n  faults: [crash: \"zookeeper-*\"]\n",
			line: 14, key: "explore.faults[0].crash",
			want: []string{"matches no node this scene can crash (p1, broker-1, broker-2, broker-3, c1)"},
		},
		{
			name: "an explore wire fault that is neither request nor response",
			text: parseGood + "explore:\n  faults: [drop: message]\n",
			line: 14, key: "explore.faults[0].drop",
			want: []string{"expected request or response"},
		},
		{
			name: "an explore fault with a time",
			text: parseGood + "explore:\n  faults: [{crash: c1, at.ms: 5}]\n",
			line: 14, key: "explore.faults[0].at.ms",
			want: []string{"unknown key"},
		},
		{
			name: "an explore block without faults",
			text: parseGood + "explore:\n  depth: 2\n",
			line: 14, key: "explore.faults",
			want: []string{"expected a list of faults the search may inject"},
		},
		{
			name: "an explore depth past the limit",
			text: parseGood + "explore:\n  faults: [crash: c1]\n  depth: 4\n",
			line: 15, key: "explore.depth",
			want: []string{"expected"},
		},
		{
			name: "the same link twice",
			text: parseGood + "network:\n  links:\n    - {between: [broker-1, broker-2], latency.ms: 50}\n    - {between: [broker-2, broker-1], latency.ms: 9}\n",
			line: 16, key: "network.links[1].between",
			want: []string{"the link broker-1-broker-2 is given twice"},
		},
		{
			name: "replica.fetch.wait.max.ms above replica.lag.time.max.ms",
			text: strings.Replace(parseGood, "  brokers: 3\n", "  brokers: 3\n  config: {replica.lag.time.max.ms: 100}\n", 1),
			line: 4, key: "cluster.config.replica.fetch.wait.max.ms",
			want: []string{"replica.fetch.wait.max.ms should always be less than or equal to replica.lag.time.max.ms"},
		},
		{
			name: "a Kafka 4 feature on Kafka 3.9",
			text: strings.Replace(parseGood, "  brokers: 3\n", "  brokers: 3\n  config: {eligible.leader.replicas.version: 1}\n", 1),
			line: 4, key: "cluster.config.eligible.leader.replicas.version",
			want: []string{"eligible.leader.replicas.version 1 needs kafka.version 4.x"},
		},
		{
			name: "a feature level Kafka does not have",
			text: "kafka.version: \"4.x\"\n" + strings.Replace(parseGood, "  brokers: 3\n", "  brokers: 3\n  config: {transaction.version: 1}\n", 1),
			line: 5, key: "cluster.config.transaction.version",
			want: []string{"expected 0", "or 2", `got "1"`},
		},
		{
			name: "a fault naming an unknown node",
			text: parseGood + "faults:\n  - {at.ms: 10, crash: broker-7}\n",
			line: 14, key: "faults[0].crash",
			want: []string{"expected a node of this scene", "p1, broker-1, broker-2, broker-3, c1", `got "broker-7"`},
		},
		{
			name: "a cut naming an unknown node",
			text: parseGood + "faults:\n  - at.ms: 10\n    cut: [p1, broker-9]\n",
			line: 15, key: "faults[0].cut",
			want: []string{"expected nodes of this scene", `got "broker-9"`},
		},
		{
			name: "a trigger on an unknown event",
			text: parseGood + "faults:\n  - when: {node: broker-1, event: exploded}\n    crash: broker-1\n",
			line: 14, key: "faults[0].when.event",
			want: []string{"expected one of", "appended", "responded", `got "exploded"`},
		},
		{
			name: "a checkpoint on a trigger event that carries none",
			text: parseGood + "narration:\n  - when: {event: polled, checkpoint: 1}\n    en: a\n    zh: b\n",
			line: 14, key: "narration[0].when.checkpoint",
			want: []string{"polled carries no checkpoint", "checkpoint-completed"},
		},
		{
			name: "a message the scene never sends",
			text: parseGood + "faults:\n  - when: {event: acked, message: p1#4}\n    crash: broker-1\n",
			line: 14, key: "faults[0].when.message",
			want: []string{"expected a message this scene sends (like p1#1)", `got "p1#4"`},
		},
		{
			name: "drop: response without a responded trigger",
			text: parseGood + "faults:\n  - {at.ms: 10, drop: response}\n",
			line: 14, key: "faults[0].drop",
			want: []string{"response needs when: {event: responded}"},
		},
		{
			name: "a count expression that is not a count",
			text: parseGood + "expect:\n  output: c1\n  lost: \"about 3\"\n",
			line: 15, key: "expect.lost",
			want: []string{`expected a count such as 0, 3, ">=1" or "<=2"`, `got "about 3"`},
		},
		{
			name: "an anomaly this version does not detect",
			text: parseGood + "expect:\n  anomalies: {dirty-write: \">=1\"}\n",
			line: 14, key: "expect.anomalies.dirty-write",
			want: []string{"expected one of duplicate, lost-write"},
		},
		{
			name: "invalid YAML",
			text: parseGood + "sinks: db: table\n",
			line: 13, key: "",
			want: []string{"not valid YAML"},
		},
		{
			name: "a tab for indentation",
			text: "cluster:\n\tbrokers: 3\n",
			line: 2, key: "",
			want: []string{"not valid YAML"},
		},
		{
			name: "empty file",
			text: "",
			line: 1, key: "",
			want: []string{"empty file; expected at least cluster and apps"},
		},
		{
			name: "only a document marker", // yaml.v3 puts its empty value on line 2
			text: "---",
			line: 1, key: "",
			want: []string{"empty file"},
		},
		{
			name: "only a comment",
			text: "# a scene, some day\n",
			line: 1, key: "",
			want: []string{"empty file"},
		},
		{
			name: "the consumer group protocol on Kafka 3.9",
			text: strings.Replace(parseGood, "enable.auto.commit: false,", "group.protocol: consumer, enable.auto.commit: false,", 1),
			line: 12, key: "apps[1].config.group.protocol",
			want: []string{"group.protocol consumer needs kafka.version 4.x", "KIP-848"},
		},
		{
			name: "a setting the coordinator decides under the consumer protocol",
			text: "kafka.version: \"4.x\"\n" + strings.Replace(parseGood, "enable.auto.commit: false,",
				"group.protocol: consumer, session.timeout.ms: 10000, enable.auto.commit: false,", 1),
			line: 13, key: "apps[1].config.session.timeout.ms",
			want: []string{"session.timeout.ms cannot be set when group.protocol=CONSUMER", "group.consumer.session.timeout.ms"},
		},
		{
			name: "one group, two protocols",
			text: "kafka.version: \"4.x\"\n" + parseGood + "  - consumer: c2\n    group: c1\n    topics: [orders]\n" +
				"    config: {group.protocol: consumer}\n",
			line: 17, key: "apps[2].config.group.protocol",
			want: []string{"c1 and c2 share group c1 with different group.protocol values (classic, consumer)", "give both the same"},
		},
		{
			name: "commit with-results under the consumer protocol",
			text: "kafka.version: \"4.x\"\n" + strings.Replace(strings.Replace(parseGood, "enable.auto.commit: false,",
				"group.protocol: consumer, enable.auto.commit: false,", 1), "    topics: [orders]\n    config: {group",
				"    topics: [orders]\n    commit: with-results\n    sink: db\n    config: {group", 1) +
				"sinks:\n  - {name: db, kind: table}\n",
			line: 13, key: "apps[1].commit",
			want: []string{"with-results seeks on assignment", "group.protocol classic only"},
		},
		{
			name: "a list instead of a scene",
			text: "- cluster\n- apps\n",
			line: 1, key: "",
			want: []string{"expected a mapping of keys", "cluster", "apps"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { assertRefused(t, c) })
	}
}

// badScene is a scene file the parser must refuse, with where and what it says.
type badScene struct {
	name string
	text string
	line int
	key  string   // the key path the error names ("" for a file-level problem)
	want []string // what the message must say
}

// assertRefused: Parse refuses the file with an *Error at the line and key path, as
// one bounded line "FILE:LINE: KEY: message".
func assertRefused(t *testing.T, c badScene) {
	t.Helper()
	s, err := Parse("scenes/bad.yaml", []byte(c.text))
	require.Error(t, err)
	require.Nil(t, s)
	var perr *Error
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, "scenes/bad.yaml", perr.File)
	assert.Equal(t, c.line, perr.Line, "line; the error was: %.300v", err)
	assert.Equal(t, c.key, perr.Key, "key path; the error was: %.300v", err)
	for _, w := range c.want {
		assert.Contains(t, perr.Msg, w)
	}
	prefix := "scenes/bad.yaml:" + strconv.Itoa(c.line) + ": "
	if c.key != "" {
		prefix += c.key + ": "
	}
	assert.True(t, strings.HasPrefix(err.Error(), prefix), "%.300q should start with %q", err.Error(), prefix)
	assert.LessOrEqual(t, utf8.RuneCountInString(err.Error()), msgRunes+keyRunes+50, "an error is one bounded line")
}

// TestParseAcksAcceptsWhatKafkaAccepts: a number or a string, as Kafka takes either.
func TestParseAcksAcceptsWhatKafkaAccepts(t *testing.T) {
	cases := []struct {
		value string
		want  protocol.Acks
	}{
		{`1`, 1},
		{`"1"`, 1},
		{`all`, -1},
		{`"all"`, -1},
		{`-1`, -1},
		{`"-1"`, -1},
		{`0`, 0},
		{`"0"`, 0},
	}
	for _, c := range cases {
		t.Run(c.value, func(t *testing.T) {
			text := strings.Replace(parseGood, "{acks: all, enable.idempotence: false}", "{acks: "+c.value+", enable.idempotence: false}", 1)
			s, err := Parse("acks.yaml", []byte(text))
			require.NoError(t, err)
			require.Len(t, s.Producers, 1)
			assert.Equal(t, c.want, s.Producers[0].Config.Acks)
		})
	}
	t.Run("without enable.idempotence", func(t *testing.T) {
		// acks=1 and acks=0 make Kafka's default idempotence give way silently; acks=all
		// keeps it: the producer is idempotent.
		for value, idempotent := range map[string]bool{"1": false, "0": false, "all": true, "-1": true} {
			text := strings.Replace(parseGood, "{acks: all, enable.idempotence: false}", "{acks: "+value+"}", 1)
			s, err := Parse("acks.yaml", []byte(text))
			require.NoError(t, err, value)
			assert.Equal(t, idempotent, s.Producers[0].Config.EnableIdempotence, value)
		}
	})
}

// TestParseDefaults: what a scene gets for the keys it leaves out.
func TestParseDefaults(t *testing.T) {
	s, err := Parse("dir/defaults.yaml", []byte(parseGood))
	require.NoError(t, err)
	assert.Equal(t, "defaults", s.Name)
	assert.Equal(t, int64(1), s.Seed)
	assert.Equal(t, int64(0), s.StopMs, "no stop.ms: run until settled")
	assert.Equal(t, int64(5), s.LatencyMs)
	assert.Equal(t, int64(0), s.JitterMs)
	require.Len(t, s.Producers, 1)
	p := s.Producers[0]
	assert.Equal(t, protocol.AcksAll, p.Config.Acks, "acks=all")
	assert.Equal(t, int64(10), p.Work.IntervalMs)
	assert.Equal(t, "{n}", p.Work.Value)
	assert.Equal(t, "", p.Work.Key)
	assert.Equal(t, apps.ResendUnacknowledged, p.OnRestart)
	require.Len(t, s.Consumers, 1)
	c := s.Consumers[0]
	assert.Equal(t, "c1", c.Group, "the group defaults to the consumer's name")
	assert.Equal(t, apps.CommitAfterProcessing, c.Spec.Commit, "with enable.auto.commit: false")
	assert.Equal(t, int64(1), c.Spec.ProcessingMs)
	assert.False(t, c.Spec.Async)
	assert.Equal(t, []string{"c1"}, s.Outputs(), "a consumer without a sink is an output")
	assert.Equal(t, "c1", s.Expect.Output)

	noTitle := parseGood[strings.Index(parseGood, "\n")+1:]
	s, err = Parse("scenes/my-first.yaml", []byte(noTitle))
	require.NoError(t, err)
	assert.Equal(t, Text{En: "my-first", Zh: "my-first"}, s.Title, "the title defaults to the file name")
}
