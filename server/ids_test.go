package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileIDs are ids that would break or disguise a response carrying
// them: in a header, an SSE line or a terminal.
var hostileIDs = map[string]string{
	"NUL":            "x\x00y",
	"ESC":            "x\x1b[2Jy",
	"CR LF":          "x\r\nSet-Cookie: a=b",
	"LF":             "x\ny",
	"TAB":            "x\ty",
	"DEL":            "x\x7fy",
	"C1 NEL":         "x\u0085y",
	"bidi override":  "x\u202ey",
	"bidi isolate":   "x\u2066y",
	"right-to-left":  "x\u200fy",
	"line separator": "x\u2028y",
}

// idPosition is one place of a request where an id goes: X stands for it.
type idPosition struct {
	method, path string // X in path: the id path-escaped; in a query: query-escaped
	body         string // X: the id as a JSON string's content
}

// idPositions are the id positions of every endpoint that takes one.
var idPositions = []idPosition{
	// Path segments.
	{"GET", "/assistants/X", ""},
	{"GET", "/assistants/X/graph", ""},
	{"GET", "/assistants/X/schemas", ""},
	{"GET", "/threads/X", ""},
	{"PATCH", "/threads/X", `{"metadata":{}}`},
	{"DELETE", "/threads/X", ""},
	{"POST", "/threads/X/copy", ""},
	{"GET", "/threads/X/state", ""},
	{"GET", "/threads/t/state/X", ""},
	{"POST", "/threads/X/state/checkpoint", `{"checkpoint":{}}`},
	{"POST", "/threads/X/state", `{"values":{}}`},
	{"POST", "/threads/X/history", `{}`},
	{"GET", "/threads/X/history", ""},
	{"POST", "/threads/X/runs", `{"assistant_id":"echo"}`},
	{"POST", "/threads/X/runs/stream", `{"assistant_id":"echo"}`},
	{"POST", "/threads/X/runs/wait", `{"assistant_id":"echo"}`},
	{"GET", "/threads/X/runs", ""},
	{"GET", "/threads/X/runs/r", ""},
	{"GET", "/threads/t/runs/X", ""},
	{"DELETE", "/threads/t/runs/X", ""},
	{"POST", "/threads/t/runs/X/cancel", ""},
	{"GET", "/threads/t/runs/X/join", ""},
	{"GET", "/threads/t/runs/X/stream", ""},
	{"POST", "/threads/X/runs/crons", `{"assistant_id":"echo","schedule":"* * * * *"}`},
	{"PATCH", "/runs/crons/X", `{}`},
	{"DELETE", "/runs/crons/X", ""},
	// Query values.
	{"GET", "/store/items?namespace=X&key=k", ""},
	{"GET", "/store/items?namespace=a&key=X", ""},
	{"DELETE", "/store/items?namespace=X&key=k", ""},
	{"GET", "/threads/t/runs?status=X", ""},
	// Body fields.
	{"POST", "/threads", `{"thread_id":"X"}`},
	{"POST", "/threads/search", `{"ids":["X"]}`},
	{"POST", "/threads/count", `{"ids":["X"]}`},
	{"POST", "/assistants/search", `{"graph_id":"X"}`},
	{"POST", "/assistants/count", `{"graph_id":"X"}`},
	{"POST", "/threads/t/runs", `{"assistant_id":"X"}`},
	{"POST", "/threads/t/runs/wait", `{"assistant_id":"echo","checkpoint_id":"X"}`},
	{"POST", "/threads/t/runs/stream", `{"assistant_id":"echo","checkpoint":{"checkpoint_id":"X"}}`},
	{"POST", "/threads/t/runs/wait", `{"assistant_id":"echo","checkpoint":{"checkpoint_ns":"X"}}`},
	{"POST", "/threads/t/runs/wait", `{"assistant_id":"echo","config":{"configurable":{"thread_id":"X"}}}`},
	{"POST", "/runs/wait", `{"assistant_id":"X"}`},
	{"POST", "/runs", `{"assistant_id":"echo","config":{"configurable":{"checkpoint_ns":"X"}}}`},
	{"POST", "/threads/t/state", `{"values":{},"as_node":"X"}`},
	{"POST", "/threads/t/state", `{"values":{},"checkpoint_id":"X"}`},
	{"POST", "/threads/t/state", `{"values":{},"checkpoint":{"checkpoint_id":"X"}}`},
	{"POST", "/threads/t/state/checkpoint", `{"checkpoint":{"checkpoint_id":"X"}}`},
	{"POST", "/threads/t/history", `{"before":{"checkpoint_id":"X"}}`},
	{"POST", "/threads/t/history", `{"checkpoint":{"checkpoint_ns":"X"}}`},
	{"POST", "/runs/crons", `{"assistant_id":"X","schedule":"* * * * *"}`},
	{"POST", "/runs/crons/search", `{"thread_id":"X"}`},
	{"POST", "/runs/crons/count", `{"assistant_id":"X"}`},
	{"PUT", "/store/items", `{"namespace":["X"],"key":"k","value":{}}`},
	{"PUT", "/store/items", `{"namespace":["a"],"key":"X","value":{}}`},
	{"DELETE", "/store/items", `{"namespace":["X"],"key":"k"}`},
	{"POST", "/store/items/search", `{"namespace_prefix":["X"]}`},
	{"POST", "/store/namespaces", `{"prefix":["X"]}`},
	{"POST", "/store/namespaces", `{"suffix":["X"]}`},
}

// requireCleanHeaders checks that no header name or value the server
// wrote holds a control or bidirectional formatting character.
func requireCleanHeaders(t *testing.T, h http.Header, what string) {
	t.Helper()
	for k, vs := range h {
		for _, v := range append([]string{k}, vs...) {
			for _, r := range v {
				require.False(t, unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r), "%s: header %s: %q", what, k, v)
			}
		}
	}
}

// TestIDsWithControlCharactersAreRefusedEverywhere: NUL, ESC, CR/LF, other
// C0 and C1 controls and bidirectional overrides in any id position of any
// endpoint are a 422 naming the character, and nothing runs or is stored.
func TestIDsWithControlCharactersAreRefusedEverywhere(t *testing.T) {
	t.Parallel()
	h := newItemsHarness(t)
	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	for name, id := range hostileIDs {
		for _, p := range idPositions {
			path := p.path
			if before, _, ok := strings.Cut(path, "?"); ok {
				path = before + "?" + strings.ReplaceAll(path[len(before)+1:], "X", url.QueryEscape(id))
			} else {
				path = strings.ReplaceAll(path, "X", url.PathEscape(id))
			}
			enc, err := json.Marshal(id)
			require.NoError(t, err)
			body := strings.ReplaceAll(p.body, `"X"`, string(enc))
			what := name + ": " + p.method + " " + p.path + " " + p.body
			req, err := http.NewRequest(p.method, h.http.URL+path, strings.NewReader(body))
			require.NoError(t, err, what)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err, what)
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, "%s: %s", what, data)
			assert.Contains(t, detail(t, data), "ids may not hold control characters or bidirectional overrides", what)
			requireCleanHeaders(t, resp.Header, what)
		}
	}
	assert.Empty(t, h.list("GET", "/threads/t/runs", nil), "no refused request started a run")
	threads := h.list("POST", "/threads/search", map[string]any{})
	require.Len(t, threads, 1, "no refused request made a thread")
	assert.Equal(t, "t", threads[0]["thread_id"])
}

// TestHeadersTheServerWrites pins the headers of each kind of answer:
// their names, and the ids in them path-escaped, so that an id with
// characters a URL path escapes (a space, %, ?, #, non-ASCII) makes a
// Content-Location a client can follow.
func TestHeadersTheServerWrites(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const tid = "a b%c?d#é"
	h.json("POST", "/threads", map[string]any{"thread_id": tid}, 200)
	base := "/threads/" + url.PathEscape(tid)
	send := func(method, path, body string) *http.Response {
		req, err := http.NewRequest(method, h.http.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, err = io.Copy(io.Discard, resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		requireCleanHeaders(t, resp.Header, method+" "+path)
		return resp
	}
	names := func(resp *http.Response) []string {
		var out []string
		for k := range resp.Header {
			switch k {
			case "Date", "Content-Length", "Transfer-Encoding":
				continue // net/http's own
			}
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		name, method, path, body string
		headers                  []string
		location                 bool // Location is Content-Location's stream
	}{
		{"json", "GET", base, "", []string{"Content-Type"}, false},
		{"error", "GET", "/threads/nope", "", []string{"Content-Type"}, false},
		{"background run", "POST", base + "/runs", `{"assistant_id":"echo","input":{"input":"hi"}}`, []string{"Content-Location", "Content-Type"}, false},
		{"wait", "POST", base + "/runs/wait", `{"assistant_id":"echo","input":{"input":"hi"},"multitask_strategy":"enqueue"}`, []string{"Content-Location", "Content-Type"}, false},
		{"stream", "POST", base + "/runs/stream", `{"assistant_id":"echo","input":{"input":"hi"},"multitask_strategy":"enqueue"}`, []string{"Cache-Control", "Content-Location", "Content-Type", "Location", "X-Accel-Buffering"}, true},
	} {
		resp := send(c.method, c.path, c.body)
		require.Less(t, resp.StatusCode, 500, c.name)
		assert.Equal(t, c.headers, names(resp), c.name)
		loc := resp.Header.Get("Content-Location")
		if loc == "" {
			continue
		}
		assert.True(t, strings.HasPrefix(loc, base+"/runs/"), "%s: %s is the run's escaped path", c.name, loc)
		if c.location {
			assert.Equal(t, loc+"/stream", resp.Header.Get("Location"), c.name)
		}
		code, data := h.do("GET", loc, nil)
		require.Equal(t, 200, code, "%s: Content-Location %s leads to the run: %s", c.name, loc, data)
		rec := decode[map[string]any](t, data)
		assert.Equal(t, tid, rec["thread_id"], c.name)
	}
}
