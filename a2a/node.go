package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/state"
)

// Node returns a node that asks the remote agent of c: it sends the parts
// input(s) gives as a user message (message/send, not blocking), follows
// the task (tasks/get) until it stops, and returns output(s, task) once
// the task completed.
//
// A task that stops in input-required stops the node at an interrupt
// (graph.Interrupt) whose payload is the agent's status message: its one
// part's value (a text part's string, a data part's JSON), or a list of
// them. The caller's answer goes back in the same task and context: a
// JSON string as a text part, any other JSON as a data part. A task that
// fails, is canceled or rejected, or asks for auth fails the node with an
// error naming the agent, the task and its state.
//
// Each message the node sends is recorded, with the task and context it
// went to, as a Durable result of the node's task before the node waits
// for it: a task run again (after an interrupt, an error or a crash of
// the caller) follows the remote task it started rather than sending its
// message again, and gives each remote question the answer it got before.
// A crash between the agent's reply and the record resends that one
// message.
func Node[S any](c *Client, input func(S) ([]Part, error), output func(S, *Task) (state.Update[S], error)) graph.NodeFunc[S] {
	return func(ctx context.Context, s S) (state.Update[S], error) {
		info, _ := graph.RunInfo(ctx)
		t, err := c.follow(ctx, info.IdempotencyKey, func() ([]Part, error) { return input(s) })
		if err != nil {
			return state.Update[S]{}, err // an interrupt's error as it is, for the runtime
		}
		return output(s, t)
	}
}

// taskRef is what the node records of each message it sent: the task and
// context it went to.
type taskRef struct {
	TaskID    string `json:"task_id"`
	ContextID string `json:"context_id"`
}

// errNoRound is what a lookup of a message not sent returns (graph.Durable
// saves no error).
var errNoRound = errors.New("a2a: no such message")

func roundKey(round int) string { return "a2a-message-" + strconv.Itoa(round) }

var messageNS = uuid.MustParse("8d3b6f0e-2c41-4a7e-b5d9-7e1f0a9c4b21")

// follow sends the node's message (or finds it sent) and follows its task
// until it completes or asks the caller.
func (c *Client) follow(ctx context.Context, key string, input func() ([]Part, error)) (*Task, error) {
	var ref taskRef
	round := 0
	for ; ; round++ {
		r, err := graph.Durable(ctx, roundKey(round), func(context.Context) (taskRef, error) { return taskRef{}, errNoRound })
		if errors.Is(err, errNoRound) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("a2a: agent %s: read message %d: %w", c.url, round, err)
		}
		if round > 0 {
			// The answer this message carried: the caller's resume value
			// of that round, taken again so the next question gets the
			// next one.
			if _, err := graph.Interrupt[json.RawMessage](ctx, nil); err != nil {
				return nil, err
			}
		}
		ref = r
	}
	send := func(parts []Part) error {
		msg := Message{Kind: "message", Role: "user", Parts: parts, TaskID: ref.TaskID, ContextID: ref.ContextID,
			MessageID: uuid.NewSHA1(messageNS, []byte(key+"/"+strconv.Itoa(round))).String()}
		r, err := graph.Durable(ctx, roundKey(round), func(ctx context.Context) (taskRef, error) {
			no := false
			t, err := c.Send(ctx, MessageSendParams{Message: msg, Configuration: &MessageSendConfiguration{Blocking: &no}})
			if err != nil {
				return taskRef{}, err
			}
			return taskRef{TaskID: t.ID, ContextID: t.ContextID}, nil
		})
		if err != nil {
			return err
		}
		ref = r
		round++
		return nil
	}
	if round == 0 {
		parts, err := input()
		if err != nil {
			return nil, fmt.Errorf("a2a: agent %s: input: %w", c.url, err)
		}
		if err := send(parts); err != nil {
			return nil, err
		}
	}
	for {
		t, err := c.wait(ctx, ref.TaskID)
		if err != nil {
			return nil, err
		}
		switch t.Status.State {
		case StateCompleted:
			return t, nil
		case StateInputRequired:
			answer, err := graph.Interrupt[json.RawMessage](ctx, question(t.Status.Message))
			if err != nil {
				return nil, err
			}
			if err := send([]Part{answerPart(answer)}); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("a2a: agent %s: task %s (context %s) stopped %s%s", c.url, t.ID, t.ContextID, t.Status.State, statusText(t.Status.Message))
		}
	}
}

// wait asks for the task until it is neither submitted nor working.
func (c *Client) wait(ctx context.Context, id string) (*Task, error) {
	var timer *time.Timer
	for {
		t, err := c.Task(ctx, id)
		if err != nil {
			return nil, err
		}
		if t.Status.State != StateSubmitted && t.Status.State != StateWorking {
			return t, nil
		}
		if timer == nil {
			timer = time.NewTimer(c.poll)
			defer timer.Stop()
		} else {
			timer.Reset(c.poll)
		}
		select {
		case <-timer.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// question is the payload of the caller's interrupt for an input-required
// status message.
func question(m *Message) any {
	if m == nil || len(m.Parts) == 0 {
		return nil
	}
	values := make([]any, len(m.Parts))
	for i, p := range m.Parts {
		if p.Kind == "data" {
			values[i] = p.Value()
		} else {
			values[i] = p.Text
		}
	}
	if len(values) == 1 {
		return values[0]
	}
	return values
}

// answerPart is the part carrying the caller's answer: a string as text,
// anything else as data.
func answerPart(answer json.RawMessage) Part {
	var s string
	if json.Unmarshal(answer, &s) == nil {
		return TextPart(s)
	}
	return DataPart(answer)
}

// statusText is ": " and the texts of a status message, or "".
func statusText(m *Message) string {
	if m == nil {
		return ""
	}
	out := ""
	for _, p := range m.Parts {
		switch {
		case p.Text != "":
			out += ": " + p.Text
		case len(p.Data) > 0:
			out += ": " + short(p.Data)
		}
	}
	return out
}
