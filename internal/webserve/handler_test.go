package webserve

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// site writes a small web/ directory: a page, a raw wasm and its gzip copy.
func site(t *testing.T) (dir string, raw []byte) {
	t.Helper()
	dir = t.TempDir()
	raw = bytes.Repeat([]byte("\x00asm wasm bytes "), 1000)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err := zw.Write(raw)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><title>x</title>"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.wasm"), raw, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.wasm.gz"), gz.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.js"), []byte("let x = 1"), 0o644))
	return dir, raw
}

func get(t *testing.T, h http.Handler, method, path, acceptEncoding string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func TestHandlerServesGzipWasmToGzipClients(t *testing.T) {
	dir, raw := site(t)
	res := get(t, Handler(dir), http.MethodGet, "/main.wasm", "gzip, deflate, br")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "application/wasm", res.Header.Get("Content-Type"))
	assert.Equal(t, "gzip", res.Header.Get("Content-Encoding"))
	assert.Equal(t, "Accept-Encoding", res.Header.Get("Vary"))
	assert.Equal(t, "no-cache", res.Header.Get("Cache-Control"))
	assert.Equal(t, "16000", res.Header.Get(DecodedLengthHeader))
	zr, err := gzip.NewReader(res.Body)
	require.NoError(t, err)
	body, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, raw, body)
}

func TestHandlerServesRawWasmOtherwise(t *testing.T) {
	dir, raw := site(t)
	for _, ae := range []string{"", "identity", "gzip;q=0", "br"} {
		res := get(t, Handler(dir), http.MethodGet, "/main.wasm", ae)
		require.Equal(t, http.StatusOK, res.StatusCode, ae)
		assert.Empty(t, res.Header.Get("Content-Encoding"), ae)
		assert.Equal(t, "application/wasm", res.Header.Get("Content-Type"), ae)
		body, _ := io.ReadAll(res.Body)
		assert.Equal(t, raw, body, ae)
	}
}

func TestHandlerIgnoresStaleGzip(t *testing.T) {
	dir, raw := site(t)
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "main.wasm.gz"), old, old))
	res := get(t, Handler(dir), http.MethodGet, "/main.wasm", "gzip")
	assert.Empty(t, res.Header.Get("Content-Encoding"), "the .gz is older than the build")
	body, _ := io.ReadAll(res.Body)
	assert.Equal(t, raw, body)
}

func TestHandlerPageAndTypes(t *testing.T) {
	dir, _ := site(t)
	h := Handler(dir)
	res := get(t, h, http.MethodGet, "/", "")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	assert.Equal(t, "no-cache", res.Header.Get("Cache-Control"))

	res = get(t, h, http.MethodGet, "/app.js", "gzip")
	assert.Equal(t, "text/javascript; charset=utf-8", res.Header.Get("Content-Type"))
	assert.Empty(t, res.Header.Get("Content-Encoding"), "only the wasm is precompressed")

	res = get(t, h, http.MethodHead, "/index.html", "")
	assert.Equal(t, http.StatusOK, res.StatusCode)
}

func TestHandlerRefusesEscapesListingsAndWrites(t *testing.T) {
	dir, _ := site(t)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	h := Handler(dir)
	assert.Equal(t, http.StatusNotFound, get(t, h, http.MethodGet, "/../../etc/passwd", "").StatusCode)
	assert.Equal(t, http.StatusNotFound, get(t, h, http.MethodGet, "/sub", "").StatusCode)
	assert.Equal(t, http.StatusNotFound, get(t, h, http.MethodGet, "/missing.js", "").StatusCode)
	assert.Equal(t, http.StatusMethodNotAllowed, get(t, h, http.MethodPost, "/index.html", "").StatusCode)
}

func TestHandlerRevalidates(t *testing.T) {
	dir, _ := site(t)
	h := Handler(dir)
	first := get(t, h, http.MethodGet, "/app.js", "")
	req := httptest.NewRequest(http.MethodGet, "/app.js", nil)
	req.Header.Set("If-Modified-Since", first.Header.Get("Last-Modified"))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusNotModified, rec.Code)
}

func TestAcceptsGzip(t *testing.T) {
	tests := map[string]bool{
		"":                   false,
		"gzip":               true,
		"GZIP":               true,
		"deflate, gzip":      true,
		"gzip;q=0.5":         true,
		"gzip; q=0":          false,
		"gzip;q=0.0, *;q=1":  false,
		"*":                  true,
		"*;q=0":              false,
		"identity":           false,
		"br, deflate":        false,
		"gzip;level=1;q=0.1": true,
	}
	for header, want := range tests {
		assert.Equal(t, want, AcceptsGzip(header), "%q", header)
	}
}
