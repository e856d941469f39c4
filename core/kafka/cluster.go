package kafka

import (
	"fmt"
	"slices"

	"deliverylab/core/kafka/controller"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/server"
)

// Topic is one topic of a cluster.
type Topic struct {
	Name       string
	Partitions int
	RF         int      // replication factor
	Leaders    []string // optional: the first replica (initial leader) of each partition
}

// Cluster describes a cluster to build.
type Cluster struct {
	Brokers int
	Config  server.Config
	Topics  []Topic
	// Groups are the consumer groups the scene runs (group.id): they make
	// __consumer_offsets exist, and each lives on one of its partitions.
	Groups []string
	// TransactionalIDs are the transactional ids the scene's producers run: they make
	// __transaction_state exist, and each lives on one of its partitions.
	TransactionalIDs []string
}

// TransactionPartition is the __transaction_state partition a transactional id lives on
// (TransactionStateManager.partitionFor).
func (c Cluster) TransactionPartition(transactionalID string) int32 {
	return protocol.PartitionFor(transactionalID, c.Config.TransactionStateLogNumPartitions)
}

// BrokerNames lists the brokers: broker-1 .. broker-N.
func (c Cluster) BrokerNames() []string {
	out := make([]string, c.Brokers)
	for i := range out {
		out[i] = fmt.Sprintf("broker-%d", i+1)
	}
	return out
}

// Placement is what the simulation runs: the topics' partitions, the partitions of
// __consumer_offsets the groups live on and those of __transaction_state the
// transactional ids live on (the others exist on a real cluster, empty and idle, and
// change nothing a scene shows).
func (c Cluster) Placement() []protocol.PartitionState {
	out := c.topicPlacement()
	for _, p := range usedPartitions(c.Groups, c.Config.OffsetsTopicNumPartitions, protocol.PartitionFor) {
		out = append(out, c.offsetsPartition(p))
	}
	for _, p := range usedPartitions(c.TransactionalIDs, c.Config.TransactionStateLogNumPartitions, protocol.PartitionFor) {
		out = append(out, c.txnLogPartition(p))
	}
	return out
}

// usedPartitions lists, sorted and once each, the partitions the ids live on.
func usedPartitions(ids []string, partitions int, partitionFor func(string, int) int32) []int32 {
	var used []int32
	for _, id := range ids {
		used = append(used, partitionFor(id, partitions))
	}
	slices.Sort(used)
	return slices.Compact(used)
}

// Created is every partition a real cluster is made with (the conformance suite creates
// the topics with these assignments): the topics' partitions and, when groups run, all
// offsets.topic.num.partitions partitions of __consumer_offsets, and when transactional
// ids run, all transaction.state.log.num.partitions partitions of __transaction_state.
func (c Cluster) Created() []protocol.PartitionState {
	out := c.topicPlacement()
	if len(c.Groups) > 0 {
		for p := range c.Config.OffsetsTopicNumPartitions {
			out = append(out, c.offsetsPartition(int32(p)))
		}
	}
	if len(c.TransactionalIDs) > 0 {
		for p := range c.Config.TransactionStateLogNumPartitions {
			out = append(out, c.txnLogPartition(int32(p)))
		}
	}
	return out
}

// topicPlacement assigns replicas: partition i of the k-th topic starts at broker
// (i+k) mod N, the named leader (if any) first.
func (c Cluster) topicPlacement() []protocol.PartitionState {
	var out []protocol.PartitionState
	for k, t := range c.Topics {
		for i := 0; i < t.Partitions; i++ {
			leader := ""
			if i < len(t.Leaders) {
				leader = t.Leaders[i]
			}
			out = append(out, c.place(protocol.TP{Topic: t.Name, Partition: int32(i)}, t.RF, i+k, leader))
		}
	}
	return out
}

// offsetsPartition places partition p of __consumer_offsets round-robin from broker-1:
// its replicas start at broker p mod N, and there are min(3, N) of them
// (offsets.topic.replication.factor).
func (c Cluster) offsetsPartition(p int32) protocol.PartitionState {
	return c.place(protocol.TP{Topic: protocol.OffsetsTopic, Partition: p}, min(3, c.Brokers), int(p), "")
}

// txnLogPartition places partition p of __transaction_state as __consumer_offsets is
// placed: replicas from broker p mod N, min(3, N) of them
// (transaction.state.log.replication.factor, default 3).
func (c Cluster) txnLogPartition(p int32) protocol.PartitionState {
	return c.place(protocol.TP{Topic: protocol.TransactionStateTopic, Partition: p}, min(3, c.Brokers), int(p), "")
}

// place lists rf replicas starting at broker start mod N, the named leader (if any) first.
func (c Cluster) place(tp protocol.TP, rf, start int, leader string) protocol.PartitionState {
	brokers := c.BrokerNames()
	var reps []string
	if leader != "" {
		reps = append(reps, leader)
	}
	for j := 0; len(reps) < rf; j++ {
		if b := brokers[(start+j)%len(brokers)]; !slices.Contains(reps, b) {
			reps = append(reps, b)
		}
	}
	return protocol.PartitionState{TP: tp, Replicas: reps, Leader: reps[0], ISR: slices.Clone(reps)}
}

// NewController makes the cluster's KRaft controller.
func (c Cluster) NewController() *controller.Controller {
	cfg := controller.Config{BrokerSessionTimeoutMs: c.Config.BrokerSessionTimeoutMs,
		BrokerHeartbeatIntervalMs: c.Config.BrokerHeartbeatIntervalMs, UncleanLeaderElection: c.Config.UncleanLeaderElection,
		MinInsyncReplicas: c.Config.MinInsyncReplicas, EligibleLeaderReplicas: c.Config.EligibleLeaderReplicasVersion >= 1}
	return controller.New(cfg, c.BrokerNames(), c.Placement())
}

// NewBrokers makes the cluster's brokers, each hosting its replicas of the placement.
func (c Cluster) NewBrokers() []*server.Broker {
	parts := c.Placement()
	var out []*server.Broker
	for _, name := range c.BrokerNames() {
		b := server.NewBroker(name, c.Config)
		for _, ps := range parts {
			if slices.Contains(ps.Replicas, name) {
				b.HostReplica(ps.TP)
			}
		}
		out = append(out, b)
	}
	return out
}
