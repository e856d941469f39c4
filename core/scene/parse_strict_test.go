package scene

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// strictCases are the inputs YAML allows but a scene refuses, and the limits of a
// scene (scenes/README.md, Input limits). Each was accepted, or refused at the wrong
// line, before the strict input checks; the fuzz target starts from them too.
func strictCases() []badScene {
	replace := func(old, new string) string {
		if !strings.Contains(parseGood, old) {
			panic("parseGood has no " + old)
		}
		return strings.Replace(parseGood, old, new, 1)
	}
	trigger := func(when string) string {
		return parseGood + "faults:\n  - when: " + when + "\n    crash: broker-1\n"
	}
	topics := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "    - {name: t%d}\n", i)
		}
		return replace("    - {name: orders, partitions: 1, replication.factor: 3}\n", "    - {name: orders, partitions: 1, replication.factor: 3}\n"+b.String())
	}
	consumers := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "  - {consumer: x%d, topics: [orders]}\n", i)
		}
		return parseGood + b.String()
	}
	producers := func(n, count int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "  - {producer: q%d, config: {acks: 1}, send: {topic: orders, count: %d}}\n", i, count)
		}
		return parseGood + b.String()
	}
	list := func(key string, n int, item string) string {
		var b strings.Builder
		b.WriteString(key + ":\n")
		for i := range n {
			fmt.Fprintf(&b, "  - "+item+"\n", i)
		}
		return parseGood + b.String()
	}
	huge := strings.Repeat("x", 100_000)
	return []badScene{
		// duplicate keys, at any depth
		{"a Kafka property given twice", replace("{acks: all, enable.idempotence: false}", "{acks: 1, acks: 0}"),
			8, "apps[0].config.acks", []string{"key given twice (first at line 8)"}},
		{"a broker property given twice, on its own line",
			replace("  brokers: 3\n", "  brokers: 3\n  config:\n    min.insync.replicas: 2\n    min.insync.replicas: 1\n"),
			6, "cluster.config.min.insync.replicas", []string{"key given twice (first at line 5)"}},
		{"a topic key given twice", replace("partitions: 1,", "partitions: 1, partitions: 2,"),
			5, "cluster.topics[0].partitions", []string{"key given twice (first at line 5)"}},
		{"a trigger key given twice", trigger("{event: acked, message: p1#1, message: p1#2}"),
			14, "faults[0].when.message", []string{"key given twice (first at line 14)"}},
		{"an expected error given twice", parseGood + "expect:\n  errors: {NOT_ENOUGH_REPLICAS: 1, NOT_ENOUGH_REPLICAS: 2}\n",
			14, "expect.errors.NOT_ENOUGH_REPLICAS", []string{"key given twice (first at line 14)"}},
		// tags
		{"a Python object tag", replace("brokers: 3", "brokers: !!python/object:foo 3"),
			3, "cluster.brokers", []string{"YAML tags such as !!python/object:foo are not accepted"}},
		{"a !!str tag", replace("count: 3", "count: !!str 3"),
			9, "apps[0].send.count", []string{"YAML tags such as !!str are not accepted", `in quotes when it is text, as "3"`}},
		{"a local tag on a mapping", replace("cluster:\n", "cluster: !cluster\n"),
			2, "cluster", []string{"YAML tags such as !cluster"}},
		// anchors and aliases
		{"an alias of an anchor that is not there", replace("count: 3", "count: *n"),
			9, "", []string{"not valid YAML: unknown anchor 'n' referenced"}},
		{"an anchor", replace("config: {acks: all,", "config: &cfg {acks: all,"),
			8, "apps[0].config", []string{"YAML anchors (&cfg) and aliases (*cfg) are not accepted"}},
		{"an alias of an anchor", replace("send: {topic: orders, count: 3}", "send: {topic: &t orders, count: 3}") + "    group: *t\n",
			9, "apps[0].send.topic", []string{"YAML anchors (&t) and aliases (*t) are not accepted"}},
		{"a key that is a list", parseGood + "? [a, b]\n: 1\n",
			13, "", []string{"expected a name as key, got a list"}},
		// more than one document
		{"a second document", parseGood + "---\nsecond: document\n",
			13, "", []string{"a second YAML document starts here", "a scene file holds one document"}},
		{"a second document that is not valid YAML", parseGood + "---\n- [\n  : ]\n",
			13, "", []string{"a second YAML document starts here"}},
		{"a document marker alone at the end", parseGood + "---\n",
			13, "", []string{"a second YAML document"}},
		{"a document after the end marker", parseGood + "...\nmore: 1\n",
			13, "", []string{"a second YAML document"}},
		// triggers that would match anything
		{"an empty message in a trigger", trigger(`{event: acked, message: ""}`),
			14, "faults[0].when.message", []string{"expected a message this scene sends (like p1#1)", `got ""`}},
		{"an empty node in a trigger", trigger(`{event: acked, node: ""}`),
			14, "faults[0].when.node", []string{"expected a node of this scene", `got ""`}},
		{"an empty detail in a trigger", parseGood + "narration:\n  - {when: {event: elected, detail: \"\"}, en: a, zh: b}\n",
			14, "narration[0].when.detail", []string{"leave detail out to match any"}},
		// topic names Kafka refuses
		{"two topics of the same name", replace("replication.factor: 3}\n", "replication.factor: 3}\n    - {name: orders}\n"),
			6, "cluster.topics[1].name", []string{"INVALID_REQUEST: Duplicate topic name: orders"}},
		{"the consumer offsets topic", replace("name: orders,", "name: __consumer_offsets,"),
			5, "cluster.topics[0].name", []string{"__consumer_offsets is one of Kafka's internal topics", "Cannot append to internal topic"}},
		{"the transaction state topic", replace("replication.factor: 3}\n", "replication.factor: 3}\n    - {name: __transaction_state}\n"),
			6, "cluster.topics[1].name", []string{"__transaction_state is one of Kafka's internal topics"}},
		{"a topic name with a space", replace("name: orders,", `name: "my orders",`),
			5, "cluster.topics[0].name", []string{"INVALID_TOPIC_EXCEPTION: Topic name is invalid", "other than ASCII alphanumerics, '.', '_' and '-'"}},
		{"a topic named ..", replace("name: orders,", `name: "..",`),
			5, "cluster.topics[0].name", []string{"'..' is not allowed"}},
		{"a topic name of 250 characters", replace("name: orders,", "name: "+strings.Repeat("o", 250)+","),
			5, "cluster.topics[0].name", []string{"longer than the max allowed length 249"}},
		{"topic names that collide in Kafka's metrics", replace("replication.factor: 3}\n", "replication.factor: 3}\n    - {name: my.orders}\n    - {name: my_orders}\n"),
			7, "cluster.topics[2].name", []string{"INVALID_TOPIC_EXCEPTION: Topic 'my_orders' collides with existing topic: my.orders"}},
		// encoding
		{"bad UTF-8", replace("topics: [orders]", "topics: [ord\xffers]"),
			11, "", []string{"not UTF-8 text: byte 0xff at column 17"}},
		{"a UTF-16 file", "\xff\xfec\x00l\x00u\x00",
			1, "", []string{"not UTF-8", "starts like UTF-16"}},
		{"a control character", replace("count: 3", "count: 3\x07"),
			9, "", []string{"a control character (U+0007) at column 35"}},
		// YAML syntax errors at their line (yaml.v3's parser counts from 0)
		{"a list item in a mapping", parseGood + "- x\n",
			13, "", []string{"not valid YAML: did not find expected key"}},
		{"a syntax error on line 2", "cluster: {brokers: 1}\n- apps\n",
			2, "", []string{"not valid YAML: did not find expected key"}},
		{"nesting past YAML's depth", parseGood + "x: " + strings.Repeat("[", 10_001) + "\n",
			13, "", []string{"not valid YAML: exceeded max depth of 10000"}},
		// limits
		{"a file over the size limit", parseGood + "# " + strings.Repeat("x", MaxSceneBytes) + "\n",
			1, "", []string{"the file is larger than 262144 bytes (256 KiB)"}},
		{"too many topics", topics(MaxTopics),
			5 + MaxTopics, "cluster.topics[16]", []string{"a scene may have at most 16 topics"}},
		{"too many applications", consumers(MaxApps - 1),
			13 + MaxApps - 2, "apps[32]", []string{"a scene may have at most 32 applications"}},
		{"too many messages", producers(5, 1000),
			13 + 4, "apps[6].send.count", []string{"the producers would send 5003 messages in all; a scene may send at most 5000"}},
		{"too many faults", list("faults", MaxFaults+1, "{at.ms: %d, crash: broker-1}"),
			14 + MaxFaults, "faults[200]", []string{"a scene may have at most 200 faults"}},
		{"too many captions", list("narration", MaxCaptions+1, "{at.ms: %d, en: a, zh: b}"),
			14 + MaxCaptions, "narration[200]", []string{"a scene may have at most 200 captions"}},
		{"too many sinks", list("sinks", MaxSinks+1, "{name: db%d}"),
			14 + MaxSinks, "sinks[16]", []string{"a scene may have at most 16 sinks"}},
		// a long bad value is quoted in part: the line stays short
		{"a long bad acks value", replace("acks: all,", "acks: "+huge+","),
			8, "apps[0].config.acks", []string{`expected all, -1, 0 or 1, got "` + strings.Repeat("x", quoteRunes) + `…"`}},
		{"a long unknown node", parseGood + "faults:\n  - {at.ms: 1, crash: " + huge + "}\n",
			14, "faults[0].crash", []string{`got "` + strings.Repeat("x", quoteRunes) + `…"`}},
		{"a long unknown key", parseGood + "? " + huge + "\n: 1\n", // an implicit key has at most 1024 characters
			13, strings.Repeat("x", keyRunes) + "…", []string{"unknown key"}},
		{"a long tag", replace("brokers: 3", "brokers: !"+huge+" 3"),
			3, "cluster.brokers", []string{"YAML tags such as !" + strings.Repeat("x", quoteRunes-1) + "…"}},
	}
}

func TestParseRefusesWhatYAMLAllowsButASceneMustNotHold(t *testing.T) {
	for _, c := range strictCases() {
		t.Run(c.name, func(t *testing.T) { assertRefused(t, c) })
	}
}

// The limits let through what they do not refuse: exactly MaxTopics topics, MaxApps
// applications, MaxMessages messages, a file of MaxSceneBytes.
func TestParseLimitsAreInclusive(t *testing.T) {
	var b strings.Builder
	b.WriteString("cluster:\n  brokers: 1\n  topics:\n")
	for i := range MaxTopics {
		fmt.Fprintf(&b, "    - {name: t%d, partitions: %d}\n", i, MaxTopicPartitions)
	}
	b.WriteString("apps:\n")
	for i := range MaxApps {
		fmt.Fprintf(&b, "  - {producer: p%d, config: {acks: 1}, send: {topic: t0, count: %d}}\n", i, MaxMessages/MaxApps)
	}
	fmt.Fprintf(&b, "faults:\n")
	for i := range MaxFaults {
		fmt.Fprintf(&b, "  - {at.ms: %d, crash: broker-1}\n", i)
	}
	text := b.String()
	text += "#" + strings.Repeat(" ", MaxSceneBytes-len(text)-2) + "\n"
	require.Len(t, text, MaxSceneBytes)
	s, err := Parse("big.yaml", []byte(text))
	require.NoError(t, err)
	assert.Len(t, s.Cluster.Topics, MaxTopics)
	assert.Len(t, s.Producers, MaxApps)
	assert.Len(t, s.Faults, MaxFaults)
}

// A quoted value is shortened only where it is a value of the file: a Kafka message
// quoted in an error stays whole.
func TestErrorsShortenOnlyTheFilesLongValues(t *testing.T) {
	long := map[string]bool{strings.Repeat("v", 50): true}
	msg := fmt.Sprintf("got %q, Kafka says %q", strings.Repeat("v", 50), strings.Repeat("k", 50))
	e := newError("f", 1, "", msg, long)
	assert.Equal(t, `got "`+strings.Repeat("v", quoteRunes)+`…", Kafka says "`+strings.Repeat("k", 50)+`"`, e.Msg)
	e = newError("f", 1, "", `an unclosed "quote`+strings.Repeat("v", 2000), long)
	assert.Equal(t, msgRunes+1, utf8.RuneCountInString(e.Msg), "a message is cut at msgRunes runes, then …")
}

// A value of 200 KB gives an error of one short line, wherever it is.
func TestALongValueGivesAShortError(t *testing.T) {
	huge, ascii := strings.Repeat("é", 100_000), strings.Repeat("x", 200_000) // tags and anchors are ASCII
	for _, text := range []string{
		strings.Replace(parseGood, "acks: all,", "acks: "+huge+",", 1),
		strings.Replace(parseGood, "name: orders,", "name: "+huge+",", 1),
		strings.Replace(parseGood, "count: 3", "count: "+huge, 1),
		strings.Replace(parseGood, "    send: {topic: orders, count: 3}\n", "    send: {topic: orders, count: 3}\n    sending: "+huge+"\n", 1),
		parseGood + "faults:\n  - {at.ms: 1, crash: " + huge + "}\n",
		parseGood + "? " + huge + "\n: 1\n",
		strings.Replace(parseGood, "brokers: 3", "brokers: !"+ascii+" 3", 1),
		strings.Replace(parseGood, "brokers: 3", "brokers: &"+ascii+" 3", 1),
	} {
		_, err := Parse("long.yaml", []byte(text))
		require.Error(t, err)
		assert.Less(t, utf8.RuneCountInString(err.Error()), 300, "%.300s", err)
		// a value is quoted up to quoteRunes runes; a key path shows up to keyRunes
		assert.NotContains(t, err.Error(), strings.Repeat("é", keyRunes+1))
		assert.NotContains(t, err.Error(), strings.Repeat("x", keyRunes+1))
	}
}
