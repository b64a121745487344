package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/inspect"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/store"
	"github.com/stategraph/stategraph/server"
)

// liveThreads is the studio's thread records: the server's Store, which
// also knows every thread of the checkpoint database, whoever wrote it
// and whenever. A program that writes checkpoints without the server
// (the examples) leaves no record; a thread search first gives each such
// thread one (one query lists the database's threads) and moves a
// record's update time to its newest checkpoint, and reading a thread by
// id does the same for that thread. A thread is recorded under the
// served graph whose state fields hold all its fields, or else under the
// read-only graph with the reason in its metadata. A record keeps the
// thread's status at rest (server.RestingStatus), read from its state
// when it is recorded and when its head moves, so that a search reads no
// thread's state.
type liveThreads struct {
	server.Store
	lister store.ThreadLister
	saver  checkpoint.Saver
	graphs []server.Graph          // the served graphs, without the read-only one
	fields [][]string              // each served graph's state fields
	byID   map[string]server.Graph // the served graphs and the read-only one, by id

	mu sync.Mutex // one adoption at a time
}

// newLiveThreads wraps records for the served graphs.
func newLiveThreads(records server.Store, lister store.ThreadLister, saver checkpoint.Saver, graphs []server.Graph) (*liveThreads, error) {
	l := &liveThreads{Store: records, lister: lister, saver: saver, graphs: graphs, byID: map[string]server.Graph{readOnlyGraphID: readOnlyGraph{saver: saver}}}
	for _, g := range graphs {
		l.byID[g.ID()] = g
		var sch struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(g.Schemas().State, &sch); err != nil {
			return nil, fmt.Errorf("graph %q: state schema: %w", g.ID(), err)
		}
		var fs []string
		for f := range sch.Properties {
			fs = append(fs, f)
		}
		l.fields = append(l.fields, fs)
	}
	return l, nil
}

// SearchThreads records the threads written since the last search, then
// searches the records.
func (l *liveThreads) SearchThreads(ctx context.Context, q server.ThreadQuery) ([]server.ThreadRecord, error) {
	if _, err := l.sync(ctx); err != nil {
		return nil, err
	}
	return l.Store.SearchThreads(ctx, q)
}

// GetThread reads a thread's record, recording first a thread of the
// checkpoint database that has none.
func (l *liveThreads) GetThread(ctx context.Context, id string) (server.ThreadRecord, error) {
	t, err := l.Store.GetThread(ctx, id)
	if !errors.Is(err, server.ErrNotFound) {
		return t, err
	}
	head, herr := l.saver.Get(ctx, checkpoint.Config{ThreadID: id})
	if errors.Is(herr, checkpoint.ErrNotFound) {
		return t, err
	}
	if herr != nil {
		return t, fmt.Errorf("thread %q: %w", id, herr)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.adopt(ctx, id, head); err != nil {
		return t, err
	}
	return l.Store.GetThread(ctx, id)
}

// sync gives every thread of the checkpoint database without a record
// one, and moves the update time of a record whose thread has a newer
// checkpoint, reading its status anew. It returns a line for each thread
// recorded.
func (l *liveThreads) sync(ctx context.Context) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	threads, err := l.lister.Threads(ctx)
	if err != nil {
		return nil, err
	}
	recs, err := l.Store.SearchThreads(ctx, server.ThreadQuery{})
	if err != nil {
		return nil, err
	}
	byID := make(map[string]server.ThreadRecord, len(recs))
	for _, r := range recs {
		byID[r.ThreadID] = r
	}
	var lines []string
	for _, t := range threads {
		rec, ok := byID[t.ID]
		if !ok {
			head, err := l.saver.Get(ctx, checkpoint.Config{ThreadID: t.ID})
			if err != nil {
				return nil, fmt.Errorf("thread %q: %w", t.ID, err)
			}
			line, err := l.adopt(ctx, t.ID, head)
			if err != nil {
				return nil, err
			}
			lines = append(lines, line)
			continue
		}
		if t.Updated.After(rec.UpdatedAt) && rec.Status != server.StatusBusy {
			rec.UpdatedAt = t.Updated
			status, err := server.RestingStatus(ctx, l.byID[rec.GraphID], rec)
			if err != nil {
				return nil, err
			}
			rec.Status = status
			if err := l.Store.PutThread(ctx, rec); err != nil {
				return nil, fmt.Errorf("thread %q: %w", t.ID, err)
			}
		}
	}
	return lines, nil
}

// adopt records thread, whose latest checkpoint is head, under the graph
// that has its fields.
func (l *liveThreads) adopt(ctx context.Context, thread string, head *checkpoint.Tuple) (string, error) {
	var channels []string
	for ch := range head.Checkpoint.Versions {
		if !checkpoint.IsReserved(ch) && !strings.HasPrefix(ch, "__") {
			channels = append(channels, ch)
		}
	}
	slices.Sort(channels)
	created := head.Checkpoint.CreatedAt
	rec := server.ThreadRecord{ThreadID: thread, Status: server.StatusIdle, CreatedAt: created, UpdatedAt: created}
	var line string
	if g := graphFor(channels, l.graphs, l.fields); g != nil {
		rec.GraphID = g.ID()
		rec.Metadata = map[string]any{"graph_id": g.ID()}
		line = fmt.Sprintf("thread %s: listed as a thread of graph %s", thread, g.ID())
	} else {
		reason := fmt.Sprintf("no served graph has the fields %s", strings.Join(channels, ", "))
		if len(channels) == 0 {
			reason = "its latest checkpoint has no fields"
		}
		rec.GraphID = readOnlyGraphID
		rec.Metadata = map[string]any{"graph_id": readOnlyGraphID, readOnlyReasonKey: reason}
		line = fmt.Sprintf("thread %s: listed read-only, %s", thread, reason)
	}
	if st, err := inspect.StatusOf(head); err == nil && st.State == inspect.StateError {
		rec.Status, rec.Error = server.StatusError, st.Error
	}
	status, err := server.RestingStatus(ctx, l.byID[rec.GraphID], rec)
	if err != nil {
		return "", err
	}
	rec.Status = status
	if err := l.Store.CreateThread(ctx, rec); err != nil && !errors.Is(err, server.ErrExists) {
		return "", fmt.Errorf("thread %q: %w", thread, err)
	}
	return line, nil
}

// graphFor returns the graph whose fields hold every channel, the one
// with the fewest fields when several do; nil when none does.
func graphFor(channels []string, graphs []server.Graph, fields [][]string) server.Graph {
	var best server.Graph
	bestN := 0
	for i, g := range graphs {
		ok := len(channels) > 0
		for _, ch := range channels {
			if !slices.Contains(fields[i], ch) {
				ok = false
				break
			}
		}
		if ok && (best == nil || len(fields[i]) < bestN) {
			best, bestN = g, len(fields[i])
		}
	}
	return best
}
