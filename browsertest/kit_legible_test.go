package browsertest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The teacher's kit stays legible at 1024×768 and in projector mode: the quiz, the twin
// panel, the chart's and the diagram's texts keep their size (larger in projector mode),
// and nothing makes the page wider than the window.
func TestTeachersKitStaysLegible(t *testing.T) {
	p := openEn(t)
	resize(p, 1024, 768)
	p.call(`load("exactly-once-needs-read-committed")`)
	p.call(`runToEnd()`)
	require.NoError(t, clickSelector(p, "#diagram-h"))
	p.waitJS(20*time.Second, `!!document.querySelector("#diagram-box svg g.node text") && !!document.querySelector("#chart-list text.chart-label") && document.querySelectorAll(".quiz-answer").length > 0`)
	// textPx is the smallest rendered height of the texts css selects.
	textPx := func(css string) float64 {
		return eval[float64](p, fmt.Sprintf(`Math.min(...[...document.querySelectorAll(%q)].map(e => e.getBoundingClientRect().height || parseFloat(getComputedStyle(e).fontSize)))`, css))
	}
	fontPx := func(css string) float64 {
		return eval[float64](p, fmt.Sprintf(`Math.min(...[...document.querySelectorAll(%q)].map(e => parseFloat(getComputedStyle(e).fontSize)))`, css))
	}
	check := func(mode string, min float64) {
		for _, css := range []string{".quiz-question", ".quiz-answer", "#twin-with", "#chart-h", ".chart-legend li", "#ledger-body td.txn"} {
			assert.GreaterOrEqual(t, fontPx(css), min, "%s: %s", mode, css)
		}
		for _, css := range []string{"#chart-list text.chart-label", "#chart-list text.chart-axis", "#diagram-box svg g.node text"} {
			assert.GreaterOrEqual(t, textPx(css), min-2, "%s: %s as drawn", mode, css)
		}
		// (what overflows, to say in the failure: the diagram scrolls in its own box)
		wide := eval[string](p, `[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().left + e.scrollWidth > 1025 && !e.closest("#diagram-box")).slice(0, 6).map(e => e.tagName + "#" + e.id + "." + e.className + ":" + Math.round(e.getBoundingClientRect().right)).join(" ")`)
		assert.LessOrEqual(t, eval[float64](p, `document.documentElement.scrollWidth`), 1024.0, "%s: the page is no wider than the window: %s", mode, wide)
	}
	check("1024×768", 13)
	pressKey(p, "p")
	p.waitJS(5*time.Second, `document.body.classList.contains("projector")`)
	p.waitJS(5*time.Second, `parseFloat(getComputedStyle(document.querySelector("#chart-list text.chart-label")).fontSize) >= 18`)
	check("projector", 16)
	p.elementShot("kit-projector-chart", "#chart-panel")
	pressKey(p, "p")
	p.waitJS(5*time.Second, `!document.body.classList.contains("projector")`)
}
