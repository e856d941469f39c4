package sim

import (
	"strings"
	"unicode"
)

// TimerLine is a timer's text in the trace, derived from the timer so that it has one
// name, not a Kind and a description to keep in step: "timer", the scope of the role
// that set it when its name alone would be ambiguous ("consumer", "app"; "" for none),
// the Kind in kebab case (RequestTimeout: "request-timeout"), then its arguments. A timer
// without arguments computes its line once: the trace asks for it at every firing.
func TimerLine(scope string, t Payload, args ...string) string {
	var b strings.Builder
	b.WriteString("timer ")
	if scope != "" {
		b.WriteString(scope)
		b.WriteByte(' ')
	}
	for i, r := range t.Kind() {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(a)
	}
	return b.String()
}
