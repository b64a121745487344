package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmc/langchaingo/tools"
)

// DefaultCallTimeout bounds a tool call unless WithCallTimeout says
// otherwise.
const DefaultCallTimeout = time.Minute

// Server says how to reach one MCP server: by Command (stdio), by URL
// (streamable HTTP) or by Transport, exactly one of them.
type Server struct {
	// Name names the server in errors (default: Command or URL).
	Name string

	// Command, with Args, Env (added to this process's environment) and
	// Dir, is a program that serves MCP on its stdin and stdout. Each
	// connection starts it anew.
	Command string
	Args    []string
	Env     []string
	Dir     string

	// URL is a streamable HTTP endpoint; Header is sent with each
	// request (an Authorization, say), through HTTPClient (default
	// http.DefaultClient).
	URL        string
	Header     http.Header
	HTTPClient *http.Client

	// Transport returns a fresh transport for each connection, for any
	// other transport of the SDK (sdk.NewInMemoryTransports, say).
	Transport func() sdk.Transport
}

func (s Server) name() string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Command != "":
		return s.Command
	case s.URL != "":
		return s.URL
	}
	return "mcp"
}

// check reports a Server that does not say how to reach it.
func (s Server) check() error {
	n := 0
	for _, set := range []bool{s.Command != "", s.URL != "", s.Transport != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("mcp: server %q: give exactly one of Command, URL and Transport", s.name())
	}
	return nil
}

// transport makes the transport of one connection.
func (s Server) transport() (sdk.Transport, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	switch {
	case s.Command != "":
		cmd := exec.Command(s.Command, s.Args...)
		cmd.Dir = s.Dir
		if len(s.Env) > 0 {
			cmd.Env = append(cmd.Environ(), s.Env...)
		}
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
	case s.URL != "":
		hc := s.HTTPClient
		if hc == nil {
			hc = http.DefaultClient
		}
		if len(s.Header) > 0 {
			base := hc.Transport
			if base == nil {
				base = http.DefaultTransport
			}
			c := *hc
			c.Transport = headerTransport{base: base, header: s.Header}
			hc = &c
		}
		return &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, MaxRetries: -1}, nil
	}
	return s.Transport(), nil
}

// headerTransport adds headers to each request.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.header {
		r.Header[k] = append([]string(nil), vs...)
	}
	return t.base.RoundTrip(r)
}

// Option configures a Client.
type Option func(*options)

type options struct {
	timeout time.Duration
	changed []func([]tools.Tool)
}

// WithCallTimeout bounds each tool call (d <= 0: DefaultCallTimeout). A
// call that takes longer is cancelled on the server
// (notifications/cancelled) and fails with an error matching
// context.DeadlineExceeded. Connecting (and listing the tools) takes at
// most DefaultCallTimeout, or d when longer.
func WithCallTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.timeout = d
		}
	}
}

// WithToolsChanged calls fn with the tool list each time the client lists
// the tools again: on notifications/tools/list_changed, and on a
// reconnection. Options given several times all apply, in order.
// fn runs on a goroutine of the client's: it must not block long.
func WithToolsChanged(fn func([]tools.Tool)) Option {
	return func(o *options) { o.changed = append(o.changed, fn) }
}

// ErrServerDown is matched (errors.Is) by the error of a call whose server
// could not be reached or died during the call.
var ErrServerDown = errors.New("mcp: server down")

// downError is an error matching ErrServerDown, worded for its server.
type downError struct {
	msg string
	err error
}

func downf(err error, format string, args ...any) error {
	return &downError{msg: fmt.Sprintf(format, args...) + ": " + err.Error(), err: err}
}

func (e *downError) Error() string        { return e.msg }
func (e *downError) Unwrap() error        { return e.err }
func (e *downError) Is(target error) bool { return target == ErrServerDown }

// ErrClosed is a call through a closed Client.
var ErrClosed = errors.New("mcp: client closed")

// Client is a connection to one MCP server, made again when it breaks.
// Its methods are safe for concurrent use.
type Client struct {
	srv  Server
	name string
	o    options

	mu     sync.Mutex
	sess   *sdk.ClientSession // nil: to connect at the next call
	defs   []*sdk.Tool        // the latest list, in the server's order
	byName map[string]*Tool
	closed bool
	// progress maps the progress tokens of calls under way to their
	// sinks (progress.go).
	progress sync.Map
	tokens   atomic.Uint64
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	connect  sync.Mutex // one connection attempt at a time
}

// Connect connects to srv and lists its tools. Close the client when done:
// it ends the connection (and a command's process).
func Connect(ctx context.Context, srv Server, opts ...Option) (*Client, error) {
	o := options{timeout: DefaultCallTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	if err := srv.check(); err != nil {
		return nil, err
	}
	c := &Client{srv: srv, name: srv.name(), o: o, byName: map[string]*Tool{}}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if _, err := c.session(ctx); err != nil {
		c.cancel()
		return nil, err
	}
	return c, nil
}

// Name is the server's name, as errors give it.
func (c *Client) Name() string { return c.name }

// Tools returns the server's tools, as of its latest list, in its order.
func (c *Client) Tools() []tools.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.toolsLocked()
}

func (c *Client) toolsLocked() []tools.Tool {
	out := make([]tools.Tool, 0, len(c.defs))
	for _, d := range c.defs {
		t, ok := c.byName[d.Name]
		if !ok {
			t = &Tool{c: c, name: d.Name}
			c.byName[d.Name] = t
		}
		out = append(out, t)
	}
	return out
}

// Close ends the connection and waits for the client's goroutines.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	sess := c.sess
	c.sess = nil
	c.mu.Unlock()
	c.cancel()
	var err error
	if sess != nil {
		err = sess.Close()
	}
	c.wg.Wait()
	if err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
		return fmt.Errorf("mcp: server %q: close: %w", c.name, err)
	}
	return nil
}

// session returns the live session, connecting (and listing the tools)
// when there is none.
func (c *Client) session(ctx context.Context) (*sdk.ClientSession, error) {
	c.connect.Lock()
	defer c.connect.Unlock()
	c.mu.Lock()
	sess, closed := c.sess, c.closed
	c.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("mcp: server %q: %w", c.name, ErrClosed)
	}
	if sess != nil {
		return sess, nil
	}
	t, err := c.srv.transport()
	if err != nil {
		return nil, err
	}
	// Connecting (a process to start, say) and listing the tools take
	// DefaultCallTimeout at most, or the call timeout when longer.
	ctx, cancel := context.WithTimeout(ctx, max(c.o.timeout, DefaultCallTimeout))
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "stategraph", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler:      func(_ context.Context, req *sdk.ToolListChangedRequest) { c.relist(req.Session) },
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) { c.progressed(req.Params) },
	})
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, downf(err, "mcp: server %q is down: connect", c.name)
	}
	defs, err := listTools(ctx, cs)
	if err != nil {
		_ = cs.Close()
		return nil, downf(err, "mcp: server %q is down: list tools", c.name)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		_ = cs.Close()
		return nil, fmt.Errorf("mcp: server %q: %w", c.name, ErrClosed)
	}
	c.sess = cs
	changed := c.setDefsLocked(defs)
	// The session ends when the server goes (EOF, a dead process) or
	// when it is closed; then the next call connects again. (Added under
	// the lock: Close, which waits for the group, cannot be waiting yet.)
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		_ = cs.Wait()
		c.drop(cs)
	}()
	if changed != nil {
		c.notify(changed)
	}
	return cs, nil
}

// drop forgets cs, if it is still the live session, and closes it.
func (c *Client) drop(cs *sdk.ClientSession) {
	c.mu.Lock()
	if c.sess == cs {
		c.sess = nil
	}
	c.mu.Unlock()
	_ = cs.Close()
}

// relist lists the tools again after the server said they changed, on a
// goroutine of its own (a notification handler must not wait for a
// reply on its session).
func (c *Client) relist(cs *sdk.ClientSession) {
	c.mu.Lock()
	if cs == nil || c.closed {
		c.mu.Unlock()
		return
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		ctx, cancel := context.WithTimeout(c.ctx, c.o.timeout)
		defer cancel()
		defs, err := listTools(ctx, cs)
		if err != nil {
			return // the next connection lists them again
		}
		c.mu.Lock()
		var changed []tools.Tool
		if c.sess == cs || c.sess == nil { // nil: cs is being connected
			changed = c.setDefsLocked(defs)
		}
		c.mu.Unlock()
		if changed != nil {
			c.notify(changed)
		}
	}()
}

// setDefsLocked stores a new list and returns the tools when there are
// callbacks to tell.
func (c *Client) setDefsLocked(defs []*sdk.Tool) []tools.Tool {
	first := c.defs == nil
	c.defs = defs
	if first || len(c.o.changed) == 0 {
		return nil
	}
	return c.toolsLocked()
}

func (c *Client) notify(ts []tools.Tool) {
	for _, fn := range c.o.changed {
		fn(ts)
	}
}

func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	defs := []*sdk.Tool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		defs = append(defs, t)
	}
	return defs, nil
}

// def returns the latest definition of the tool named name.
func (c *Client) def(name string) (*sdk.Tool, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.defs {
		if d.Name == name {
			return d, true
		}
	}
	return nil, false
}
