package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Agent does the work behind an A2A endpoint. A method's error that is an
// *Error reaches the client as is; any other is an internal error.
type Agent interface {
	// Send starts a task for the message (or continues the one waiting
	// for input in its context) and returns it: once it stops when
	// p.Blocking(), else at once.
	Send(ctx context.Context, p MessageSendParams) (*Task, error)
	// Stream is Send that calls emit with each event as it happens (a
	// *Task first, then *TaskStatusUpdateEvent and
	// *TaskArtifactUpdateEvent), the last one a status update with Final.
	Stream(ctx context.Context, p MessageSendParams, emit func(event any) error) error
	// Task returns a task by its id.
	Task(ctx context.Context, p TaskQueryParams) (*Task, error)
	// Cancel cancels a task and returns it.
	Cancel(ctx context.Context, p TaskIDParams) (*Task, error)
}

// Error is a JSON-RPC error, with the A2A codes below.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return fmt.Sprintf("a2a error %d: %s", e.Code, e.Message) }

// JSON-RPC and A2A error codes.
const (
	CodeParseError           = -32700
	CodeInvalidRequest       = -32600
	CodeMethodNotFound       = -32601
	CodeInvalidParams        = -32602
	CodeInternal             = -32603
	CodeTaskNotFound         = -32001
	CodeTaskNotCancelable    = -32002
	CodePushNotSupported     = -32003
	CodeUnsupportedOperation = -32004
)

// Errorf is an *Error with code and a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Handler serves A2A's JSON-RPC methods (message/send, message/stream,
// tasks/get, tasks/cancel) for agent on POST; any other method is
// answered with a JSON-RPC error.
func Handler(agent Agent) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "a2a: the endpoint takes JSON-RPC requests by POST", http.StatusMethodNotAllowed)
			return
		}
		var req request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			reply(w, nil, nil, Errorf(CodeParseError, "a2a: the request is not JSON: %v", err))
			return
		}
		if req.JSONRPC != "2.0" || req.Method == "" {
			reply(w, req.ID, nil, Errorf(CodeInvalidRequest, "a2a: not a JSON-RPC 2.0 request (jsonrpc %q, method %q)", req.JSONRPC, req.Method))
			return
		}
		ctx := r.Context()
		switch req.Method {
		case "message/send":
			var p MessageSendParams
			if err := params(req, &p); err != nil {
				reply(w, req.ID, nil, err)
				return
			}
			t, err := agent.Send(ctx, p)
			reply(w, req.ID, t, err)
		case "message/stream":
			var p MessageSendParams
			if err := params(req, &p); err != nil {
				reply(w, req.ID, nil, err)
				return
			}
			stream(w, r, req.ID, agent, p)
		case "tasks/get":
			var p TaskQueryParams
			if err := params(req, &p); err != nil {
				reply(w, req.ID, nil, err)
				return
			}
			t, err := agent.Task(ctx, p)
			reply(w, req.ID, t, err)
		case "tasks/cancel":
			var p TaskIDParams
			if err := params(req, &p); err != nil {
				reply(w, req.ID, nil, err)
				return
			}
			t, err := agent.Cancel(ctx, p)
			reply(w, req.ID, t, err)
		case "tasks/resubscribe", "tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get",
			"tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete", "agent/getAuthenticatedExtendedCard":
			reply(w, req.ID, nil, Errorf(CodeUnsupportedOperation, "a2a: method %q is not supported by this agent", req.Method))
		default:
			reply(w, req.ID, nil, Errorf(CodeMethodNotFound, "a2a: no method %q", req.Method))
		}
	})
}

// params decodes the request's params into p, checking a message's kind
// and parts.
func params(req request, p any) *Error {
	if len(req.Params) == 0 {
		return Errorf(CodeInvalidParams, "a2a: %s: params are missing", req.Method)
	}
	if err := json.Unmarshal(req.Params, p); err != nil {
		return Errorf(CodeInvalidParams, "a2a: %s: params: %v", req.Method, err)
	}
	switch p := p.(type) {
	case *MessageSendParams:
		if len(p.Message.Parts) == 0 {
			return Errorf(CodeInvalidParams, "a2a: %s: message %q has no parts", req.Method, p.Message.MessageID)
		}
		for i, part := range p.Message.Parts {
			if part.Kind != "text" && part.Kind != "data" {
				return Errorf(CodeInvalidParams, "a2a: %s: message %q: part %d is of kind %q; text and data parts are supported", req.Method, p.Message.MessageID, i, part.Kind)
			}
		}
	case *TaskQueryParams:
		if p.ID == "" {
			return Errorf(CodeInvalidParams, "a2a: %s: params.id is missing", req.Method)
		}
	case *TaskIDParams:
		if p.ID == "" {
			return Errorf(CodeInvalidParams, "a2a: %s: params.id is missing", req.Method)
		}
	}
	return nil
}

// rpcError is err as a JSON-RPC error.
func rpcError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}

func reply(w http.ResponseWriter, id json.RawMessage, result any, err error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	resp := response{JSONRPC: "2.0", ID: id, Result: result}
	if err != nil {
		resp.Result, resp.Error = nil, rpcError(err)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// stream answers message/stream with Server-Sent Events, one JSON-RPC
// response per event; an error ends the stream as an error response.
func stream(w http.ResponseWriter, r *http.Request, id json.RawMessage, agent Agent, p MessageSendParams) {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(result any, err error) error {
		resp := response{JSONRPC: "2.0", ID: id, Result: result}
		if err != nil {
			resp.Result, resp.Error = nil, rpcError(err)
		}
		data, merr := json.Marshal(resp)
		if merr != nil {
			return merr
		}
		if _, werr := fmt.Fprintf(w, "data: %s\n\n", data); werr != nil {
			return werr
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	}
	if err := agent.Stream(r.Context(), p, func(ev any) error { return send(ev, nil) }); err != nil && r.Context().Err() == nil {
		_ = send(nil, err)
	}
}
