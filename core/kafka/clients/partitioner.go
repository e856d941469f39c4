package clients

// murmur2 is the 32-bit MurmurHash2 Kafka's default partitioner applies to a record key
// (seed 0x9747b28c), so a keyed message lands where a real producer would put it.
func murmur2(data []byte) int32 {
	const m = 0x5bd1e995
	const r = 24
	length := len(data)
	h := uint32(0x9747b28c) ^ uint32(length)
	for i := 0; i+4 <= length; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	tail := length &^ 3
	switch length % 4 {
	case 3:
		h ^= uint32(data[tail+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[tail+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[tail])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// PartitionForKey is the default partitioner's choice for a keyed record.
func PartitionForKey(key string, partitions int) int32 {
	return (murmur2([]byte(key)) & 0x7fffffff) % int32(partitions)
}
