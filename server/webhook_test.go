package server_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/server"
)

func TestWebhookReceivesTheFinishedRun(t *testing.T) {
	t.Parallel()
	got := make(chan map[string]any, 1)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(data, &m)
		got <- m
	}))
	defer hook.Close()
	h := newHarness(t, server.WithWebhooks(server.Webhooks{AllowLoopback: true}))
	h.json("POST", "/threads", map[string]any{"thread_id": "t"}, 200)
	run := h.json("POST", "/threads/t/runs", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"}, "webhook": hook.URL}, 200)
	bound, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	select {
	case m := <-got:
		assert.Equal(t, run["run_id"], m["run_id"])
		assert.Equal(t, "success", m["status"])
		assert.Equal(t, map[string]any{"input": "hi", "replies": []any{"echo: hi"}}, m["values"])
	case <-bound.Done():
		require.Fail(t, "the webhook was not called")
	}
}

// A webhook that fails with 503 is tried again after the backoff (an
// injected wait: the test sees the waits asked for, none is slept), signed
// with the secret; a 4xx answer is not retried; a loopback URL is refused
// unless allowed.
func TestWebhookRetriesWithBackoffAndSignature(t *testing.T) {
	t.Parallel()
	type hit struct {
		sig  string
		body []byte
	}
	hits := make(chan hit, 8)
	status := make(chan int, 8)
	for _, code := range []int{503, 502, 200} {
		status <- code
	}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		hits <- hit{sig: r.Header.Get(server.SignatureHeader), body: data}
		w.WriteHeader(<-status)
	}))
	defer hook.Close()
	waits := make(chan time.Duration, 8)
	logs := make(chan string, 8)
	h := newHarness(t, server.WithWebhooks(server.Webhooks{Secret: "s3cret", AllowLoopback: true,
		Wait: func(ctx context.Context, d time.Duration) error { waits <- d; return nil }}),
		server.WithLogf(func(format string, args ...any) { logs <- fmt.Sprintf(format, args...) }))
	bound, cancel := context.WithTimeout(t.Context(), 10*time.Second) // an upper bound only
	defer cancel()
	h.json("POST", "/threads/t/runs", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"},
		"webhook": hook.URL, "if_not_exists": "create"}, 200)
	var got []hit
	for range 3 {
		select {
		case x := <-hits:
			got = append(got, x)
		case <-bound.Done():
			require.FailNow(t, "the webhook was not retried", "after %d attempts", len(got))
		}
	}
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, []time.Duration{<-waits, <-waits})
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write(got[2].body)
	assert.Equal(t, "sha256="+hex.EncodeToString(mac.Sum(nil)), got[2].sig)
	assert.Equal(t, got[0].body, got[2].body, "the same post each time")

	// A 4xx is the receiver's answer: not retried.
	status <- 400
	h.json("POST", "/threads/u/runs/wait", map[string]any{"assistant_id": "echo", "input": map[string]any{"input": "hi"},
		"webhook": hook.URL, "if_not_exists": "create"}, 200)
	<-hits
	select {
	case msg := <-logs:
		assert.Contains(t, msg, "attempt 1 of 4", "given up after the first attempt")
		assert.Contains(t, msg, "400 Bad Request")
	case <-bound.Done():
		require.FailNow(t, "the webhook's failure was not reported")
	}
	assert.Empty(t, waits, "no wait for a retry")

	strict := newHarness(t)
	for _, u := range []string{hook.URL, "http://localhost:9/x", "http://[::1]/x", "ftp://example.com/x"} {
		code, body := strict.do("POST", "/threads/v/runs", map[string]any{"assistant_id": "echo", "webhook": u, "if_not_exists": "create"})
		assert.Equal(t, 422, code, "%s: %s", u, body)
		assert.Contains(t, detail(t, body), "webhook", u)
	}
	code, body := strict.do("POST", "/runs/crons", map[string]any{"assistant_id": "echo", "schedule": "* * * * *", "webhook": hook.URL})
	assert.Equal(t, 422, code, "%s", body)
}
