package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Screenshots of the whole viewport, in both languages, at a school laptop's and a
// projector's size: browsertest/out/page-<lang>-<w>x<h>.png. UPDATE_SCREENSHOT=1 also
// writes the English one at 1920×1080 to docs/screenshot.png, the README's picture.
func TestScreenshotsInBothLanguages(t *testing.T) {
	p := openEn(t)
	crashLeaderAtFirstAck(t, p, "acks-1-lost")
	for _, lang := range []string{"en", "zh"} {
		require.NoError(t, clickSelector(p, fmt.Sprintf(`button[data-lang=%q]`, lang)))
		for _, size := range [][2]int64{{1024, 768}, {1920, 1080}} {
			resize(p, size[0], size[1])
			p.waitJS(10*time.Second, fmt.Sprintf(`document.documentElement.lang.startsWith(%q)`, lang))
			p.state() // the DOM shows the state
			waitPageFrames(p, 3)
			path := filepath.Join(env.outDir, fmt.Sprintf("page-%s-%dx%d.png", lang, size[0], size[1]))
			require.NoError(t, os.MkdirAll(env.outDir, 0o755))
			shot := p.viewportShot()
			require.NoError(t, os.WriteFile(path, shot, 0o644))
			t.Logf("screenshot: %s", path)
			if os.Getenv("UPDATE_SCREENSHOT") == "1" && lang == "en" && size[0] == 1920 {
				require.NoError(t, os.WriteFile(filepath.Join(env.root, "docs", "screenshot.png"), shot, 0o644))
			}
		}
	}
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}
