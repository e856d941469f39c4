// Package webserve serves the playground's static files: the page shell, wasm_exec.js and
// the WebAssembly bundle. `deliverylab serve` and the browser tests use the same handler,
// so the tests exercise exactly what a user gets.
package webserve

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// contentTypes are set explicitly: browsers refuse to compile WebAssembly streamed with
// any type but application/wasm, and the system's mime table varies between machines.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".wasm": "application/wasm",
	".ico":  "image/x-icon",
	".png":  "image/png",
	".svg":  "image/svg+xml",
	".json": "application/json",
}

// DecodedLengthHeader carries the uncompressed size of a gzip-encoded response, so the
// page's loading bar can count the decoded bytes that fetch hands it.
const DecodedLengthHeader = "X-Decoded-Length"

// Handler serves the files under dir. A request for X.wasm gets X.wasm.gz with
// Content-Encoding: gzip when the client accepts gzip and the .gz is at least as new as
// X.wasm (a stale .gz would run yesterday's build). Every response says no-cache, so a
// rebuilt bundle is picked up on reload; revalidation still answers 304 when unchanged.
func Handler(dir string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := path.Clean("/" + r.URL.Path)
		if strings.HasSuffix(r.URL.Path, "/") {
			name = path.Join(name, "index.html")
		}
		h := w.Header()
		h.Set("Cache-Control", "no-cache")
		h.Set("Pragma", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		if ct, ok := contentTypes[path.Ext(name)]; ok {
			h.Set("Content-Type", ct)
		}
		file := filepath.Join(dir, filepath.FromSlash(name))
		if path.Ext(name) == ".wasm" {
			h.Add("Vary", "Accept-Encoding")
			if gz, size, ok := precompressed(file); ok && AcceptsGzip(r.Header.Get("Accept-Encoding")) {
				h.Set("Content-Encoding", "gzip")
				if size >= 0 {
					h.Set(DecodedLengthHeader, strconv.FormatInt(size, 10))
				}
				file = gz
			}
		}
		serveFile(w, r, file)
	})
}

// precompressed returns the .gz beside file when it is usable, and file's size (-1 when
// only the .gz exists).
func precompressed(file string) (gz string, size int64, ok bool) {
	gzInfo, err := os.Stat(file + ".gz")
	if err != nil || gzInfo.IsDir() {
		return "", 0, false
	}
	raw, err := os.Stat(file)
	if errors.Is(err, fs.ErrNotExist) {
		return file + ".gz", -1, true
	}
	if err != nil || raw.ModTime().After(gzInfo.ModTime()) {
		return "", 0, false
	}
	return file + ".gz", raw.Size(), true
}

func serveFile(w http.ResponseWriter, r *http.Request, file string) {
	f, err := os.Open(file)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.IsDir() { // no directory listings
		http.NotFound(w, r)
		return
	}
	http.ServeContent(w, r, info.Name(), info.ModTime(), f)
}

// AcceptsGzip reports whether an Accept-Encoding header value allows gzip
// ("gzip", "gzip;q=0.5" and "*" do; "gzip;q=0" and "identity" do not).
func AcceptsGzip(header string) bool {
	star := false
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "*" {
			continue
		}
		ok := qualityAllows(params)
		if coding == "gzip" {
			return ok
		}
		star = ok
	}
	return star
}

// qualityAllows reads a q parameter; q=0 means "not acceptable".
func qualityAllows(params string) bool {
	for _, p := range strings.Split(params, ";") {
		k, v, found := strings.Cut(strings.TrimSpace(p), "=")
		if found && strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && q > 0
		}
	}
	return true
}
