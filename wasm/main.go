//go:build js

// Command wasm is Delivery Lab's browser front end: an Ebiten game that animates a
// core/play session, and the JS bridge (window.deliverylab) through which the page and
// the browser tests drive it. Build it with `make wasm`.
//
// Every file here carries `//go:build js`: ebiten needs a browser (natively it needs X11
// headers, under Node it panics), so all logic worth testing lives in wasm/view.
package main

import (
	"fmt"
	"os"

	"github.com/hajimehoshi/ebiten/v2"
)

func main() {
	g := newGame()
	b := newBridge(g)
	b.install()

	// Skip-draw: Draw leaves the screen alone when nothing changed, and Ebiten then stops
	// presenting frames, so a paused playground costs next to nothing.
	ebiten.SetScreenClearedEveryFrame(false)
	// The canvas lives in an iframe that rarely has focus; it must keep running anyway.
	ebiten.SetRunnableOnUnfocused(true)
	ebiten.SetWindowTitle("Delivery Lab")

	err := ebiten.RunGameWithOptions(g, &ebiten.RunGameOptions{InitUnfocused: true})
	if err == nil {
		err = fmt.Errorf("the game loop stopped")
	}
	b.crashed(err.Error())
	os.Exit(1)
}
