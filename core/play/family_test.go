package play

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every message any shipped scene puts on the wire says its family (sim.Familied), so
// the canvas colours it by what it is and not by a guess at its name.
func TestEveryMessageOnTheWireHasAFamily(t *testing.T) {
	kinds := map[string]string{} // kind -> family
	for _, sc := range Scenes() {
		s, err := Load(sc.Name)
		require.NoError(t, err, sc.Name)
		for steps := 0; steps < 50000; steps++ {
			for _, fl := range s.State().InFlight {
				kinds[fl.Kind] = fl.Family
				assert.NotEqual(t, "unknown", fl.Family, "%s: %s (#%d) has no family", sc.Name, fl.Kind, fl.ID)
			}
			if !s.Step() {
				break
			}
		}
	}
	for kind, want := range map[string]string{"Produce": "produce", "FetchResponse": "fetch",
		"FindCoordinator": "group", "OffsetCommit": "offsets", "Write": "sink", "BrokerHeartbeat": "control"} {
		assert.Equal(t, want, kinds[kind], kind)
	}
	t.Logf("%d kinds on the wire: %v", len(kinds), kinds)
}
