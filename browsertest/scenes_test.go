package browsertest

import (
	"fmt"
	"testing"

	"deliverylab/core/play"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replicationAndProducerScenes are the scenes of the replication, consumer and producer
// fixes (issue 7): each loads in the page, runs to its end, and the page's ledger and
// verdict are what the same scene gives natively (whose expect the scene tests check).
var replicationAndProducerScenes = []string{
	"acks-all-isr-of-one", "producer-default-acks", "reordered-key", "producer-blocked",
	"zombie-leader-rejoins", "kip-101-leader-epochs", "kip-101-truncate-to-hw", "coordinator-follows-group-id",
	"consumer-seeks-back-after-truncation", "slow-consumer-unavailable", "idempotent-retry",
	"idempotence-ends-at-restart", "idempotence-is-per-partition", "dashboard-counter-overcounts",
	"dedup-table-unique-key", "dedup-upsert", "offsets-in-db-transaction", "txn-commit-and-abort", "txn-zombie-fenced", "txn-fenced-while-the-fence-is-written",
	"txn-timeout-aborts", "txn-lso-holds-back", "streams-at-least-once-duplicates",
	"txn-coordinator-fails-over", "streams-exactly-once", "exactly-once-needs-read-committed",
	// the recovery paths after a failed send (issue 19)
	"txn-abort-bumps-epoch", "streams-send-timeout-revives", "streams-eos-paused-past-timeout",
	"kip-890-late-produce-hangs", "kip-890-verification-refuses-late-produce", "group-coordinator-fails-over",
	"txn-id-expires",
	// Kafka 4 (issue 24)
	"txn-late-produce-kafka-4", "txn-id-expires-kafka-4", "txn-fence-waits-kafka-4",
	"min-isr-leader-dies", "min-isr-leader-dies-kafka-4", "consumer-joins", "consumer-joins-kafka-4",
	// Flink (issue 20)
	"flink-sink-none-duplicates", "flink-sink-exactly-once", "flink-fails-after-pre-commit", "flink-fails-before-commit", "flink-exactly-once-read-uncommitted", "flink-case-dashboard", "flink-job-down-holds-the-lso", "flink-db-table-duplicates", "flink-db-upsert-harmless",
	"flink-db-two-phase-commit", "flink-fails-during-alignment", "flink-at-least-once-counts-twice",
	"flink-redeploy-from-group-offsets", "flink-shared-prefix-loses-data",
	"flink-down-past-transaction-timeout",
}

func TestNewScenesRunToTheirVerdictInThePage(t *testing.T) {
	p := open(t)
	for _, name := range replicationAndProducerScenes {
		t.Run(name, func(t *testing.T) {
			native, err := play.Load(name)
			require.NoError(t, err)
			native.RunToEnd()
			want := native.State().Ledger

			p.call(fmt.Sprintf("load(%q)", name))
			p.call("runToEnd()")
			s := p.state()
			require.Equal(t, name, s.Scene)
			require.True(t, s.Ended, "runToEnd ends the run")
			assert.Equal(t, want.Verdict, s.Ledger.Verdict)
			assert.Equal(t, want.Counts, s.Ledger.Counts)
			p.waitJS(10e9, fmt.Sprintf(`document.getElementById('verdict').textContent === %q`, want.Verdict))
		})
	}
}

// TestDashboardTotalInThePage: the page gives the counter's total beside the one it
// should show once the run has ended, in the language chosen.
func TestDashboardTotalInThePage(t *testing.T) {
	p := open(t)
	native, err := play.Load("dashboard-counter-overcounts")
	require.NoError(t, err)
	native.RunToEnd()
	total := native.State().Ledger.Total
	require.NotNil(t, total)
	require.Greater(t, total.Shown, total.Expected, "the crash makes the dashboard overcount")

	p.call(`load("dashboard-counter-overcounts")`)
	p.call("runToEnd()")
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
	want := fmt.Sprintf("Dashboard total: shown %d · expected %d (overcounts by %d)", total.Shown, total.Expected, total.Shown-total.Expected)
	p.waitJS(10e9, fmt.Sprintf(`document.getElementById('total').textContent === %q`, want))
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	want = fmt.Sprintf("看板总数：显示 %d · 应为 %d (多算了 %d)", total.Shown, total.Expected, total.Shown-total.Expected)
	p.waitJS(10e9, fmt.Sprintf(`document.getElementById('total').textContent === %q`, want))
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}
