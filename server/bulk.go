package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/graph"
)

// superstep is one superstep of a bulk update as the Agent Server API
// spells it (ThreadSuperstepUpdate): updates applied together, each as its
// node.
type superstep struct {
	Updates []superstepUpdate `json:"updates"`
}

type superstepUpdate struct {
	Values json.RawMessage `json:"values"`
	AsNode string          `json:"as_node"`
}

// bulkUpdater is a Graph (Register's) that applies several supersteps of
// updates at once (graph.Compiled.BulkUpdateState).
type bulkUpdater interface {
	bulkUpdate(ctx context.Context, thread string, steps []superstep) (checkpoint.Config, error)
}

func (t *typed[S]) bulkUpdate(ctx context.Context, thread string, steps []superstep) (checkpoint.Config, error) {
	out := make([][]graph.StateUpdate[S], len(steps))
	for i, st := range steps {
		for k, u := range st.Updates {
			if u.AsNode != "" && u.AsNode != graph.Start && !contains(t.g.Nodes(), u.AsNode) {
				return checkpoint.Config{}, &InputError{Field: fmt.Sprintf("supersteps[%d].updates[%d].as_node", i, k), Err: fmt.Errorf("graph %q has no node %q", t.id, u.AsNode)}
			}
			upd, err := t.decode(u.Values)
			if err != nil {
				var ie *InputError
				if errors.As(err, &ie) {
					ie.Field = fmt.Sprintf("supersteps[%d].updates[%d].values.%s", i, k, ie.Field)
				}
				return checkpoint.Config{}, err
			}
			out[i] = append(out[i], graph.StateUpdate[S]{Update: upd, AsNode: u.AsNode})
		}
	}
	return t.g.BulkUpdateState(ctx, out, graph.WithThread(thread))
}

// applySupersteps applies a bulk update to thread t with its graph g.
func applySupersteps(ctx context.Context, g Graph, thread string, steps []superstep) (checkpoint.Config, error) {
	b, ok := g.(bulkUpdater)
	if !ok {
		return checkpoint.Config{}, &InputError{Field: "supersteps", Err: errors.New("this graph cannot apply bulk updates")}
	}
	return b.bulkUpdate(ctx, thread, steps)
}

// bulkUpdateState is POST /threads/{id}/state/bulk: several supersteps
// of updates in one call, all stored or none (LangGraph's
// bulk_update_state). It answers the last checkpoint's config.
func (s *Server) bulkUpdateState(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Supersteps []superstep `json:"supersteps"`
	}
	if err := readJSON(r, &req); err != nil {
		fail(w, err)
		return
	}
	t, err := s.thread(r)
	if err != nil {
		fail(w, err)
		return
	}
	s.storeState(w, r, t, "bulk update", func(ctx context.Context, g Graph) (checkpoint.Config, error) {
		return applySupersteps(ctx, g, t.ThreadID, req.Supersteps)
	})
}
