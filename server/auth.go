package server

import (
	"context"
	"fmt"
	"maps"
	"net/http"
)

// OwnerKey is the thread metadata key that holds the user who created the
// thread, when the server authenticates (WithAuth).
const OwnerKey = "owner"

// WithAuth authenticates each request: auth returns the user making it, or
// an error for a 401. Each thread is then its creator's: a thread's
// metadata gets OwnerKey set to the user (and keeps it through updates),
// and another user's request finds no such thread (404), in searches
// as in reads, runs and crons. Without WithAuth there is no
// authentication: serve such a server on loopback only (as `stategraph
// serve` does).
func WithAuth(auth func(r *http.Request) (user string, err error)) Option {
	return func(o *options) { o.auth = auth }
}

type userKey struct{}

// authenticate runs the auth hook and puts the user in the request's
// context; false when it answered 401.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if s.opts.auth == nil {
		return r, true
	}
	user, err := s.opts.auth(r)
	if err != nil {
		writeError(w, http.StatusUnauthorized, err.Error())
		return r, false
	}
	return r.WithContext(context.WithValue(r.Context(), userKey{}, user)), true
}

// userOf returns the request's user, when the server authenticates.
func userOf(ctx context.Context) (string, bool) {
	u, ok := ctx.Value(userKey{}).(string)
	return u, ok
}

// own marks metadata as the request's user's.
func own(ctx context.Context, md map[string]any) map[string]any {
	if user, ok := userOf(ctx); ok {
		if md == nil {
			md = map[string]any{}
		}
		md[OwnerKey] = user
	}
	return md
}

// ownedBy adds the request's user to a metadata filter.
func ownedBy(ctx context.Context, filter map[string]any) map[string]any {
	if user, ok := userOf(ctx); ok {
		filter = maps.Clone(filter)
		if filter == nil {
			filter = map[string]any{}
		}
		filter[OwnerKey] = user
	}
	return filter
}

// visible reports whether the request's user may see a thread.
func visible(ctx context.Context, md map[string]any) bool {
	user, ok := userOf(ctx)
	return !ok || md[OwnerKey] == user
}

// threadFor reads a thread the request's user may see: another user's is
// ErrNotFound, as a thread that does not exist.
func (s *Server) threadFor(ctx context.Context, id string) (ThreadRecord, error) {
	t, err := s.store.GetThread(ctx, id)
	if err == nil && !visible(ctx, t.Metadata) {
		return ThreadRecord{}, fmt.Errorf("thread %q: %w", id, ErrNotFound)
	}
	return t, err
}
