package studio

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

//go:embed assets
var assets embed.FS

// Prefix is where Beside serves the page.
const Prefix = "/studio/"

var index = template.Must(template.ParseFS(assets, "assets/index.html"))

// Handler returns the page and its assets, for mounting at a path that
// ends in "/" (with http.StripPrefix when the path is not "/"): the page
// names its assets relative to itself. The page sends its API requests
// to apiBase followed by the API path ("/threads/search", …): "" for
// the root of the page's own origin, a path such as "/api" when the API
// is mounted under one, or an absolute URL ("http://127.0.0.1:2024"),
// which only works when that server allows the page's origin (package
// server sends no CORS headers: serve both on one origin). An apiBase
// that is none of these is an error.
func Handler(apiBase string, opts ...Option) (http.Handler, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	apiBase = strings.TrimSuffix(apiBase, "/")
	connect := "'self'"
	if apiBase != "" && !strings.HasPrefix(apiBase, "/") {
		u, err := url.Parse(apiBase)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("studio: API base %q is neither a path starting with / nor an http(s) URL", apiBase)
		}
		connect += " " + u.Scheme + "://" + u.Host
	}
	var page bytes.Buffer
	if err := index.Execute(&page, map[string]string{"API": apiBase}); err != nil {
		return nil, fmt.Errorf("studio: %w", err)
	}
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		return nil, fmt.Errorf("studio: %w", err)
	}
	files := http.FileServerFS(static)
	// An ETag per file: a reload revalidates each asset (no-cache) and gets
	// 304 Not Modified instead of the file again.
	tags, err := etags(static)
	if err != nil {
		return nil, fmt.Errorf("studio: %w", err)
	}
	tags["/"] = etag(page.Bytes())
	// Everything the page loads comes from this handler: no other host,
	// no inline script.
	csp := "default-src 'self'; connect-src " + connect + "; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "studio: the page is read with GET", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		p := path.Clean("/" + r.URL.Path)
		if p == "/" || p == "/index.html" {
			h.Set("Content-Type", "text/html; charset=utf-8")
			h.Set("ETag", tags["/"])
			http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(page.Bytes()))
			return
		}
		if p == "/traces" {
			o.traces.ServeHTTP(w, r) // a nil *Traces answers that it records none
			return
		}
		if tag, ok := tags[p]; ok {
			h.Set("ETag", tag)
		}
		files.ServeHTTP(w, r)
	}), nil
}

// etags returns the ETag of each file of fsys, by its path from "/".
func etags(fsys fs.FS) (map[string]string, error) {
	tags := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		tags["/"+name] = etag(b)
		return nil
	})
	return tags, err
}

func etag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// Option configures Handler and Beside.
type Option func(*options)

type options struct{ traces *Traces }

// WithTraces serves the runs t recorded at "traces" beside the page (at
// Prefix + "traces" with Beside), for the page's trace view of a
// checkpoint's run. Without it the trace view says nothing is recorded.
// Beside also receives OTLP/HTTP exports at OTLPPath into t (t.OTLP), and
// forgets a thread's runs (t.Forget) when the API deletes the thread.
func WithTraces(t *Traces) Option { return func(o *options) { o.traces = t } }

// Beside returns a handler serving the page at Prefix (/studio/) and api
// at every other path; GET / redirects to the page. The page calls the
// API on the same origin, so api is typically a *server.Server.
func Beside(api http.Handler, opts ...Option) http.Handler {
	page, err := Handler("", opts...)
	if err != nil {
		panic(err) // "" is always a valid API base
	}
	mux := http.NewServeMux()
	mux.Handle(Prefix, http.StripPrefix(strings.TrimSuffix(Prefix, "/"), page))
	mux.Handle("GET /{$}", http.RedirectHandler(Prefix, http.StatusFound))
	mux.Handle("/", api)
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.traces != nil {
		mux.Handle(OTLPPath, o.traces.OTLP())
		mux.Handle("DELETE /threads/{thread_id}", forgetting(api, o.traces))
	}
	return mux
}

// forgetting passes a thread's deletion to api and, once api has deleted
// it, drops the thread's traces.
func forgetting(api http.Handler, traces *Traces) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		thread := r.PathValue("thread_id") // before api's own mux sets its match on r
		sw := &statusWriter{ResponseWriter: w}
		api.ServeHTTP(sw, r)
		if sw.code/100 == 2 {
			// The thread is deleted whatever becomes of its traces: the
			// answer is sent. Forget drops them from memory in any case; a
			// row the file kept would only show again for a new thread of
			// the same id.
			_ = traces.Forget(r.Context(), thread)
		}
	})
}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the writer beneath.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
