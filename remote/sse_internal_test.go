package remote

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stategraph/stategraph/graph"
	"github.com/stretchr/testify/require"
)

func TestForeignEventReadsEachMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode, data string
		want       graph.ForeignEvent
		ok         bool
	}{
		{"values", `{"a":1}`, graph.ForeignEvent{Mode: graph.Values}, true},
		{"updates", `{"draft":{"a":1}}`, graph.ForeignEvent{Mode: graph.Updates, Node: "draft"}, true},
		{"updates", `{"a":{},"b":{}}`, graph.ForeignEvent{Mode: graph.Updates}, true},
		{"custom", `{"n":1}`, graph.ForeignEvent{Mode: graph.Custom, Custom: json.RawMessage(`{"n":1}`)}, true},
		{"messages", `[{"id":"m1","content":"tok"},{"langgraph_node":"llm","langgraph_step":2,"langgraph_task_id":"t9"}]`,
			graph.ForeignEvent{Mode: graph.Messages, Chunk: []byte("tok"), MessageID: "m1", Node: "llm", Step: 2, TaskID: "t9"}, true},
		{"messages", `[{"id":"m1","content":[{"type":"text","text":"x"}]},{}]`, graph.ForeignEvent{Mode: graph.Messages, MessageID: "m1"}, true},
		{"tasks", `{"id":"t1","name":"draft","input":null,"triggers":[]}`,
			graph.ForeignEvent{Mode: graph.Tasks, Node: "draft", TaskID: "t1", Task: &graph.TaskEvent{Send: -1}}, true},
		{"tasks", `{"id":"t1","name":"draft","error":null,"result":[]}`,
			graph.ForeignEvent{Mode: graph.Tasks, Node: "draft", TaskID: "t1", Task: &graph.TaskEvent{Send: -1, Result: true}}, true},
		{"checkpoints", `{}`, graph.ForeignEvent{}, false},
		{"debug", `{}`, graph.ForeignEvent{}, false},
	} {
		got, ok := foreignEvent(tc.mode, "", json.RawMessage(tc.data))
		require.Equal(t, tc.ok, ok, tc.mode+" "+tc.data)
		if ok {
			require.Equal(t, tc.want, got, tc.mode+" "+tc.data)
		}
	}
	failed, _ := foreignEvent("tasks", "", json.RawMessage(`{"id":"t1","name":"x","error":"boom","result":null}`))
	require.EqualError(t, failed.Task.Err, "boom")
	require.True(t, failed.Task.Result)
}

func FuzzReadSSE(f *testing.F) {
	for _, s := range []string{
		"event: metadata\ndata: {\"run_id\":\"r\"}\n\nevent: updates|sub:1\ndata: {\"a\":{}}\n\n",
		"event: messages\ndata: [{\"id\":\"m\",\"content\":\"x\"},{}]\n\n",
		": comment\ndata: 1\ndata: 2\n\n", "event: tasks\ndata: {\"error\":\"e\"}\n\n", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		n := 0
		err := readSSE(strings.NewReader(body), func(ev sseEvent) error {
			n++
			mode, ns, _ := strings.Cut(ev.event, "|")
			if fe, ok := foreignEvent(mode, ns, ev.data); ok {
				require.NotZero(t, fe.Mode, "a mapped event has a mode")
				require.Equal(t, ns, fe.Namespace)
			}
			return nil
		})
		if err == nil {
			require.LessOrEqual(t, n, strings.Count(body, "\n")+1)
		}
	})
}
