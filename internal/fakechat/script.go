package fakechat

import (
	"strings"
	"sync"
)

// scripted is what Server's rules and TurnServer's turns share: the marker
// a request must contain, and whether the entry answers one request only.
type scripted interface {
	script() (marker string, once bool)
}

func (r Rule) script() (string, bool) { return r.Marker, r.Once }
func (t Turn) script() (string, bool) { return t.Marker, t.Once }

// script records the requests a server got and answers each with the
// first entry whose marker it contains (skipping used Once entries).
type script[T scripted] struct {
	mu      sync.Mutex
	entries []T
	used    []bool
	bodies  []string
}

func newScript[T scripted](entries []T) script[T] {
	return script[T]{entries: entries, used: make([]bool, len(entries))}
}

// take records body and returns the entry that answers it.
func (s *script[T]) take(body string) (T, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bodies = append(s.bodies, body)
	for i, e := range s.entries {
		marker, once := e.script()
		if (once && s.used[i]) || !strings.Contains(body, marker) {
			continue
		}
		s.used[i] = true
		return e, true
	}
	var zero T
	return zero, false
}

// Requests returns the bodies of the requests received so far, in order.
func (s *script[T]) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}
