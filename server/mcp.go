package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPPath is where WithMCP serves the MCP endpoint.
const MCPPath = "/mcp"

// WithMCP serves the Model Context Protocol at /mcp (MCPPath), over the
// streamable HTTP transport, as LangGraph's Agent Server does: each
// assistant is an MCP tool named after it, whose input schema is its
// graph's input schema; a call runs the assistant on a thread of its own
// (a stateless run, as POST /runs/wait) and answers with the run's final
// values as JSON (text and structured content). A run that fails, or
// that stops at an interrupt (which a stateless run cannot be resumed
// from), answers with an error result (isError) that says so; an input
// the graph refuses is an error result naming the field. The endpoint
// keeps no MCP sessions: each request stands alone. It is behind the
// same authentication as the rest of the API (WithAuth): the runs are the
// authenticated user's. A client that cancels a call (notifications/
// cancelled) or goes away cancels its run.
func WithMCP() Option { return func(o *options) { o.mcp = true } }

// mcpRoutes mounts the MCP endpoint.
func (s *Server) mcpRoutes(m *http.ServeMux) {
	h := sdk.NewStreamableHTTPHandler(s.mcpServer, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	m.Handle(MCPPath, h)
}

// mcpServer is the MCP server of one request (the endpoint is
// stateless): the assistants as tools, each call run as the request's
// user and cancelled when the request ends.
func (s *Server) mcpServer(r *http.Request) *sdk.Server {
	user, authed := userOf(r.Context())
	srv := sdk.NewServer(&sdk.Implementation{Name: "stategraph", Version: "1"}, nil)
	for _, a := range s.assistants {
		srv.AddTool(&sdk.Tool{
			Name:        a.Name,
			Description: fmt.Sprintf("Runs the assistant %q (graph %q) on the input and returns its final state as JSON.", a.Name, a.GraphID),
			InputSchema: objectSchema(a.g.Schemas().Input),
		}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if authed {
				ctx = context.WithValue(ctx, userKey{}, user)
			}
			// The SDK detaches the handler from the HTTP request; a
			// client that goes away ends the request, and the run.
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			stop := context.AfterFunc(r.Context(), cancel)
			defer stop()
			return s.mcpCall(ctx, a, req.Params.Arguments), nil
		})
	}
	return srv
}

// mcpCall runs assistant a on args as a stateless run waited for, through
// the API's own POST /runs/wait, so a server with workers runs it on them.
func (s *Server) mcpCall(ctx context.Context, a *assistant, args json.RawMessage) *sdk.CallToolResult {
	if isNull(args) {
		args = json.RawMessage("{}")
	}
	body, err := json.Marshal(map[string]any{"assistant_id": a.ID, "input": args, "on_disconnect": "cancel"})
	if err != nil {
		return mcpError("assistant %q: %v", a.Name, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/runs/wait", bytes.NewReader(body))
	if err != nil {
		return mcpError("assistant %q: %v", a.Name, err)
	}
	req.Header.Set("Content-Type", "application/json")
	rec := &recorder{header: http.Header{}, code: http.StatusOK}
	s.mux.ServeHTTP(rec, req)
	if ctx.Err() != nil {
		return mcpError("assistant %q: the call was cancelled, and its run with it", a.Name)
	}
	if rec.code != http.StatusOK {
		var e struct {
			Detail string `json:"detail"`
		}
		if json.Unmarshal(rec.body.Bytes(), &e) != nil || e.Detail == "" {
			e.Detail = strings.TrimSpace(rec.body.String())
		}
		return mcpError("assistant %q: %s", a.Name, e.Detail)
	}
	var values map[string]json.RawMessage
	if err := json.Unmarshal(rec.body.Bytes(), &values); err != nil {
		return mcpError("assistant %q: its result is not a JSON object: %v", a.Name, err)
	}
	if e, ok := values["__error__"]; ok {
		var re struct {
			Error, Message string
		}
		_ = json.Unmarshal(e, &re)
		return mcpError("assistant %q: the run failed: %s", a.Name, re.Message)
	}
	if in, ok := values["__interrupt__"]; ok && !isNull(in) && string(in) != "[]" {
		return mcpError("assistant %q stopped at an interrupt, which a call through /mcp cannot answer (its run is stateless; answer interrupts on a thread through the Agent Server API): %s", a.Name, in)
	}
	delete(values, "__interrupt__")
	out, _ := json.Marshal(values)
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(out)}}, StructuredContent: json.RawMessage(out)}
}

// objectSchema is an input schema as MCP wants it, an object schema: a
// Graph of another kind's that is not one becomes {"type":"object"}.
func objectSchema(raw json.RawMessage) json.RawMessage {
	var s struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &s) != nil || s.Type != "object" {
		return json.RawMessage(`{"type":"object"}`)
	}
	return raw
}

func mcpError(format string, args ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

// recorder keeps the answer of a request the server makes to itself.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(code int)        { r.code = code }
