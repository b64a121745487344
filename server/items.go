package server

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/stategraph/stategraph/store"
)

// WithStore serves LangGraph's store API (/store/items,
// /store/items/search, /store/namespaces: what the SDKs' client.store
// calls) over st, the long-term cross-thread store the graphs may use
// too (graph.WithStore). Without it those endpoints are 404. The server's
// own thread and run records are WithRecords'.
func WithStore(st *store.Store) Option { return func(o *options) { o.items = st } }

func (s *Server) itemRoutes(m *http.ServeMux) {
	if s.opts.items == nil {
		return
	}
	m.HandleFunc("PUT /store/items", s.putItem)
	m.HandleFunc("GET /store/items", s.getItem)
	m.HandleFunc("DELETE /store/items", s.deleteItem)
	m.HandleFunc("POST /store/items/search", s.searchItems)
	m.HandleFunc("POST /store/namespaces", s.listNamespaces)
}

// itemJSON is LangGraph's Item (with score in search results).
func itemJSON(it *store.Item, score bool) map[string]any {
	out := map[string]any{
		"namespace": it.Namespace, "key": it.Key, "value": it.Value,
		"created_at": timeJSON(it.CreatedAt), "updated_at": timeJSON(it.UpdatedAt),
	}
	if score {
		out["score"] = it.Score
	}
	return out
}

// failItem maps the store's errors: a bad namespace or value is 422, a
// missing item 404.
func failItem(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, store.ErrInvalidNamespace), errors.Is(err, store.ErrNoIndex):
		writeError(w, http.StatusUnprocessableEntity, err.Error())
	default:
		fail(w, err)
	}
}

type putItemRequest struct {
	Namespace []string       `json:"namespace"`
	Key       string         `json:"key"`
	Value     map[string]any `json:"value"`
	Index     any            `json:"index"` // false, or the fields to index
	TTL       *float64       `json:"ttl"`   // minutes
}

func (s *Server) putItem(w http.ResponseWriter, r *http.Request) {
	var req putItemRequest
	if err := readJSON(r, &req); err != nil {
		fail(w, err)
		return
	}
	if req.Key == "" {
		fail(w, &InputError{Field: "key", Err: errors.New("required")})
		return
	}
	if req.Value == nil {
		fail(w, &InputError{Field: "value", Err: errors.New("want a JSON object")})
		return
	}
	var opts []store.PutOption
	switch ix := req.Index.(type) {
	case nil:
	case bool:
		if !ix {
			opts = append(opts, store.NoIndex())
		}
	case []any:
		paths := make([]string, 0, len(ix))
		for _, p := range ix {
			ps, ok := p.(string)
			if !ok {
				fail(w, &InputError{Field: "index", Err: fmt.Errorf("want false or a list of field paths, got %v", req.Index)})
				return
			}
			paths = append(paths, ps)
		}
		opts = append(opts, store.IndexFields(paths...))
	default:
		fail(w, &InputError{Field: "index", Err: fmt.Errorf("want false or a list of field paths, got %v", req.Index)})
		return
	}
	if req.TTL != nil {
		if *req.TTL <= 0 {
			fail(w, &InputError{Field: "ttl", Err: fmt.Errorf("want minutes above 0, got %v", *req.TTL)})
			return
		}
		opts = append(opts, store.WithTTL(time.Duration(*req.TTL*float64(time.Minute))))
	}
	if err := s.opts.items.Put(r.Context(), req.Namespace, req.Key, req.Value, opts...); err != nil {
		failItem(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) getItem(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var ns []string
	if v := q.Get("namespace"); v != "" {
		ns = strings.Split(v, ".")
	}
	it, err := s.opts.items.Get(r.Context(), ns, q.Get("key"))
	if err != nil {
		failItem(w, err)
		return
	}
	writeJSON(w, 200, itemJSON(it, false))
}

func (s *Server) deleteItem(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Namespace []string `json:"namespace"`
		Key       string   `json:"key"`
	}
	if err := readJSON(r, &req); err != nil {
		fail(w, err)
		return
	}
	if err := s.opts.items.Delete(r.Context(), req.Namespace, req.Key); err != nil {
		failItem(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) searchItems(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Prefix []string       `json:"namespace_prefix"`
		Filter map[string]any `json:"filter"`
		Limit  int            `json:"limit"`
		Offset int            `json:"offset"`
		Query  string         `json:"query"`
	}
	if err := readJSON(r, &req); err != nil {
		fail(w, err)
		return
	}
	items, err := s.opts.items.Search(r.Context(), req.Prefix, store.SearchOptions{Query: req.Query, Filter: req.Filter, Limit: req.Limit, Offset: req.Offset})
	if err != nil {
		failItem(w, err)
		return
	}
	out := make([]map[string]any, len(items))
	for i := range items {
		out[i] = itemJSON(&items[i], req.Query != "")
	}
	writeJSON(w, 200, map[string]any{"items": out})
}

func (s *Server) listNamespaces(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Prefix   []string `json:"prefix"`
		Suffix   []string `json:"suffix"`
		MaxDepth int      `json:"max_depth"`
		Limit    int      `json:"limit"`
		Offset   int      `json:"offset"`
	}
	if err := readJSON(r, &req); err != nil {
		fail(w, err)
		return
	}
	nss, err := s.opts.items.ListNamespaces(r.Context(), store.ListNamespacesOptions{Prefix: req.Prefix, Suffix: req.Suffix, MaxDepth: req.MaxDepth, Limit: req.Limit, Offset: req.Offset})
	if err != nil {
		failItem(w, err)
		return
	}
	if nss == nil {
		nss = [][]string{}
	}
	writeJSON(w, 200, map[string]any{"namespaces": nss})
}
