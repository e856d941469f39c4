package apps

import (
	"fmt"
	"strconv"
	"strings"
)

// Expand fills a key or value template: {n} is the message's number and {n%K} its
// remainder modulo K.
func Expand(tmpl string, n int) string {
	var b strings.Builder
	for {
		i := strings.Index(tmpl, "{n")
		if i < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		j := strings.Index(tmpl[i:], "}")
		if j < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		expr := tmpl[i+1 : i+j]
		b.WriteString(evalN(expr, n))
		tmpl = tmpl[i+j+1:]
	}
}

func evalN(expr string, n int) string {
	if expr == "n" {
		return strconv.Itoa(n)
	}
	if k, err := strconv.Atoi(strings.TrimPrefix(expr, "n%")); err == nil && k > 0 {
		return strconv.Itoa(n % k)
	}
	return "{" + expr + "}"
}

// CheckTemplate reports a template the expander would leave unexpanded.
func CheckTemplate(tmpl string) error {
	rest := tmpl
	for {
		i := strings.Index(rest, "{")
		if i < 0 {
			return nil
		}
		j := strings.Index(rest[i:], "}")
		if j < 0 {
			return fmt.Errorf("unclosed { in %q", tmpl)
		}
		expr := rest[i+1 : i+j]
		if evalN(expr, 1) == "{"+expr+"}" {
			return fmt.Errorf("unknown placeholder {%s} in %q; expected {n} or {n%%K}", expr, tmpl)
		}
		rest = rest[i+j+1:]
	}
}
