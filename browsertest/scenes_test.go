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
	"dedup-table-unique-key", "dedup-upsert", "offsets-in-db-transaction",
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
