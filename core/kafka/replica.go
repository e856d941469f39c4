package kafka

// EpochEntry says that leader epoch Epoch began at StartOffset (the leader epoch cache,
// KIP-101).
type EpochEntry struct {
	Epoch       int32
	StartOffset int64
}

// Replica is one broker's copy of one partition. Log, Epochs and HW are durable (the log
// segments, the leader-epoch checkpoint and the high-watermark checkpoint); the leader's
// view of its followers is volatile.
type Replica struct {
	TP     TP
	Log    []Record
	Epochs []EpochEntry
	HW     int64

	followers  map[string]*followerState // leader only, volatile
	isrPending bool                      // an AlterPartition is in flight
	loadedEnd  int64                     // the LEO when this broker became leader (what a coordinator loads)
	fetch      followerFetch             // follower only, volatile
}

// followerState is what a leader knows of one follower (Partition.scala's replica state).
type followerState struct {
	LEO                  int64
	LastCaughtUpMs       int64
	LastFetchMs          int64
	LeaderLEOAtLastFetch int64
}

// followerFetch is a follower's one outstanding fetch to its leader.
type followerFetch struct {
	ReqID    int64
	Leader   string
	Epoch    int32
	InFlight bool
}

// LEO is the log end offset.
func (r *Replica) LEO() int64 { return int64(len(r.Log)) }

// lastEpoch is the epoch of the last record, or -1 for an empty log.
func (r *Replica) lastEpoch() int32 {
	if len(r.Log) == 0 {
		return -1
	}
	return r.Log[len(r.Log)-1].Epoch
}

// append adds records at the end, assigning offsets, and notes new epochs.
func (r *Replica) append(recs []Record, epoch int32) int64 {
	base := r.LEO()
	for i, rec := range recs {
		rec.Offset = base + int64(i)
		if epoch >= 0 {
			rec.Epoch = epoch
		}
		r.noteEpoch(rec.Epoch, rec.Offset)
		r.Log = append(r.Log, rec)
	}
	return base
}

func (r *Replica) noteEpoch(epoch int32, offset int64) {
	if n := len(r.Epochs); n == 0 || r.Epochs[n-1].Epoch < epoch {
		r.Epochs = append(r.Epochs, EpochEntry{Epoch: epoch, StartOffset: offset})
	}
}

// truncate removes every record at or after offset (KIP-101 truncation).
func (r *Replica) truncate(offset int64) []Record {
	if offset >= r.LEO() {
		return nil
	}
	if offset < 0 {
		offset = 0
	}
	removed := append([]Record(nil), r.Log[offset:]...)
	r.Log = r.Log[:offset]
	for len(r.Epochs) > 0 && r.Epochs[len(r.Epochs)-1].StartOffset >= offset {
		r.Epochs = r.Epochs[:len(r.Epochs)-1]
	}
	if r.HW > offset {
		r.HW = offset
	}
	return removed
}

// endOffsetFor answers OffsetsForLeaderEpoch: the largest epoch <= epoch this replica
// knows and the offset where it ended (the next epoch's start, or the LEO).
func (r *Replica) endOffsetFor(epoch int32) (int32, int64) {
	for i := len(r.Epochs) - 1; i >= 0; i-- {
		if r.Epochs[i].Epoch <= epoch {
			if i == len(r.Epochs)-1 {
				return r.Epochs[i].Epoch, r.LEO()
			}
			return r.Epochs[i].Epoch, r.Epochs[i+1].StartOffset
		}
	}
	return -1, 0
}

// epochStart is where the given epoch starts in this log (LEO if it has not started).
func (r *Replica) epochStart(epoch int32) int64 {
	for _, e := range r.Epochs {
		if e.Epoch == epoch {
			return e.StartOffset
		}
	}
	return r.LEO()
}

func (r *Replica) clone() *Replica {
	c := *r
	c.Log = append([]Record(nil), r.Log...)
	c.Epochs = append([]EpochEntry(nil), r.Epochs...)
	if r.followers != nil {
		c.followers = make(map[string]*followerState, len(r.followers))
		for k, v := range r.followers {
			fv := *v
			c.followers[k] = &fv
		}
	}
	return &c
}
