package browsertest

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Selecting a ledger row highlights its message and path on the canvas and jumps to the
// moment its fate was decided; the keyboard selects as well.
func TestLedgerRowSelectsAndSeeks(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	p.call(`runToEnd()`)
	p.state()
	m := p.more()
	var id string
	var at int64
	var path []string
	for _, msg := range m.Ledger.Messages {
		if msg.Fate == "lost" {
			id, at, path = msg.ID, msg.AtMs, msg.Path
		}
	}
	require.NotEmpty(t, id, "acks-1-lost loses a message")
	require.Positive(t, at, "its fate was decided at a known time")
	require.NotEmpty(t, path)

	row := fmt.Sprintf(`#ledger-body tr[data-id=%q]`, id)
	require.NoError(t, clickSelector(p, row))
	p.waitJS(10*time.Second, fmt.Sprintf(`window.deliverylab.state().nowMs === %d`, at))
	p.waitJS(5*time.Second, fmt.Sprintf(`document.querySelector(%q).getAttribute("aria-selected") === "true"`, row))
	h := p.more().Highlight
	assert.Equal(t, id, h.Message)
	assert.Equal(t, path, h.Nodes)
	assert.Equal(t, 1, eval[int](p, `document.querySelectorAll('#ledger-body tr[aria-selected="true"]').length`))

	// Again: let go.
	require.NoError(t, clickSelector(p, row))
	p.waitJS(5*time.Second, `window.deliverylab.state().highlight.message === ""`)

	// The keyboard: focus the first row and press Enter.
	first := eval[string](p, `document.querySelector("#ledger-body tr[data-id]").dataset.id`)
	require.NoError(t, p.do(chromedp.Focus(chromedp.CSS(`#ledger-body tr[data-id]`)), chromedp.KeyEvent(kb.Enter)))
	p.waitJS(5*time.Second, fmt.Sprintf(`window.deliverylab.state().highlight.message === %q`, first))
	p.waitJS(5*time.Second, fmt.Sprintf(`document.querySelector('#ledger-body tr[data-id=%q]').getAttribute("aria-selected") === "true"`, first))
}
