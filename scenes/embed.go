// Package scenes embeds the shipped scene files, so the CLI, the tests and the browser
// all run the same scenes.
package scenes

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// lessons is the order a class meets the scenes in: producer acks first, then the
// producer's batches, then replication's failures, then the consumer's commit policies,
// then groups. A scene not listed comes after them, by name.
var lessons = []string{
	"acks-0-vanish",
	"acks-1-lost",
	"acks-all-safe",
	"acks-all-isr-of-one",
	"producer-default-acks",
	"not-enough-replicas",
	"min-isr-leader-dies",
	"min-isr-leader-dies-kafka-4", // Kafka 4's eligible leader replicas (issue 24)
	"retry-duplicate",
	"idempotent-retry",
	"idempotence-ends-at-restart",
	"idempotence-is-per-partition",
	"txn-commit-and-abort",
	"txn-zombie-fenced",
	"txn-fenced-while-the-fence-is-written",
	"txn-timeout-aborts",
	"txn-lso-holds-back",
	"txn-coordinator-fails-over",
	"txn-abort-bumps-epoch",
	"txn-id-expires",
	"kip-890-late-produce-hangs",
	"kip-890-verification-refuses-late-produce",
	// Kafka 4 beside 3.9 (issue 24): the twins of the two scenes above and of txn-id-expires
	"txn-late-produce-kafka-4",
	"txn-id-expires-kafka-4",
	"txn-fence-waits-kafka-4",
	"streams-at-least-once-duplicates",
	"streams-exactly-once",
	"streams-send-timeout-revives",
	"streams-eos-paused-past-timeout",
	"exactly-once-needs-read-committed",
	"flink-sink-none-duplicates",
	"flink-sink-exactly-once",
	"flink-fails-after-pre-commit",
	"flink-fails-before-commit",
	"flink-down-past-transaction-timeout",
	"flink-fails-during-alignment",
	"flink-redeploy-from-group-offsets",
	"flink-shared-prefix-loses-data",
	"flink-at-least-once-counts-twice",
	"flink-exactly-once-read-uncommitted",
	"flink-case-dashboard",
	"flink-job-down-holds-the-lso",
	"flink-db-table-duplicates",
	"flink-db-upsert-harmless",
	"flink-db-two-phase-commit",
	"reordered-key",
	"producer-blocked",
	"linger-dies-with-the-producer",
	"zombie-leader-rejoins",
	"kip-101-leader-epochs",
	"kip-101-truncate-to-hw",
	"consumer-seeks-back-after-truncation",
	"commit-before-processing",
	"commit-after-processing",
	"dashboard-counter-overcounts",
	"dedup-table-unique-key",
	"dedup-upsert",
	"offsets-in-db-transaction",
	"slow-consumer-unavailable",
	"auto-commit-is-at-least-once",
	"auto-commit-async-loses",
	"rebalance-takeover",
	"consumer-joins",
	"consumer-joins-kafka-4", // Kafka 4's consumer group protocol (KIP-848, issue 24)
	"coordinator-follows-group-id",
	"group-coordinator-fails-over",
}

// Names lists the shipped scenes (file names without .yaml) in lesson order.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	rank := map[string]int{}
	for i, n := range lessons {
		rank[n] = i
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		ri, oki := rank[out[i]]
		rj, okj := rank[out[j]]
		switch {
		case oki && okj:
			return ri < rj
		case oki != okj:
			return oki
		}
		return out[i] < out[j]
	})
	return out
}

// Read returns a shipped scene's file.
func Read(name string) ([]byte, error) { return files.ReadFile(name + ".yaml") }
