package protocol

import "unicode/utf16"

// Coordinator placement: which partition of an internal topic a group or a
// transactional id lives on, and so which broker (its leader) coordinates it. It sits
// here, in the shared vocabulary, because both coordinators and the cluster's builder
// ask it, and the group and transaction coordinators are siblings that must not import
// each other: the transaction coordinator needs a group's __consumer_offsets partition
// for AddOffsetsToTxn.

// PartitionFor is the partition a coordinator key lives on, as Kafka computes it for a
// group id (GroupMetadataManager.partitionFor) and for a transactional id
// (TransactionStateManager.partitionFor) alike: Utils.abs(key.hashCode()) modulo the
// partition count. Utils.abs is Math.abs except that Integer.MIN_VALUE becomes 0 (it is
// not Utils.toPositive, the producer partitioner's n & 0x7fffffff).
func PartitionFor(key string, partitions int) int32 {
	h := javaStringHash(key)
	if h == -1<<31 {
		h = 0
	} else if h < 0 {
		h = -h
	}
	return h % int32(partitions)
}

// OffsetsTP is a group's __consumer_offsets partition.
func OffsetsTP(groupID string, partitions int) TP {
	return TP{Topic: OffsetsTopic, Partition: PartitionFor(groupID, partitions)}
}

// TransactionStateTP is a transactional id's __transaction_state partition.
func TransactionStateTP(transactionalID string, partitions int) TP {
	return TP{Topic: TransactionStateTopic, Partition: PartitionFor(transactionalID, partitions)}
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
