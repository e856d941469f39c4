package browsertest

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Save picture (PNG) gives the canvas at the moment the page stands at as a 1920×1080
// picture for slides, whatever the page's size: a real PNG, mostly the canvas's
// background, with the boxes, lanes, texts and messages drawn on it.
func TestPictureExportIsProjectorSized(t *testing.T) {
	p := openEn(t)
	p.call(`load("acks-1-lost")`)
	p.call(`seek(1500)`)
	p.waitJS(10*time.Second, `window.deliverylab.state().nowMs === 1500`)
	name, data := downloadByClick(t, p, "#save-png")
	assert.Equal(t, "acks-1-lost.png", name)
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err, "a PNG")
	assert.Equal(t, image.Rect(0, 0, 1920, 1080), img.Bounds())
	colours := map[[3]uint32]int{}
	for y := 0; y < 1080; y += 3 {
		for x := 0; x < 1920; x += 3 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, b >> 8}]++
		}
	}
	most := 0
	for _, n := range colours {
		most = max(most, n)
	}
	assert.Greater(t, len(colours), 50, "boxes, lanes, texts and messages, antialiased")
	assert.Greater(t, most, 640*360/3, "the canvas's background fills much of it")
	require.NoError(t, os.MkdirAll(filepath.Join("out"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join("out", "picture-export.png"), data, 0o644))
	assert.Equal(t, "Save picture (PNG)", eval[string](p, `document.getElementById("save-png").textContent`))
	require.NoError(t, clickSelector(p, `button[data-lang="zh"]`))
	assert.Equal(t, "保存图片（PNG）", eval[string](p, `document.getElementById("save-png").textContent`))
	require.NoError(t, clickSelector(p, `button[data-lang="en"]`))
}
