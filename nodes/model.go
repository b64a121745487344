package nodes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/tmc/langchaingo/llms"
)

// ModelRetry says how a ResilientModel retries and times one model call.
// The zero value of each field takes the default given.
type ModelRetry struct {
	// MaxAttempts is the most attempts of one call, the first included
	// (default 4; 1 means no retry).
	MaxAttempts int
	// InitialInterval is the wait before the first retry (default 500ms);
	// each retry doubles it, up to MaxInterval (default 20s), randomized
	// by half either way. A server's Retry-After replaces the wait.
	InitialInterval time.Duration
	MaxInterval     time.Duration
	// Timeout bounds each attempt (default 2m; negative: no bound). An
	// attempt cut off by it is retried.
	Timeout time.Duration
	// MaxRetryAfter is the longest Retry-After waited for (default 60s): a
	// server asking for more fails the call at once.
	MaxRetryAfter time.Duration
	// OnRetry, optional, is told of each retry: the attempt that failed
	// (1-based), its error and the wait before the next.
	OnRetry func(attempt int, err error, wait time.Duration)
}

// ErrModelTimeout is the error of a model call attempt cut off by
// ModelRetry.Timeout.
var ErrModelTimeout = errors.New("nodes: model call timed out")

// ResilientModel is an llms.Model that retries another one: a rate limit
// (429, honouring the server's Retry-After), a server error (5xx, 408), a
// connection error or an attempt cut off by ModelRetry.Timeout is retried
// with exponential backoff; anything else (401, 400, …) fails at once.
// Run by the agent, every attempt is one model call of the budget (see
// Budget): an attempt the budget refuses is not made, and the call fails
// with ErrModelBudget; and no attempt, nor a wait between attempts, goes
// on past the wall-time budget (Budget.MaxWall): the call under way is
// cancelled at the deadline, failing with the *StopReason naming it.
//
// langchaingo's clients do not return a response's headers with its error:
// give the provider's client HTTPClient (openai.WithHTTPClient) and the
// status code and Retry-After of each failed response reach the retry;
// without it the status is read from the error's text and Retry-After is
// not known.
//
// NewAgent wraps AgentConfig.Model (and WithReAct's model) in one by
// default (see WithModelRetry).
//
// A call that asks for JSON mode (llms.WithJSONMode) and that the model
// refuses (HTTP 400 or 422, or an error naming JSON mode or the response
// format) is made again at once without it, both counted as calls; once
// such a call succeeds, the ResilientModel no longer asks this model for
// JSON mode.
type ResilientModel struct {
	Model llms.Model
	Retry ModelRetry

	noJSON atomic.Bool // the model refused JSON mode and answered without it
}

// resilient wraps m in a ResilientModel with policy p; a model that is one
// already, or nil, is returned as it is.
func resilient(m llms.Model, p ModelRetry) llms.Model {
	if m == nil {
		return nil
	}
	if _, ok := m.(*ResilientModel); ok {
		return m
	}
	return &ResilientModel{Model: m, Retry: p}
}

// GenerateContent implements llms.Model.
func (r *ResilientModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	resp, _, err := r.generate(ctx, msgs, opts...)
	return resp, err
}

// Call implements llms.Model.
func (r *ResilientModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, r, prompt, opts...)
}

// generate is GenerateContent that also returns the attempts made: each is
// a model call of the budget.
func (r *ResilientModel) generate(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, int, error) {
	p := r.Retry.withDefaults()
	ctx, cancel := cutAtWall(ctx)
	defer cancel()
	attempts := 0
	op := func() (*llms.ContentResponse, error) {
		callOpts := opts
		if r.noJSON.Load() && asksJSON(opts) {
			callOpts = append(slices.Clone(opts), withoutJSONMode)
		}
		resp, err := r.attempt(ctx, p, msgs, callOpts, &attempts)
		if err != nil && asksJSON(callOpts) && refusesJSON(err) {
			// The model refuses JSON mode: ask again at once without it.
			resp, err = r.attempt(ctx, p, msgs, append(slices.Clone(opts), withoutJSONMode), &attempts)
			if err == nil {
				r.noJSON.Store(true)
			}
		}
		return resp, err
	}
	b := &backoff.ExponentialBackOff{InitialInterval: p.InitialInterval, RandomizationFactor: 0.5, Multiplier: 2, MaxInterval: p.MaxInterval}
	resp, err := backoff.Retry(ctx, op, backoff.WithBackOff(b), backoff.WithMaxTries(uint(p.MaxAttempts)),
		backoff.WithMaxElapsedTime(0), backoff.WithNotify(func(err error, wait time.Duration) {
			if p.OnRetry != nil {
				p.OnRetry(attempts, unwrapRetry(err), wait)
			}
		}))
	if err != nil {
		err = unwrapRetry(err)
		if attempts > 1 {
			err = fmt.Errorf("%w (after %d attempts)", err, attempts)
		}
		return nil, attempts, err
	}
	return resp, attempts, nil
}

func (p ModelRetry) withDefaults() ModelRetry {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 4
	}
	if p.InitialInterval <= 0 {
		p.InitialInterval = 500 * time.Millisecond
	}
	if p.MaxInterval <= 0 {
		p.MaxInterval = 20 * time.Second
	}
	if p.Timeout == 0 {
		p.Timeout = 2 * time.Minute
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = time.Minute
	}
	return p
}

// attempt makes one call of the model, counted in attempts, and returns
// its error as backoff reads it (classify): permanent, or retryable.
func (r *ResilientModel) attempt(ctx context.Context, p ModelRetry, msgs []llms.MessageContent, opts []llms.CallOption, attempts *int) (*llms.ContentResponse, error) {
	if err := wallPassed(ctx); err != nil {
		return nil, backoff.Permanent(err) // not made, not counted
	}
	if err := spend(ctx); err != nil {
		return nil, backoff.Permanent(err)
	}
	*attempts++
	actx, hint := withHint(ctx)
	cancel := context.CancelFunc(func() {})
	if p.Timeout > 0 {
		actx, cancel = context.WithTimeoutCause(actx, p.Timeout, fmt.Errorf("%w after %v", ErrModelTimeout, p.Timeout))
	}
	defer cancel()
	resp, err := r.Model.GenerateContent(actx, msgs, streamOptions(ctx, *attempts, opts)...)
	if err == nil {
		return resp, nil
	}
	if ctx.Err() != nil {
		// Cancelled (Ctrl-C), or the wall-time budget: the cause says which.
		return nil, backoff.Permanent(context.Cause(ctx))
	}
	if actx.Err() != nil {
		return nil, context.Cause(actx)
	}
	return nil, classify(err, hint, p.MaxRetryAfter)
}

// callModel makes one model call through m, and returns how many calls of
// the budget it made: a ResilientModel's attempts, else one. The call is
// refused, with ErrModelBudget and none made, when ctx's model-call
// allowance is spent, and with the *StopReason naming BudgetWall when the
// wall-time budget ctx carries has passed on the agent's clock.
func callModel(ctx context.Context, m llms.Model, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, int, error) {
	if r, ok := m.(*ResilientModel); ok {
		return r.generate(ctx, msgs, opts...)
	}
	if err := wallPassed(ctx); err != nil {
		return nil, 0, err
	}
	if err := spend(ctx); err != nil {
		return nil, 0, err
	}
	resp, err := m.GenerateContent(ctx, msgs, streamOptions(ctx, 1, opts)...)
	if err != nil && ctx.Err() != nil {
		// Clients lose the context's error (langchaingo's openai client
		// says "request cancelled"); keep it, so a cancelled run is not
		// taken for a failed one.
		err = fmt.Errorf("%w (%v)", context.Cause(ctx), err)
	}
	return resp, 1, err
}

// retryable is an attempt's error that may be retried, with the server's
// Retry-After when it gave one.
type retryable struct {
	err   error
	after *backoff.RetryAfterError
}

func (e *retryable) Error() string { return e.err.Error() }

func (e *retryable) Unwrap() []error {
	if e.after != nil {
		return []error{e.err, e.after}
	}
	return []error{e.err}
}

func unwrapRetry(err error) error {
	if r, ok := err.(*retryable); ok {
		return r.err
	}
	return err
}

var statusInText = regexp.MustCompile(`status code:? (\d{3})`)

// classify says whether an attempt's error is retried: by the response's
// status code (from the hint HTTPClient filled in, else from the error's
// text), by langchaingo's error code, or as a connection error.
func classify(err error, h *callHint, maxAfter time.Duration) error {
	status, after := h.get()
	if status == 0 {
		if m := statusInText.FindStringSubmatch(err.Error()); m != nil {
			status, _ = strconv.Atoi(m[1])
		}
	}
	if status >= 400 {
		err = fmt.Errorf("%w (HTTP %d)", err, status)
		if status != http.StatusTooManyRequests && status != http.StatusRequestTimeout && status < 500 {
			return backoff.Permanent(err)
		}
		if after > maxAfter {
			return backoff.Permanent(fmt.Errorf("%w: the server asks to retry after %v, more than %v", err, after, maxAfter))
		}
		r := &retryable{err: err}
		if after > 0 {
			r.after = &backoff.RetryAfterError{Duration: after}
		}
		return r
	}
	var le *llms.Error
	if errors.As(err, &le) {
		switch le.Code {
		case llms.ErrCodeRateLimit, llms.ErrCodeProviderUnavailable, llms.ErrCodeTimeout:
			return &retryable{err: err}
		}
		return backoff.Permanent(err)
	}
	if connectionError(err) {
		return &retryable{err: err}
	}
	return backoff.Permanent(err)
}

func connectionError(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		return true
	}
	m := strings.ToLower(err.Error())
	for _, s := range []string{"connection refused", "connection reset", "broken pipe", "eof", "request timeout", "no such host"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// callHint is where HTTPClient leaves the status code and Retry-After of
// an attempt's response.
type callHint struct {
	mu     sync.Mutex
	status int
	after  time.Duration
}

type hintKey struct{}

func withHint(ctx context.Context) (context.Context, *callHint) {
	h := &callHint{}
	return context.WithValue(ctx, hintKey{}, h), h
}

func (h *callHint) get() (int, time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status, h.after
}

// HTTPClient returns a copy of base (nil: a default client) whose transport
// tells a ResilientModel the status code and Retry-After header of each
// response, for a provider client's option: openai.WithHTTPClient(
// nodes.HTTPClient(nil)). Used outside a ResilientModel's call it only
// passes requests on.
func HTTPClient(base *http.Client) *http.Client {
	c := &http.Client{}
	if base != nil {
		*c = *base
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = hintTransport{next: next}
	return c
}

type hintTransport struct{ next http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (t hintTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if h, ok := req.Context().Value(hintKey{}).(*callHint); ok && resp != nil {
		h.mu.Lock()
		h.status, h.after = resp.StatusCode, retryAfter(resp.Header.Get("Retry-After"), time.Now())
		h.mu.Unlock()
	}
	return resp, err
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
