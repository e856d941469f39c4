// Package flink is a Flink job as the playground runs it: one process (a MiniCluster:
// the job manager and the task slots) with its subtasks as the process's parts. Kafka
// source subtasks read their partitions with assigned consumers and keep the offsets in
// the job's checkpoints; an optional keyBy shuffle sends each record to the operator
// subtask of its key group over an ordered channel; operator subtasks (map) pass records
// on; sink subtasks write them to Kafka through core/kafka's own producer (KafkaSink with
// its delivery guarantee).
//
// The job manager's checkpoint coordinator triggers checkpoints at the interval; the
// sources snapshot their offsets and send barrier n down their channels; a subtask with
// several inputs aligns them under EXACTLY_ONCE (each input is blocked after its barrier
// n until every input delivered it) and only counts barriers under AT_LEAST_ONCE. Each
// subtask acknowledges its snapshot; once all have, the checkpoint is completed, kept in
// checkpoint storage (which survives a crash) and every subtask is told
// (notifyCheckpointComplete). A failed subtask fails over its pipelined region (the
// subtasks it exchanges data with): after restart.delay.ms they are deployed again from
// the latest completed checkpoint, the sources rewound to its offsets.
//
// Sources of the rules: the ABS paper (arXiv 1506.08603), Flink 2.0's
// CheckpointCoordinator, SingleCheckpointBarrierHandler and CheckpointBarrierTracker,
// RestartPipelinedRegionFailoverStrategy, flink-connector-kafka 4.0's KafkaSource
// (KafkaSourceEnumerator.getSplitOwner) and KafkaSink (KafkaWriter, KafkaCommitter).
package flink
