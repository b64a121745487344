package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stategraph/stategraph/graph"
)

// Progress is what a tool reports of a call under way
// (notifications/progress). A call made in a graph node whose run streams
// graph.Custom asks the server for progress, and each report is sent to
// that stream as a Progress.
type Progress struct {
	Server   string  `json:"server"`
	Tool     string  `json:"tool"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// progressSink is where the reports of one call go.
type progressSink struct {
	ctx  context.Context
	tool string
}

// watchProgress asks for the progress of the call params makes, when
// ctx's run streams Custom; the returned func ends the watch.
func (c *Client) watchProgress(ctx context.Context, tool string, params *sdk.CallToolParams) func() {
	if !graph.Streams(ctx, graph.Custom) {
		return func() {}
	}
	token := fmt.Sprintf("stategraph-%d", c.tokens.Add(1))
	params.SetProgressToken(token)
	c.progress.Store(token, progressSink{ctx: ctx, tool: tool})
	return func() { c.progress.Delete(token) }
}

// progressed forwards a report to its call's stream.
func (c *Client) progressed(p *sdk.ProgressNotificationParams) {
	if p == nil {
		return
	}
	token, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	if s, ok := c.progress.Load(token); ok {
		sink := s.(progressSink)
		graph.Emit(sink.ctx, Progress{Server: c.name, Tool: sink.tool, Progress: p.Progress, Total: p.Total, Message: p.Message})
	}
}
