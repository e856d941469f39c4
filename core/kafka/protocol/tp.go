package protocol

import (
	"cmp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// TP names a topic partition.
type TP struct {
	Topic     string
	Partition int32
}

// String is "orders-0". (Written out, not through fmt: it is in every fetch's trace line.)
func (tp TP) String() string { return tp.Topic + "-" + strconv.Itoa(int(tp.Partition)) }

// appendTo writes String's text into b.
func (tp TP) appendTo(b []byte) []byte {
	b = append(b, tp.Topic...)
	b = append(b, '-')
	return strconv.AppendInt(b, int64(tp.Partition), 10)
}

// CompareTP orders partitions by topic, then number.
func CompareTP(a, b TP) int {
	return cmp.Or(strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
}

// SortTPs sorts partitions in place. (Through sort.Slice, not slices.SortFunc: every
// element type slices sorts gets its own copy of the sorting code in main.wasm, about
// 20 KB each, and partitions are sorted from a dozen places.)
func SortTPs(tps []TP) { sort.Slice(tps, func(i, j int) bool { return CompareTP(tps[i], tps[j]) < 0 }) }

// SortedTPs is a map's partitions, sorted.
func SortedTPs[V any](m map[TP]V) []TP {
	out := make([]TP, 0, len(m))
	for tp := range m {
		out = append(out, tp)
	}
	SortTPs(out)
	return out
}

// TPsText is "orders-0,orders-1".
func TPsText(tps []TP) string {
	s := make([]string, len(tps))
	for i, tp := range tps {
		s[i] = tp.String()
	}
	return strings.Join(s, ",")
}

// TPOffset is a position in a partition.
type TPOffset struct {
	TP     TP
	Offset int64
}

func (o TPOffset) String() string { return string(o.appendTo(nil)) }

// appendTo writes String's text into b. (Not through fmt: every commit's request, record
// and observation names its positions.)
func (o TPOffset) appendTo(b []byte) []byte {
	return strconv.AppendInt(append(o.TP.appendTo(b), '='), o.Offset, 10)
}

// OffsetsText is "orders-0=4,orders-1=2".
func OffsetsText(os []TPOffset) string { return string(appendOffsets(nil, os)) }

// appendOffsets writes OffsetsText's text into b.
func appendOffsets(b []byte, os []TPOffset) []byte {
	for i, o := range os {
		if i > 0 {
			b = append(b, ',')
		}
		b = o.appendTo(b)
	}
	return b
}

// The controller quorum's node name and the internal topics.
const (
	ControllerName = "controller"
	// OffsetsTopic holds committed offsets; its leader is the group coordinator.
	OffsetsTopic = "__consumer_offsets"
)

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// InternalTopics are Kafka's internal topics (Topic.isInternal; __cluster_metadata is
// KRaft's log): the cluster creates them itself, and they carry no application message.
var InternalTopics = []string{OffsetsTopic, TransactionStateTopic, "__share_group_state", "__cluster_metadata"}

// IsInternalTopic reports whether a topic is one of InternalTopics.
func IsInternalTopic(topic string) bool { return slices.Contains(InternalTopics, topic) }
