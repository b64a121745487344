package agent_test

import (
	"strings"
	"testing"

	"github.com/stategraph/stategraph/chat/agent"
)

// Redaction never panics, is idempotent, and leaves no card number that
// the detector would find.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"card 4111 1111 1111 1111", "a@b.co 5500-0000-0000-0004", "+47 22 33 44 55", "", "1-2-3-4-5-6-7-8-9-0-1-2-3", "x@y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := agent.Redact{}
		once, _ := r.Text(s)
		twice, found := r.Text(once)
		if twice != once || found != nil {
			t.Fatalf("not idempotent: %q → %q → %q (%v)", s, once, twice, found)
		}
		if got := agent.CardNumber.Find(once); len(got) > 0 {
			t.Fatalf("a card number is left in %q: %v", once, got)
		}
		if strings.Contains(s, "[REDACTED_") {
			return
		}
		if once != s && !strings.Contains(once, "[REDACTED_") {
			t.Fatalf("changed without a marker: %q → %q", s, once)
		}
	})
}
