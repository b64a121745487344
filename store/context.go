package store

import "context"

type ctxKey struct{}

// With returns a copy of ctx that carries s, for the nodes of a run to
// find with From.
func With(ctx context.Context, s *Store) context.Context {
	return context.WithValue(ctx, ctxKey{}, s)
}

// From returns the store ctx carries, or nil when it carries none.
func From(ctx context.Context) *Store {
	s, _ := ctx.Value(ctxKey{}).(*Store)
	return s
}
