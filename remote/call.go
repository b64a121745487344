package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/stategraph/stategraph/graph"
)

// call is one run of a remote node's task.
type call struct {
	g      *Graph
	thread string // the remote thread
	ns     string // the node's namespace in the caller's stream
}

// Remote run statuses (the Agent Server API's).
const (
	runPending     = "pending"
	runRunning     = "running"
	runSuccess     = "success"
	runInterrupted = "interrupted"
)

// run brings the remote thread to its end, or to an interrupt the caller
// has not answered: it looks at the thread's last run each time round,
// so that a task run again never starts a run twice.
func (c *call) run(ctx context.Context, input func() (any, error)) (Result, error) {
	answers, err := c.answered(ctx)
	if err != nil {
		return Result{}, err
	}
	for {
		runs, err := c.g.runs(ctx, c.thread)
		if err != nil {
			return Result{}, fmt.Errorf("list runs: %w", err)
		}
		if len(runs) == 0 {
			in, err := input()
			if err != nil {
				return Result{}, fmt.Errorf("input: %w", err)
			}
			if err := c.start(ctx, map[string]any{"input": in}); err != nil {
				return Result{}, err
			}
			continue
		}
		last := runs[0]
		switch last.Status {
		case runPending, runRunning:
			if err := c.join(ctx, last.RunID); err != nil {
				return Result{}, err
			}
			continue
		case runSuccess, runInterrupted:
		default:
			// The last run failed (an error the node reported, or a
			// timeout): run the thread again from its last checkpoint, as a
			// resume of a failed graph does, without its input.
			if err := c.start(ctx, map[string]any{"input": nil}); err != nil {
				return Result{}, err
			}
			continue
		}
		var st threadState
		if err := c.g.getJSON(ctx, "/threads/"+url.PathEscape(c.thread)+"/state", &st); err != nil {
			return Result{}, fmt.Errorf("read state: %w", err)
		}
		st.pending()
		if len(st.Interrupts) == 0 {
			if last.Status != runSuccess {
				return Result{}, fmt.Errorf("run %s was interrupted without a pending interrupt (cancelled?)", last.RunID)
			}
			return Result{ThreadID: c.thread, Values: st.Values}, nil
		}
		key := interruptKey(st)
		answer, ok := answers[key]
		if !ok {
			// A new question: the caller's next answer is its, and the
			// round is recorded before the answer is sent, so a re-run of
			// the task knows which answer went to which question.
			if answer, err = graph.Interrupt[json.RawMessage](ctx, interruptPayload(st)); err != nil {
				return Result{}, &pause{err}
			}
			round := len(answers)
			if _, err := graph.Durable(ctx, roundKey(round), func(context.Context) (string, error) { return key, nil }); err != nil {
				return Result{}, fmt.Errorf("record answer %d: %w", round, err)
			}
			answers[key] = answer
		}
		if err := c.start(ctx, map[string]any{"command": map[string]any{"resume": answer}}); err != nil {
			return Result{}, err
		}
	}
}

// answered returns the caller's answers to the remote questions this task
// answered before, by the questions' interrupt ids (interruptKey): a
// remote run that stops at interrupt after interrupt is answered in turn,
// each answer the caller's next resume value (graph.Interrupt's order),
// and a re-run of the task takes each answer again, in that order, for
// its question. The rounds are Durable results of the task.
func (c *call) answered(ctx context.Context) (map[string]json.RawMessage, error) {
	answers := map[string]json.RawMessage{}
	for round := 0; ; round++ {
		key, err := graph.Durable(ctx, roundKey(round), func(context.Context) (string, error) { return "", errNoRound })
		if errors.Is(err, errNoRound) {
			return answers, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read answer %d: %w", round, err)
		}
		answer, err := graph.Interrupt[json.RawMessage](ctx, nil)
		if err != nil {
			// The answer of a recorded round is always there when the
			// task runs again; a caller resumed without it asks again.
			return nil, &pause{err}
		}
		answers[key] = answer
	}
}

// errNoRound is what answered's lookup returns for a round not recorded
// (graph.Durable saves no error).
var errNoRound = errors.New("remote: no such round")

func roundKey(round int) string { return "remote-answer-" + strconv.Itoa(round) }

// interruptKey names the remote thread's pending interrupts: their ids
// (their values, for a server that gives no ids).
func interruptKey(st threadState) string {
	ids := make([]string, len(st.Interrupts))
	for i, in := range st.Interrupts {
		ids[i] = in.ID
		if in.ID == "" {
			ids[i] = string(in.Value)
		}
	}
	return strings.Join(ids, ",")
}

// interruptPayload is the payload of the caller's interrupt for the
// remote thread's pending interrupts.
func interruptPayload(st threadState) any {
	if len(st.Interrupts) == 1 {
		return st.Interrupts[0].Value
	}
	out := make([]map[string]any, len(st.Interrupts))
	for i, in := range st.Interrupts {
		out[i] = map[string]any{"id": in.ID, "value": in.Value}
	}
	return out
}

// start starts a run on the remote thread (creating the thread) and
// streams its events until it ends. body holds its input or command.
func (c *call) start(ctx context.Context, body map[string]any) error {
	body["assistant_id"] = c.g.assistant
	body["stream_mode"] = remoteModes(graph.SubgraphModes(ctx))
	body["stream_subgraphs"] = true
	body["if_not_exists"] = "create"
	body["on_disconnect"] = "continue"
	body["multitask_strategy"] = "reject"
	path := "/threads/" + url.PathEscape(c.thread) + "/runs/stream"
	resp, err := c.g.request(ctx, http.MethodPost, path, body)
	if err != nil {
		return fmt.Errorf("start run: %w", err)
	}
	defer resp.Body.Close()
	return c.relay(ctx, resp, "")
}

// join streams the events of the remote run runID, in progress, until it
// ends.
func (c *call) join(ctx context.Context, runID string) error {
	path := "/threads/" + url.PathEscape(c.thread) + "/runs/" + url.PathEscape(runID) + "/stream"
	resp, err := c.g.request(ctx, http.MethodGet, path, nil)
	if err != nil {
		return fmt.Errorf("join run %s: %w", runID, err)
	}
	defer resp.Body.Close()
	if err := c.relay(ctx, resp, runID); err != nil {
		return err
	}
	// A stream can end before the run's record says so (a run whose
	// events the server no longer keeps streams nothing): wait for the
	// run itself, so the next look at the thread sees it finished.
	wait, err := c.g.request(ctx, http.MethodGet, "/threads/"+url.PathEscape(c.thread)+"/runs/"+url.PathEscape(runID)+"/join", nil)
	if err != nil {
		return fmt.Errorf("wait for run %s: %w", runID, err)
	}
	wait.Body.Close()
	return nil
}

// relay sends a remote run's stream to the caller's stream, in order, as
// the events of a subgraph of the node (graph.EmitForeign). An error event
// of the remote run is its error.
func (c *call) relay(ctx context.Context, resp *http.Response, runID string) error {
	var runErr error
	err := readSSE(resp.Body, func(ev sseEvent) error {
		mode, ns, _ := strings.Cut(ev.event, "|")
		switch mode {
		case "metadata":
			var md struct {
				RunID string `json:"run_id"`
			}
			if json.Unmarshal(ev.data, &md) == nil && md.RunID != "" {
				runID = md.RunID
			}
			return nil
		case "end":
			return nil
		case "error":
			runErr = fmt.Errorf("run %s failed: %s", runID, ev.data)
			return nil
		}
		full := c.ns
		if ns != "" {
			full += "|" + ns
		}
		if fe, ok := foreignEvent(mode, ns, ev.data); ok {
			fe.Payload = Event{Namespace: full, Mode: mode, Data: ev.data, RunID: runID, ThreadID: c.thread}
			graph.EmitForeign(ctx, fe)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("stream of run %s: %w", runID, err)
	}
	if runErr != nil {
		return runErr
	}
	return ctx.Err()
}
