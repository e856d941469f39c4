package apps

import (
	"testing"

	"deliverylab/core/kafka/protocol"
)

// RecordCollectorImpl.recordSendError: fencing errors migrate the task, retriable ones
// corrupt it, the rest go to the production exception handler (default FAIL).
func TestClassifySendErrAsRecordCollectorImpl(t *testing.T) {
	cases := map[protocol.Error]streamsSendErrKind{
		protocol.ErrInvalidProducerEpoch:         taskMigrated,
		protocol.ErrProducerFenced:               taskMigrated,
		protocol.ErrOutOfOrderSequenceNumber:     taskMigrated,
		protocol.ErrInvalidProducerIDMapping:     taskMigrated,
		protocol.ErrTimeoutException:             taskCorrupted,
		protocol.ErrNotEnoughReplicas:            taskCorrupted,
		protocol.ErrRequestTimedOut:              taskCorrupted,
		protocol.ErrTransactionCoordinatorFenced: sendFatal,
		protocol.ErrInvalidTxnState:              sendFatal,
	}
	for err, want := range cases {
		if got := classifySendErr(err); got != want {
			t.Errorf("%s: got %d, want %d", err, got, want)
		}
	}
}
