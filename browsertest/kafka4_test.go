package browsertest

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Kafka 4 in one click (issue 24): the settings' kafka.version toggle runs the 3.9 scene
// of a late produce as Kafka 4.4 runs it — nothing of the aborted transaction is read, and
// the next transaction goes through — says, in both languages, that the scene's captions
// describe 3.9, and travels in a share link.
func TestKafkaVersionToggleShowsWhatKafka4Changed(t *testing.T) {
	p := openTools(t, "/#kip-890-late-produce-hangs")
	s := p.runToEnd(t)
	require.Equal(t, 3, s.Ledger.Counts["delivered"], "3.9 without verification: the aborted p1#2 is committed by the next transaction")
	key, value, _ := s.setting(t, "kafka.version")
	require.Equal(t, "3.9", value)
	assert.True(t, eval[bool](p, `document.getElementById("release-note").hidden`), "a scene in its own release needs no note")

	require.NoError(t, p.changeSetting(key, "4.x"))
	p.waitJS(10*time.Second, `window.deliverylab.state().settings.some(s => s.key === "kafka.version" && s.value === "4.x" && s.changed)`)
	p.waitJS(5*time.Second, `!document.getElementById("release-note").hidden`)
	note := eval[string](p, `document.getElementById("release-note").textContent`)
	assert.Contains(t, note, "Kafka 4.x")
	assert.Contains(t, note, "Kafka 3.9")
	s = p.runToEnd(t)
	assert.Equal(t, 2, s.Ledger.Counts["delivered"], "Kafka 4: the late produce is refused and p1#3 commits")
	assert.Equal(t, 1, s.Ledger.Counts["failed"])
	assert.Equal(t, "exactly-once", s.Ledger.Verdict)
	p.screenshot("kafka-4-toggle-en")

	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	p.waitJS(5*time.Second, `document.documentElement.lang === "zh-CN"`)
	p.waitJS(5*time.Second, `document.getElementById("release-note").textContent.includes("现在按 Kafka 4.x 运行")`)
	p.screenshot("kafka-4-toggle-zh")
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))

	// The link carries the release.
	require.NoError(t, clickSelector(p, "#share-link"))
	p.waitJS(5*time.Second, `!document.getElementById("share-url").hidden && document.getElementById("share-url").value.includes("#v1.")`)
	url := eval[string](p, `document.getElementById("share-url").value`)
	want := p.tools().identity()
	q := openTools(t, strings.TrimPrefix(url, env.baseURL))
	q.waitJS(10*time.Second, `window.deliverylab.state().settings.some(s => s.key === "kafka.version" && s.value === "4.x")`)
	assert.Equal(t, want, q.tools().identity(), "the link reproduces the Kafka 4 run")
	q.waitJS(5*time.Second, `!document.getElementById("release-note").hidden`)
}

// A twin scene written for Kafka 4 plays in the page with its own captions and no note.
func TestAKafka4ScenePlaysAsKafka4(t *testing.T) {
	p := openTools(t, "/#txn-id-expires-kafka-4")
	_, value, _ := p.tools().setting(t, "kafka.version")
	require.Equal(t, "4.x", value)
	s := p.runToEnd(t)
	assert.Equal(t, 1, s.Ledger.Counts["delivered"])
	assert.Equal(t, 1, s.Ledger.Counts["failed"], "INVALID_PRODUCER_ID_MAPPING is fatal for Kafka 4's producer")
	assert.True(t, eval[bool](p, `document.getElementById("release-note").hidden`))
	assert.GreaterOrEqual(t, len(s.Captions), 3, "its captions are reached")
}

// Eligible leader replicas in the page (issue 24): the Kafka 4 twin shows broker-2 and
// broker-3 as eligible leaders once broker-1 shrank the ISR below min.insync.replicas,
// delivers everything, and with its eligible.leader.replicas.version toggle set to 0
// gives Kafka 3.9's outcome: the partition waits for broker-1 and the producers give up.
func TestEligibleLeaderReplicasInThePage(t *testing.T) {
	p := openTools(t, "/#min-isr-leader-dies-kafka-4")
	p.call("seek(5000)")
	var elr []string
	for _, n := range p.state().Nodes {
		for _, r := range n.Partitions {
			if n.Name == "broker-1" && r.Partition == "orders-0" {
				elr = r.ELR
			}
		}
	}
	assert.Equal(t, []string{"broker-2", "broker-3"}, elr, "broker-1's ISR is itself alone: its followers are eligible leaders")
	p.screenshot("kafka-4-elr")

	s := p.runToEnd(t)
	assert.Equal(t, 10, s.Ledger.Counts["delivered"])
	assert.Equal(t, 0, s.Ledger.Counts["failed"])

	key, value, _ := s.setting(t, "eligible.leader.replicas.version")
	require.Equal(t, "1", value)
	require.NoError(t, p.changeSetting(key, "0"))
	p.waitJS(10*time.Second, `window.deliverylab.state().settings.some(s => s.key.endsWith("eligible.leader.replicas.version") && s.value === "0" && s.changed)`)
	s = p.runToEnd(t)
	assert.Equal(t, 4, s.Ledger.Counts["delivered"], "without ELR orders-0 waits for broker-1")
	assert.Equal(t, 6, s.Ledger.Counts["failed"])
}

// The consumer group protocol in the page (issue 24, KIP-848): the Kafka 4 twin of
// consumer-joins moves only orders-1 to c2 — ten orders written twice, twenty once — and
// with its group.protocol toggle set to classic gives the classic protocol's outcome,
// every partition given up and read again.
func TestConsumerGroupProtocolInThePage(t *testing.T) {
	p := openTools(t, "/#consumer-joins-kafka-4")
	p.call("seek(10500)")
	p.screenshot("kafka-4-consumer-protocol")
	s := p.runToEnd(t)
	assert.Equal(t, 20, s.Ledger.Counts["delivered"])
	assert.Equal(t, 10, s.Ledger.Counts["duplicated"], "only orders-1 moves, and c2 reads it from the earliest offset")
	assert.GreaterOrEqual(t, len(s.Captions), 4, "its captions are reached")

	key, value, _ := s.setting(t, "group.protocol")
	require.Equal(t, "consumer", value)
	require.NoError(t, p.changeSetting(key, "classic"))
	p.waitJS(10*time.Second, `window.deliverylab.state().settings.some(s => s.key.endsWith("group.protocol") && s.value === "classic" && s.changed)`)
	s = p.runToEnd(t)
	assert.Equal(t, 10, s.Ledger.Counts["delivered"])
	assert.Equal(t, 20, s.Ledger.Counts["duplicated"], "the classic protocol revokes every partition, positions included")
}

// runToEnd plays the run to its end with the page's button and reads the page's state.
func (p *page) runToEnd(t *testing.T) toolsState {
	t.Helper()
	require.NoError(t, clickSelector(p, "#run-end"))
	p.waitJS(30*time.Second, `window.deliverylab.state().ended`)
	return p.tools()
}
