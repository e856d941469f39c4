package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type requestTimeoutTimer struct{}

func (requestTimeoutTimer) Kind() string { return "RequestTimeout" }
func (requestTimeoutTimer) Describe() string {
	return TimerLine("consumer", requestTimeoutTimer{}, "orders-0")
}

// A timer's line is its Kind in kebab case, after its role's scope, before its arguments.
func TestATimerLineComesFromItsKind(t *testing.T) {
	assert.Equal(t, "timer consumer request-timeout orders-0", requestTimeoutTimer{}.Describe())
	assert.Equal(t, "timer request-timeout", TimerLine("", requestTimeoutTimer{}))
}
