package graph

import "sync"

// stateCache keeps the decoded state of the newest checkpoints this
// process saved, so reading a thread's latest state, or resuming it, does
// not decode what the process already holds. Checkpoints never change, so
// an entry is valid as long as its id is the one asked for. It holds at
// most cacheSize states, forgetting the oldest.
type stateCache[S any] struct {
	mu    sync.Mutex
	byKey map[string]cached[S]
	order []string // keys, oldest first
}

type cached[S any] struct {
	id string
	st S
}

const cacheSize = 256

func cacheKey(thread, ns string) string { return thread + "\x00" + ns }

func (c *stateCache[S]) put(k, id string, st S) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = make(map[string]cached[S], cacheSize)
	}
	if e, ok := c.byKey[k]; ok {
		e.id, e.st = id, st
		c.byKey[k] = e
		return
	}
	{
		if len(c.order) >= cacheSize {
			delete(c.byKey, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, k)
	}
	c.byKey[k] = cached[S]{id: id, st: st}
}

// get returns the state of checkpoint id of the thread, if it is cached.
func (c *stateCache[S]) get(k, id string) (S, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok || e.id != id {
		var zero S
		return zero, false
	}
	return e.st, true
}

// holds reports whether the cache has a state of the thread at all (of
// any checkpoint).
func (c *stateCache[S]) holds(k string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.byKey[k]
	return ok
}
