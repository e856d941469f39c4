package protocol

import (
	"fmt"
	"strings"
)

// BrokerRegistration is a broker announcing itself to the controller after a (re)start.
type BrokerRegistration struct {
	request
	Broker      string
	Incarnation int64
}

func (BrokerRegistration) Kind() string { return "BrokerRegistration" }
func (m BrokerRegistration) Describe() string {
	return fmt.Sprintf("BrokerRegistration %s inc=%d", m.Broker, m.Incarnation)
}

// BrokerHeartbeat keeps a broker's session with the controller alive.
type BrokerHeartbeat struct {
	request
	background
	Broker      string
	Incarnation int64
}

func (BrokerHeartbeat) Kind() string       { return "BrokerHeartbeat" }
func (m BrokerHeartbeat) Describe() string { return "BrokerHeartbeat " + m.Broker }

// BrokerHeartbeatResponse answers a heartbeat.
type BrokerHeartbeatResponse struct {
	background
	Fenced bool
}

func (BrokerHeartbeatResponse) Kind() string { return "BrokerHeartbeatResponse" }
func (m BrokerHeartbeatResponse) Describe() string {
	return fmt.Sprintf("BrokerHeartbeatResponse fenced=%v", m.Fenced)
}

// MetadataUpdate carries partition states from the controller (the KRaft metadata log,
// pushed rather than fetched).
type MetadataUpdate struct {
	Partitions []PartitionState
}

func (MetadataUpdate) Kind() string       { return "MetadataUpdate" }
func (m MetadataUpdate) Describe() string { return "MetadataUpdate " + describeStates(m.Partitions) }

// AlterPartition asks the controller to change a partition's ISR (KIP-497).
type AlterPartition struct {
	request
	TP             TP
	Leader         string
	LeaderEpoch    int32
	PartitionEpoch int32
	NewISR         []string
}

func (AlterPartition) Kind() string { return "AlterPartition" }
func (m AlterPartition) Describe() string {
	return fmt.Sprintf("AlterPartition %s isr=[%s]", m.TP, strings.Join(m.NewISR, ","))
}

// AlterPartitionResponse answers an AlterPartition with the partition's state after it.
type AlterPartitionResponse struct {
	TP    TP
	Err   string
	State PartitionState
}

func (AlterPartitionResponse) Kind() string { return "AlterPartitionResponse" }
func (m AlterPartitionResponse) Describe() string {
	if m.Err != "" {
		return "AlterPartitionResponse " + m.TP.String() + " " + m.Err
	}
	return "AlterPartitionResponse " + m.State.Describe()
}
