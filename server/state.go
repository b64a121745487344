package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
)

// interruptJSON is an interrupt as LangGraph's API shows it.
func interruptsJSON(ins []graph.Interruption) []map[string]any {
	out := make([]map[string]any, 0, len(ins))
	for _, in := range ins {
		m := map[string]any{"value": in.Value, "id": in.ID, "when": in.When}
		if in.Schema != nil {
			m["response_schema"] = in.Schema // what an answer must be (Interrupt[T])
		}
		out = append(out, m)
	}
	return out
}

func checkpointJSON(c *checkpoint.Config) any {
	if c == nil {
		return nil
	}
	var id any
	if c.CheckpointID != "" {
		id = c.CheckpointID
	}
	return map[string]any{"thread_id": c.ThreadID, "checkpoint_ns": c.Namespace, "checkpoint_id": id, "checkpoint_map": nil}
}

func metadataJSON(md checkpoint.Metadata) map[string]any {
	out := md.Flatten()
	parents := md.Parents
	if parents == nil {
		parents = map[string]string{}
	}
	out["parents"] = parents
	return out
}

// resultJSON is a task's result (its writes by field name), or null.
func resultJSON(r map[string]any) any {
	if r == nil {
		return nil
	}
	return r
}

// stateJSON is a snapshot as LangGraph's ThreadState.
func stateJSON(st *State) map[string]any {
	tasks := make([]map[string]any, 0, len(st.Tasks))
	for _, t := range st.Tasks {
		var errv any
		if t.Error != "" {
			errv = t.Error
		}
		// As LangGraph's API: a subgraph task's "checkpoint" is its
		// namespace's config, its "state" the subgraph's state when read
		// with subgraphs.
		var cp, sub any
		if nested := st.Subgraphs[t.ID]; nested != nil {
			sub = stateJSON(nested)
		} else if t.Namespace != "" {
			cp = map[string]any{"thread_id": st.Config.ThreadID, "checkpoint_ns": t.Namespace}
		}
		tasks = append(tasks, map[string]any{
			"id": t.ID, "name": t.Node, "error": errv, "interrupts": interruptsJSON(t.Interrupts),
			"checkpoint": cp, "state": sub, "result": resultJSON(t.Result),
		})
	}
	next := st.Next
	if next == nil {
		next = []string{}
	}
	return map[string]any{
		"values":            st.Values,
		"next":              next,
		"tasks":             tasks,
		"checkpoint":        checkpointJSON(&st.Config),
		"metadata":          metadataJSON(st.Metadata),
		"created_at":        timeJSON(st.CreatedAt),
		"parent_checkpoint": checkpointJSON(st.Parent),
		"interrupts":        interruptsJSON(st.Interrupts),
	}
}

// emptyStateJSON is the state of a thread with no checkpoint yet.
func emptyStateJSON(thread string) map[string]any {
	return map[string]any{
		"values": map[string]any{}, "next": []string{}, "tasks": []any{},
		"checkpoint":        map[string]any{"thread_id": thread, "checkpoint_ns": "", "checkpoint_id": nil, "checkpoint_map": nil},
		"metadata":          nil,
		"created_at":        nil,
		"parent_checkpoint": nil,
		"interrupts":        []any{},
	}
}

func (s *Server) writeState(w http.ResponseWriter, r *http.Request, q stateQuery) {
	t, err := s.thread(r)
	if err != nil {
		fail(w, err)
		return
	}
	g := s.graphOf(t)
	if g == nil {
		if q.checkpointID != "" {
			fail(w, fmt.Errorf("checkpoint %q of thread %q: %w", q.checkpointID, t.ThreadID, ErrNotFound))
			return
		}
		writeJSON(w, 200, emptyStateJSON(t.ThreadID))
		return
	}
	st, err := readState(r.Context(), g, t.ThreadID, q)
	if errors.Is(err, checkpoint.ErrNotFound) && q.checkpointID == "" && q.namespace == "" {
		writeJSON(w, 200, emptyStateJSON(t.ThreadID))
		return
	}
	if err != nil {
		fail(w, fmt.Errorf("thread %q: %w", t.ThreadID, err))
		return
	}
	writeJSON(w, 200, stateJSON(st))
}

// readState reads the state q asks for: through nestedStater when it
// names a namespace or subgraphs, which a Graph that is not Register's
// cannot answer.
func readState(ctx context.Context, g Graph, thread string, q stateQuery) (*State, error) {
	if q.namespace == "" && !q.subgraphs {
		return g.State(ctx, thread, q.checkpointID)
	}
	ns, ok := g.(nestedStater)
	if !ok {
		return nil, &InputError{Field: "subgraphs", Err: errors.New("this graph cannot read subgraph states")}
	}
	return ns.nestedState(ctx, thread, q)
}

// subgraphsParam reads the subgraphs query parameter (LangGraph's
// get_state(subgraphs=True)).
func subgraphsParam(r *http.Request) (bool, error) {
	v := r.URL.Query().Get("subgraphs")
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, &InputError{Field: "subgraphs", Err: err}
	}
	return b, nil
}

func (s *Server) getState(w http.ResponseWriter, r *http.Request) {
	subs, err := subgraphsParam(r)
	if err != nil {
		fail(w, err)
		return
	}
	s.writeState(w, r, stateQuery{checkpointID: r.PathValue("cid"), subgraphs: subs})
}

// checkpointRef is a checkpoint as requests name it: {"checkpoint_id": …},
// possibly inside "configurable", or a bare id string.
// A checkpoint of a subgraph also names its namespace (checkpoint_ns).
type checkpointRef struct{ ID, Namespace string }

func (c *checkpointRef) UnmarshalJSON(data []byte) error {
	var id string
	if json.Unmarshal(data, &id) == nil {
		c.ID = id
		return nil
	}
	var obj struct {
		CheckpointID string `json:"checkpoint_id"`
		Namespace    string `json:"checkpoint_ns"`
		Configurable struct {
			CheckpointID string `json:"checkpoint_id"`
			Namespace    string `json:"checkpoint_ns"`
		} `json:"configurable"`
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		return err
	}
	c.ID, c.Namespace = obj.CheckpointID, obj.Namespace
	if c.ID == "" {
		c.ID = obj.Configurable.CheckpointID
	}
	if c.Namespace == "" {
		c.Namespace = obj.Configurable.Namespace
	}
	return nil
}

func (s *Server) getStateAtCheckpoint(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Checkpoint checkpointRef `json:"checkpoint"`
		Subgraphs  bool          `json:"subgraphs"`
	}
	if err := readJSON(r, &req); err != nil {
		fail(w, err)
		return
	}
	s.writeState(w, r, stateQuery{checkpointID: req.Checkpoint.ID, namespace: req.Checkpoint.Namespace, subgraphs: req.Subgraphs})
}

type updateStateRequest struct {
	Values       json.RawMessage `json:"values"`
	AsNode       string          `json:"as_node"`
	CheckpointID string          `json:"checkpoint_id"`
	Checkpoint   *checkpointRef  `json:"checkpoint"`
}

func (s *Server) updateState(w http.ResponseWriter, r *http.Request) {
	var req updateStateRequest
	if err := readJSON(r, &req); err != nil {
		fail(w, err)
		return
	}
	t, err := s.thread(r)
	if err != nil {
		fail(w, err)
		return
	}
	if req.CheckpointID == "" && req.Checkpoint != nil {
		req.CheckpointID = req.Checkpoint.ID
	}
	s.storeState(w, r, t, "update state", func(ctx context.Context, g Graph) (checkpoint.Config, error) {
		return g.UpdateState(ctx, t.ThreadID, req.CheckpointID, req.Values, req.AsNode)
	})
}

// storeState stores write on thread t's graph while the server holds the
// thread (refused while a run is in progress, here or on another
// replica), then marks the thread updated, clearing an error status, and
// answers the checkpoint the write ended on; what names the write in its
// error.
func (s *Server) storeState(w http.ResponseWriter, r *http.Request, t ThreadRecord, what string, write func(context.Context, Graph) (checkpoint.Config, error)) {
	g := s.graphOf(t)
	if g == nil {
		writeError(w, http.StatusConflict, fmt.Sprintf("thread %q has no graph yet: run it once or create it with graph_id", t.ThreadID))
		return
	}
	release, err := s.holdThread(t.ThreadID)
	if err == nil && s.cl != nil && s.clusterBusy(r.Context(), t.ThreadID) {
		release()
		err = fmt.Errorf("thread %q: %w: a run is in progress", t.ThreadID, errThreadBusy)
	}
	if err != nil {
		fail(w, err)
		return
	}
	cfg, err := write(r.Context(), g)
	release()
	if err != nil {
		fail(w, fmt.Errorf("%s of thread %q: %w", what, t.ThreadID, err))
		return
	}
	t.UpdatedAt = s.opts.now().UTC()
	if t.Status == StatusError {
		t.Status, t.Error = StatusIdle, ""
	}
	s.atRest(r.Context(), &t)
	if err := s.store.PutThread(r.Context(), t); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, 200, map[string]any{"checkpoint": checkpointJSON(&cfg)})
}

type historyRequest struct {
	Limit      int            `json:"limit"`
	Before     *checkpointRef `json:"before"`
	Metadata   map[string]any `json:"metadata"`
	Checkpoint *checkpointRef `json:"checkpoint"`
}

func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	req := historyRequest{Limit: 10}
	if r.Method == http.MethodGet {
		if v := r.URL.Query().Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				fail(w, &InputError{Field: "limit", Err: err})
				return
			}
			req.Limit = n
		}
		if v := r.URL.Query().Get("before"); v != "" {
			req.Before = &checkpointRef{ID: v}
		}
	} else if err := readJSON(r, &req); err != nil {
		fail(w, err)
		return
	}
	t, err := s.thread(r)
	if err != nil {
		fail(w, err)
		return
	}
	out := []map[string]any{}
	g := s.graphOf(t)
	if g == nil {
		writeJSON(w, 200, out)
		return
	}
	q := HistoryQuery{Limit: req.Limit, Metadata: req.Metadata}
	if req.Before != nil {
		q.Before = req.Before.ID
	}
	if req.Checkpoint != nil {
		q.Namespace = req.Checkpoint.Namespace // a subgraph's history
	}
	if req.Checkpoint != nil && req.Checkpoint.ID != "" {
		// From that checkpoint back: it, then the ones before it.
		st, err := readState(r.Context(), g, t.ThreadID, stateQuery{checkpointID: req.Checkpoint.ID, namespace: q.Namespace})
		if err != nil {
			fail(w, fmt.Errorf("thread %q: %w", t.ThreadID, err))
			return
		}
		out = append(out, stateJSON(st))
		q.Before = req.Checkpoint.ID
		if q.Limit > 0 {
			q.Limit--
		}
		if q.Limit == 0 && req.Limit > 0 {
			writeJSON(w, 200, out)
			return
		}
	}
	sts, err := g.History(r.Context(), t.ThreadID, q)
	if err != nil {
		fail(w, fmt.Errorf("history of thread %q: %w", t.ThreadID, err))
		return
	}
	for _, st := range sts {
		out = append(out, stateJSON(st))
	}
	writeJSON(w, 200, out)
}
