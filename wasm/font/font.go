// Package font holds the canvas's Chinese glyphs: a subset of Noto Sans CJK SC with
// exactly the runes of view.Words' Chinese column (make canvas-font regenerates it), so
// the bundle carries a few kilobytes instead of a 16 MB font.
package font

import _ "embed"

// ZhOTF is the subset font (OpenType, CFF outlines).
//
//go:embed canvas-zh.otf
var ZhOTF []byte
