package storage

// Diverges reports whether follower holds a record that l, the leader's log, does not
// hold at the same offset in the same leader epoch: a record past l's end, or a batch
// whose first or last offset lies in another epoch on l. Such a follower has yet to
// truncate (KIP-101: it asks the leader where its last epoch ended,
// OffsetsForLeaderEpoch, and cuts its log there).
//
// Where neither log holds a batch that Problems reports, the epochs never go back, so a
// batch whose ends agree agrees throughout, and the follower agrees with the leader iff
// its epoch runs are the leader's up to its log end — what the epoch caches of both
// (LeaderEpochFileCache) would say: the cost is their epochs, not their records.
func (l *Log) Diverges(follower *Log) bool {
	n := follower.LEO()
	if n > l.LEO() {
		return true
	}
	if l.irregular || follower.irregular {
		return l.divergesByBatch(follower)
	}
	f := follower.runs
	if len(f) > len(l.runs) {
		return true
	}
	for i, run := range f {
		if l.runs[i] != run {
			return true
		}
	}
	// The leader's next epoch must not begin before the follower's log ends.
	return len(l.runs) > len(f) && l.runs[len(f)].StartOffset < n
}

// divergesByBatch is Diverges by looking up both ends of every batch of the follower in
// l: the cost is the follower's batches.
func (l *Log) divergesByBatch(follower *Log) bool {
	for _, b := range follower.batches.from(0) {
		if l.epochAt(b.BaseOffset) != b.LeaderEpoch || l.epochAt(b.LastOffset()) != b.LeaderEpoch {
			return true
		}
	}
	return false
}

// epochAt is the leader epoch of the batch holding offset, or -1.
func (l *Log) epochAt(offset int64) int32 {
	for _, b := range l.Read(offset, offset+1) {
		return b.LeaderEpoch
	}
	return -1
}
