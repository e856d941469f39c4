package flink

import (
	"math/bits"
	"unicode/utf16"
)

// Where a record goes, as the real job decides it: a Kafka partition's source subtask
// (KafkaSourceEnumerator.getSplitOwner) and a key's operator subtask
// (KeyGroupRangeAssignment.assignKeyToParallelOperator, with Flink's default
// maxParallelism of 128 for small jobs). Both hash Java Strings, so they are computed
// with Java's String.hashCode.

// javaHash is Java's String.hashCode: s[0]*31^(n-1) + ... over UTF-16 code units, in
// int arithmetic.
func javaHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// splitOwner is the source subtask that reads a partition: the topic's start index
// plus the partition number, round the readers.
func splitOwner(topic string, partition int32, readers int) int {
	start := int(((javaHash(topic) * 31) & 0x7FFFFFFF) % int32(readers))
	return (start + int(partition)) % readers
}

// maxParallelism is the default number of key groups for a job of fewer than 86
// subtasks (KeyGroupRangeAssignment.computeDefaultMaxParallelism: at least 128).
const maxParallelism = 128

// keyOwner is the operator subtask of a key: its key group (murmur hash of the key's
// hashCode, modulo maxParallelism), scaled to the parallelism.
func keyOwner(key string, parallelism int) int {
	group := int(murmurHash(javaHash(key)) % maxParallelism)
	return group * parallelism / maxParallelism
}

// murmurHash is Flink's MathUtils.murmurHash of an int: one murmur3 round and its
// finaliser, made non-negative.
func murmurHash(code int32) int32 {
	c := uint32(code)
	c *= 0xcc9e2d51
	c = bits.RotateLeft32(c, 15)
	c *= 0x1b873593
	c = bits.RotateLeft32(c, 13)
	c = c*5 + 0xe6546b64
	c ^= 4
	c ^= c >> 16
	c *= 0x85ebca6b
	c ^= c >> 13
	c *= 0xc2b2ae35
	c ^= c >> 16
	h := int32(c)
	switch {
	case h >= 0:
		return h
	case h != -1<<31:
		return -h
	}
	return 0
}
