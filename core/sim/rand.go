package sim

// Rand is a small splitmix64 generator. It is a plain value, so copying a World copies
// every stream's position with it, and it never touches the global math/rand.
type Rand struct{ state uint64 }

// NewRand seeds a stream from the root seed and the stream's name, so streams are
// independent: adding a fault does not reshuffle the workload or the network.
func NewRand(seed int64, stream string) Rand {
	h := uint64(1469598103934665603)
	for i := 0; i < len(stream); i++ {
		h ^= uint64(stream[i])
		h *= 1099511628211
	}
	return Rand{state: uint64(seed)*0x9E3779B97F4A7C15 ^ h}
}

// Uint64 returns the next value of the stream.
func (r *Rand) Uint64() uint64 {
	r.state += 0x9E3779B97F4A7C15
	z := r.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Intn returns a value in [0, n); n <= 0 gives 0.
func (r *Rand) Intn(n int64) int64 {
	if n <= 0 {
		return 0
	}
	return int64(r.Uint64() % uint64(n))
}
