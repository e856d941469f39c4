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
	// Groups: consumer groups will use it, so __consumer_offsets is created.
	Groups bool
}

// BrokerNames lists the brokers: broker-1 .. broker-N.
func (c Cluster) BrokerNames() []string {
	out := make([]string, c.Brokers)
	for i := range out {
		out[i] = fmt.Sprintf("broker-%d", i+1)
	}
	return out
}

// Placement assigns replicas: partition i of the k-th topic starts at broker (i+k) mod N,
// the named leader (if any) first; __consumer_offsets has one partition with replication
// factor min(3, brokers).
func (c Cluster) Placement() []protocol.PartitionState {
	brokers := c.BrokerNames()
	var out []protocol.PartitionState
	add := func(tp protocol.TP, rf, start int, leader string) {
		var reps []string
		if leader != "" {
			reps = append(reps, leader)
		}
		for j := 0; len(reps) < rf; j++ {
			if b := brokers[(start+j)%len(brokers)]; !slices.Contains(reps, b) {
				reps = append(reps, b)
			}
		}
		out = append(out, protocol.PartitionState{TP: tp, Replicas: reps, Leader: reps[0], ISR: slices.Clone(reps)})
	}
	for k, t := range c.Topics {
		for i := 0; i < t.Partitions; i++ {
			leader := ""
			if i < len(t.Leaders) {
				leader = t.Leaders[i]
			}
			add(protocol.TP{Topic: t.Name, Partition: int32(i)}, t.RF, i+k, leader)
		}
	}
	if c.Groups {
		add(protocol.OffsetsTP, min(3, len(brokers)), len(c.Topics), "")
	}
	return out
}

// NewController makes the cluster's KRaft controller.
func (c Cluster) NewController() *controller.Controller {
	cfg := controller.Config{BrokerSessionTimeoutMs: c.Config.BrokerSessionTimeoutMs,
		BrokerHeartbeatIntervalMs: c.Config.BrokerHeartbeatIntervalMs, UncleanLeaderElection: c.Config.UncleanLeaderElection}
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
