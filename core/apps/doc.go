// Package apps holds the user code that runs on Kafka's clients: a producer
// application with a workload, and a consumer application with a commit policy that
// writes what it processes to a sink. Each is a sim.Node; what the application itself
// remembers across a crash (which messages it sent and was told about) is durable, the
// client's buffers are not.
package apps
