package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

func noEnv(string) string { return "" }

func TestStudioFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		global studioConfig
		want   serveConfig
		err    string
	}{
		{name: "defaults", want: serveConfig{db: "stategraph.db", store: "stategraph.server.db", addr: "127.0.0.1:2024"}},
		{name: "the database before the command", global: studioConfig{serveConfig: serveConfig{db: "run.db"}},
			want: serveConfig{db: "run.db", store: "run.server.db", addr: "127.0.0.1:2024"}},
		{name: "after it", args: []string{"-db", "delivery.db", "-addr", "localhost:9000"},
			want: serveConfig{db: "delivery.db", store: "delivery.server.db", addr: "localhost:9000"}},
		{name: "postgres", args: []string{"-dsn", "postgres://h/db", "-schema", "s"},
			want: serveConfig{dsn: "postgres://h/db", schema: "s", addr: "127.0.0.1:2024"}},
		{name: "both databases", args: []string{"-db", "a.db", "-dsn", "postgres://h/db"}, err: "not both"},
		{name: "schema without dsn", args: []string{"-schema", "s"}, err: "-schema needs -dsn"},
		{name: "a remote address", args: []string{"-addr", "0.0.0.0:2024"}, err: "not a loopback address"},
		{name: "a remote address allowed", args: []string{"-addr", "0.0.0.0:2024", "-allow-remote"},
			want: serveConfig{db: "stategraph.db", store: "stategraph.server.db", addr: "0.0.0.0:2024", allowRemote: true}},
		{name: "an argument", args: []string{"extra"}, err: `unexpected argument "extra"`},
		{name: "a missing key file", args: []string{"-key-file", "/nonexistent/keys"}, err: "key file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseStudio(tc.args, tc.global, noEnv)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.serveConfig)
		})
	}
}

func TestStudioIsInTheUsageAndHasItsOwn(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	require.Equal(t, exitOK, run(context.Background(), []string{"help"}, &out, &errb, noEnv))
	assert.Contains(t, out.String(), "studio [-addr HOST:PORT]")
	assert.Contains(t, out.String(), "-key-file PATH")
	out.Reset()
	require.Equal(t, exitOK, run(context.Background(), []string{"studio", "-h"}, &out, &errb, noEnv))
	assert.Contains(t, out.String(), "usage: stategraph studio")
	assert.Contains(t, out.String(), "/studio/")
	errb.Reset()
	assert.Equal(t, exitUsage, run(context.Background(), []string{"studio", "-addr", "10.0.0.1:80"}, &out, &errb, noEnv))
	assert.Contains(t, errb.String(), "not a loopback address")
}

// A thread whose fields no served graph has is listed under the
// read-only graph, with the reason in its metadata; its state reads, and
// a run on it is refused, naming why.
func TestStudioListsTheThreadsNoServedGraphHasReadOnly(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t) // the test graphs' threads: topic, drafts, revisions, approved
	dir := t.TempDir()
	base := startStudio(t, studioConfig{serveConfig: serveConfig{db: db, store: filepath.Join(dir, "records.db")}})
	threads := postJSON[[]map[string]any](t, base+"/threads/search", `{"limit": 100}`, 200)
	require.NotEmpty(t, threads)
	for _, th := range threads {
		md, _ := th["metadata"].(map[string]any)
		assert.Equal(t, readOnlyGraphID, md["graph_id"], "thread %v", th["thread_id"])
		assert.Regexp(t, `^no served graph has the fields (approved, )?drafts, revisions, topic$`, md[readOnlyReasonKey])
	}
	tid := threads[0]["thread_id"].(string)
	resp, err := http.Get(base + "/threads/" + tid + "/state")
	require.NoError(t, err)
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, "%s", raw)
	assert.Contains(t, string(raw), `"revisions"`)
	refused := postJSON[map[string]any](t, base+"/threads/"+tid+"/runs/wait", `{"assistant_id": "read-only", "input": {}}`, 422)
	assert.Contains(t, refused["detail"], "read-only")
}

// postJSON posts body to url, checks the status and decodes the answer.
func postJSON[T any](t *testing.T, url, body string, status int) T {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, status, resp.StatusCode, "%s", raw)
	var out T
	require.NoError(t, json.Unmarshal(raw, &out), "%s", raw)
	return out
}

// The studio on a database file that does not exist yet creates it, as
// serve does, and lists no thread.
func TestStudioStartsOnANewDatabase(t *testing.T) {
	t.Parallel()
	base, dir := startStudioOnNewFiles(t, "new")
	resp, err := http.Post(base+"/threads/search", "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.JSONEq(t, `[]`, string(raw))
	page, err := http.Get(base + "/studio/")
	require.NoError(t, err)
	page.Body.Close()
	assert.Equal(t, 200, page.StatusCode)
	_, err = os.Stat(filepath.Join(dir, "new.db"))
	assert.NoError(t, err)
}

// keyFile writes a key file holding the keys given, and returns its path.
func keyFile(t *testing.T, keys ...encrypt.Key) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# stategraph keys: the active key first\n\n")
	for _, k := range keys {
		b.WriteString(k.ID + " " + base64.StdEncoding.EncodeToString(k.Secret) + "\n")
	}
	path := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

func newKey(t *testing.T, id string, fill byte) encrypt.Key {
	t.Helper()
	k, err := encrypt.KeyFromBase64(id, base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{fill}, encrypt.KeySize)))
	require.NoError(t, err)
	return k
}

// With -key-file (or $STATEGRAPH_KEY_FILE) the inspector reads the
// values of a database checkpoint/encrypt wrote; without the key it
// fails closed, naming the problem.
func TestInspectorReadsAnEncryptedDatabaseWithItsKeyFile(t *testing.T) {
	t.Parallel()
	old, active := newKey(t, "2026-11", 1), newKey(t, "2026-12", 2)
	ring, err := encrypt.NewKeyring(active, old)
	require.NoError(t, err)
	db := newDB(t, "encrypted.db", func(tb testing.TB, saver checkpoint.Saver) {
		app, err := docGraph(approve).Compile(graph.WithCheckpointer(encrypt.Wrap(saver, ring)))
		require.NoError(tb, err)
		_, err = app.Invoke(context.Background(), state.Writes(topicF.Set("secrets")), graph.WithThread("sealed"))
		require.NoError(tb, err)
	})
	keys := keyFile(t, active, old)

	st := decode[stateView](t, db, "state", "sealed", "-key-file", keys)
	assert.JSONEq(t, `"secrets"`, string(st.Values["topic"]))
	assert.JSONEq(t, `true`, string(st.Values["approved"]))

	r := cli(t, []string{keyFileEnv + "=" + keys}, "-db", db, "history", "sealed")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "review")

	r = cli(t, []string{keyFileEnv + "=" + keyFile(t, old)}, "-db", db, "state", "sealed")
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "2026-12", "the error names the missing key")

	bad := filepath.Join(t.TempDir(), "bad")
	require.NoError(t, os.WriteFile(bad, []byte("only-an-id\n"), 0o600))
	r = cli(t, nil, "-db", db, "-key-file", bad, "state", "sealed")
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, `line 1: want "ID BASE64"`)

	r = cli(t, nil, "-db", db, "state", "sealed")
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "is encrypted by checkpoint/encrypt: give its keys with -key-file PATH or $STATEGRAPH_KEY_FILE")
}
