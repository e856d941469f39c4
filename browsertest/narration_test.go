package browsertest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pausingScene is acks-1-lost with its second caption stopping the run until Continue
// and pointing at broker-1.
func pausingScene(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(env.root, "scenes", "acks-1-lost.yaml"))
	require.NoError(t, err)
	src := string(raw)
	const at = "  - when: {node: broker-1, event: responded, message: p1#5}\n"
	i := strings.LastIndex(src, at) // the narration's, after the fault's
	require.Positive(t, i)
	rest := src[i+len(at):]
	if !strings.HasPrefix(rest, "    pause: true") {
		rest = "    pause: true\n    highlight: [broker-1]\n" + rest
	}
	return src[:i+len(at)] + rest
}

// A caption with pause: true stops the run until Continue (its button, or Space); the
// canvas highlights what it is about; clicking a caption jumps to its moment.
func TestNarrationPausesAndSeeks(t *testing.T) {
	p := openEn(t)
	src, err := json.Marshal(pausingScene(t))
	require.NoError(t, err)
	p.call(fmt.Sprintf(`loadSource(%s, "acks-1-pausing.yaml")`, src))
	p.call(`setSpeed(100)`)
	p.call(`play()`)
	p.waitJS(60*time.Second, `window.deliverylab.state().waitingCaption === 1`)
	m := p.more()
	assert.False(t, m.Playing, "the caption stopped the run")
	p.waitJS(5*time.Second, `document.querySelector('#captions li[data-index="1"].waiting button.continue') !== null`)
	assert.Equal(t, "Continue", eval[string](p, `document.getElementById("play").textContent`))
	if eval[bool](p, `"highlight" in window.deliverylab.state()`) {
		p.waitJS(5*time.Second, `window.deliverylab.state().highlight.nodes.includes("broker-1")`)
	}

	// The Continue button goes on.
	require.NoError(t, clickSelector(p, `#captions li.waiting button.continue`))
	p.waitJS(5*time.Second, `window.deliverylab.state().waitingCaption === -1 && window.deliverylab.state().playing`)
	p.call(`pause()`)

	// Clicking a caption jumps to its moment.
	m = p.more()
	var capAt int64 = -1
	for _, c := range m.Captions {
		if c.Index == 1 {
			capAt = c.AtMs
		}
	}
	require.Positive(t, capAt)
	require.NoError(t, clickSelector(p, `#captions li[data-index="1"] .cap`))
	p.waitJS(10*time.Second, fmt.Sprintf(`window.deliverylab.state().nowMs === %d`, capAt))

	// Space continues too.
	p.call(`seek(0)`)
	p.call(`play()`)
	p.waitJS(60*time.Second, `window.deliverylab.state().waitingCaption === 1`)
	clickCanvasEmpty(p)
	pressKey(p, " ")
	p.waitJS(5*time.Second, `window.deliverylab.state().waitingCaption === -1`)
}
