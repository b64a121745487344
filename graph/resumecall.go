package graph

import (
	"context"
	"iter"

	"github.com/stategraph/stategraph/state"
)

// Resume resumes the thread chosen by opts (WithThread) where it stopped,
// answering its pending interrupt with answer (see the Resume option): it
// is Invoke with a zero input and Resume(answer), without spelling out
// the zero input's type. A nil answer resumes without one, past an error,
// a crash or a static breakpoint; with WithCheckpoint it replays from
// that checkpoint (or continues a fork UpdateState made there).
func (c *Compiled[S]) Resume(ctx context.Context, answer any, opts ...RunOption) (S, error) {
	return c.Invoke(ctx, state.Update[S]{}, resumeOpts(answer, opts)...)
}

// ResumeStream is Resume streamed: Stream with a zero input and
// Resume(answer).
func (c *Compiled[S]) ResumeStream(ctx context.Context, answer any, opts ...RunOption) iter.Seq2[Event[S], error] {
	return c.Stream(ctx, state.Update[S]{}, resumeOpts(answer, opts)...)
}

func resumeOpts(answer any, opts []RunOption) []RunOption {
	if answer == nil {
		return opts
	}
	return append(opts[:len(opts):len(opts)], Resume(answer))
}
