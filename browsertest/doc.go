// Package browsertest drives the real playground in headless Chromium: the page served
// by the same handler as `deliverylab serve`, the WebAssembly bundle from `make wasm`,
// and real mouse input on the Ebiten canvas. `make test-browser` builds the bundle and
// runs it; screenshots land in browsertest/out/.
package browsertest
