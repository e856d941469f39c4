package protocol

import (
	"fmt"
	"strings"
)

// GroupMetadata is a record of __consumer_offsets: a group's state as its coordinator
// stored it when a rebalance completed (Kafka's GroupMetadataKey and GroupMetadataValue,
// written by GroupMetadataManager.storeGroup): the generation and each member with its
// id, timeouts, subscription and assignment. A group left without members is stored with
// none. A coordinator that loads the partition takes the last one of each group as the
// group (GroupMetadataManager.doLoadGroupsAndOffsets, readGroupMessageValue).
type GroupMetadata struct {
	Group      string
	Generation int32
	Members    []GroupMember // sorted by id
}

// GroupMember is one member in a GroupMetadata record (GroupMetadataValue.MemberMetadata).
type GroupMember struct {
	ID, ClientID       string
	SessionTimeoutMs   int64
	RebalanceTimeoutMs int64
	Topics             []string // the subscription
	Assignment         []TP
}

func (g GroupMetadata) Describe() string {
	ids := make([]string, len(g.Members))
	for i, m := range g.Members {
		ids[i] = m.ID
	}
	return fmt.Sprintf("group %s generation=%d members=[%s]", g.Group, g.Generation, strings.Join(ids, ","))
}
