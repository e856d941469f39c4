package browsertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"deliverylab/internal/webserve"
)

// env is shared by every test of the binary: one Chromium, one server. A failed set-up
// is kept and reported by each test: `make test-browser` sets requireVar, so there a
// missing bundle or browser fails every test; a plain `go test ./...` skips them with
// the reason instead.
var env struct {
	setupErr error
	baseURL  string
	browser  context.Context // has a running browser; each test opens a tab under it
	root     string          // repository root
	outDir   string          // screenshots
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	root, err := filepath.Abs("..")
	if err != nil {
		panic(err)
	}
	env.root = root
	env.outDir = filepath.Join(root, "browsertest", "out")
	web := filepath.Join(root, "web")
	for _, f := range []string{"main.wasm", "wasm_exec.js"} {
		if _, err := os.Stat(filepath.Join(web, f)); err != nil {
			env.setupErr = fmt.Errorf("web/%s is missing: run `make wasm` first (`make test` builds it)", f)
			return m.Run()
		}
	}
	exe, err := chromiumPath()
	if err != nil {
		env.setupErr = err
		return m.Run()
	}

	srv := httptest.NewServer(webserve.Handler(web)) // listens on 127.0.0.1
	defer srv.Close()
	env.baseURL = srv.URL

	profile, err := os.MkdirTemp("", "deliverylab-chromium-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(profile)

	var chromeLog bytes.Buffer
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(profile),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		// WebGL2 on the CPU: Ebiten needs it. Never --disable-software-rasterizer or
		// --use-gl=disabled (no WebGL2, Ebiten exits) nor --disable-frame-rate-limit
		// (starves two cores).
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.Flag("force-device-scale-factor", "1"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.CombinedOutput(&chromeLog),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Do(browser); err != nil { // starts Chromium, with no timeout
		env.setupErr = fmt.Errorf("starting %s: %w\n%s", exe, err, chromeLog.String())
		return m.Run()
	}
	env.browser = browser
	return m.Run()
}

// chromiumPath finds the browser: $CHROMIUM, else Debian's chromium on PATH.
func chromiumPath() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("chromium not found: run `make browser-deps` (Debian packages chromium and fonts-noto-cjk) or set CHROMIUM")
}

// requireVar, when set (make test-browser sets it), makes a failed set-up fail the tests
// instead of skipping them.
const requireVar = "DELIVERYLAB_REQUIRE_BROWSER"

// requireEnv stops a test whose shared set-up failed, with the reason.
func requireEnv(t testing.TB) {
	t.Helper()
	if env.setupErr == nil {
		return
	}
	if os.Getenv(requireVar) != "" {
		t.Fatal(env.setupErr)
	}
	t.Skipf("browser tests skipped: %v (make test-browser builds the bundle and runs them)", env.setupErr)
}
