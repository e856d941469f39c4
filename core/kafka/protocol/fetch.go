package protocol

import (
	"fmt"
	"strconv"
	"strings"
)

// FetchRequest reads a partition from its leader, for a follower (Replica set) or a
// consumer. Followers send the epoch of their last record so that the leader can tell
// them where their log diverges (KIP-320).
type FetchRequest struct {
	request
	background
	ReqID            int64
	TP               TP
	Replica          string // the follower broker, "" for a consumer
	FetchOffset      int64
	LastFetchedEpoch int32
	MaxWaitMs        int64
	Isolation        IsolationLevel // a consumer's isolation.level
}

func (FetchRequest) Kind() string { return "Fetch" }
func (m FetchRequest) Describe() string {
	// Written out, not through fmt: fetches and their answers are most of a run's events.
	return "Fetch req=" + i64(m.ReqID) + " " + m.TP.String() + " from=" + i64(m.FetchOffset) + m.Isolation.suffix()
}

// AppendDescribe implements sim.AppendDescriber: Describe's text, written into b.
func (m FetchRequest) AppendDescribe(b []byte) []byte {
	b = append(b, "Fetch req="...)
	b = strconv.AppendInt(b, m.ReqID, 10)
	b = append(b, ' ')
	b = m.TP.appendTo(b)
	b = append(b, " from="...)
	b = strconv.AppendInt(b, m.FetchOffset, 10)
	return append(b, m.Isolation.suffix()...)
}

func (m FetchRequest) Label() string { return fmt.Sprintf("fetch @%d", m.FetchOffset) }

// FetchResponse carries the batches from the fetch offset on and the leader's high
// watermark, or tells a follower where its log diverges.
type FetchResponse struct {
	ReqID         int64
	TP            TP
	Err           Error
	Batches       []RecordBatch
	HW            int64
	Diverging     bool
	DivergedEpoch int32
	DivergedEnd   int64
	LogEnd        int64 // the leader's LEO, with OFFSET_OUT_OF_RANGE for a follower
	// Read committed: the last stable offset (records are returned only below it) and
	// the aborted transactions among the returned records.
	LastStable int64
	Aborted    []AbortedTxn
	// Isolation is the level of the fetch answered: only a read_committed answer
	// describes its LSO and aborted transactions.
	Isolation IsolationLevel
}

func (FetchResponse) Kind() string { return "FetchResponse" }
func (m FetchResponse) Describe() string {
	switch {
	case m.Err != "":
		return fmt.Sprintf("FetchResponse req=%d %s %s", m.ReqID, m.TP, m.Err)
	case m.Diverging:
		return fmt.Sprintf("FetchResponse req=%d %s diverging epoch=%d end=%d", m.ReqID, m.TP, m.DivergedEpoch, m.DivergedEnd)
	case len(m.Batches) == 0:
		return "FetchResponse req=" + i64(m.ReqID) + " " + m.TP.String() + " empty hw=" + i64(m.HW) + m.committedText()
	}
	return "FetchResponse req=" + i64(m.ReqID) + " " + m.TP.String() + " [" + rangeText(m.Batches) + "] @" +
		i64(m.Batches[0].BaseOffset) + " hw=" + i64(m.HW) + m.committedText()
}

// AppendDescribe implements sim.AppendDescriber: Describe's text, written into b (an
// error or a divergence, rare, through Describe itself).
func (m FetchResponse) AppendDescribe(b []byte) []byte {
	if m.Err != "" || m.Diverging || (m.Isolation == ReadCommitted && len(m.Aborted) > 0) {
		return append(b, m.Describe()...)
	}
	b = append(b, "FetchResponse req="...)
	b = strconv.AppendInt(b, m.ReqID, 10)
	b = append(b, ' ')
	b = m.TP.appendTo(b)
	if len(m.Batches) == 0 {
		b = append(b, " empty hw="...)
	} else {
		b = append(b, " ["...)
		b = append(b, rangeText(m.Batches)...)
		b = append(b, "] @"...)
		b = strconv.AppendInt(b, m.Batches[0].BaseOffset, 10)
		b = append(b, " hw="...)
	}
	b = strconv.AppendInt(b, m.HW, 10)
	if m.Isolation == ReadCommitted {
		b = append(b, " lso="...)
		b = strconv.AppendInt(b, m.LastStable, 10)
	}
	return b
}

func i64(v int64) string { return strconv.FormatInt(v, 10) }

// committedText is what a read_committed answer adds: " lso=5 aborted=[pid7@2]".
func (m FetchResponse) committedText() string {
	if m.Isolation != ReadCommitted {
		return ""
	}
	s := " lso=" + i64(m.LastStable)
	if len(m.Aborted) > 0 {
		parts := make([]string, len(m.Aborted))
		for i, a := range m.Aborted {
			parts[i] = fmt.Sprintf("pid%d@%d", a.ProducerID, a.FirstOffset)
		}
		s += " aborted=[" + strings.Join(parts, ",") + "]"
	}
	return s
}

// Background: an empty answer to a long poll is not worth watching.
func (m FetchResponse) Background() bool { return len(m.Batches) == 0 && !m.Diverging && m.Err == "" }

func (m FetchResponse) Label() string {
	switch {
	case len(m.Batches) > 0:
		return idsLabel(m.Batches)
	case m.Err != "":
		return m.Err.String()
	}
	return fmt.Sprintf("hw=%d", m.HW)
}

// OffsetsForLeaderEpochRequest asks a leader where its log ends the given leader epoch
// (KIP-320): a consumer checks its position with it after a leader change.
type OffsetsForLeaderEpochRequest struct {
	request
	ReqID       int64
	TP          TP
	LeaderEpoch int32 // the epoch of the record before the consumer's position
}

func (OffsetsForLeaderEpochRequest) Kind() string { return "OffsetsForLeaderEpoch" }
func (m OffsetsForLeaderEpochRequest) Describe() string {
	return fmt.Sprintf("OffsetsForLeaderEpoch req=%d %s epoch=%d", m.ReqID, m.TP, m.LeaderEpoch)
}

// OffsetsForLeaderEpochResponse answers with the largest epoch at or below the one asked
// that the leader knows, and where it ends (-1 and 0 when it knows none).
type OffsetsForLeaderEpochResponse struct {
	ReqID       int64
	TP          TP
	Err         Error
	LeaderEpoch int32
	EndOffset   int64
}

func (OffsetsForLeaderEpochResponse) Kind() string { return "OffsetsForLeaderEpochResponse" }
func (m OffsetsForLeaderEpochResponse) Describe() string {
	if m.Err != "" {
		return fmt.Sprintf("OffsetsForLeaderEpochResponse req=%d %s %s", m.ReqID, m.TP, m.Err)
	}
	return fmt.Sprintf("OffsetsForLeaderEpochResponse req=%d %s epoch=%d end=%d", m.ReqID, m.TP, m.LeaderEpoch, m.EndOffset)
}
