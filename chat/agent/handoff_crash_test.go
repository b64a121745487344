package agent_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stategraph/stategraph/chat"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/state"
	"github.com/stretchr/testify/require"
)

var errCrash = errors.New("the process died here")

// dyingSaver stands in for a process that dies at its failAt-th write
// (Put or PutWrites, 1-based): that write and every later one store
// nothing and fail. failAt 0 never fails; it counts.
type dyingSaver struct {
	checkpoint.Saver
	failAt int

	mu     sync.Mutex
	writes int
}

func (s *dyingSaver) write() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	if s.failAt > 0 && s.writes >= s.failAt {
		return fmt.Errorf("write %d: %w", s.writes, errCrash)
	}
	return nil
}

func (s *dyingSaver) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	if err := s.write(); err != nil {
		return checkpoint.Config{}, err
	}
	return s.Saver.Put(ctx, req)
}

func (s *dyingSaver) PutWrites(ctx context.Context, cfg checkpoint.Config, taskID string, ws []checkpoint.PendingWrite) error {
	if err := s.write(); err != nil {
		return err
	}
	return s.Saver.PutWrites(ctx, cfg, taskID, ws)
}

func (s *dyingSaver) List(ctx context.Context, cfg checkpoint.Config, o checkpoint.ListOptions) iter.Seq2[*checkpoint.Tuple, error] {
	return s.Saver.List(ctx, cfg, o)
}

// The process dies at each write of a triage → billing handoff in turn; a
// fresh process on the same database resumes the thread and ends with the
// conversation of the run that did not die: the handoff applied once.
func TestHandoffResumesAfterACrashMidHandoff(t *testing.T) {
	t.Parallel()
	srv := fakechat.NewTurns(t,
		fakechat.Turn{Marker: "You are triage.", ToolCalls: []fakechat.ToolCall{{ID: "call_h", Name: "transfer_to_billing", Arguments: `{}`}}},
		fakechat.Turn{Marker: "You are billing.", Content: "Your refund is on its way."},
	)
	model := openAI(t, srv)
	ctx := context.Background()
	input := state.Writes(deskMessages.Set([]chat.Message{chat.Human("I want a refund").WithID("h1")}))
	texts := func(d desk) []string {
		var out []string
		for _, m := range d.Messages {
			out = append(out, m.ID+" "+m.Text()+mustText(m))
		}
		return out
	}
	open := func(path string) *sqlite.Saver {
		s, err := sqlite.Open(path)
		require.NoError(t, err)
		return s
	}
	counted := open(filepath.Join(t.TempDir(), "count.db"))
	t.Cleanup(func() { _ = counted.Close() })
	counting := &dyingSaver{Saver: counted}
	want, err := twoAgents(t, model, counting).Invoke(ctx, input, graph.WithThread("d"))
	require.NoError(t, err)
	require.Len(t, want.Messages, 4)
	total := counting.writes
	require.Greater(t, total, 4)
	for failAt := 1; failAt <= total; failAt++ {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("crash%d.db", failAt))
		first := open(path)
		_, err := twoAgents(t, model, &dyingSaver{Saver: first, failAt: failAt}).Invoke(ctx, input, graph.WithThread("d"))
		require.ErrorIs(t, err, errCrash, "write %d of %d", failAt, total)
		require.NoError(t, first.Close())

		second := open(path)
		fresh := twoAgents(t, model, second)
		in := state.Update[desk]{}
		if _, err := fresh.State(ctx, graph.WithThread("d")); errors.Is(err, checkpoint.ErrNotFound) {
			in = input // nothing stored: the caller runs the input again
		}
		got, err := fresh.Invoke(ctx, in, graph.WithThread("d"))
		require.NoError(t, err, "write %d of %d", failAt, total)
		require.Equal(t, texts(want), texts(got), "died at write %d of %d", failAt, total)
		require.NoError(t, second.Close())
	}
}

func mustText(m chat.Message) string {
	r, _ := m.ToolResponse()
	return r.Content
}
