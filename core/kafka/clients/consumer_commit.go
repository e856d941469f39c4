package clients

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The coordinator's offset commits (ConsumerCoordinator.commitOffsetsSync and its
// OffsetCommitResponseHandler): the positions the fetcher reports consumed, sent to the
// group coordinator with the member's generation.

// pendingCommit is an offset commit sent and not yet answered.
type pendingCommit struct {
	Msgs    []string // the identities it covers, for the ledger
	Offsets []protocol.TPOffset
	SinceMs int64 // when the application called commit
	// timeout is the request.timeout.ms timer of the request that carries it now,
	// disarmed when the answer comes.
	timeout sim.TimerID
}

// The commit timers.
type (
	commitTimeout struct{ ReqID int64 }          // request.timeout.ms of a commit
	commitRetry   struct{ Commit pendingCommit } // commitSync sends a timed-out commit again
)

func (commitTimeout) Kind() string     { return "CommitTimeout" }
func (commitTimeout) Describe() string { return commitTimeoutLine }
func (commitRetry) Kind() string       { return "CommitRetry" }
func (commitRetry) Describe() string   { return commitRetryLine }

// The timers' lines in the trace, from their Kinds (sim.TimerLine).
var (
	commitTimeoutLine = sim.TimerLine("consumer", commitTimeout{})
	commitRetryLine   = sim.TimerLine("consumer", commitRetry{})
)

// defaultAPITimeoutMs is default.api.timeout.ms (Kafka's default): how long commitSync
// goes on retrying a commit that got no answer before it throws TimeoutException.
const defaultAPITimeoutMs = 60000

// commit sends the fetcher's consumed positions to the coordinator; it reports false
// when the member has nothing to commit.
func (g *consumerCoordinator) commit(env *sim.Env) bool {
	if g.state != Stable || len(g.fetcher.owned()) == 0 {
		return false
	}
	offs, msgs := g.fetcher.consumed()
	g.sendCommit(env, pendingCommit{Msgs: msgs, Offsets: offs, SinceMs: env.Now()})
	return true
}

func (g *consumerCoordinator) sendCommit(env *sim.Env, pc pendingCommit) {
	id := g.ids.next()
	env.Send(g.broker, protocol.OffsetCommitRequest{ReqID: id, Group: g.group, Member: g.member,
		Generation: g.generation, Offsets: pc.Offsets, Msgs: pc.Msgs})
	pc.timeout = env.After(g.cfg.RequestTimeoutMs, commitTimeout{ReqID: id})
	g.commits[id] = pc
}

// pendingCommits counts commits sent and not yet answered, parked ones included.
func (g *consumerCoordinator) pendingCommits() int { return len(g.commits) + len(g.parked) }

func (g *consumerCoordinator) onCommit(env *sim.Env, r protocol.OffsetCommitResponse) []ConsumerEvent {
	pc, waiting := g.commits[r.ReqID]
	if !waiting {
		return nil // a commit it gave up on or sent again: this answer is late
	}
	msgs := pc.Msgs
	delete(g.commits, r.ReqID)
	env.Disarm(pc.timeout) // answered: its id is never sent again
	if r.Err == "" {
		return []ConsumerEvent{{Kind: Committed, Msgs: msgs}}
	}
	env.Observe(sim.Observation{Event: protocol.ClientError, Err: r.Err.String(), Msgs: msgs})
	if evs, handled := g.retryCommit(env, pc, r.Err); handled {
		return evs
	}
	if r.Err == protocol.ErrRequestTimedOut {
		// ConsumerCoordinator.OffsetCommitResponseHandler: a commit the coordinator
		// timed out marks the coordinator unknown, as COORDINATOR_NOT_AVAILABLE does.
		g.onGroupError(env, protocol.ErrCoordinatorNotAvailable)
	} else {
		g.onGroupError(env, r.Err)
	}
	return []ConsumerEvent{{Kind: CommitFailed, Err: r.Err, Msgs: msgs}}
}

// timedOut takes a commit whose request.timeout.ms ran out without an answer, and says
// so; ok is false when it was answered or given up on already.
func timedOut(env *sim.Env, commits map[int64]pendingCommit, t commitTimeout) (pc pendingCommit, ok bool) {
	pc, ok = commits[t.ReqID]
	if !ok {
		return pc, false
	}
	delete(commits, t.ReqID)
	env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrRequestTimedOut.String(), Msgs: pc.Msgs})
	return pc, true
}

func (g *consumerCoordinator) onCommitTimeout(env *sim.Env, t commitTimeout) []ConsumerEvent {
	pc, ok := timedOut(env, g.commits, t)
	if !ok {
		return nil
	}
	// commitSync retries a commit that got no answer (a retriable error) until
	// default.api.timeout.ms has passed since it was called, then throws
	// (ConsumerCoordinator.commitOffsetsSync).
	if g.state == Stable && env.Now()-pc.SinceMs+g.cfg.RetryBackoffMs < defaultAPITimeoutMs {
		env.After(g.cfg.RetryBackoffMs, commitRetry{Commit: pc})
		return nil
	}
	return []ConsumerEvent{{Kind: CommitFailed, Err: protocol.ErrTimeoutException, Msgs: pc.Msgs}}
}

func (g *consumerCoordinator) onCommitRetry(env *sim.Env, t commitRetry) []ConsumerEvent {
	if g.state == Stable {
		g.sendCommit(env, t.Commit)
		return nil
	}
	return []ConsumerEvent{{Kind: CommitFailed, Err: protocol.ErrTimeoutException, Msgs: t.Commit.Msgs}}
}
