package nodes

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/stategraph/stategraph/graph"
)

// ledger remembers the model calls made by node attempts that failed, so
// that a node retried by the graph (graph.WithRetry) counts them: the
// failed attempt's writes are dropped with it, its calls are not. The
// next attempt's allowance is what the budget left less the calls
// carried, and the attempt that succeeds adds them to its usage.
//
// An attempt is known by its task's idempotency key (graph.RunInfo), the
// same for every attempt of the task and different for every other task,
// thread and step, together with its node; outside a graph run, by its
// node and input state alone. Entries nobody takes (the run failed) are
// dropped after ledgerTTL.
type ledger struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]ledgerEntry
}

type ledgerEntry struct {
	calls int
	at    time.Time
}

// ledgerTTL is how long the calls of a failed attempt wait for its retry.
const ledgerTTL = time.Hour

func attemptKey(ctx context.Context, node string, s AgentState) [sha256.Size]byte {
	if info, ok := graph.RunInfo(ctx); ok && info.IdempotencyKey != "" {
		return sha256.Sum256([]byte(node + "\x00task\x00" + info.IdempotencyKey))
	}
	b, _ := json.Marshal(s)
	return sha256.Sum256(append([]byte(node+"\x00"), b...))
}

// carried returns the calls of the failed attempts of node's task (ctx)
// with input s.
func (l *ledger) carried(ctx context.Context, node string, s AgentState) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.m) == 0 {
		return 0
	}
	return l.m[attemptKey(ctx, node, s)].calls
}

// settle ends an attempt of node with input s that made calls model calls
// (those carried from earlier attempts included): a failed attempt leaves
// them for its retry, a successful one, or a cancelled one (a resume
// starts over from the checkpoint and its own count), clears them.
func (l *ledger) settle(ctx context.Context, node string, s AgentState, calls int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	for k, e := range l.m {
		if now.Sub(e.at) > ledgerTTL {
			delete(l.m, k)
		}
	}
	failed := err != nil && !errors.Is(err, context.Canceled)
	if !failed && len(l.m) == 0 {
		return
	}
	k := attemptKey(ctx, node, s)
	if !failed || calls == 0 {
		delete(l.m, k)
		return
	}
	if l.m == nil {
		l.m = map[[sha256.Size]byte]ledgerEntry{}
	}
	l.m[k] = ledgerEntry{calls: calls, at: now}
}
