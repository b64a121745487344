package chat

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/stategraph/stategraph/state"
)

// Messages declares a messages field of S whose reducer is Add (LangGraph's
// add_messages): write it with Set([]Message{…}) to append, replace by id and
// remove; Overwrite replaces the whole history for the step.
//
// The field is stored as an append field (state.AppendReduce): a step that
// only adds messages stores those messages, and a step that replaces or
// removes earlier ones stores the whole history, so a chat turn costs what
// its new messages cost.
func Messages[S any](name string, get func(*S) *[]Message) *state.Key[S, []Message] {
	return state.AppendReduce(name, get, AddReport)
}

// Add merges update into old as LangGraph's add_messages does, and returns
// the new history (old is never modified):
//
//   - every message without an id (in update, or in old) gets one, derived (DeriveID) from the id
//     of the message before it and its own content, and made unique in the
//     result — deterministic, so a replayed step assigns the same ids;
//   - if update holds RemoveAll(), the result is the messages of update
//     after the last such marker, and old is dropped;
//   - a message whose id is in the history (old, or earlier in update)
//     replaces that message in place; a Remove(id) marker deletes it, and a
//     later message with the same id in the same update brings it back;
//   - any other message is appended, in order.
//
// A Remove marker for an id the history does not hold is ignored (LangGraph
// raises an error; a reducer here cannot fail, and removing what is gone
// leaves the same history).
func Add(old, update []Message) []Message {
	out, _ := AddReport(old, update)
	return out
}

// AddReport is Add, and reports whether it only appended: old is a prefix
// of the result, unchanged (no message of it replaced, removed or given an
// id). The messages field's storage uses it (see Messages).
func AddReport(old, update []Message) (out []Message, appended bool) {
	if len(update) == 0 {
		return old, true
	}
	for i := len(update) - 1; i >= 0; i-- {
		if update[i].IsRemove() && update[i].ID == RemoveAllID {
			return assignIDs(nil, update[i+1:]), len(old) == 0
		}
	}
	appended = true
	merged := make([]Message, len(old), len(old)+len(update))
	copy(merged, old)
	for i := range merged {
		if merged[i].ID == "" && !merged[i].IsRemove() {
			// As add_messages does, the history's own messages get ids
			// too (only a history not made by this reducer lacks them).
			merged[i].ID = freeID(merged, prevID(merged[:i]), merged[i])
			appended = false
		}
	}
	if onlyNew(update) {
		// The common write, new messages without ids: no index of the
		// history is needed, only a check that each derived id is free.
		for _, m := range update {
			m.ID = freeID(merged, prevID(merged), m)
			merged = append(merged, m)
		}
		return merged, appended
	}
	index := make(map[string]int, len(old)+len(update))
	for i, m := range merged {
		if m.ID != "" {
			index[m.ID] = i
		}
	}
	removed := map[string]bool{}
	for _, m := range update {
		if m.ID == "" && !m.IsRemove() {
			m.ID = uniqueID(index, prevID(merged), m)
		}
		at, ok := index[m.ID]
		switch {
		case m.IsRemove():
			if ok {
				removed[m.ID] = true
			}
		case ok:
			delete(removed, m.ID)
			merged[at] = m
			appended = appended && at >= len(old)
		default:
			index[m.ID] = len(merged)
			merged = append(merged, m)
		}
	}
	if len(removed) == 0 {
		return merged, appended
	}
	kept := merged[:0]
	for i, m := range merged {
		if !removed[m.ID] {
			kept = append(kept, m)
		} else if i < len(old) {
			appended = false
		}
	}
	return kept, appended
}

// assignIDs returns msgs (no markers kept) with ids assigned, after prefix.
func assignIDs(prefix, msgs []Message) []Message {
	return Add(prefix, dropMarkers(msgs))
}

func dropMarkers(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if !m.IsRemove() {
			out = append(out, m)
		}
	}
	return out
}

func prevID(msgs []Message) string {
	if len(msgs) == 0 {
		return ""
	}
	return msgs[len(msgs)-1].ID
}

// onlyNew reports whether every message of update lacks an id (and none is
// a marker).
func onlyNew(update []Message) bool {
	for _, m := range update {
		if m.ID != "" || m.IsRemove() {
			return false
		}
	}
	return true
}

// freeID is uniqueID for a history without an index: it scans msgs.
func freeID(msgs []Message, prev string, m Message) string {
	id := DeriveID(prev, m)
	for n := 1; taken(msgs, id); n++ {
		id = DeriveID(prev+"#"+strconv.Itoa(n), m)
	}
	return id
}

func taken(msgs []Message, id string) bool {
	for i := range msgs {
		if msgs[i].ID == id {
			return true
		}
	}
	return false
}

// uniqueID derives the id of m appended after a message with id prev, made
// unique among the ids in index.
func uniqueID(index map[string]int, prev string, m Message) string {
	id := DeriveID(prev, m)
	for n := 1; ; n++ {
		if _, taken := index[id]; !taken {
			return id
		}
		id = DeriveID(prev+"#"+strconv.Itoa(n), m)
	}
}

// DeriveID returns the id the reducer gives m when it follows a message
// with id prev: "msg-" and 16 hex digits of a SHA-256 of prev and m's
// content (its role and parts, in the form earlier versions hashed, so a
// message gets the id it always got, then its other fields). A node that
// needs a message's id before the reducer runs (to tag streamed tokens
// with it, say) can set its own; any unique string will do.
func DeriveID(prev string, m Message) string {
	h := sha256.New()
	h.Write([]byte(prev))
	h.Write([]byte{0})
	b, ok := legacyJSON(m)
	if !ok { // a part this package cannot encode: hash its Go form
		b = []byte(strconv.Quote(string(m.Role)) + ":" + m.Text())
	}
	h.Write(b)
	if m.Name != "" || m.Status != "" || len(m.InvalidToolCalls) > 0 || m.AdditionalKwargs != nil || m.ResponseMetadata != nil || m.Usage != nil {
		extra, _ := json.Marshal([]any{m.Name, m.Status, m.InvalidToolCalls, m.AdditionalKwargs, m.ResponseMetadata, m.Usage})
		h.Write(extra)
	}
	return "msg-" + hex.EncodeToString(h.Sum(nil)[:8])
}
