package group

import "deliverylab/core/kafka/protocol"

// Offsets of a consumer-protocol group: commits and fetches are checked by member epoch
// rather than by generation (KIP-848; ConsumerGroup.validateOffsetCommit,
// validateOffsetFetch). A commit, plain or transactional, carries the member epoch where
// a classic member puts its generation.

// validateCommit checks a commit's member and epoch; the whole request fails with the
// first error (OffsetMetadataManager.commitOffset). Without an epoch (< 0) a commit is
// taken while the group has no members: a consumer that is not a member, or an admin. A
// member's current epoch commits any partition. A newer one is stale. An older one is
// taken for partitions the member has held since that epoch or earlier, assigned or
// pending revocation (KIP-1251's assignment-epoch validator): a member that commits what
// it consumed before its epoch moved on loses nothing.
func (cg *consumerGroup) validateCommit(member string, epoch int32, offsets []protocol.TPOffset) protocol.Error {
	if epoch < 0 && len(cg.Members) == 0 {
		return ""
	}
	m := cg.Members[member]
	switch {
	case m == nil:
		return protocol.ErrUnknownMemberID
	case epoch == m.Epoch:
		return ""
	case epoch > m.Epoch:
		return protocol.ErrStaleMemberEpoch
	}
	for _, o := range offsets {
		since, ok := m.Assigned[o.TP]
		if !ok {
			since, ok = m.Pending[o.TP]
		}
		if !ok || epoch < since {
			return protocol.ErrStaleMemberEpoch
		}
	}
	return ""
}

// validateFetch checks a member's offset fetch: the member must be known, at exactly its
// current epoch.
func (cg *consumerGroup) validateFetch(member string, epoch int32) protocol.Error {
	m := cg.Members[member]
	switch {
	case m == nil:
		return protocol.ErrUnknownMemberID
	case epoch != m.Epoch:
		return protocol.ErrStaleMemberEpoch
	}
	return ""
}
