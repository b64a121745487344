package a2a_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/stategraph/stategraph/a2a"
)

// greeter answers every message with a completed task.
type greeter struct{ upper }

func (greeter) Send(_ context.Context, p a2a.MessageSendParams) (*a2a.Task, error) {
	return &a2a.Task{Kind: "task", ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.StateCompleted},
		Artifacts: []a2a.Artifact{{ArtifactID: "a1", Parts: []a2a.Part{a2a.TextPart("hello, " + p.Message.Parts[0].Text)}}}}, nil
}

// An agent served over JSON-RPC, called with message/send.
func ExampleHandler() {
	srv := httptest.NewServer(a2a.Handler(greeter{}))
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"ann"}]}}}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Print(string(body))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed"},"artifacts":[{"artifactId":"a1","parts":[{"kind":"text","text":"hello, ann"}]}]}}
}
