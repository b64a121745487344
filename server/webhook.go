package server

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"
)

// Webhooks configures how the server posts a finished run to its
// webhook (WithWebhooks). The zero value is the default.
type Webhooks struct {
	// Secret, when set, signs each webhook: its X-Stategraph-Signature
	// header is "sha256=" and the hex HMAC-SHA256 of the body keyed by
	// Secret, which the receiver recomputes to know the post is the
	// server's.
	Secret string
	// Attempts is how many times a webhook is tried (default 4): again
	// after a network error, a 429 or a 5xx answer, never after another
	// 4xx.
	Attempts int
	// Backoff is the wait after failed attempt n (from 1) (default 1s,
	// 2s, 4s, … at most 30s).
	Backoff func(attempt int) time.Duration
	// Wait waits d or until ctx ends (default a timer); tests give one
	// that returns at once.
	Wait func(ctx context.Context, d time.Duration) error
	// AllowLoopback lets webhooks go to loopback addresses (127.0.0.0/8,
	// ::1, localhost), which the server refuses otherwise, as LangGraph's
	// does, so that a run's creator cannot make it post to the server's
	// own host.
	AllowLoopback bool
}

// WithWebhooks sets how webhooks are sent (see Webhooks).
func WithWebhooks(w Webhooks) Option { return func(o *options) { o.webhooks = w } }

// SignatureHeader is the header a signed webhook carries (Webhooks.Secret).
const SignatureHeader = "X-Stategraph-Signature"

func (w Webhooks) attempts() int {
	if w.Attempts > 0 {
		return w.Attempts
	}
	return 4
}

func (w Webhooks) backoff(n int) time.Duration {
	if w.Backoff != nil {
		return w.Backoff(n)
	}
	return min(time.Second<<(n-1), 30*time.Second)
}

func (w Webhooks) wait(ctx context.Context, d time.Duration) error {
	if w.Wait != nil {
		return w.Wait(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var errLoopback = errors.New("webhooks to loopback addresses are refused (server.Webhooks.AllowLoopback allows them)")

// checkWebhook refuses a run's webhook that is not an http(s) URL, or
// names a loopback host when they are not allowed (the dial checks the
// address it resolves to as well).
func (s *Server) checkWebhook(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &InputError{Field: "webhook", Err: fmt.Errorf("%q is not an http or https URL", raw)}
	}
	if s.opts.webhooks.AllowLoopback {
		return nil
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
		return &InputError{Field: "webhook", Err: fmt.Errorf("%q: %w", raw, errLoopback)}
	}
	return nil
}

// webhookClient is the client webhooks are posted with: its dialer
// refuses loopback addresses unless they are allowed.
func (s *Server) webhookClient() *http.Client {
	if s.opts.webhooks.AllowLoopback {
		return http.DefaultClient
	}
	d := &net.Dialer{Timeout: 10 * time.Second, Control: func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if ip := net.ParseIP(host); err == nil && ip != nil && ip.IsLoopback() {
			return fmt.Errorf("webhook to %s: %w", address, errLoopback)
		}
		return nil
	}}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = d.DialContext
	return &http.Client{Transport: tr}
}

// postWebhook POSTs a finished run (its record, with its result as
// "values") to the run's webhook URL, in the background, retried with
// backoff as WithWebhooks says, signed when it has a secret. It gives up
// when the server closes.
func (s *Server) postWebhook(run *liveRun) {
	body := runJSON(run.rec)
	body["values"] = json.RawMessage(run.result)
	data, err := json.Marshal(body)
	if err != nil {
		return
	}
	cfg := s.opts.webhooks
	var sig string
	if cfg.Secret != "" {
		mac := hmac.New(sha256.New, []byte(cfg.Secret))
		mac.Write(data)
		sig = "sha256=" + hex.EncodeToString(mac.Sum(nil))
	}
	client := s.webhookClient()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for n := 1; ; n++ {
			retry, err := s.postOnce(client, run.webhook, data, sig)
			if err == nil {
				return
			}
			if !retry || n >= cfg.attempts() || s.ctx.Err() != nil {
				if s.opts.logf != nil {
					s.opts.logf("server: webhook of run %q: attempt %d of %d: %v", run.rec.RunID, n, cfg.attempts(), err)
				}
				return
			}
			if cfg.wait(s.ctx, cfg.backoff(n)) != nil {
				return
			}
		}
	}()
}

// postOnce makes one attempt; retry says whether a failure may pass.
func (s *Server) postOnce(client *http.Client, to string, data []byte, sig string) (retry bool, err error) {
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, to, bytes.NewReader(data))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set(SignatureHeader, sig)
	}
	resp, err := client.Do(req)
	if err != nil {
		return !errors.Is(err, errLoopback), err
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode < 300:
		return false, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return true, fmt.Errorf("%s answered %s", to, resp.Status)
	}
	return false, fmt.Errorf("%s answered %s", to, resp.Status)
}
