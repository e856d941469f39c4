package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServePrintsURLAndServesDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.html"), []byte("<title>Delivery Lab</title>"), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- serve(ctx, []string{"--addr", "127.0.0.1:0", "--dir", dir}, outW, &stderr)
		outW.Close()
	}()

	line, err := bufio.NewReader(outR).ReadString('\n')
	require.NoError(t, err)
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "Delivery Lab: ")
	require.True(t, ok, line)
	assert.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), url)

	res, err := http.Get(url)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, string(body), "Delivery Lab")
	assert.Contains(t, stderr.String(), "main.wasm is missing", "warns before serving a page that cannot start")

	cancel()
	assert.Equal(t, 0, <-code)
}

func TestServeBadArgs(t *testing.T) {
	var stderr bytes.Buffer
	assert.Equal(t, 2, serve(context.Background(), []string{"--nope"}, io.Discard, &stderr))
	assert.Equal(t, 1, serve(context.Background(), []string{"--dir", t.TempDir()}, io.Discard, &stderr))
	assert.Contains(t, stderr.String(), "has no index.html")
}
