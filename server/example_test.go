package server_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/checkpoint/postgres"
	"github.com/stategraph/stategraph/checkpoint/sqlite"
	"github.com/stategraph/stategraph/graph"
	"github.com/stategraph/stategraph/server"
	"github.com/stategraph/stategraph/state"
)

type Greeting struct {
	Name  string
	Lines []string
}

var (
	greetName  = state.Value("name", func(g *Greeting) *string { return &g.Name })
	greetLines = state.Append("lines", func(g *Greeting) *[]string { return &g.Lines })
)

func greet(ctx context.Context, g Greeting) (state.Update[Greeting], error) {
	return state.Writes(greetLines.Set([]string{"hello, " + g.Name})), nil
}

// A graph served over LangGraph's API: a client creates a thread and waits
// for a run on it, as @langchain/langgraph-sdk's client.runs.wait does.
func Example() {
	app, err := graph.New(state.NewSchema(greetName, greetLines)).
		AddNode("greet", greet).
		AddEdge(graph.Start, "greet").
		AddEdge("greet", graph.End).
		Compile(graph.WithCheckpointer(memory.New()))
	if err != nil {
		panic(err)
	}
	srv, err := server.New([]server.Graph{server.Register("greeter", app)})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv) // or http.ListenAndServe("127.0.0.1:2024", srv)
	defer ts.Close()

	post := func(path, body string) string {
		resp, err := http.Post(ts.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return strings.TrimSpace(string(out))
	}
	post("/threads", `{"thread_id": "t1"}`)
	fmt.Println(post("/threads/t1/runs/wait", `{"assistant_id": "greeter", "input": {"name": "Ada"}}`))
	// Output:
	// {"lines":["hello, Ada"],"name":"Ada"}
}

// Mounting the server in a program of your own on the embedded default:
// checkpoints and thread records in SQLite files, served on loopback.
func Example_mount() {
	saver, err := sqlite.Open("agent.db")
	if err != nil {
		log.Fatal(err)
	}
	defer saver.Close()
	records, err := server.OpenSQLiteStore("agent.server.db")
	if err != nil {
		log.Fatal(err)
	}
	defer records.Close()
	app, err := graph.New(state.NewSchema(greetName, greetLines)).
		AddNode("greet", greet).
		AddEdge(graph.Start, "greet").
		AddEdge("greet", graph.End).
		Compile(graph.WithCheckpointer(saver))
	if err != nil {
		log.Fatal(err)
	}
	srv, err := server.New([]server.Graph{server.Register("greeter", app)}, server.WithRecords(records))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close() // stops the runs in progress; their threads keep their checkpoints
	mux := http.NewServeMux()
	mux.Handle("/", srv)
	log.Fatal(http.ListenAndServe("127.0.0.1:2024", mux))
}

// A replica of many on one PostgreSQL database: its runs are worker jobs
// that any replica with workers executes, and it serves every thread,
// run, stream and cron of the database. Start as many as you like;
// WithWorkers(0) makes one that only serves the API.
func Example_replicas() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	saver := postgres.New(pool, postgres.WithSchema("agents"))
	if err := saver.Migrate(ctx); err != nil {
		log.Fatal(err)
	}
	records, err := server.OpenPostgresStore(ctx, pool, "agents")
	if err != nil {
		log.Fatal(err)
	}
	app, err := graph.New(state.NewSchema(greetName, greetLines)).
		AddNode("greet", greet).
		AddEdge(graph.Start, "greet").
		AddEdge("greet", graph.End).
		Compile(graph.WithCheckpointer(saver))
	if err != nil {
		log.Fatal(err)
	}
	srv, err := server.New([]server.Graph{server.Register("greeter", app)}, server.WithRecords(records), server.WithWorkers(10))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close() // this process's runs are taken over by the other replicas
	log.Fatal(http.ListenAndServe("127.0.0.1:2024", srv))
}
