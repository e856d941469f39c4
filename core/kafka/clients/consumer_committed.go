package clients

import (
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The coordinator's committed-offset fetches (ConsumerCoordinator.fetchCommittedOffsets,
// refreshCommittedOffsetsIfNeeded): once assigned, the member asks the group coordinator
// where its partitions were committed and hands the answer to the fetcher, which resets
// the partitions with none (auto.offset.reset); the member is stable once every partition
// has a position.

// offsetFetchRetry asks for unstable committed offsets again.
type offsetFetchRetry struct{ Seq int64 }

func (offsetFetchRetry) Kind() string     { return "OffsetFetch" }
func (offsetFetchRetry) Describe() string { return offsetFetchRetryLine }

// The timers' lines in the trace, from their Kinds (sim.TimerLine).
var (
	offsetFetchRetryLine = sim.TimerLine("consumer", offsetFetchRetry{})
)

// fetchOffsets asks the coordinator for the committed offsets of tps. The classic
// consumer always requires stable offsets (ConsumerCoordinator.sendOffsetFetchRequest,
// requireStable true whatever isolation.level is, KIP-447).
func (g *consumerCoordinator) fetchOffsets(env *sim.Env, tps []protocol.TP) {
	g.groupRequest(env, g.broker, protocol.OffsetFetchRequest{Group: g.group, TPs: slices.Clone(tps), RequireStable: true},
		g.cfg.RequestTimeoutMs)
}

func (g *consumerCoordinator) onOffsetFetch(env *sim.Env, r protocol.OffsetFetchResponse) []ConsumerEvent {
	if g.state != FetchingOffsets {
		return nil
	}
	if r.Err != "" {
		g.onGroupError(env, r.Err)
		return nil
	}
	if len(r.Errs) > 0 {
		// ConsumerCoordinator.OffsetFetchResponseHandler: a partition with an unstable
		// offset (a transactional commit waiting for its marker, a commit waiting for
		// replication) fails the whole fetch with UnstableOffsetCommitException, a
		// retriable one: it is asked again after retry.backoff.ms, offsets of the other
		// partitions not taken meanwhile.
		env.Note("offsets unstable: fetch again after retry.backoff.ms")
		env.After(g.cfg.RetryBackoffMs, offsetFetchRetry{Seq: g.groupSeq})
		return nil
	}
	if stopped := g.fetcher.initPositions(env, r.Offsets); stopped != nil {
		g.giveUp()
		return stopped
	}
	return g.maybeStable(env)
}

// maybeStable makes the member stable, and starts the fetcher, once every partition it
// owns has a position.
func (g *consumerCoordinator) maybeStable(env *sim.Env) []ConsumerEvent {
	if g.state != FetchingOffsets || !g.fetcher.positioned() {
		return nil
	}
	g.setState(Stable)
	g.fetcher.fetchAll(env)
	return []ConsumerEvent{{Kind: AssignedNow}}
}
