package clients

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The fetcher's fetches: one in flight per owned partition, to its leader, from the
// member's position.

// fetched is a record fetched and not yet returned by Poll, with the leader epoch of its
// batch, which the position takes when Poll returns it.
type fetched struct {
	protocol.Record
	Epoch int32
	// Skip: a control record, or one of an aborted transaction under read_committed
	// (consumer_txn.go): Poll moves the position past it and does not return it.
	Skip bool
	// PID is the producer of a transactional record, -1 otherwise.
	PID int64
}

// The fetcher's timers.
type (
	fetchRetry   struct{} // the fetch backoff is over
	fetchTimeout struct {
		TP    protocol.TP
		ReqID int64
	} // a fetch got no answer
)

func (fetchRetry) Kind() string     { return "Fetch" }
func (fetchTimeout) Kind() string   { return "FetchTimeout" }
func (fetchRetry) Describe() string { return fetchRetryLine }

// The timers' lines in the trace, from their Kinds (sim.TimerLine).
var (
	fetchRetryLine = sim.TimerLine("consumer", fetchRetry{})
)

func (t fetchTimeout) Describe() string { return sim.TimerLine("consumer", t, t.TP.String()) }

// fetchAll sends a fetch for every owned partition with nothing buffered or in flight.
func (f *fetcher) fetchAll(env *sim.Env) {
	if !f.fetchable {
		return
	}
	for _, tp := range f.assigned {
		if len(f.buffer[tp]) > 0 {
			continue
		}
		if _, busy := f.fetching[tp]; busy {
			continue
		}
		if !f.hasPosition(tp) {
			continue // still looking up where to start (a KIP-848 member's new partition)
		}
		if env.Now() < f.retryAt[tp] {
			continue // backing off after a failed fetch
		}
		leader := f.md.leader(tp)
		if leader == "" {
			f.md.refresh(env, f.cfg.RequestTimeoutMs)
			continue
		}
		if f.validatePosition(env, tp, leader) {
			continue
		}
		id := f.ids.next()
		f.fetchedFrom[tp] = leader
		env.Send(leader, protocol.FetchRequest{ReqID: id, TP: tp, FetchOffset: f.positions[tp], LastFetchedEpoch: -1,
			MaxWaitMs: f.cfg.FetchMaxWaitMs, Isolation: f.cfg.Isolation})
		f.fetching[tp] = fetchInFlight{ReqID: id, timeout: env.After(f.cfg.FetchMaxWaitMs+f.cfg.RequestTimeoutMs, fetchTimeout{TP: tp, ReqID: id})}
	}
}

// fetchInFlight is a fetch or a validation in flight: its request id and the timer of
// its request.timeout.ms.
type fetchInFlight struct {
	ReqID   int64
	timeout sim.TimerID
}

// answered reports whether a response answers the request in flight for its partition,
// and if so takes that request off and disarms its timeout (its id is never sent again).
func (f *fetcher) answered(env *sim.Env, tp protocol.TP, reqID int64) bool {
	in, ok := f.fetching[tp]
	if !ok || in.ReqID != reqID {
		return false
	}
	delete(f.fetching, tp)
	env.Disarm(in.timeout)
	return true
}

func (f *fetcher) onFetch(env *sim.Env, r protocol.FetchResponse) []ConsumerEvent {
	if !f.answered(env, r.TP, r.ReqID) {
		return nil
	}
	switch r.Err {
	case "":
	case protocol.ErrOffsetOutOfRange:
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: r.Err.String(), Partition: r.TP.String()})
		if f.cfg.AutoOffsetReset == ResetNone {
			return f.noOffset(env, r.TP, protocol.ErrNoOffsetForPartition)
		}
		f.resetPosition(env, r.TP)
		return nil
	default:
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: r.Err.String(), Partition: r.TP.String()})
		f.fetchFailed(env, r.TP)
		return nil
	}
	f.failures[r.TP] = 0
	var fresh []fetched
	filter := newTxnFilter(r, f.cfg.Isolation)
	returned := 0
	for _, b := range r.Batches {
		skip := filter.skips(b)
		pid := int64(-1)
		if b.Transactional {
			pid = b.ProducerID
		}
		for _, rec := range b.Records {
			if rec.Offset >= f.positions[r.TP] {
				fresh = append(fresh, fetched{Record: rec, Epoch: b.LeaderEpoch, Skip: skip, PID: pid})
				if !skip {
					returned++
				}
			}
		}
	}
	if returned == 0 {
		// Nothing to return: the position moves past what was skipped at once
		// (FetchCollector moves it to the fetch's next offset).
		if n := len(fresh); n > 0 {
			f.positions[r.TP], f.offsetEpochs[r.TP] = fresh[n-1].Offset+1, fresh[n-1].Epoch
		}
		f.fetchAll(env)
		return nil
	}
	f.buffer[r.TP] = append(f.buffer[r.TP], fresh...)
	return []ConsumerEvent{{Kind: RecordsReady}}
}

// fetchFailed forgets the partition's leader and fetches again after a growing backoff.
func (f *fetcher) fetchFailed(env *sim.Env, tp protocol.TP) {
	f.failures[tp]++
	f.md.forget(tp)
	wait := backoffMs(env, f.cfg.RetryBackoffMs, f.cfg.RetryBackoffMaxMs, f.failures[tp])
	f.retryAt[tp] = env.Now() + wait
	env.After(wait, fetchRetry{})
}

// onRefused: a fetch or a validation of the partition could not be sent (no connection
// to its leader).
func (f *fetcher) onRefused(env *sim.Env, tp protocol.TP, reqID int64) {
	if f.answered(env, tp, reqID) {
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrNetworkException.String(), Partition: tp.String()})
		f.fetchFailed(env, tp)
	}
}

// onDisconnected: the fetches in flight to a broker that reset its connections fail and
// are retried once the partition's leader is known again (NetworkClient.processDisconnection).
func (f *fetcher) onDisconnected(env *sim.Env, peer string) {
	for _, tp := range protocol.SortedTPs(f.fetching) {
		if f.fetchedFrom[tp] == peer {
			delete(f.fetching, tp)
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrNetworkException.String(), Partition: tp.String()})
			f.fetchFailed(env, tp)
		}
	}
}

// fire handles the fetcher's timers.
func (f *fetcher) fire(env *sim.Env, t sim.Payload) {
	switch t := t.(type) {
	case fetchRetry:
		f.fetchAll(env)
	case fetchTimeout:
		if f.answered(env, t.TP, t.ReqID) {
			f.md.forget(t.TP)
			f.fetchAll(env)
		}
	}
}
