package fate

import "strings"

// Lang is a language the playground speaks.
type Lang string

// The playground's languages.
const (
	En Lang = "en"
	Zh Lang = "zh"
)

// Langs lists them.
var Langs = []Lang{En, Zh}

// Code names one piece of a reason; each language's table (reasons_en.go,
// reasons_zh.go) has one template per code, and both templates of a code use the same
// placeholders, so the languages say the same thing (a test holds them to it).
type Code string

// Part is one piece of a reason: a code and the values of its placeholders.
type Part struct {
	Code Code              `json:"code"`
	Args map[string]string `json:"args,omitempty"`
}

// Reason says why a message has its fate, as values: rendered from the tables only when
// shown, in whichever language.
type Reason struct {
	Parts []Part `json:"parts,omitempty"`
}

// Because starts a reason with one part; args are name, value pairs.
func Because(code Code, args ...string) Reason { return Reason{}.And(code, args...) }

// And adds a part to a reason.
func (r Reason) And(code Code, args ...string) Reason {
	p := Part{Code: code, Args: map[string]string{}}
	for i := 0; i+1 < len(args); i += 2 {
		p.Args[args[i]] = args[i+1]
	}
	r.Parts = append(append([]Part(nil), r.Parts...), p)
	return r
}

// Then adds the parts of another reason.
func (r Reason) Then(o Reason) Reason {
	r.Parts = append(append([]Part(nil), r.Parts...), o.Parts...)
	return r
}

// Text renders the reason in a language: its parts' templates, one after the other.
func (r Reason) Text(lang Lang) string {
	table := templates[lang]
	var b strings.Builder
	for _, p := range r.Parts {
		b.WriteString(fill(table[p.Code], p.Args))
	}
	return b.String()
}

// fill replaces each {name} of a template with its value.
func fill(tmpl string, args map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		j := strings.IndexByte(tmpl, '}')
		if i < 0 || j < i {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		b.WriteString(args[tmpl[i+1:j]])
		tmpl = tmpl[j+1:]
	}
}

// placeholders lists the {names} of a template, in order.
func placeholders(tmpl string) []string {
	var out []string
	for {
		i := strings.IndexByte(tmpl, '{')
		j := strings.IndexByte(tmpl, '}')
		if i < 0 || j < i {
			return out
		}
		out = append(out, tmpl[i+1:j])
		tmpl = tmpl[j+1:]
	}
}

var templates = map[Lang]map[Code]string{En: english, Zh: chinese}
