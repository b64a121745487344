package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// postWebhook POSTs a finished run (its record, with its result as
// "values") to the run's webhook URL, in the background, once; a failure is
// not retried.
func (s *Server) postWebhook(run *liveRun) {
	body := runJSON(run.rec)
	body["values"] = json.RawMessage(run.result)
	data, err := json.Marshal(body)
	if err != nil {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, run.webhook, bytes.NewReader(data))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
}
