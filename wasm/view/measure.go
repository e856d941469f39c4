package view

import (
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	zhfont "deliverylab/wasm/font"
)

// The canvas draws Latin in Go Regular and falls back to the Chinese subset for any
// rune Go Regular lacks (the wasm side draws with the same pair, wasm/glyphs.go).
// Measuring here, natively, from the same fonts' advances lets the layout decide what
// fits and lets tests check it without a browser.
var fonts = struct {
	once  sync.Once
	mu    sync.Mutex
	latin *sfnt.Font
	zh    *sfnt.Font
	adv   map[rune]float64 // advance of a rune at 1 px
}{adv: map[rune]float64{}}

// measureSlack covers what shaping adds over plain advances (kerning, rounding to
// device pixels): a text measured to fit fits when drawn.
const measureSlack = 1.03

func loadFonts() {
	var err error
	if fonts.latin, err = sfnt.Parse(goregular.TTF); err != nil {
		panic(err) // compiled in: a build problem
	}
	if fonts.zh, err = sfnt.Parse(zhfont.ZhOTF); err != nil {
		panic(err)
	}
}

// HasGlyph reports whether the canvas fonts can draw r (Latin or the Chinese subset).
func HasGlyph(r rune) bool {
	_, ok := runeAdvance(r)
	return ok
}

func runeAdvance(r rune) (float64, bool) {
	fonts.once.Do(loadFonts)
	fonts.mu.Lock()
	defer fonts.mu.Unlock()
	return advanceLocked(r)
}

// advanceLocked is runeAdvance with fonts.mu held.
func advanceLocked(r rune) (float64, bool) {
	if a, ok := fonts.adv[r]; ok {
		return a, a >= 0
	}
	a := -1.0
	var buf sfnt.Buffer
	for _, f := range []*sfnt.Font{fonts.latin, fonts.zh} {
		i, err := f.GlyphIndex(&buf, r)
		if err != nil || i == 0 {
			continue
		}
		const ppem = 1000
		adv, err := f.GlyphAdvance(&buf, i, fixed.I(ppem), font.HintingNone)
		if err == nil {
			a = float64(adv) / 64 / ppem
			break
		}
	}
	fonts.adv[r] = a
	return a, a >= 0
}

// TextWidth is how wide s is drawn at px CSS pixels.
func TextWidth(s string, px float64) float64 {
	fonts.once.Do(loadFonts)
	fonts.mu.Lock()
	defer fonts.mu.Unlock()
	w := 0.0
	for _, r := range s {
		a, ok := advanceLocked(r)
		if !ok {
			a = 0.5 // the notdef box
		}
		w += a
	}
	return w * px * measureSlack
}

// Fit shortens s with "…" until it is at most maxW wide at px; cut says it had to.
// maxW <= 0 means no limit.
func Fit(s string, px, maxW float64) (out string, cut bool) {
	if maxW <= 0 || TextWidth(s, px) <= maxW {
		return s, false
	}
	r := []rune(s)
	for len(r) > 0 {
		r = r[:len(r)-1]
		if t := string(r) + "…"; TextWidth(t, px) <= maxW {
			return t, true
		}
	}
	return "", true
}

// Wrap breaks s at spaces into lines at most maxW wide at px. A word longer than a line
// stays whole on its own line (Fit then cuts it, and counts that).
func Wrap(s string, px, maxW float64) []string {
	var lines []string
	cur := ""
	for _, w := range splitWords(s) {
		switch {
		case cur == "":
			cur = w
		case TextWidth(cur+" "+w, px) <= maxW:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = w
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

func splitWords(s string) []string {
	var out []string
	word := []rune{}
	for _, r := range s {
		if r == ' ' {
			if len(word) > 0 {
				out = append(out, string(word))
				word = word[:0]
			}
			continue
		}
		word = append(word, r)
	}
	if len(word) > 0 {
		out = append(out, string(word))
	}
	return out
}
