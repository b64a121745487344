package replay

import (
	"bytes"
	"testing"
)

// FuzzDecodeResponse: a recorded model response decodes without panicking,
// and one that decodes encodes to a form that decodes to the same thing.
func FuzzDecodeResponse(f *testing.F) {
	f.Add([]byte(`{"choices":[{"content":"hi","tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{}"}}]}]}`))
	f.Add([]byte(`{"choices":[null]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, err := decodeResponse(data)
		if err != nil {
			return
		}
		once, err := encodeResponse(resp)
		if err != nil {
			t.Fatalf("encode a decoded response: %v", err)
		}
		back, err := decodeResponse(once)
		if err != nil {
			t.Fatalf("decode an encoded response: %v", err)
		}
		twice, err := encodeResponse(back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("not stable:\n%s\n%s", once, twice)
		}
	})
}

// FuzzDiffLines: the diff of two texts keeps every line of both, in
// order: its "-" and " " lines are the first text, its "+" and " " lines
// the second.
func FuzzDiffLines(f *testing.F) {
	f.Add("a\nb\nc", "a\nc\nd")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		var left, right []string
		for _, l := range splitLines(diffLines(a, b)) {
			if l == "" {
				t.Fatalf("an empty diff line for %q, %q", a, b)
			}
			switch l[0] {
			case ' ':
				left, right = append(left, l[1:]), append(right, l[1:])
			case '-':
				left = append(left, l[1:])
			case '+':
				right = append(right, l[1:])
			default:
				t.Fatalf("line %q", l)
			}
		}
		if got, want := join(left), join(splitLines(a)); got != want {
			t.Fatalf("left %q, want %q", got, want)
		}
		if got, want := join(right), join(splitLines(b)); got != want {
			t.Fatalf("right %q, want %q", got, want)
		}
	})
}

func join(ls []string) string {
	var sb bytes.Buffer
	for _, l := range ls {
		sb.WriteString(l + "\n")
	}
	return sb.String()
}
