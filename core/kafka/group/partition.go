package group

// DefaultOffsetsPartitions is offsets.topic.num.partitions' default. Which of them a
// group lives on is protocol.PartitionFor (coordinator_placement.go), shared with the
// transaction coordinator.
const DefaultOffsetsPartitions = 50
