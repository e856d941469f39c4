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

// BrokerRegistrationResponse accepts a registration, or refuses it with
// DUPLICATE_BROKER_REGISTRATION while the broker's previous session is still valid.
type BrokerRegistrationResponse struct {
	Err Error
}

func (BrokerRegistrationResponse) Kind() string { return "BrokerRegistrationResponse" }
func (m BrokerRegistrationResponse) Describe() string {
	if m.Err != "" {
		return "BrokerRegistrationResponse " + m.Err.String()
	}
	return "BrokerRegistrationResponse ok"
}

// BrokerHeartbeat keeps a broker's session with the controller alive. It carries how far
// the broker has read the metadata log: a broker behind it is sent what it missed, and a
// fenced broker is unfenced once it has read its own registration.
type BrokerHeartbeat struct {
	request
	background
	Broker         string
	Incarnation    int64
	MetadataOffset int64
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
	Fenced     []string // every broker fenced now (the broker registration records)
	Offset     int64    // the metadata log's end once these records are read
	// From is where these records begin: the log's end before them. A broker that has
	// not read up to From missed records (a lost push) and must not skip them: it keeps
	// its offset, and its next heartbeat fetches what it missed, as a KRaft broker reads
	// the metadata log in order.
	From int64
}

func (MetadataUpdate) Kind() string { return "MetadataUpdate" }
func (m MetadataUpdate) Describe() string {
	d := "MetadataUpdate " + describeStates(m.Partitions)
	if len(m.Partitions) == 0 {
		d = "MetadataUpdate"
	}
	if len(m.Fenced) > 0 || len(m.Partitions) == 0 {
		d += " fenced=[" + strings.Join(m.Fenced, ",") + "]"
	}
	return d
}

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
	Err   Error
	State PartitionState
}

func (AlterPartitionResponse) Kind() string { return "AlterPartitionResponse" }
func (m AlterPartitionResponse) Describe() string {
	if m.Err != "" {
		return "AlterPartitionResponse " + m.TP.String() + " " + m.Err.String()
	}
	return "AlterPartitionResponse " + m.State.Describe()
}
