// Package protocol is the vocabulary every Kafka role shares, as Kafka's own
// org.apache.kafka.common packages are: topic partitions, record batches with their
// records, the requests and responses on the wire, error names, the protocol points the
// roles report (events.go), and the questions one role may ask about another when a
// scene judges whether a run has settled (settle.go).
//
// Every request and response is a sim.Payload: an immutable value with one stable text
// form (Describe), a short canvas label where one helps (Label), and Background() true
// for traffic a viewer need not watch (heartbeats, metadata, empty long polls).
package protocol
