package clients

import (
	"strings"
	"unicode"

	"deliverylab/core/sim"
)

// timerLine is a producer timer's text in the trace: "timer" and its Kind in kebab case
// (RequestTimeout: "timer request-timeout"), so that a timer has one name, not a Kind
// and a description to keep in step. Each timer type computes it once, at init: the
// trace asks for it at every firing.
func timerLine(t sim.Payload) string {
	var b strings.Builder
	b.WriteString("timer ")
	for i, r := range t.Kind() {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
