package chat_test

import (
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ids(msgs []chat.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

func texts(msgs []chat.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Text()
	}
	return out
}

func TestAddMergesAsAddMessages(t *testing.T) {
	t.Parallel()
	h := func(id, text string) chat.Message { return chat.Human(text).WithID(id) }
	base := []chat.Message{h("1", "a"), h("2", "b"), h("3", "c")}
	for _, tc := range []struct {
		name      string
		old, upd  []chat.Message
		wantIDs   []string
		wantTexts []string
	}{
		{"append", base, []chat.Message{h("4", "d")}, []string{"1", "2", "3", "4"}, []string{"a", "b", "c", "d"}},
		{"empty update keeps the history", base, nil, []string{"1", "2", "3"}, []string{"a", "b", "c"}},
		{"replace in place", base, []chat.Message{h("2", "B")}, []string{"1", "2", "3"}, []string{"a", "B", "c"}},
		{"replace and append in one write", base, []chat.Message{h("4", "d"), h("1", "A")}, []string{"1", "2", "3", "4"}, []string{"A", "b", "c", "d"}},
		{"remove by id", base, []chat.Message{chat.Remove("2")}, []string{"1", "3"}, []string{"a", "c"}},
		{"remove a message added in the same write", base, []chat.Message{h("4", "d"), chat.Remove("4")}, []string{"1", "2", "3"}, []string{"a", "b", "c"}},
		{"a later write of the id brings it back", base, []chat.Message{chat.Remove("2"), h("2", "B")}, []string{"1", "2", "3"}, []string{"a", "B", "c"}},
		{"remove of a missing id is ignored", base, []chat.Message{chat.Remove("9")}, []string{"1", "2", "3"}, []string{"a", "b", "c"}},
		{"remove all keeps what follows the last marker", base, []chat.Message{h("4", "d"), chat.RemoveAll(), h("5", "e"), chat.RemoveAll(), h("6", "f"), h("7", "g")}, []string{"6", "7"}, []string{"f", "g"}},
		{"remove all alone empties", base, []chat.Message{chat.RemoveAll()}, []string{}, []string{}},
		{"same id twice in one write: the later replaces", nil, []chat.Message{h("1", "a"), h("1", "A")}, []string{"1"}, []string{"A"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			before := append([]chat.Message(nil), tc.old...)
			got := chat.Add(tc.old, tc.upd)
			assert.Equal(t, tc.wantIDs, ids(got))
			assert.Equal(t, tc.wantTexts, texts(got))
			assert.Equal(t, before, tc.old, "old is never modified")
		})
	}
}

func TestAddAssignsDeterministicUniqueIDs(t *testing.T) {
	t.Parallel()
	upd := []chat.Message{chat.Human("hi"), chat.AI("hello"), chat.Human("hi")}
	a := chat.Add(nil, upd)
	b := chat.Add(nil, upd)
	require.Len(t, a, 3)
	assert.Equal(t, ids(a), ids(b), "the same write gets the same ids")
	for _, m := range a {
		assert.Regexp(t, `^msg-[0-9a-f]{16}$`, m.ID)
	}
	assert.NotEqual(t, a[0].ID, a[2].ID, "the same text at another place gets another id")
	assert.Empty(t, upd[0].ID, "the update is not modified")

	// Appending the same text after the same message twice (the first
	// removed in between is the only way): ids stay unique in the history.
	h := []chat.Message{chat.Human("x").WithID("x")}
	h = chat.Add(h, []chat.Message{chat.AI("y")})
	first := h[1].ID
	h = chat.Add(h, []chat.Message{chat.Remove("x"), chat.Human("x").WithID("x2")})
	h = chat.Add(h, []chat.Message{chat.AI("y")})
	assert.Equal(t, []string{first, "x2", h[2].ID}, ids(h))
	assert.NotEqual(t, first, h[2].ID)

	// A derived id that collides with one in the history is made unique.
	taken := chat.DeriveID("p", chat.AI("z"))
	h = []chat.Message{chat.Human("q").WithID(taken), chat.Human("p").WithID("p")}
	h = chat.Add(h, []chat.Message{chat.AI("z")})
	require.Len(t, h, 3)
	assert.NotEqual(t, taken, h[2].ID)
}

func TestRemoveMarkersAreNotSentToModels(t *testing.T) {
	t.Parallel()
	mcs := chat.Contents([]chat.Message{chat.Human("a"), chat.Remove("x"), chat.AI("b")})
	require.Len(t, mcs, 2)
	assert.Equal(t, "human", string(mcs[0].Role))
	assert.Equal(t, "ai", string(mcs[1].Role))
}
