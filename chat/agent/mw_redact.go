package agent

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/stategraph/stategraph/chat"
	"github.com/tmc/langchaingo/llms"
)

// Detector finds one kind of personal data in a text.
type Detector struct {
	// Kind names what it finds ("email", "phone", "card_number"); the
	// default replacement is "[REDACTED_" + upper-case Kind + "]".
	Kind string
	// Find returns the [start, end) byte ranges found in s, in order,
	// not overlapping.
	Find func(s string) [][2]int
}

var (
	emailRE = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)
	// digitRun is a run of digits with single spaces or dashes between
	// them, optionally after a +: a card number or a phone number.
	digitRun = regexp.MustCompile(`\+?\(?\d(?:[ .()-]{0,2}\d)+`)
)

// Email finds e-mail addresses.
var Email = Detector{Kind: "email", Find: func(s string) [][2]int { return ranges(emailRE.FindAllStringIndex(s, -1)) }}

// CardNumber finds payment card numbers: 13 to 19 digits, spaces or
// dashes allowed between them, that pass the Luhn check.
var CardNumber = Detector{Kind: "card_number", Find: func(s string) [][2]int {
	var out [][2]int
	for _, r := range digitRun.FindAllStringIndex(s, -1) {
		if d := digits(s[r[0]:r[1]]); len(d) >= 13 && len(d) <= 19 && Luhn(d) && !strings.ContainsAny(s[r[0]:r[1]], "+().") {
			out = append(out, [2]int{r[0], r[1]})
		}
	}
	return out
}}

// Phone finds phone numbers: 8 to 15 digits after a +, or 9 to 15
// without one, with spaces, dashes, dots or parentheses between them, that
// are not a card number. Shorter numbers (an order number, a year, a date)
// are left alone.
var Phone = Detector{Kind: "phone", Find: func(s string) [][2]int {
	var out [][2]int
	for _, r := range digitRun.FindAllStringIndex(s, -1) {
		text := s[r[0]:r[1]]
		d := digits(text)
		least := 9
		if strings.HasPrefix(text, "+") {
			least = 8
		}
		if len(d) < least || len(d) > 15 || (len(d) >= 13 && Luhn(d) && !strings.ContainsAny(text, "+().")) {
			continue
		}
		out = append(out, [2]int{r[0], r[1]})
	}
	return out
}}

// Luhn reports whether the digits pass the Luhn check of card numbers.
func Luhn(digits string) bool {
	sum, double := 0, false
	for i := len(digits) - 1; i >= 0; i-- {
		c := digits[i]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum, double = sum+d, !double
	}
	return len(digits) > 0 && sum%10 == 0
}

func digits(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

func ranges(idx [][]int) [][2]int {
	out := make([][2]int, len(idx))
	for i, r := range idx {
		out[i] = [2]int{r[0], r[1]}
	}
	return out
}

// Redact replaces personal data in messages before the model sees them
// and before they are stored (LangChain's piiMiddleware with the redact
// strategy): the messages given to Agent.Input, the messages of the
// history sent to the model (and, rewritten with their ids, in the state),
// the model's reply, and tool results. Each redaction is a Step ("redact",
// "redacted") that counts what was replaced, never showing it.
type Redact struct {
	Base
	// Detectors find what to replace (nil: CardNumber, Email, Phone —
	// cards first, so a card number is not taken for a phone number).
	Detectors []Detector
	// Replace gives the replacement of a finding of kind (nil:
	// "[REDACTED_KIND]").
	Replace func(kind string) string
}

// Text returns s with what the detectors find replaced, and how many of
// each kind.
func (r Redact) Text(s string) (string, map[string]int) {
	dets := r.Detectors
	if dets == nil {
		dets = []Detector{CardNumber, Email, Phone}
	}
	var found map[string]int
	for _, d := range dets {
		rs := d.Find(s)
		if len(rs) == 0 {
			continue
		}
		if found == nil {
			found = map[string]int{}
		}
		found[d.Kind] += len(rs)
		rep := "[REDACTED_" + strings.ToUpper(d.Kind) + "]"
		if r.Replace != nil {
			rep = r.Replace(d.Kind)
		}
		var b strings.Builder
		at := 0
		for _, x := range rs {
			b.WriteString(s[at:x[0]])
			b.WriteString(rep)
			at = x[1]
		}
		b.WriteString(s[at:])
		s = b.String()
	}
	return s, found
}

// Message returns m with its text, tool-call arguments and tool result
// redacted, and how many findings of each kind.
func (r Redact) Message(m chat.Message) (chat.Message, map[string]int) {
	var all map[string]int
	add := func(f map[string]int) {
		for k, n := range f {
			if all == nil {
				all = map[string]int{}
			}
			all[k] += n
		}
	}
	var parts []llms.ContentPart
	for i, p := range m.Parts {
		var np llms.ContentPart
		switch p := p.(type) {
		case llms.TextContent:
			t, f := r.Text(p.Text)
			if f != nil {
				add(f)
				np = llms.TextContent{Text: t}
			}
		case llms.ToolCall:
			if p.FunctionCall != nil {
				t, f := r.Text(p.FunctionCall.Arguments)
				if f != nil {
					add(f)
					fc := *p.FunctionCall
					fc.Arguments = t
					p.FunctionCall = &fc
					np = p
				}
			}
		case llms.ToolCallResponse:
			t, f := r.Text(p.Content)
			if f != nil {
				add(f)
				p.Content = t
				np = p
			}
		}
		if np != nil {
			if parts == nil {
				parts = append([]llms.ContentPart(nil), m.Parts...)
			}
			parts[i] = np
		}
	}
	if parts != nil {
		m.Parts = parts
	}
	return m, all
}

func (r Redact) filterInput(msgs []chat.Message) []chat.Message {
	var out []chat.Message
	for i, m := range msgs {
		if red, f := r.Message(m); f != nil {
			if out == nil {
				out = append([]chat.Message(nil), msgs...)
			}
			out[i] = red
		}
	}
	if out == nil {
		return msgs
	}
	return out
}

// WrapModel redacts the messages sent, rewrites stored messages that held
// personal data (same id), and redacts the reply before it is stored.
func (r Redact) WrapModel(ctx context.Context, call *ModelCall, next ModelFunc) (*llms.ContentResponse, error) {
	var hist []chat.Message
	for i, m := range call.History {
		red, f := r.Message(m)
		if f == nil {
			continue
		}
		if hist == nil {
			hist = append([]chat.Message(nil), call.History...)
		}
		hist[i] = red
		if m.ID != "" {
			call.Write(red)
		}
		Record(ctx, Step{Middleware: "redact", Action: "redacted", Detail: fmt.Sprintf("stored message %q: %s", m.ID, counts(f))})
	}
	if hist != nil {
		call.History = hist
	}
	var sent []chat.Message
	for i, m := range call.Messages {
		if red, f := r.Message(m); f != nil {
			if sent == nil {
				sent = append([]chat.Message(nil), call.Messages...)
			}
			sent[i] = red
		}
	}
	if sent != nil {
		call.Messages = sent
	}
	resp, err := next(ctx, call)
	if err != nil || resp == nil {
		return resp, err
	}
	for _, ch := range resp.Choices {
		if ch == nil {
			continue
		}
		t, f := r.Text(ch.Content)
		ch.Content = t
		for i, tc := range ch.ToolCalls {
			if tc.FunctionCall == nil {
				continue
			}
			a, g := r.Text(tc.FunctionCall.Arguments)
			if g != nil {
				fc := *tc.FunctionCall
				fc.Arguments = a
				ch.ToolCalls[i].FunctionCall = &fc
				if f == nil {
					f = map[string]int{}
				}
				for k, n := range g {
					f[k] += n
				}
			}
		}
		if f != nil {
			Record(ctx, Step{Middleware: "redact", Action: "redacted", Detail: "the model's reply before storage: " + counts(f)})
		}
	}
	return resp, nil
}

// WrapTool redacts the tool's result.
func (r Redact) WrapTool(ctx context.Context, call llms.ToolCall, run func(ctx context.Context) (string, error)) (string, error) {
	out, err := run(ctx)
	if err != nil {
		return out, err
	}
	red, f := r.Text(out)
	if f != nil {
		Record(ctx, Step{Middleware: "redact", Action: "redacted", Detail: fmt.Sprintf("the result of call %q: %s", call.ID, counts(f))})
	}
	return red, nil
}

func counts(f map[string]int) string {
	var parts []string
	for _, k := range []string{"card_number", "email", "phone"} {
		if n := f[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	var other []string
	for k := range f {
		if k != "card_number" && k != "email" && k != "phone" {
			other = append(other, k)
		}
	}
	slices.Sort(other)
	for _, k := range other {
		parts = append(parts, fmt.Sprintf("%d %s", f[k], k))
	}
	return strings.Join(parts, ", ")
}
