package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stategraph/stategraph/nodes/plan"
	"github.com/tmc/langchaingo/tools"
)

// Tool is one tool of an MCP server, as the agents take a tool: a
// langchaingo tools.Tool with an input schema (a nodes/tool.SchemaTool,
// which chat/toolnode reads too) and side effects (plan.SideEffecter). It
// reads its definition from its client's latest tool list.
type Tool struct {
	c    *Client
	name string
}

var (
	_ tools.Tool        = (*Tool)(nil)
	_ plan.SideEffecter = (*Tool)(nil)
)

// Annotations are a tool's MCP hints, with the protocol's defaults filled
// in. They are what the server says, not a guarantee.
type Annotations struct {
	// ReadOnly: the tool changes nothing (readOnlyHint, default false).
	ReadOnly bool
	// Destructive: a tool that changes things may destroy or overwrite
	// (destructiveHint, default true; false for a read-only tool).
	Destructive bool
	// Idempotent: calling it again with the same input has no further
	// effect (idempotentHint, default false; true for a read-only tool).
	Idempotent bool
	// OpenWorld: it reaches things outside the server (openWorldHint,
	// default true).
	OpenWorld bool
}

// Name implements tools.Tool: the server's name of the tool.
func (t *Tool) Name() string { return t.name }

// Server is the name of the tool's server.
func (t *Tool) Server() string { return t.c.name }

// Description implements tools.Tool: the server's description (its title
// when it has none).
func (t *Tool) Description() string {
	d, ok := t.c.def(t.name)
	switch {
	case !ok:
		return ""
	case d.Description != "":
		return d.Description
	case d.Title != "":
		return d.Title
	case d.Annotations != nil:
		return d.Annotations.Title
	}
	return ""
}

// InputSchema is the JSON Schema of the tool's input, as the server gives
// it ({"type":"object"} when it gives none).
func (t *Tool) InputSchema() json.RawMessage {
	if d, ok := t.c.def(t.name); ok && d.InputSchema != nil {
		if raw, err := json.Marshal(d.InputSchema); err == nil && string(raw) != "null" {
			return raw
		}
	}
	return json.RawMessage(`{"type":"object"}`)
}

// Annotations returns the tool's hints.
func (t *Tool) Annotations() Annotations {
	a := Annotations{Destructive: true, OpenWorld: true}
	d, ok := t.c.def(t.name)
	if !ok || d.Annotations == nil {
		return a
	}
	h := d.Annotations
	a.ReadOnly, a.Idempotent = h.ReadOnlyHint, h.IdempotentHint
	if h.DestructiveHint != nil {
		a.Destructive = *h.DestructiveHint
	}
	if h.OpenWorldHint != nil {
		a.OpenWorld = *h.OpenWorldHint
	}
	if a.ReadOnly {
		a.Destructive, a.Idempotent = false, true
	}
	return a
}

// SideEffects implements plan.SideEffecter: true unless the tool is
// read-only (readOnlyHint), so plan.ReadOnlyGuard refuses it in a
// query-only plan.
func (t *Tool) SideEffects() bool { return !t.Annotations().ReadOnly }

// CheckInput reports whether input is one the tool's schema accepts: an
// error matching plan.ErrBadInput naming the field when not (see the
// package documentation for what is checked).
func (t *Tool) CheckInput(input string) error {
	_, err := t.args(input)
	return err
}

func (t *Tool) args(input string) (json.RawMessage, error) {
	d, ok := t.c.def(t.name)
	if !ok {
		return nil, fmt.Errorf("mcp: server %q no longer offers tool %q", t.c.name, t.name)
	}
	if strings.TrimSpace(input) == "" {
		input = "{}"
	}
	if err := checkArgs(schemaOf(d), []byte(input)); err != nil {
		return nil, fmt.Errorf("%w: tool %q: %s", plan.ErrBadInput, t.name, err)
	}
	return json.RawMessage(input), nil
}

// codeRejected is the SDK's JSON-RPC code for a request its transport
// could not deliver or whose HTTP answer was an error status: the server
// is unreachable or gone.
const codeRejected = -32005

// ToolError is a tool's own failure: the server answered the call with
// a result marked isError. Message is the result's text.
type ToolError struct {
	Server, Tool, Message string
}

func (e *ToolError) Error() string {
	return fmt.Sprintf("mcp: server %q: tool %q failed: %s", e.Server, e.Tool, e.Message)
}

// Call implements tools.Tool: it checks input (a JSON object) against the
// tool's schema and calls the tool, within the client's call timeout. It
// returns the result's text (see the package documentation); a failure
// is an error naming the server and the tool.
func (t *Tool) Call(ctx context.Context, input string) (string, error) {
	args, err := t.args(input)
	if err != nil {
		return "", err
	}
	c := t.c
	cs, err := c.session(ctx)
	if err != nil {
		return "", fmt.Errorf("%w (tool %q not called)", err, t.name)
	}
	cctx, cancel := context.WithTimeout(ctx, c.o.timeout)
	defer cancel()
	params := &sdk.CallToolParams{Name: t.name, Arguments: args}
	defer c.watchProgress(ctx, t.name, params)()
	res, err := cs.CallTool(cctx, params)
	if err != nil {
		var rpc *jsonrpc.Error
		switch {
		case ctx.Err() != nil:
			return "", fmt.Errorf("mcp: server %q: tool %q: %w", c.name, t.name, ctx.Err())
		case cctx.Err() != nil:
			return "", fmt.Errorf("mcp: server %q: tool %q: no result within %s: %w", c.name, t.name, c.o.timeout, context.DeadlineExceeded)
		case errors.As(err, &rpc) && rpc.Code != codeRejected && !errors.Is(err, sdk.ErrSessionMissing):
			return "", fmt.Errorf("mcp: server %q: tool %q: %w", c.name, t.name, err)
		}
		// The connection broke: forget it, so the next call connects
		// again.
		c.drop(cs)
		return "", downf(err, "mcp: server %q died during a call of tool %q (it may or may not have taken effect; the next call reconnects)", c.name, t.name)
	}
	text := resultText(res)
	if res.IsError {
		return "", &ToolError{Server: c.name, Tool: t.name, Message: text}
	}
	return text, nil
}

// resultText renders a result for a model: its text blocks, each other
// block described in a line, or its structured content as JSON when it
// has no block.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s %s]", c.URI, c.Name))
		case *sdk.EmbeddedResource:
			parts = append(parts, embedded(c.Resource))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return string(b)
		}
	}
	return strings.Join(parts, "\n")
}

func embedded(r *sdk.ResourceContents) string {
	switch {
	case r == nil:
		return "[resource]"
	case r.Text != "":
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[resource %s %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
}
