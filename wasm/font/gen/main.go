// Command gen prints the runes the canvas's Chinese words use, for pyftsubset
// --text-file (see the Makefile's canvas-font target).
package main

import (
	"fmt"

	"deliverylab/wasm/view"
)

func main() { fmt.Println(view.ZhRunes()) }
