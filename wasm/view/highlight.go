package view

import (
	"slices"
	"strings"
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
	for from := 0; ; {
		i := strings.Index(text[from:], h.Message)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(h.Message)
		if (i == 0 || !identByte(text[i-1])) && (end == len(text) || !isDigit(text[end])) {
			return true
		}
		from = i + 1
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// identByte: a byte that would make the identity part of a longer one before it.
func identByte(c byte) bool {
	return isDigit(c) || c == '#' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}
