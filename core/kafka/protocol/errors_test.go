package protocol

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every error constant the package declares is a row of the table: a new one cannot be
// added without saying what Kafka says of it.
func TestEveryErrorConstantIsInTheTable(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	require.NoError(t, err)
	var declared int
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || vs.Type == nil || len(vs.Values) == 0 {
			return true
		}
		if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Error" {
			for _, v := range vs.Values {
				lit := v.(*ast.BasicLit)
				name := Error(lit.Value[1 : len(lit.Value)-1])
				_, known := errorsByName[name]
				assert.True(t, known, "%s is not in errorTable", name)
				declared++
			}
		}
		return true
	})
	assert.Equal(t, len(errorTable), declared, "the table has a row for an error no constant names")
	assert.Len(t, errorsByName, len(errorTable), "an error is in the table twice")
}

// Retriable is Errors.java's: the error's exception extends RetriableException.
func TestRetriableIsWhatKafkaSays(t *testing.T) {
	for _, e := range []Error{ErrNotLeaderOrFollower, ErrNotEnoughReplicas, ErrNotEnoughReplicasAfterAppend,
		ErrRequestTimedOut, ErrUnknownTopicOrPartition, ErrNetworkException, ErrCoordinatorNotAvailable,
		ErrNotCoordinator, ErrCoordinatorLoadInProgress, ErrConcurrentTransactions, ErrUnstableOffsetCommit} {
		assert.True(t, e.Retriable(), e.String())
	}
	for _, e := range []Error{ErrOutOfOrderSequenceNumber, ErrInvalidProducerEpoch, ErrProducerFenced,
		ErrRebalanceInProgress, ErrIllegalGeneration, ErrUnknownMemberID, ErrInvalidTxnState, ErrOffsetOutOfRange,
		ErrTransactionAborted, IllegalState("Cannot call send in state Ready"), ""} {
		assert.False(t, e.Retriable(), e.String())
	}
	assert.True(t, ErrNotLeaderOrFollower.RefreshesMetadata())
	assert.False(t, ErrNotEnoughReplicas.RefreshesMetadata(), "the leader answered: it is still the leader")
}

// expect.errors takes the errors an application can hear of, and not a controller's
// answers to a broker.
func TestErrorNamesAreTheReportedOnes(t *testing.T) {
	names := ErrorNames()
	assert.Equal(t, []string{"NOT_LEADER_OR_FOLLOWER", "NOT_ENOUGH_REPLICAS"}, names[:2])
	assert.Contains(t, names, "LogTruncationException")
	assert.NotContains(t, names, "STALE_BROKER_EPOCH")
	assert.Equal(t, "NONE", Error("").OrNone())
}
