package chat_test

import (
	"fmt"
	"testing"

	"github.com/stategraph/stategraph/chat"
)

// BenchmarkAdd appends one message without an id to histories of growing
// length: the reducer copies the history and indexes its ids, so the cost
// grows with the length.
func BenchmarkAdd(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		h := make([]chat.Message, n)
		for i := range h {
			h[i] = chat.Human(fmt.Sprint("message ", i)).WithID(fmt.Sprint(i))
		}
		upd := []chat.Message{chat.AI("a reply of a few words")}
		b.Run(fmt.Sprint("history=", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = chat.Add(h, upd)
			}
		})
	}
}
