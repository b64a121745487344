package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/store"
	"github.com/stategraph/stategraph/worker"
)

// Server is an http.Handler speaking LangGraph's Agent Server API over the
// registered graphs. Runs execute in this process, in goroutines that
// outlive the request that started them; Close stops them.
type Server struct {
	store      Store
	assistants []*assistant
	byID       map[string]*assistant // by assistant id and by graph id
	mux        *http.ServeMux
	opts       options

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	threads  map[string]*threadRuns // threads with a live or queued run
	runs     map[string]*liveRun    // live and recently finished runs
	finished []string               // ids of finished runs still in runs, oldest first
	crons    cronStore
	closed   bool

	cl *cluster // with WithWorkers: runs are worker jobs on PostgreSQL

	memAssistants *lockedAssistants // when the Store keeps no assistants
	lastTTLSweep  time.Time         // of cronLoop's goroutine
}

type options struct {
	store     Store
	logLimit  int
	keepRuns  int
	maxBody   int64
	heartbeat time.Duration
	now       func() time.Time
	cronTicks <-chan time.Time
	logf      func(format string, args ...any)
	auth      func(r *http.Request) (string, error)
	webhooks  Webhooks
	mcp       bool // WithMCP
	a2a       bool // WithA2A

	items      *store.Store // WithStore
	workers    *int         // WithWorkers
	workerOpts []worker.Option
	poll       time.Duration
}

// Option configures a Server.
type Option func(*options)

// WithRecords keeps the server's thread and run records in st (default: a
// MemoryStore; SQLiteStore or PostgresStore to keep them). They are not
// LangGraph's long-term store, which WithStore serves.
func WithRecords(st Store) Option { return func(o *options) { o.store = st } }

// WithEventLog keeps the last n events of each run for clients that join
// or rejoin its stream (default 10,000).
func WithEventLog(n int) Option { return func(o *options) { o.logLimit = n } }

// WithMaxBody bounds a request body (default 8 MiB); a larger one is
// refused with 413.
func WithMaxBody(n int64) Option { return func(o *options) { o.maxBody = n } }

// WithLogf reports what the server cannot answer to a request (a cron
// whose run was refused) through logf (default: not reported).
func WithLogf(logf func(format string, args ...any)) Option {
	return func(o *options) { o.logf = logf }
}

// WithHeartbeat sets how often an idle stream sends an SSE comment so that
// clients and proxies see it alive (default 10s; 0 or less: never).
func WithHeartbeat(d time.Duration) Option { return func(o *options) { o.heartbeat = d } }

// New returns a server over graphs, one assistant per graph. Each graph
// needs a checkpointer; graph ids must be unique.
func New(graphs []Graph, opts ...Option) (*Server, error) {
	o := options{logLimit: 10000, keepRuns: 256, maxBody: 8 << 20, heartbeat: 10 * time.Second, now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	if o.store == nil {
		o.store = NewMemoryStore()
	}
	s := &Server{store: o.store, byID: map[string]*assistant{}, opts: o, threads: map[string]*threadRuns{}, runs: map[string]*liveRun{}, crons: &memoryCrons{crons: map[string]*cron{}}}
	created := o.now().UTC()
	for _, g := range graphs {
		if g.Saver() == nil {
			return nil, fmt.Errorf("server: graph %q: %w", g.ID(), errNoSaver)
		}
		if _, dup := s.byID[g.ID()]; dup {
			return nil, fmt.Errorf("server: graph %q registered twice", g.ID())
		}
		a := &assistant{ID: assistantID(g.ID()), GraphID: g.ID(), Name: g.ID(), Metadata: map[string]any{"created_by": "system"},
			Version: 1, CreatedAt: created, UpdatedAt: created, g: g}
		s.assistants = append(s.assistants, a)
		s.byID[a.ID], s.byID[g.ID()] = a, a
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if o.workers != nil {
		if err := s.newCluster(); err != nil {
			s.cancel()
			s.wg.Wait()
			return nil, err
		}
	}
	if err := s.settleOrphans(s.ctx); err != nil {
		s.cancel()
		s.wg.Wait()
		return nil, err
	}
	s.routes()
	s.wg.Add(1)
	go s.cronLoop()
	return s, nil
}

// assistantID is the id LangGraph gives a graph's default assistant: a
// UUIDv5 of the graph id in the URL namespace.
func assistantID(graphID string) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte(graphID)).String()
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, s.opts.maxBody)
	}
	r, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	if err := checkRequestIDs(r); err != nil {
		fail(w, err)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Close cancels the runs in progress and waits for them to stop; their
// threads keep their last checkpoints. The server refuses new runs after.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	if s.cl != nil {
		s.cl.close()
	}
	s.cancel()
	s.wg.Wait()
	return nil
}

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /ok", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, map[string]bool{"ok": true}) })
	m.HandleFunc("GET /info", s.info)
	m.HandleFunc("POST /assistants", s.createAssistant)
	m.HandleFunc("PATCH /assistants/{id}", s.patchAssistant)
	m.HandleFunc("DELETE /assistants/{id}", s.deleteAssistant)
	m.HandleFunc("POST /assistants/{id}/versions", s.assistantVersions)
	m.HandleFunc("POST /assistants/{id}/latest", s.setLatestAssistant)
	m.HandleFunc("POST /assistants/search", s.searchAssistants)
	m.HandleFunc("POST /assistants/count", s.countAssistants)
	m.HandleFunc("GET /assistants/{id}", s.getAssistant)
	m.HandleFunc("GET /assistants/{id}/graph", s.getAssistantGraph)
	m.HandleFunc("GET /assistants/{id}/schemas", s.getAssistantSchemas)
	m.HandleFunc("GET /assistants/{id}/subgraphs", s.getAssistantSubgraphs)
	m.HandleFunc("GET /assistants/{id}/subgraphs/{ns}", s.getAssistantSubgraphs)

	m.HandleFunc("POST /threads", s.createThread)
	m.HandleFunc("POST /threads/search", s.searchThreads)
	m.HandleFunc("POST /threads/count", s.countThreads)
	m.HandleFunc("GET /threads/{tid}", s.getThread)
	m.HandleFunc("PATCH /threads/{tid}", s.patchThread)
	m.HandleFunc("DELETE /threads/{tid}", s.deleteThread)
	m.HandleFunc("POST /threads/{tid}/copy", s.copyThread)
	m.HandleFunc("GET /threads/{tid}/state", s.getState)
	m.HandleFunc("GET /threads/{tid}/state/{cid}", s.getState)
	m.HandleFunc("POST /threads/{tid}/state/checkpoint", s.getStateAtCheckpoint)
	m.HandleFunc("POST /threads/{tid}/state", s.updateState)
	m.HandleFunc("POST /threads/{tid}/state/bulk", s.bulkUpdateState)
	m.HandleFunc("POST /threads/{tid}/history", s.history)
	m.HandleFunc("GET /threads/{tid}/history", s.history)

	m.HandleFunc("POST /threads/{tid}/runs", s.createRun(modeBackground))
	m.HandleFunc("POST /threads/{tid}/runs/stream", s.createRun(modeStream))
	m.HandleFunc("POST /threads/{tid}/runs/wait", s.createRun(modeWait))
	m.HandleFunc("POST /runs", s.createRun(modeBackground))
	m.HandleFunc("POST /runs/stream", s.createRun(modeStream))
	m.HandleFunc("POST /runs/wait", s.createRun(modeWait))
	m.HandleFunc("GET /threads/{tid}/runs", s.listRuns)
	m.HandleFunc("GET /threads/{tid}/runs/{rid}", s.getRun)
	m.HandleFunc("DELETE /threads/{tid}/runs/{rid}", s.deleteRun)
	m.HandleFunc("POST /threads/{tid}/runs/{rid}/cancel", s.cancelRun)
	m.HandleFunc("GET /threads/{tid}/runs/{rid}/join", s.joinRun)
	m.HandleFunc("GET /threads/{tid}/runs/{rid}/stream", s.joinRunStream)
	m.HandleFunc("POST /runs/crons", s.createCron)
	m.HandleFunc("POST /threads/{tid}/runs/crons", s.createCron)
	m.HandleFunc("PATCH /runs/crons/{cid}", s.patchCron)
	m.HandleFunc("DELETE /runs/crons/{cid}", s.deleteCron)
	m.HandleFunc("POST /runs/crons/search", s.searchCrons)
	m.HandleFunc("POST /runs/crons/count", s.countCrons)
	s.itemRoutes(m)
	if s.opts.mcp {
		s.mcpRoutes(m)
	}
	if s.opts.a2a {
		s.a2aRoutes(m)
	}
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("%s %s is not served by stategraph (see docs/server.md)", r.Method, r.URL.Path))
	})
	s.mux = m
}

func (s *Server) info(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]any{"version": "stategraph", "flags": map[string]bool{"assistants": true, "crons": true, "store": s.opts.items != nil}})
}

// writeJSON writes v with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes LangGraph's error shape: {"detail": message}.
func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"detail": msg})
}

// fail maps an error to its status code and writes it.
func fail(w http.ResponseWriter, err error) {
	var ie *InputError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", mbe.Limit))
	case errors.As(err, &ie):
		writeError(w, http.StatusUnprocessableEntity, err.Error())
	case errors.Is(err, ErrNotFound), errors.Is(err, checkpoint.ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, ErrExists), errors.Is(err, checkpoint.ErrBusy), errors.Is(err, worker.ErrQueueFull), errors.Is(err, errThreadBusy), errors.Is(err, checkpoint.ErrConflict):
		writeError(w, http.StatusConflict, err.Error())
	case errors.Is(err, graph.ErrNothingToResume), errors.Is(err, graph.ErrAmbiguousResume), errors.Is(err, graph.ErrInvalidAnswer), errors.Is(err, graph.ErrInvalidUpdate):
		writeError(w, http.StatusUnprocessableEntity, err.Error())
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

// readJSON decodes the request body into v; an empty body leaves v as it
// is. A malformed body, or one whose ids hold control characters (see
// ids.go), is an *InputError.
func readJSON(r *http.Request, v any) error {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	if err := checkBodyIDs(data); err != nil {
		return err
	}
	err = json.NewDecoder(bytes.NewReader(data)).Decode(v)
	var mbe *http.MaxBytesError
	switch {
	case err == nil || errors.Is(err, io.EOF):
		return nil
	case errors.As(err, &mbe):
		return err
	default:
		return &InputError{Err: fmt.Errorf("malformed JSON body: %w", err)}
	}
}
