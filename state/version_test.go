package state_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/state"
)

// The field values of a state of version 1 of the ticket schema, as a
// checkpoint stores them (each encoded by the JSON serializer). Rewrite
// with go test ./state -run TestWriteTicketV1Fixture -write-version-fixture.
var writeVersionFixture = flag.Bool("write-version-fixture", false, "rewrite state/testdata/ticket_v1.json")

const ticketV1File = "testdata/ticket_v1.json"

type ticketV1 struct {
	Query    string
	Priority string
	Log      []string
}

type ticketV2 struct {
	Question string
	Priority int
	Log      []string
	Owner    string
}

func schemaV1() *state.Schema[ticketV1] {
	return state.NewSchema(
		state.Value("query", func(t *ticketV1) *string { return &t.Query }),
		state.Value("priority", func(t *ticketV1) *string { return &t.Priority }),
		state.Append("log", func(t *ticketV1) *[]string { return &t.Log }),
	)
}

func v1toV2(s *state.Stored) error {
	s.Rename("query", "question")
	if err := state.Convert(s, "priority", func(word string) (int, error) {
		if word == "high" {
			return 3, nil
		}
		return 1, nil
	}); err != nil {
		return err
	}
	return s.Default("owner", "triage")
}

func schemaV2() *state.Schema[ticketV2] {
	return state.NewSchema(
		state.Value("question", func(t *ticketV2) *string { return &t.Question }),
		state.Value("priority", func(t *ticketV2) *int { return &t.Priority }),
		state.Append("log", func(t *ticketV2) *[]string { return &t.Log }),
		state.Value("owner", func(t *ticketV2) *string { return &t.Owner }),
	).Versioned(2, map[int]state.Migration{1: v1toV2})
}

func TestWriteTicketV1Fixture(t *testing.T) {
	if !*writeVersionFixture {
		t.Skip("run with -write-version-fixture to rewrite " + ticketV1File)
	}
	v1 := ticketV1{Query: "new laptop", Priority: "high", Log: []string{"opened", "tagged"}}
	enc, err := schemaV1().EncodeState(&v1, json1{})
	require.NoError(t, err)
	raw := map[string]json.RawMessage{}
	for k, v := range enc {
		raw[k] = v
	}
	data, err := json.MarshalIndent(raw, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(ticketV1File, append(data, '\n'), 0o644))
}

// json1 is the default serializer's behaviour: encoding/json.
type json1 struct{}

func (json1) Marshal(v any) ([]byte, error)      { return json.Marshal(v) }
func (json1) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// The fixture, written by version 1, reads into the version 2 struct.
func TestMigrateV1FixtureIntoV2(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(ticketV1File)
	require.NoError(t, err)
	var fields map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &fields))
	sc := schemaV2()
	require.NoError(t, sc.Err())
	require.Equal(t, 2, sc.Version())

	st := state.Stored{Fields: fields}
	require.NoError(t, sc.Migrate(1, &st))
	enc := map[string][]byte{}
	for k, v := range st.Fields {
		enc[k] = v
	}
	got, err := sc.DecodeState(enc, json1{})
	require.NoError(t, err)
	require.Equal(t, ticketV2{Question: "new laptop", Priority: 3, Log: []string{"opened", "tagged"}, Owner: "triage"}, got)
}

func TestMigratePartialAddsNoDefaults(t *testing.T) {
	t.Parallel()
	st := state.Stored{Fields: map[string]json.RawMessage{"query": json.RawMessage(`"q"`)}, Partial: true}
	require.NoError(t, schemaV2().Migrate(1, &st))
	require.Equal(t, map[string]json.RawMessage{"question": json.RawMessage(`"q"`)}, st.Fields)
}

func TestMigrateDropsNamesTheSchemaLacks(t *testing.T) {
	t.Parallel()
	st := state.Stored{Fields: map[string]json.RawMessage{"query": json.RawMessage(`"q"`), "legacy": json.RawMessage(`1`)}}
	require.NoError(t, schemaV2().Migrate(1, &st))
	require.NotContains(t, st.Fields, "legacy")
	require.Contains(t, st.Fields, "question")
}

func TestMigrateVersions(t *testing.T) {
	t.Parallel()
	var calls []int
	step := func(v int) state.Migration {
		return func(s *state.Stored) error { calls = append(calls, v); return nil }
	}
	sc := state.NewSchema(state.Value("x", func(t *ticketV2) *string { return &t.Owner })).
		Versioned(4, map[int]state.Migration{1: step(1), 3: step(3)})
	require.NoError(t, sc.Err())

	cases := []struct {
		from  int
		calls []int
		err   string
		is    error
	}{
		{from: 4},
		{from: 3, calls: []int{3}},
		{from: 2, err: "no migration from schema version 2 to 3 (the schema is version 4)"},
		{from: 1, calls: []int{1}, err: "no migration from schema version 2 to 3"},
		{from: 5, err: "version 5, this schema is version 4", is: state.ErrNewerVersion},
		{from: 0, err: "stored schema version 0 is not a version"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.from), func(t *testing.T) {
			calls = nil
			err := sc.Migrate(c.from, &state.Stored{})
			require.Equal(t, c.calls, calls)
			if c.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, c.err)
			if c.is != nil {
				require.ErrorIs(t, err, c.is)
			}
		})
	}
}

func TestMigrationErrorNamesTheStep(t *testing.T) {
	t.Parallel()
	sc := state.NewSchema(state.Value("x", func(t *ticketV2) *string { return &t.Owner })).
		Versioned(2, map[int]state.Migration{1: func(*state.Stored) error { return errors.New("boom") }})
	require.ErrorContains(t, sc.Migrate(1, &state.Stored{}), "migration from schema version 1 to 2: boom")
}

func TestVersionedRefusesBadMigrations(t *testing.T) {
	t.Parallel()
	noop := func(*state.Stored) error { return nil }
	newSc := func() *state.Schema[ticketV2] {
		return state.NewSchema(state.Value("x", func(t *ticketV2) *string { return &t.Owner }))
	}
	require.Equal(t, 1, newSc().Version(), "unversioned is version 1")
	cases := []struct {
		name       string
		version    int
		migrations map[int]state.Migration
		want       string
	}{
		{"version 0", 0, nil, "schema version 0: versions start at 1"},
		{"migration from the current version", 2, map[int]state.Migration{2: noop}, "a migration from version 2, outside 1 to 1"},
		{"migration from 0", 2, map[int]state.Migration{0: noop}, "a migration from version 0"},
		{"nil migration", 3, map[int]state.Migration{1: nil, 2: noop}, "the migration from version 1 is nil"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.ErrorContains(t, newSc().Versioned(c.version, c.migrations).Err(), c.want)
		})
	}
}

func TestConvertReportsTheField(t *testing.T) {
	t.Parallel()
	st := state.Stored{Fields: map[string]json.RawMessage{"priority": json.RawMessage(`7`)}}
	err := state.Convert(&st, "priority", func(word string) (int, error) { return 0, nil })
	require.ErrorContains(t, err, `convert field "priority"`)
	require.NoError(t, state.Convert(&st, "absent", func(int) (int, error) { return 0, errors.New("not called") }))
}
