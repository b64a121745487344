package chat_test

import (
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The cases of LangGraph's own add_messages tests
// (libs/langgraph/tests/test_messages_state.py), with its expected
// values. Where stategraph differs it says so: a removal of an id the
// history does not hold is ignored (LangGraph raises; a reducer here
// cannot fail), and ids are derived, not random UUIDs.
func TestAddMatchesLangGraphsAddMessagesTests(t *testing.T) {
	t.Parallel()
	human := func(id, text string) chat.Message { return chat.Human(text).WithID(id) }
	ai := func(id, text string) chat.Message { return chat.AI(text).WithID(id) }
	system := func(id, text string) chat.Message { return chat.System(text).WithID(id) }
	for _, tc := range []struct {
		name        string
		left, right []chat.Message
		want        []chat.Message
	}{
		{"add a single message", []chat.Message{human("1", "Hello")}, []chat.Message{ai("2", "Hi there!")},
			[]chat.Message{human("1", "Hello"), ai("2", "Hi there!")}},
		{"add several messages", []chat.Message{human("1", "Hello")}, []chat.Message{ai("2", "Hi there!"), system("3", "System message")},
			[]chat.Message{human("1", "Hello"), ai("2", "Hi there!"), system("3", "System message")}},
		{"update an existing message", []chat.Message{human("1", "Hello")}, []chat.Message{human("1", "Hello again")},
			[]chat.Message{human("1", "Hello again")}},
		{"duplicates in the input: the last wins", nil, []chat.Message{ai("1", "Hi there!"), ai("1", "Hi there again!")},
			[]chat.Message{ai("1", "Hi there again!")}},
		{"remove a message", []chat.Message{human("1", "Hello"), ai("2", "Hi there!")}, []chat.Message{chat.Remove("2")},
			[]chat.Message{human("1", "Hello")}},
		{"remove the same message twice", []chat.Message{human("1", "Hello"), ai("2", "Hi there!")}, []chat.Message{chat.Remove("2"), chat.Remove("2")},
			[]chat.Message{human("1", "Hello")}},
		{"mixed operations", []chat.Message{human("1", "Hello"), ai("2", "Hi there!")},
			[]chat.Message{human("1", "Updated hello"), chat.Remove("2"), system("3", "New message")},
			[]chat.Message{human("1", "Updated hello"), system("3", "New message")}},
		{"empty inputs", nil, nil, nil},
		{"empty left", nil, []chat.Message{human("1", "Hello")}, []chat.Message{human("1", "Hello")}},
		{"empty right", []chat.Message{human("1", "Hello")}, nil, []chat.Message{human("1", "Hello")}},
		{"delete all one by one", []chat.Message{human("1", "Hello"), ai("2", "Hi there!")}, []chat.Message{chat.Remove("1"), chat.Remove("2")},
			[]chat.Message{}},
		{"REMOVE_ALL_MESSAGES keeps what follows it", []chat.Message{human("1", "Hello"), ai("2", "Hi there!")},
			[]chat.Message{chat.RemoveAll(), human("3", "fresh start")},
			[]chat.Message{human("3", "fresh start")}},
		{"a message before REMOVE_ALL_MESSAGES is dropped with the history", []chat.Message{human("1", "Hello")},
			[]chat.Message{ai("2", "gone"), chat.RemoveAll(), ai("3", "kept")},
			[]chat.Message{ai("3", "kept")}},
		{"a removal of a missing id is ignored (LangGraph raises)", []chat.Message{human("1", "Hello")}, []chat.Message{chat.Remove("2")},
			[]chat.Message{human("1", "Hello")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := chat.Add(tc.left, tc.right)
			if len(tc.want) == 0 {
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// test_missing_ids: messages without ids get one each, distinct; and
// test_messages_state: a ("user", "meow") pair is a human message.
func TestAddAssignsIDsAsLangGraphDoes(t *testing.T) {
	t.Parallel()
	got := chat.Add([]chat.Message{chat.Human("Hello")}, []chat.Message{chat.AI("Hi there!")})
	require.Len(t, got, 2)
	for _, m := range got {
		assert.NotEmpty(t, m.ID)
	}
	assert.NotEqual(t, got[0].ID, got[1].ID)

	in, err := chat.DecodeMessages([]byte(`[["user","meow"]]`))
	require.NoError(t, err)
	got = chat.Add(nil, append(in, chat.Human("foo")))
	assert.Equal(t, []string{"meow", "foo"}, texts(got))
	assert.Equal(t, "human", string(got[0].Role))
	assert.NotEmpty(t, got[0].ID)
}
