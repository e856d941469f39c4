package group

import (
	"unicode/utf16"

	"deliverylab/core/kafka/protocol"
)

// DefaultOffsetsPartitions is offsets.topic.num.partitions' default.
const DefaultOffsetsPartitions = 50

// PartitionFor is the __consumer_offsets partition a group lives on, as Kafka's
// GroupMetadataManager.partitionFor computes it: Utils.abs(groupId.hashCode()) modulo the
// partition count. Utils.abs is Math.abs except that Integer.MIN_VALUE becomes 0 (it is
// not Utils.toPositive, the producer partitioner's n & 0x7fffffff).
func PartitionFor(groupID string, partitions int) int32 {
	h := javaStringHash(groupID)
	if h == -1<<31 {
		h = 0
	} else if h < 0 {
		h = -h
	}
	return h % int32(partitions)
}

// OffsetsTP is a group's __consumer_offsets partition.
func OffsetsTP(groupID string, partitions int) protocol.TP {
	return protocol.TP{Topic: protocol.OffsetsTopic, Partition: PartitionFor(groupID, partitions)}
}

// javaStringHash is Java's String.hashCode: s[0]*31^(n-1) + ... + s[n-1] over the UTF-16
// code units, in 32-bit arithmetic that wraps.
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}
