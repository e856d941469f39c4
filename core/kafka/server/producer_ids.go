package server

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// producerIDManager hands out producer ids to idempotent producers from blocks the
// controller allocates (KIP-730; Kafka's RPCProducerIdManager). A broker asks for its
// first block when the first InitProducerId reaches it, and answers that request
// COORDINATOR_LOAD_IN_PROGRESS, which the producer retries; it asks for the next block
// once 90% of the current one is handed out (PidPrefetchThreshold). The blocks are held
// in memory only: a restarted broker asks for a new block, and the ids left in the old
// one are never used (the controller never hands an id out twice).
type producerIDManager struct {
	next, end  int64 // ids next .. end-1 are left in the current block
	prefetchAt int64 // the id whose handing out asks for the next block
	pending    *protocol.AllocateProducerIdsResponse
	asking     bool  // an AllocateProducerIds is in flight
	askedAtMs  int64 // when it was sent
}

// allocateTimeoutMs is how long a broker waits for the controller's answer before it
// may ask again (controller.socket.timeout.ms, whose default is request.timeout.ms's).
const allocateTimeoutMs = 30000

// prefetchPercent is RPCProducerIdManager's PidPrefetchThreshold, 0.90.
const prefetchPercent = 90

func (m *producerIDManager) reset() { *m = producerIDManager{} }

// generate hands out the next id, or says to wait for a block
// (RPCProducerIdManager.generateProducerId).
func (m *producerIDManager) generate(env *sim.Env, b *Broker) (int64, bool) {
	if m.next >= m.end && m.pending != nil {
		m.take(*m.pending)
		m.pending = nil
	}
	if m.next >= m.end {
		m.ask(env, b)
		return 0, false
	}
	id := m.next
	m.next++
	if id == m.prefetchAt {
		m.ask(env, b)
	}
	return id, true
}

func (m *producerIDManager) take(r protocol.AllocateProducerIdsResponse) {
	m.next, m.end = r.Start, r.Start+r.Len
	m.prefetchAt = r.Start + r.Len*prefetchPercent/100
}

// ask sends AllocateProducerIds unless one is in flight or the next block is here.
func (m *producerIDManager) ask(env *sim.Env, b *Broker) {
	if m.pending != nil || (m.asking && env.Now()-m.askedAtMs < allocateTimeoutMs) {
		return
	}
	m.asking, m.askedAtMs = true, env.Now()
	env.Send(protocol.ControllerName, protocol.AllocateProducerIdsRequest{Broker: b.name, Incarnation: b.incarnation})
}

func (m *producerIDManager) onResponse(r protocol.AllocateProducerIdsResponse) {
	m.asking = false
	if r.Err != "" || r.Start < m.end {
		return // refused, or not after the block it has (handleAllocateProducerIdsResponse)
	}
	m.pending = &r
}

func (m producerIDManager) clone() producerIDManager {
	if m.pending != nil {
		p := *m.pending
		m.pending = &p
	}
	return m
}

// handleInitProducerId answers a producer without a transactional id with a new id at
// epoch 0 (TransactionCoordinator.handleInitProducerId: "blindly accept the request").
func (b *Broker) handleInitProducerId(env *sim.Env, from string, req protocol.InitProducerIdRequest) {
	id, ok := b.producerIDs.generate(env, b)
	if !ok {
		env.Send(from, protocol.InitProducerIdResponse{ReqID: req.ReqID, Err: protocol.ErrCoordinatorLoadInProgress,
			ProducerID: protocol.NoProducerID, ProducerEpoch: protocol.NoProducerEpoch})
		return
	}
	env.Send(from, protocol.InitProducerIdResponse{ReqID: req.ReqID, ProducerID: id, ProducerEpoch: 0})
}
