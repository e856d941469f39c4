package protocol

import "deliverylab/core/sim"

// Each message's family (sim.Familied), in one place: what the canvas colours it by.
// A request and its response share one. A test runs every shipped scene and holds every
// message on the wire to having a family.

func (ProduceRequest) Family() sim.Family  { return sim.Produce }
func (ProduceResponse) Family() sim.Family { return sim.Produce }

func (FetchRequest) Family() sim.Family                  { return sim.Fetch }
func (FetchResponse) Family() sim.Family                 { return sim.Fetch }
func (OffsetsForLeaderEpochRequest) Family() sim.Family  { return sim.Fetch }
func (OffsetsForLeaderEpochResponse) Family() sim.Family { return sim.Fetch }
func (ListOffsetsRequest) Family() sim.Family            { return sim.Fetch } // where a consumer without a committed offset starts reading
func (ListOffsetsResponse) Family() sim.Family           { return sim.Fetch }

func (OffsetCommitRequest) Family() sim.Family  { return sim.Offsets }
func (OffsetCommitResponse) Family() sim.Family { return sim.Offsets }
func (OffsetFetchRequest) Family() sim.Family   { return sim.Offsets }
func (OffsetFetchResponse) Family() sim.Family  { return sim.Offsets }

// FindCoordinator finds a group's coordinator or a transactional id's; both are the
// group coordinator protocol's lookup, so it is Group either way.
func (FindCoordinatorRequest) Family() sim.Family  { return sim.Group }
func (FindCoordinatorResponse) Family() sim.Family { return sim.Group }
func (JoinGroupRequest) Family() sim.Family        { return sim.Group }
func (JoinGroupResponse) Family() sim.Family       { return sim.Group }
func (SyncGroupRequest) Family() sim.Family        { return sim.Group }
func (SyncGroupResponse) Family() sim.Family       { return sim.Group }
func (HeartbeatRequest) Family() sim.Family        { return sim.Group }
func (HeartbeatResponse) Family() sim.Family       { return sim.Group }
func (LeaveGroupRequest) Family() sim.Family       { return sim.Group }
func (LeaveGroupResponse) Family() sim.Family      { return sim.Group }

func (ConsumerGroupHeartbeatRequest) Family() sim.Family  { return sim.Group }
func (ConsumerGroupHeartbeatResponse) Family() sim.Family { return sim.Group }

func (InitProducerIdRequest) Family() sim.Family         { return sim.Transaction } // an idempotent producer's too
func (InitProducerIdResponse) Family() sim.Family        { return sim.Transaction }
func (AddPartitionsToTxnRequest) Family() sim.Family     { return sim.Transaction }
func (AddPartitionsToTxnResponse) Family() sim.Family    { return sim.Transaction }
func (AddOffsetsToTxnRequest) Family() sim.Family        { return sim.Transaction }
func (AddOffsetsToTxnResponse) Family() sim.Family       { return sim.Transaction }
func (TxnOffsetCommitRequest) Family() sim.Family        { return sim.Transaction }
func (TxnOffsetCommitResponse) Family() sim.Family       { return sim.Transaction }
func (EndTxnRequest) Family() sim.Family                 { return sim.Transaction }
func (EndTxnResponse) Family() sim.Family                { return sim.Transaction }
func (WriteTxnMarkersRequest) Family() sim.Family        { return sim.Transaction }
func (WriteTxnMarkersResponse) Family() sim.Family       { return sim.Transaction }
func (VerifyPartitionsInTxnRequest) Family() sim.Family  { return sim.Transaction } // KIP-890: a leader asks the coordinator
func (VerifyPartitionsInTxnResponse) Family() sim.Family { return sim.Transaction }

func (ApiVersionsRequest) Family() sim.Family  { return sim.Metadata }
func (ApiVersionsResponse) Family() sim.Family { return sim.Metadata }
func (MetadataRequest) Family() sim.Family     { return sim.Metadata }
func (MetadataResponse) Family() sim.Family    { return sim.Metadata }

func (BrokerRegistration) Family() sim.Family          { return sim.Control }
func (BrokerRegistrationResponse) Family() sim.Family  { return sim.Control }
func (BrokerHeartbeat) Family() sim.Family             { return sim.Control }
func (BrokerHeartbeatResponse) Family() sim.Family     { return sim.Control }
func (MetadataUpdate) Family() sim.Family              { return sim.Control }
func (AlterPartition) Family() sim.Family              { return sim.Control }
func (AlterPartitionResponse) Family() sim.Family      { return sim.Control }
func (AllocateProducerIdsRequest) Family() sim.Family  { return sim.Control } // a broker asks the controller (KIP-730)
func (AllocateProducerIdsResponse) Family() sim.Family { return sim.Control }
