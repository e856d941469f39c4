package storage

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"deliverylab/core/kafka/protocol"
)

// Lists cloned from one another, each then pushed to and cut on its own (into shared
// chunks too), always read as slices treated the same way would: a clone never sees
// another's batches, however their chunks are shared.
func TestBatchListsClonedApartStayApart(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	type pair struct {
		list batchList
		want []protocol.RecordBatch
	}
	lists := []*pair{{}}
	next := int64(0)
	for step := 0; step < 1500; step++ {
		p := lists[r.IntN(len(lists))]
		switch op := r.IntN(10); {
		case op < 7:
			for range r.IntN(200) {
				next++
				b := protocol.RecordBatch{BaseOffset: next}
				p.list.push(b)
				p.want = append(p.want, b)
			}
		case op < 9 && len(p.want) > 0:
			n := r.IntN(len(p.want))
			removed := p.list.cut(n)
			require.Equal(t, p.want[n:], removed, "step %d", step)
			p.want = append([]protocol.RecordBatch(nil), p.want[:n]...)
		default:
			lists = append(lists, &pair{list: p.list.clone(), want: append([]protocol.RecordBatch(nil), p.want...)})
		}
		for i, q := range lists {
			if q != p && step%100 != 0 {
				continue // the list changed, and every list now and then
			}
			require.Equal(t, len(q.want), q.list.len(), "step %d list %d", step, i)
			if len(q.want) > 0 {
				require.Equal(t, q.want, q.list.copyRange(0, q.list.len()), "step %d list %d", step, i)
				require.Equal(t, q.want[len(q.want)-1], *q.list.end())
				k := r.IntN(len(q.want))
				require.Equal(t, k, q.list.search(func(b *protocol.RecordBatch) bool { return b.BaseOffset >= q.want[k].BaseOffset }))
			} else {
				require.Nil(t, q.list.end())
			}
		}
	}
	require.Greater(t, len(lists), 20)
}
