package nodes_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/internal/delivery"
	"github.com/stategraph/stategraph/internal/fakechat"
	"github.com/stategraph/stategraph/nodes"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
)

// openaiModel is langchaingo's openai client on srv, with nodes.HTTPClient
// so that status codes and Retry-After reach a ResilientModel.
func openaiModel(t *testing.T, srv *fakechat.Server) llms.Model {
	t.Helper()
	llm, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("test"), openai.WithModel("test"),
		openai.WithHTTPClient(nodes.HTTPClient(nil)))
	require.NoError(t, err)
	return llm
}

// retries records a ResilientModel's retries.
type retries struct {
	mu    sync.Mutex
	waits []time.Duration
	errs  []error
}

func (r *retries) record(_ int, err error, wait time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits, r.errs = append(r.waits, wait), append(r.errs, err)
}

func TestResilientModelWaitsForRetryAfterThenSucceeds(t *testing.T) {
	t.Parallel()
	srv := fakechat.New(t,
		fakechat.Rule{Status: http.StatusTooManyRequests, RetryAfter: "1", Once: true},
		fakechat.Rule{Reply: "hello"},
	)
	var rec retries
	m := &nodes.ResilientModel{Model: openaiModel(t, srv), Retry: nodes.ModelRetry{InitialInterval: time.Millisecond, OnRetry: rec.record}}
	start := time.Now()
	out, err := m.Call(t.Context(), "hi")
	require.NoError(t, err)
	require.Equal(t, "hello", out)
	require.Len(t, srv.Requests(), 2)
	require.Equal(t, []time.Duration{time.Second}, rec.waits, "the server's Retry-After, not the backoff")
	require.ErrorContains(t, rec.errs[0], "HTTP 429")
	require.GreaterOrEqual(t, time.Since(start), time.Second)
}

func TestResilientModelRetriesAServerError(t *testing.T) {
	t.Parallel()
	srv := fakechat.New(t,
		fakechat.Rule{Status: http.StatusInternalServerError, Once: true},
		fakechat.Rule{Status: http.StatusBadGateway, Once: true},
		fakechat.Rule{Reply: "hello"},
	)
	var rec retries
	m := &nodes.ResilientModel{Model: openaiModel(t, srv), Retry: nodes.ModelRetry{InitialInterval: time.Millisecond, OnRetry: rec.record}}
	out, err := m.Call(t.Context(), "hi")
	require.NoError(t, err)
	require.Equal(t, "hello", out)
	require.Len(t, srv.Requests(), 3)
	require.Len(t, rec.waits, 2)
}

func TestResilientModelRetriesWithoutHTTPClientReadingTheStatusFromTheError(t *testing.T) {
	t.Parallel()
	srv := fakechat.New(t,
		fakechat.Rule{Status: http.StatusServiceUnavailable, Once: true},
		fakechat.Rule{Reply: "hello"},
	)
	llm, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("test"), openai.WithModel("test"))
	require.NoError(t, err)
	m := &nodes.ResilientModel{Model: llm, Retry: nodes.ModelRetry{InitialInterval: time.Millisecond}}
	out, err := m.Call(t.Context(), "hi")
	require.NoError(t, err)
	require.Equal(t, "hello", out)
	require.Len(t, srv.Requests(), 2)
}

func TestResilientModelFailsAtOnceOnUnauthorized(t *testing.T) {
	t.Parallel()
	srv := fakechat.New(t, fakechat.Rule{Status: http.StatusUnauthorized}, fakechat.Rule{Reply: "hello"})
	m := &nodes.ResilientModel{Model: openaiModel(t, srv), Retry: nodes.ModelRetry{InitialInterval: time.Millisecond}}
	_, err := m.Call(t.Context(), "hi")
	require.ErrorContains(t, err, "HTTP 401")
	require.NotContains(t, err.Error(), "attempts")
	require.Len(t, srv.Requests(), 1, "not retried")
}

func TestResilientModelCutsOffAHangingCallAndRetries(t *testing.T) {
	t.Parallel()
	srv := fakechat.New(t, fakechat.Rule{Hang: true, Once: true}, fakechat.Rule{Reply: "hello"})
	var rec retries
	m := &nodes.ResilientModel{Model: openaiModel(t, srv), Retry: nodes.ModelRetry{Timeout: 200 * time.Millisecond, InitialInterval: time.Millisecond, OnRetry: rec.record}}
	out, err := m.Call(t.Context(), "hi")
	require.NoError(t, err)
	require.Equal(t, "hello", out)
	require.Len(t, srv.Requests(), 2)
	require.ErrorIs(t, rec.errs[0], nodes.ErrModelTimeout)

	// With no retry left, the timeout is the call's error.
	srv = fakechat.New(t, fakechat.Rule{Hang: true})
	m = &nodes.ResilientModel{Model: openaiModel(t, srv), Retry: nodes.ModelRetry{Timeout: 100 * time.Millisecond, MaxAttempts: 2, InitialInterval: time.Millisecond}}
	_, err = m.Call(t.Context(), "hi")
	require.ErrorIs(t, err, nodes.ErrModelTimeout)
	require.ErrorContains(t, err, "after 2 attempts")
}

func TestResilientModelStopsAtACancelledContext(t *testing.T) {
	t.Parallel()
	srv := fakechat.New(t, fakechat.Rule{Hang: true})
	m := &nodes.ResilientModel{Model: openaiModel(t, srv), Retry: nodes.ModelRetry{}}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for len(srv.Requests()) == 0 {
			time.Sleep(time.Millisecond) // polling the fake server, not synchronising the code under test
		}
		cancel()
	}()
	_, err := m.Call(ctx, "hi")
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, srv.Requests(), 1, "a cancelled call is not retried")
}

// agentOn is the delivery case's agent on a model server: the model plans,
// replans and answers.
// deliveryServer is a fake chat server that answers the delivery case's
// planner, replanner and responder.
func deliveryServer(t *testing.T) *fakechat.Server {
	return fakechat.New(t,
		fakechat.Rule{Marker: "You are a planner", Reply: deliveryPlanReply},
		fakechat.Rule{Marker: "You are revising a plan", Reply: deliveryReplanReply},
		fakechat.Rule{Marker: "Answer the user's request", Reply: deliveryAnswerReply},
	)
}

func agentOn(t *testing.T, srv *fakechat.Server, b nodes.Budget, opts ...nodes.AgentOption) (*graph.Compiled[nodes.AgentState], *delivery.Case) {
	t.Helper()
	c := delivery.New()
	ts := c.Tools()
	return compileAgent(t, nodes.AgentConfig{
		Model: openaiModel(t, srv), Tools: ts, Checker: c.Checker(), Guards: []plan.Guard{plan.ReadOnlyGuard(ts)}, Budget: b,
	}, nil, append([]nodes.AgentOption{nodes.WithModelRetry(nodes.ModelRetry{InitialInterval: time.Millisecond})}, opts...)...), c
}

func TestAgentCountsEveryAttemptOfAModelCall(t *testing.T) {
	t.Parallel()
	srv := fakechat.New(t,
		fakechat.Rule{Status: http.StatusInternalServerError, Once: true},
		fakechat.Rule{Marker: "You are a planner", Reply: deliveryPlanReply},
		fakechat.Rule{Marker: "You are revising a plan", Reply: deliveryReplanReply},
		fakechat.Rule{Marker: "Answer the user's request", Reply: deliveryAnswerReply},
	)
	app, c := agentOn(t, srv, nodes.Budget{MaxModelCalls: 10})
	out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	require.Equal(t, deliveryAnswerReply, out.Answer())
	require.Len(t, srv.Requests(), 4)
	require.Equal(t, 4, out.Usage.ModelCalls, "the planner's failed attempt is a model call")
}

func TestAgentCountsTheModelCallsOfAFailedNodeAttempt(t *testing.T) {
	t.Parallel()
	srv := deliveryServer(t)
	c := delivery.New()
	ts := c.Tools()
	llm := openaiModel(t, srv)
	var mu sync.Mutex
	attempts := 0
	flaky := replannerFunc(func(ctx context.Context, req nodes.ReplanRequest) (plan.Plan, nodes.ReplanInfo, error) {
		p, info, err := nodes.PartialReplan{Model: llm}.Replan(ctx, req)
		mu.Lock()
		defer mu.Unlock()
		if attempts++; attempts == 1 {
			return plan.Plan{}, info, errors.New("lost the connection to the plan store")
		}
		return p, info, err
	})
	app := compileAgent(t, nodes.AgentConfig{
		Model: llm, Tools: ts, Checker: c.Checker(), Guards: []plan.Guard{plan.ReadOnlyGuard(ts)}, Replanner: flaky,
		Budget: nodes.Budget{MaxModelCalls: 3},
	}, nil, nodes.WithNodeOptions(nodes.NodeReplan, graph.WithRetry(graph.RetryPolicy{MaxAttempts: 3, InitialInterval: time.Millisecond})), nodes.WithRoundByRound())
	out, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.NoError(t, err)
	require.Equal(t, 2, attempts, "the replan node ran twice")
	require.Len(t, srv.Requests(), 3, "planner, the failed replan attempt's call, the retry's call: the budget's 3")
	require.Equal(t, 3, out.Usage.ModelCalls, "the failed attempt's call is counted")
	require.NotContains(t, srv.Requests()[2], "Answer the user's request", "no call left for the responder")
	require.Contains(t, out.Answer(), "max_model_calls: used 3 of 3", "the template answers, naming the stop")
}

func TestAgentMaxWallCutsOffAHangingModelCall(t *testing.T) {
	t.Parallel()
	srv := fakechat.New(t, fakechat.Rule{Hang: true})
	app, c := agentOn(t, srv, nodes.Budget{MaxWall: 300 * time.Millisecond})
	start := time.Now()
	_, err := app.Invoke(t.Context(), nodes.NewInput(c.Goal(), c.Constraints()...))
	require.ErrorContains(t, err, "stopped by budget max_wall")
	require.Less(t, time.Since(start), 10*time.Second)
	require.Len(t, srv.Requests(), 1, "not retried past the deadline")
}
