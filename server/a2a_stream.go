package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/stategraph/stategraph/a2a"
)

// progress emits each node's update of run rid, as the run's own stream
// (GET .../runs/{rid}/stream) gives it, as a working status update whose
// message holds the update ({"node": {...}}) as a data part. It returns
// when the run's stream ends (the run stopped), or emit fails, which
// cancels the run. A run whose events are already forgotten has none.
func (g *a2aAgent) progress(ctx context.Context, tid, rid string, emit func(any) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/threads/"+tid+"/runs/"+rid+"/stream?cancel_on_disconnect=1", nil)
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.s.mux.ServeHTTP(&pipeWriter{header: http.Header{}, w: pw}, req)
		pw.Close()
	}()
	defer func() {
		cancel()
		pr.Close()
		<-done
	}()
	id := tid + ":" + rid
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	event, n := "", 0
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == "updates":
			n++
			msg := &a2a.Message{Kind: "message", MessageID: id + ":update:" + strconv.Itoa(n), Role: "agent", ContextID: tid, TaskID: id,
				Parts: []a2a.Part{a2a.DataPart(json.RawMessage(strings.TrimPrefix(line, "data: ")))}}
			if err := emit(&a2a.TaskStatusUpdateEvent{Kind: "status-update", TaskID: id, ContextID: tid,
				Status: a2a.TaskStatus{State: a2a.StateWorking, Message: msg, Timestamp: now()}}); err != nil {
				return err
			}
		case line == "":
			event = ""
		}
	}
	return nil
}

// pipeWriter is a streaming ResponseWriter of a request the server makes
// to itself: what the handler writes is read from the pipe.
type pipeWriter struct {
	header http.Header
	w      *io.PipeWriter
}

func (p *pipeWriter) Header() http.Header         { return p.header }
func (p *pipeWriter) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *pipeWriter) WriteHeader(int)             {}
func (p *pipeWriter) Flush()                      {}
