package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/propagation"
)

// traceContext writes the W3C traceparent and tracestate headers of the
// span in a request's context (nothing when it has none).
var traceContext = propagation.TraceContext{}

// runRecord is the part of a remote run the node reads.
type runRecord struct {
	RunID  string `json:"run_id"`
	Status string `json:"status"`
}

// threadState is the part of a remote thread's state the node reads.
// The pending interrupts are in interrupts (a stategraph server, LangGraph
// Python's API) or only in each task's interrupts (LangGraph.js's); read
// fills Interrupts from the tasks when the server gave none at the top.
type threadState struct {
	Values     json.RawMessage   `json:"values"`
	Next       []string          `json:"next"`
	Interrupts []remoteInterrupt `json:"interrupts"`
	Tasks      []struct {
		Interrupts []remoteInterrupt `json:"interrupts"`
	} `json:"tasks"`
}

// remoteInterrupt is a pending interrupt of a remote thread.
type remoteInterrupt struct {
	ID    string          `json:"id"`
	Value json.RawMessage `json:"value"`
}

// pending fills Interrupts from the tasks' when the top level has none.
func (st *threadState) pending() {
	if len(st.Interrupts) > 0 {
		return
	}
	for _, t := range st.Tasks {
		st.Interrupts = append(st.Interrupts, t.Interrupts...)
	}
}

// statusError is a reply of the remote server that is not a success.
type statusError struct {
	method, path string
	code         int
	body         string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%s %s: status %d: %s", e.method, e.path, e.code, strings.TrimSpace(e.body))
}

// request sends a request to the remote server with the caller's trace
// context and the configured headers.
func (g *Graph) request(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, g.url+path, r)
	if err != nil {
		return nil, err
	}
	for k, vs := range g.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	traceContext.Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, &statusError{method: method, path: path, code: resp.StatusCode, body: string(data)}
	}
	return resp, nil
}

// getJSON decodes the reply to a GET into out.
func (g *Graph) getJSON(ctx context.Context, path string, out any) error {
	resp, err := g.request(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

// runs lists the remote thread's runs, newest first (empty when the
// thread does not exist yet).
func (g *Graph) runs(ctx context.Context, thread string) ([]runRecord, error) {
	var out []runRecord
	err := g.getJSON(ctx, "/threads/"+url.PathEscape(thread)+"/runs?limit=1", &out)
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusNotFound {
		return nil, nil
	}
	return out, err
}

// sseEvent is one server-sent event of a run's stream.
type sseEvent struct {
	event string
	data  json.RawMessage
}

// readSSE calls fn with each event of a text/event-stream body, until the
// body ends or fn returns an error.
func readSSE(body io.Reader, fn func(sseEvent) error) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	var ev sseEvent
	var data []byte
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.event != "" || len(data) > 0 {
				ev.data = json.RawMessage(data)
				if err := fn(ev); err != nil {
					return err
				}
			}
			ev, data = sseEvent{}, nil
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event:"):
			ev.event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
		}
	}
	return sc.Err()
}
