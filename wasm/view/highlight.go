package view

import (
	"regexp"
	"slices"
)

// Highlight is what the page points at: nodes (a caption's subject) and one message
// identity ("p1#3"), whose log cells, sink rows and messages on the wire are marked.
type Highlight struct {
	Nodes   []string `json:"nodes"`
	Message string   `json:"message"`
}

// Empty reports whether nothing is highlighted.
func (h Highlight) Empty() bool { return len(h.Nodes) == 0 && h.Message == "" }

// HasNode reports whether the node is highlighted.
func (h Highlight) HasNode(name string) bool { return slices.Contains(h.Nodes, name) }

// Marks reports whether text names the highlighted message: the identity stands in it
// on its own ("p1#3" in "p1#3" or "retry p1#3", not in "p1#31").
func (h Highlight) Marks(text string) bool {
	if h.Message == "" {
		return false
	}
	re, err := regexp.Compile(`(^|[^0-9A-Za-z#])` + regexp.QuoteMeta(h.Message) + `($|[^0-9])`)
	return err == nil && re.MatchString(text)
}
