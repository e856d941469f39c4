package clients

import "deliverylab/core/sim"

// backoffMs is the exponential retry backoff of KIP-580 (Kafka 3.7+): retry.backoff.ms
// doubled per failure up to retry.backoff.max.ms, with ±20% jitter drawn from the node's
// own random stream.
func backoffMs(env *sim.Env, baseMs, maxMs int64, failures int) int64 {
	b := baseMs
	for i := 1; i < failures && b < maxMs; i++ {
		b *= 2
	}
	b = min(b, maxMs)
	if b <= 0 {
		return 0
	}
	jitter := b / 5
	return b - jitter + env.Rand().Intn(2*jitter+1)
}
