package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/tmc/langchaingo/llms"

	"github.com/stategraph/stategraph/graph"
)

// ErrUnrecorded is wrapped by the error of a call the recording does not
// have (or has with another request) when no live model or tool may
// answer it (WithLiveModel, WithLiveTools).
var ErrUnrecorded = errors.New("replay: call not in the recording")

type playerKey struct{}

func playerOf(ctx context.Context) *player {
	p, _ := ctx.Value(playerKey{}).(*player)
	return p
}

// slot is a task of a run, as a recording and a replay both name it.
type slot struct {
	node       string
	step, send int
}

// player answers the calls of a replay from a recording.
type player struct {
	live      llms.Model // answers unrecorded model calls (nil: none)
	liveTools bool       // unrecorded tool calls run the tool

	mu    sync.Mutex
	calls map[slot][]Call
	used  map[slot][]bool // used[s][i]: calls[s][i] answered a call
	made  map[slot]int    // calls made in each slot
	div   []Divergence
}

func newPlayer(rec *Recording, o *options) *player {
	p := &player{live: o.live, liveTools: o.liveTools, calls: map[slot][]Call{}, used: map[slot][]bool{}, made: map[slot]int{}}
	for _, c := range rec.Calls {
		s := slot{c.Node, c.Step, c.Send}
		p.calls[s] = append(p.calls[s], c)
		p.used[s] = append(p.used[s], false)
	}
	return p
}

// next returns the recorded call that the call of kind and name making
// req in ctx's task matches, or a divergence.
//
// A task's calls are matched by what they ask, not by their order: the
// first unused recorded call of the task with the same kind, name and
// request answers it, because calls a node makes at once (the eager
// executor's parallel tools) reach the recording in whatever order they
// ran. A call no recorded one matches is compared with the task's first
// unused recorded call, which is the recorded call in its place when the
// task's calls are made one after another.
func (p *player) next(ctx context.Context, kind Kind, name string, req []byte) (*Call, *Divergence) {
	info, _ := graph.RunInfo(ctx)
	s := slot{info.Node, info.Step, info.Send}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.made[s]
	p.made[s] = n + 1
	what := string(kind)
	if name != "" {
		what += " " + name
	}
	calls, used := p.calls[s], p.used[s]
	first, req := -1, compact(req)
	for i, c := range calls {
		if used[i] {
			continue
		}
		if first < 0 {
			first = i
		}
		if c.Kind == kind && c.Name == name && bytes.Equal(compact(c.Request), req) {
			used[i] = true
			return &c, nil
		}
	}
	if first < 0 {
		d := Divergence{Kind: MissingCall, Step: info.Step, Node: info.Node,
			Message: fmt.Sprintf("%s call %d of node %q at step %d is not in the recording", what, n+1, info.Node, info.Step),
			Diff:    diffLines("", indent(req))}
		p.div = append(p.div, d)
		return nil, &d
	}
	used[first] = true
	c := calls[first]
	d := Divergence{Kind: ChangedCall, Step: info.Step, Node: info.Node,
		Message: fmt.Sprintf("%s call %d of node %q at step %d differs from the recorded %s call", what, n+1, info.Node, info.Step, c.Kind),
		Diff:    diffLines(indent(c.Request), indent(req))}
	p.div = append(p.div, d)
	return &c, &d
}

func (p *player) model(ctx context.Context, req []byte, msgs []llms.MessageContent, opts []llms.CallOption) (*llms.ContentResponse, error) {
	c, d := p.next(ctx, KindModel, "", req)
	if d != nil {
		if p.live != nil {
			return p.live.GenerateContent(ctx, msgs, opts...)
		}
		return nil, fmt.Errorf("%w: %s", ErrUnrecorded, d.Message)
	}
	if c.Error != "" {
		return nil, errors.New(c.Error)
	}
	resp, err := decodeResponse(c.Response)
	if err != nil {
		return nil, fmt.Errorf("replay: the recorded response of model call %d of node %q at step %d: %w", c.Seq+1, c.Node, c.Step, err)
	}
	return resp, nil
}

func (p *player) tool(ctx context.Context, name string, req []byte, live func(context.Context) (string, error)) (string, error) {
	c, d := p.next(ctx, KindTool, name, req)
	if d != nil {
		if p.liveTools {
			return live(ctx)
		}
		return "", fmt.Errorf("%w: %s", ErrUnrecorded, d.Message)
	}
	if c.Error != "" {
		return "", errors.New(c.Error)
	}
	var out string
	if err := json.Unmarshal(c.Response, &out); err != nil {
		return "", fmt.Errorf("replay: the recorded output of tool %q at step %d: %w", name, c.Step, err)
	}
	return out, nil
}

// unused returns a divergence for each recorded call the replay did not
// make.
func (p *player) unused() []Divergence {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Divergence
	for s, calls := range p.calls {
		for i, c := range calls {
			if p.used[s][i] {
				continue
			}
			what := string(c.Kind)
			if c.Name != "" {
				what += " " + c.Name
			}
			out = append(out, Divergence{Kind: UnmadeCall, Step: c.Step, Node: c.Node,
				Message: fmt.Sprintf("the recorded %s call %d of node %q at step %d was not made", what, c.Seq+1, c.Node, c.Step),
				Diff:    diffLines(indent(c.Request), "")})
		}
	}
	return out
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

func indent(b []byte) string {
	var buf bytes.Buffer
	if json.Indent(&buf, b, "", "  ") != nil {
		return string(b)
	}
	return buf.String()
}
