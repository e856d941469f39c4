package clients

import (
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// observeCoordinatorErrors reports each error a coordinator's answer to the producer
// carries — InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn and
// TxnOffsetCommit — as a client error, whether the transaction manager retries it
// silently (CONCURRENT_TRANSACTIONS, COORDINATOR_LOAD_IN_PROGRESS) or gives up, and
// whether it still waits for that answer or not: what the producer received on the wire,
// as the conformance proxy counts it. An answer carrying one error for several
// partitions counts it once.
func observeCoordinatorErrors(env *sim.Env, m sim.Payload) {
	for _, err := range coordinatorErrors(m) {
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: err.String()})
	}
}

// coordinatorErrors lists the distinct errors of a coordinator's answer, in order.
func coordinatorErrors(m sim.Payload) []protocol.Error {
	var errs []protocol.Error
	add := func(err protocol.Error) {
		if err != "" && !slices.Contains(errs, err) {
			errs = append(errs, err)
		}
	}
	switch r := m.(type) {
	case protocol.InitProducerIdResponse:
		add(r.Err)
	case protocol.AddPartitionsToTxnResponse:
		for _, res := range r.Results {
			add(res.Err)
		}
	case protocol.AddOffsetsToTxnResponse:
		add(r.Err)
	case protocol.EndTxnResponse:
		add(r.Err)
	case protocol.TxnOffsetCommitResponse:
		add(r.Err)
	}
	return errs
}
