package fate

var english = map[Code]string{
	OneEffect:      "one effect in {output}",
	ManyEffects:    "{count} effects in {output}",
	AppendedTwice:  ": appended {count} times ({places}): the producer retried a request whose answer never came",
	PolledTwice:    ": polled {count} times: the consumer read it again from an older committed offset",
	FailedTold:     "the producer was told it failed ({err}) at {ms} ms",
	FailedUntold:   "never acknowledged: the producer died or the run ended before it was told",
	NotYetIn:       "acknowledged, not yet in {output}: still held by ",
	HeldOffline:    "{partition} on {broker} (down; the partition has no leader)",
	HeldAboveHW:    "{partition} above the high watermark on {broker}",
	HeldForReader:  "{partition} on {broker}, waiting for the consumer that is down",
	HeldUnread:     "{partition} on {broker}, below the high watermark and at or past the group's committed offset: the consumer had not got to it when the run ended",
	AckedAtOffset:  "acknowledged at {ms} ms (offset {offset} of {partition})",
	AckedNoWait:    "acknowledged at {ms} ms without waiting for the broker (acks=0)",
	AckedAt:        "acknowledged at {ms} ms",
	Truncated:      ", then truncated from {node}'s log at {ms} ms when it followed a new leader that never had it",
	CrashedBefore:  ", polled at {polled} ms and its offset committed at {committed} ms, but the consumer crashed before processing it",
	NeverProcessed: " and polled at {polled} ms, but never processed, and the group's committed offset is past it",
	Gone:           ", but no log that could still deliver it holds it and {output} never got it",
	InProgress:     "in progress: not acknowledged yet",
	InProgressAck:  "in progress: acknowledged, not in {output} yet",
}
