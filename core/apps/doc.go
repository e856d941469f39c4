// Package apps holds the user code that runs on Kafka's clients: a producer
// application with a workload (transactional or not), a consumer application with a
// commit policy that writes what it processes to a sink, and a Kafka Streams
// application that reads a topic and writes another under a processing guarantee. Each
// is a sim.Node; what the application itself remembers across a crash (which messages it
// sent and was told about) is durable, the client's buffers are not.
package apps
