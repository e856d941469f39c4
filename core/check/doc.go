// Package check is the ledger: it follows every application message from send to its
// effects in an output and gives it a fate (delivered, duplicated, lost, unavailable,
// failed), the run a verdict, and the Kafka-level anomalies Jepsen's names describe.
// It stands outside the system: it reads observations and final facts, never node
// internals, so it cannot be fooled by the code it checks.
package check
