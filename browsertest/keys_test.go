package browsertest

import (
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// pressKey sends a real key press (down, char, up) to whatever has focus in the tab.
func pressKey(p *page, key string) {
	p.t.Helper()
	require.NoError(p.t, p.do(chromedp.KeyEvent(key)))
}
