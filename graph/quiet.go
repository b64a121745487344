package graph

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// runQuiet is runConcurrently for a run that streams nothing: no task has
// anything to hand the run's goroutine, so that goroutine is itself the
// first worker, and a timer, not a loop of messages, watches for stalls.
// A step of quick tasks on one processor starts no goroutine at all.
func (r *run[S]) runQuiet(todo []*task[S]) {
	r.newScopes(todo)
	p := &quietPool[S]{r: r, todo: todo, limit: len(todo)}
	if r.o.maxConcurrency > 0 {
		p.limit = min(p.limit, r.o.maxConcurrency)
	}
	p.workers = min(p.limit, runtime.GOMAXPROCS(0))
	p.mu.Lock()
	for range p.workers - 1 {
		p.start()
	}
	if p.workers < p.limit {
		p.stall = time.AfterFunc(stallInterval, p.tick)
	}
	p.mu.Unlock()
	p.work()
	p.mu.Lock()
	p.closed = true
	if p.stall != nil {
		p.stall.Stop()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// quietPool is the workers of a runQuiet step.
type quietPool[S any] struct {
	r          *run[S]
	todo       []*task[S]
	next, done atomic.Int64 // tasks taken, tasks finished
	wg         sync.WaitGroup
	mu         sync.Mutex // guards the fields below
	limit      int
	workers    int
	seen       int64 // done at the previous tick
	closed     bool  // the step's tasks are all taken and finished: start no worker
	stall      *time.Timer
}

// work runs the step's tasks, in order, until none is left to take.
func (p *quietPool[S]) work() {
	for {
		i := int(p.next.Add(1)) - 1
		if i >= len(p.todo) {
			return
		}
		p.r.runScoped(p.todo[i])
		p.done.Add(1)
	}
}

// start starts one more worker; p.mu is held.
func (p *quietPool[S]) start() {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.work()
	}()
}

// tick doubles the workers, up to one per task, when no task finished
// since the previous tick and some are not taken yet: they block.
func (p *quietPool[S]) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	done := p.done.Load()
	if done == p.seen && int(p.next.Load()) < len(p.todo) {
		more := min(p.workers, p.limit-p.workers)
		for range more {
			p.start()
		}
		p.workers += more
	}
	p.seen = done
	if p.workers < p.limit {
		p.stall.Reset(stallInterval)
	}
}
