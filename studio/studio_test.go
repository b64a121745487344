package studio_test

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/studio"
)

func get(t *testing.T, h http.Handler, target string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	return rec.Result()
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

func TestThePageNamesItsAPIBase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ base, meta, connect string }{
		{"", `content=""`, "connect-src 'self';"},
		{"/api/", `content="/api"`, "connect-src 'self';"},
		{"http://127.0.0.1:2024", `content="http://127.0.0.1:2024"`, "connect-src 'self' http://127.0.0.1:2024;"},
	} {
		h, err := studio.Handler(tc.base)
		require.NoError(t, err, tc.base)
		resp := get(t, h, "/")
		require.Equal(t, 200, resp.StatusCode)
		assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
		assert.Contains(t, body(t, resp), `<meta name="stategraph-api" `+tc.meta+`>`, tc.base)
		assert.Contains(t, resp.Header.Get("Content-Security-Policy"), tc.connect, tc.base)
	}
}

func TestHandlerRefusesAnAPIBaseThatIsNeitherAPathNorAnHTTPURL(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"ftp://host", "api", "http://"} {
		_, err := studio.Handler(base)
		assert.ErrorContains(t, err, "neither a path", base)
	}
}

// Everything the page loads is served by the handler: no URL of another
// host in any asset, and every file the page or a module names exists.
func TestThePageLoadsNothingFromAnotherHost(t *testing.T) {
	t.Parallel()
	h, err := studio.Handler("")
	require.NoError(t, err)
	assets := os.DirFS("assets")
	ref := regexp.MustCompile(`(?:src|href)="([^"]+)"|from "([^"]+)"|import\("([^"]+)"\)`)
	external := regexp.MustCompile(`(?i)\b(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)
	var files int
	err = fs.WalkDir(assets, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := fs.ReadFile(assets, p)
		require.NoError(t, err)
		text := string(b)
		// The one URL allowed is the SVG namespace, which is a name, not a load.
		text = strings.ReplaceAll(text, "http://www.w3.org/2000/svg", "")
		assert.Empty(t, external.FindAllString(text, -1), "%s names another host", p)
		for _, m := range ref.FindAllStringSubmatch(text, -1) {
			target := m[1] + m[2] + m[3]
			if strings.HasPrefix(target, "data:") || strings.HasPrefix(target, "#") {
				continue
			}
			resolved := path.Join(path.Dir(p), target)
			resp := get(t, h, "/"+resolved)
			assert.Equal(t, 200, resp.StatusCode, "%s names %s, which the handler does not serve", p, target)
		}
		resp := get(t, h, "/"+p)
		assert.Equal(t, 200, resp.StatusCode, p)
		assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
		return nil
	})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, files, 8)
	js := get(t, h, "/js/app.js")
	assert.Contains(t, js.Header.Get("Content-Type"), "javascript", "modules need a JavaScript type")
}

func TestThePageIsReadOnly(t *testing.T) {
	t.Parallel()
	h, err := studio.Handler("")
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}")))
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
}

func TestBesideServesThePageAtStudioAndTheAPIElsewhere(t *testing.T) {
	t.Parallel()
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"api": "`+r.Method+" "+r.URL.Path+`"}`)
	})
	h := studio.Beside(api)
	for _, tc := range []struct {
		method, target string
		code           int
		want           string
	}{
		{"GET", "/studio/", 200, "<title>stategraph studio</title>"},
		{"GET", "/studio/js/app.js", 200, "import"},
		{"GET", "/studio", http.StatusTemporaryRedirect, ""},
		{"GET", "/", http.StatusFound, ""},
		{"GET", "/threads/t1/state", 200, `"GET /threads/t1/state"`},
		{"POST", "/threads/search", 200, `"POST /threads/search"`},
		{"POST", "/", 200, `"POST /"`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.target, strings.NewReader("{}")))
		assert.Equal(t, tc.code, rec.Code, "%s %s", tc.method, tc.target)
		assert.Contains(t, rec.Body.String(), tc.want, "%s %s", tc.method, tc.target)
		if tc.code == http.StatusFound || tc.code == http.StatusTemporaryRedirect {
			assert.Equal(t, "/studio/", rec.Header().Get("Location"), "%s %s", tc.method, tc.target)
		}
	}
}

// A reload revalidates the page and its assets by ETag: an unchanged one
// answers 304 Not Modified, with no body.
func TestAReloadGetsNotModified(t *testing.T) {
	t.Parallel()
	h, err := studio.Handler("")
	require.NoError(t, err)
	for _, target := range []string{"/", "/js/app.js", "/studio.css"} {
		first := httptest.NewRecorder()
		h.ServeHTTP(first, httptest.NewRequest(http.MethodGet, target, nil))
		require.Equal(t, http.StatusOK, first.Code, target)
		tag := first.Header().Get("ETag")
		require.NotEmpty(t, tag, "%s has an ETag", target)
		again := httptest.NewRequest(http.MethodGet, target, nil)
		again.Header.Set("If-None-Match", tag)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, again)
		assert.Equal(t, http.StatusNotModified, rec.Code, target)
		assert.Empty(t, rec.Body.String(), target)
		other := httptest.NewRequest(http.MethodGet, target, nil)
		other.Header.Set("If-None-Match", `"another"`)
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, other)
		assert.Equal(t, http.StatusOK, rec.Code, "%s with another tag", target)
	}
}
