package servegraphs_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/cmd/stategraph/internal/servegraphs"
	"github.com/stategraph/stategraph/server"
)

// The graphs `stategraph serve` serves, asked for an essay.
func ExampleGraphs() {
	graphs, err := servegraphs.Graphs(memory.New())
	if err != nil {
		panic(err)
	}
	for _, g := range graphs {
		fmt.Println(g.ID())
	}
	srv, err := server.New(graphs)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	resp, err := http.Post(ts.URL+"/runs/wait", "application/json", strings.NewReader(`{"assistant_id": "essay", "input": {"topic": "Go"}}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	fmt.Println(resp.Status)
	// Output:
	// planexecute
	// support
	// essay
	// chat
	// 200 OK
}
