package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A record's identity reads back as it is written, and the trace writes it the same way.
func TestARecordIdentityReadsBackAsWritten(t *testing.T) {
	r := RecordAt{Partition: "orders-0", Offset: 3}
	assert.Equal(t, "orders-0@3", r.String())
	back, ok := ParseRecordAt(r.String())
	assert.True(t, ok)
	assert.Equal(t, r, back)
	for _, bad := range []string{"orders-0", "@3", "orders-0@x", "orders-0@-1"} {
		_, ok := ParseRecordAt(bad)
		assert.False(t, ok, bad)
	}
	o := Observation{Node: "b1", Event: "appended", Partition: "orders-0", Offset: 3}
	assert.Equal(t, r, o.Record())
}
