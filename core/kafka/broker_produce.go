package kafka

import (
	"deliverylab/core/sim"
)

// onProduce is the leader's produce path (R4, R5).
func (b *Broker) onProduce(env *sim.Env, from string, req ProduceRequest) {
	r := b.replicas[req.TP]
	if r == nil || !b.IsLeader(req.TP) {
		b.answerProduce(env, from, req, ProduceResponse{ReqID: req.ReqID, TP: req.TP, Err: ErrNotLeaderOrFollower, BaseOffset: -1})
		return
	}
	if req.Acks == -1 && len(b.isr(req.TP)) < b.effectiveMinISR(req.TP) {
		b.answerProduce(env, from, req, ProduceResponse{ReqID: req.ReqID, TP: req.TP, Err: ErrNotEnoughReplicas, BaseOffset: -1})
		return
	}
	base := r.append(req.Records, b.meta[req.TP].LeaderEpoch)
	env.Observe(sim.Observation{Event: "appended", Partition: req.TP.String(), Offset: base, Msgs: msgsOf(req.Records)})
	if !env.Alive() {
		return
	}
	// The acks=1 answer goes out before the followers' parked fetches are answered: both
	// leave in the same request handling, and this order makes "responded" the moment
	// the leader has answered and told no follower yet.
	defer b.replicate(env, r)
	switch req.Acks {
	case 0:
		// acks=0: the producer never hears back (R4).
	case 1:
		b.answerProduce(env, from, req, ProduceResponse{ReqID: req.ReqID, TP: req.TP, BaseOffset: base})
	default:
		last := base + int64(len(req.Records)) - 1
		deadline := env.Now() + req.TimeoutMs
		b.purgatory = append(b.purgatory, delayedProduce{From: from, Req: req, BaseOffset: base, LastOffset: last, DeadlineMs: deadline})
		env.After(req.TimeoutMs, brokerTimer{What: "produce-timeout", TP: req.TP})
		if r.HW > last {
			env.After(0, brokerTimer{What: "complete-delayed", TP: req.TP})
		}
	}
}

// answerProduce sends a produce response and reports the protocol point "responded".
func (b *Broker) answerProduce(env *sim.Env, to string, req ProduceRequest, resp ProduceResponse) {
	id := env.Send(to, resp)
	if id == 0 {
		return
	}
	env.Observe(sim.Observation{Event: "responded", Partition: req.TP.String(), Offset: resp.BaseOffset,
		Msgs: msgsOf(req.Records), WireID: id, Detail: resp.Err})
}

// completeDelayed answers acks=all produces and offset commits the HW now covers. It runs
// as its own event after the HW moved, as the purgatory check does in Kafka, so an ISR
// shrink in between gives NOT_ENOUGH_REPLICAS_AFTER_APPEND (R5).
func (b *Broker) completeDelayed(env *sim.Env, tp TP) {
	r := b.replicas[tp]
	if r == nil || !b.IsLeader(tp) {
		return
	}
	keep := b.purgatory[:0:0]
	for _, d := range b.purgatory {
		if d.Req.TP != tp || r.HW <= d.LastOffset {
			keep = append(keep, d)
			continue
		}
		resp := ProduceResponse{ReqID: d.Req.ReqID, TP: tp, BaseOffset: d.BaseOffset}
		if len(b.isr(tp)) < b.effectiveMinISR(tp) {
			resp.Err = ErrNotEnoughReplicasAfterAppend
		}
		b.answerProduce(env, d.From, d.Req, resp)
	}
	b.purgatory = keep
	b.completeCommits(env, tp)
}

func (b *Broker) expireProduces(env *sim.Env) {
	keep := b.purgatory[:0:0]
	for _, d := range b.purgatory {
		if d.DeadlineMs > env.Now() {
			keep = append(keep, d)
			continue
		}
		b.answerProduce(env, d.From, d.Req, ProduceResponse{ReqID: d.Req.ReqID, TP: d.Req.TP, Err: ErrRequestTimedOut, BaseOffset: -1})
	}
	b.purgatory = keep
	b.expireCommits(env)
}

// failDelayed answers every waiting request of a partition this broker no longer leads.
func (b *Broker) failDelayed(env *sim.Env, tp TP, err string) {
	keep := b.purgatory[:0:0]
	for _, d := range b.purgatory {
		if d.Req.TP != tp {
			keep = append(keep, d)
			continue
		}
		b.answerProduce(env, d.From, d.Req, ProduceResponse{ReqID: d.Req.ReqID, TP: tp, Err: err, BaseOffset: -1})
	}
	b.purgatory = keep
	b.failCommits(env, tp)
	b.failParked(env, tp, err)
}

// replicate answers followers waiting for new records and moves the HW (a leader alone
// in the ISR commits at once).
func (b *Broker) replicate(env *sim.Env, r *Replica) {
	if !env.Alive() {
		return
	}
	b.wakeParked(env, r.TP, true)
	b.maybeAdvanceHW(env, r)
}
