package storage

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"deliverylab/core/kafka/protocol"
)

// A log keeps its batches' records in shared chunks (keepRecords). Logs cloned from one
// another, each then appended to, truncated and appended to again on its own, always
// read back the records they were given, numbered from their offsets: a clone never
// writes into the chunk another is filling, and a batch's records are never overwritten
// by the next batch's.
func TestRecordsKeptInChunksStayApartAcrossClones(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	type pair struct {
		log  Log
		want []string // each record's value, by offset
	}
	logs := []*pair{{}}
	next := 0
	for step := 0; step < 600; step++ {
		p := logs[r.IntN(len(logs))]
		switch op := r.IntN(10); {
		case op < 7:
			n := 1 + r.IntN(recordChunk/3) // some fit the chunk's rest, some begin another
			if r.IntN(20) == 0 {
				n = recordChunk // a big batch, kept apart
			}
			recs := make([]protocol.Record, n)
			for i := range recs {
				next++
				recs[i].Body = protocol.Data{Value: strconv.Itoa(next)}
				p.want = append(p.want, strconv.Itoa(next))
			}
			p.log.AppendAsLeader(protocol.NewBatch(recs), 0)
			recs[0].Body = protocol.Data{Value: "changed by the caller"}
			// A reader appending to an earlier batch's records, as to any slice it was given.
			for i, b := range p.log.All() {
				if i == r.IntN(i+1) {
					_ = append(b.Records, protocol.Record{Body: protocol.Data{Value: "appended by a reader"}})
				}
			}
		case op < 9 && len(p.want) > 0:
			to := int64(r.IntN(len(p.want)))
			p.log.TruncateTo(to)
			p.want = append([]string(nil), p.want[:to]...)
		default:
			logs = append(logs, &pair{log: p.log.Clone(), want: append([]string(nil), p.want...)})
		}
		for i, q := range logs {
			if q != p && step%25 != 0 {
				continue // the others are read now and then, and at the end
			}
			var got []string
			for _, b := range q.log.All() {
				for j, rec := range b.Records {
					require.Equal(t, b.BaseOffset+int64(j), rec.Offset, "step %d, log %d", step, i)
					got = append(got, rec.Body.(protocol.Data).Value)
				}
			}
			require.Equal(t, q.want, got, "step %d, log %d", step, i)
		}
	}
}
