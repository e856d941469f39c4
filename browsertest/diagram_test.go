package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The diagram button saves the run so far as an SVG file, through the browser's own
// download; the file opens in a tab of its own and shows every node of the scene, and
// the highlighted message's arrows stand out.
func TestDiagramExportOpensAndShowsEveryNode(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	p.call(`runToEnd()`)
	nodes := p.state().Nodes
	require.NotEmpty(t, nodes)
	// The teacher selects the lost message in the ledger: the page seeks to its fate
	// and highlights it.
	var lost string
	for _, msg := range p.more().Ledger.Messages {
		if msg.Fate == "lost" {
			lost = msg.ID
		}
	}
	require.NotEmpty(t, lost, "acks-1-lost loses a message")
	require.NoError(t, clickSelector(p, fmt.Sprintf(`#ledger-body tr[data-id=%q]`, lost)))
	p.waitJS(10*time.Second, fmt.Sprintf(`window.deliverylab.state().highlight.message === %q`, lost))

	dir := t.TempDir()
	done, suggested := make(chan string, 1), make(chan string, 1)
	chromedp.ListenBrowser(p.ctx, func(ev any) {
		if e, ok := ev.(*browser.EventDownloadWillBegin); ok {
			select {
			case suggested <- e.SuggestedFilename:
			default:
			}
		}
		if e, ok := ev.(*browser.EventDownloadProgress); ok && e.State == browser.DownloadProgressStateCompleted {
			select {
			case done <- e.GUID:
			default:
			}
		}
	})
	events := true
	_, err := chromedp.CallBrowser(p.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: &events})
	require.NoError(t, err)
	require.NoError(t, clickSelector(p, "#save-diagram"))
	var guid string
	select {
	case guid = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the diagram was not downloaded")
	}
	assert.Equal(t, "acks-1-lost-diagram.svg", <-suggested, "the file is named after the scene")
	file := filepath.Join(dir, guid)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(data[:min(len(data), 200)]), "<svg")
	// The browser names a download by its id; a file of one's own has the name the page gave it.
	named := filepath.Join(dir, "acks-1-lost-diagram.svg")
	require.NoError(t, os.Rename(file, named))

	// Opened on its own, as a teacher would open it: every node has its line.
	tab, cancel := chromedp.NewContext(env.browser)
	defer cancel()
	ctx, stop := context.WithTimeout(tab, 20*time.Second)
	defer stop()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+named)))
	names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("g.node")].map(g => g.dataset.node)`))
	require.NoError(t, err)
	highlighted, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll('g.msg[data-label=%q] line[stroke="#e6007e"]').length`, lost)))
	require.NoError(t, err)
	for _, n := range nodes {
		assert.Contains(t, names, n.Name, fmt.Sprintf("%s has its line in the diagram", n.Name))
	}
	assert.Positive(t, highlighted, "the highlighted message's arrows stand out")
	assert.Equal(t, "Save diagram (SVG)", eval[string](p, `document.getElementById("save-diagram").textContent`))
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	assert.Equal(t, "保存时空图（SVG）", eval[string](p, `document.getElementById("save-diagram").textContent`))
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}
