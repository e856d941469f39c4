package server

import (
	"strconv"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The broker's timers, one type each.

// heartbeatTick sends the next BrokerHeartbeat (broker.heartbeat.interval.ms).
type heartbeatTick struct{}

// registrationRetry resends a registration the controller has not accepted.
type registrationRetry struct{ Attempt int }

// isrCheck looks for followers to shrink out of the ISR, every replica.lag.time.max.ms/2.
type isrCheck struct{}

// produceExpiry answers the waiting produce requests whose timeout has come.
type produceExpiry struct{}

// fetchExpiry answers the long polls whose wait has run out.
type fetchExpiry struct{}

// completeDelayed answers the waiting requests the HW of TP now covers. It runs as its
// own event after the HW moved, as Kafka's purgatory check does, so that an ISR shrink
// in between gives NOT_ENOUGH_REPLICAS_AFTER_APPEND (R5).
type completeDelayed struct{ TP protocol.TP }

// fetchRetry sends a follower's next fetch after replica.fetch.backoff.ms.
type fetchRetry struct{ TP protocol.TP }

// fetchTimeout gives up on a follower fetch whose answer never came.
type fetchTimeout struct {
	TP    protocol.TP
	ReqID int64
}

func (heartbeatTick) Kind() string     { return "Heartbeat" }
func (registrationRetry) Kind() string { return "RegistrationRetry" }
func (isrCheck) Kind() string          { return "IsrCheck" }
func (produceExpiry) Kind() string     { return "ProduceExpiry" }
func (fetchExpiry) Kind() string       { return "FetchExpiry" }
func (completeDelayed) Kind() string   { return "CompleteDelayed" }
func (fetchRetry) Kind() string        { return "FetchRetry" }
func (fetchTimeout) Kind() string      { return "FetchTimeout" }

// The timers' lines in the trace, from their Kinds (sim.TimerLine).
var (
	heartbeatLine     = sim.TimerLine("", heartbeatTick{})
	isrCheckLine      = sim.TimerLine("", isrCheck{})
	produceExpiryLine = sim.TimerLine("", produceExpiry{})
	fetchExpiryLine   = sim.TimerLine("", fetchExpiry{})
)

func (heartbeatTick) Describe() string { return heartbeatLine }
func (t registrationRetry) Describe() string {
	return sim.TimerLine("", t, strconv.Itoa(t.Attempt))
}
func (isrCheck) Describe() string          { return isrCheckLine }
func (produceExpiry) Describe() string     { return produceExpiryLine }
func (fetchExpiry) Describe() string       { return fetchExpiryLine }
func (t completeDelayed) Describe() string { return sim.TimerLine("", t, t.TP.String()) }
func (t fetchRetry) Describe() string      { return sim.TimerLine("", t, t.TP.String()) }
func (t fetchTimeout) Describe() string {
	return sim.TimerLine("", t, t.TP.String(), "req="+strconv.FormatInt(t.ReqID, 10))
}
