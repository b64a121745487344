package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/propagation"
)

// Client calls a remote A2A agent's JSON-RPC endpoint (the agent card's
// url). It is safe for concurrent use.
type Client struct {
	url    string
	http   *http.Client
	header http.Header
	poll   time.Duration
	ids    atomic.Int64
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithHTTPClient sends the requests through c instead of
// http.DefaultClient.
func WithHTTPClient(c *http.Client) ClientOption { return func(cl *Client) { cl.http = c } }

// WithHeader adds a header to every request (credentials, say). It
// appends: several calls add several headers.
func WithHeader(key, value string) ClientOption {
	return func(cl *Client) { cl.header.Add(key, value) }
}

// WithPollInterval sets how often Node asks for a task that is still
// working (tasks/get); the default is DefaultPollInterval.
func WithPollInterval(d time.Duration) ClientOption { return func(cl *Client) { cl.poll = d } }

// DefaultPollInterval is how often Node asks for a working task by
// default.
const DefaultPollInterval = 500 * time.Millisecond

// NewClient returns a client of the agent whose JSON-RPC endpoint is url.
func NewClient(url string, opts ...ClientOption) *Client {
	c := &Client{url: url, http: http.DefaultClient, header: http.Header{}, poll: DefaultPollInterval}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Send calls message/send and returns the task it answers. An agent that
// answers with a message rather than a task is an error: Node needs a
// task to follow.
func (c *Client) Send(ctx context.Context, p MessageSendParams) (*Task, error) {
	var raw json.RawMessage
	if err := c.call(ctx, "message/send", p, &raw); err != nil {
		return nil, err
	}
	var kind struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &kind); err != nil {
		return nil, fmt.Errorf("a2a: message/send at %s: result: %w", c.url, err)
	}
	if kind.Kind != "task" {
		return nil, fmt.Errorf("a2a: message/send at %s answered a %q, not a task: %s", c.url, kind.Kind, short(raw))
	}
	var t Task
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("a2a: message/send at %s: task: %w", c.url, err)
	}
	return &t, nil
}

// Task calls tasks/get.
func (c *Client) Task(ctx context.Context, id string) (*Task, error) {
	var t Task
	if err := c.call(ctx, "tasks/get", TaskQueryParams{ID: id}, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// call makes one JSON-RPC call; a JSON-RPC error is returned as an
// *Error wrapped with the method and the endpoint.
func (c *Client) call(ctx context.Context, method string, params, out any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.ids.Add(1), "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("a2a: %s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("a2a: %s at %s: %w", method, c.url, err)
	}
	for k, vs := range c.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("a2a: %s at %s: %w", method, c.url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("a2a: %s at %s: %w", method, c.url, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("a2a: %s at %s: status %d: %s", method, c.url, resp.StatusCode, short(data))
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *Error          `json:"error"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("a2a: %s at %s: the reply is not JSON-RPC: %s", method, c.url, short(data))
	}
	if r.Error != nil {
		return fmt.Errorf("a2a: %s at %s: %w", method, c.url, r.Error)
	}
	if len(r.Result) == 0 || string(r.Result) == "null" {
		return fmt.Errorf("a2a: %s at %s: the reply has no result", method, c.url)
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("a2a: %s at %s: result: %w", method, c.url, err)
	}
	return nil
}

func short(data []byte) string {
	s := strings.TrimSpace(string(data))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
