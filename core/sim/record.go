package sim

import (
	"strconv"
	"strings"
)

// RecordAt is one record's identity: the partition whose log holds it and its offset
// there, written "orders-0@3". (A reader's position, the next offset it reads, is not a
// record: protocol.TPOffset writes it "orders-0=4".)
type RecordAt struct {
	Partition string
	Offset    int64
}

func (r RecordAt) String() string { return r.Partition + "@" + strconv.FormatInt(r.Offset, 10) }

// ParseRecordAt reads a record's identity as String writes it.
func ParseRecordAt(s string) (RecordAt, bool) {
	i := strings.LastIndexByte(s, '@')
	if i <= 0 {
		return RecordAt{}, false
	}
	off, err := strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil || off < 0 {
		return RecordAt{}, false
	}
	return RecordAt{Partition: s[:i], Offset: off}, true
}

// Record is the record the observation is about, for an event that names one.
func (o Observation) Record() RecordAt { return RecordAt{Partition: o.Partition, Offset: o.Offset} }
