package main

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVerifyPassesAnUndamagedDatabase(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	r := onDB(t, db, "verify")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, lines(r.stdout), 5, "every thread: %s", r.stdout)
	assert.Contains(t, r.stdout, fmt.Sprintf("thread %q: ok\n", threadNested))

	v := decode[[]verifyView](t, db, "verify", threadDone, threadFailed)
	assert.Equal(t, []verifyView{{Thread: threadDone, OK: true}, {Thread: threadFailed, OK: true}}, v)

	unknown := onDB(t, db, "verify", "no-such-thread")
	assert.Equal(t, 0, unknown.code, "a thread without checkpoints has nothing damaged: %s", unknown.stderr)
}

// TestVerifyExitsNonZeroOnDamage damages one thread: verify names it and
// what is wrong, passes the others and exits 1.
func TestVerifyExitsNonZeroOnDamage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, damage, want string
	}{
		{"a checkpoint of the middle deleted", `DELETE FROM checkpoints WHERE thread_id = ?1 AND ns = '' AND id = (
	SELECT id FROM checkpoints WHERE thread_id = ?1 AND ns = '' ORDER BY id LIMIT 1 OFFSET 1)`, "is missing"},
		{"a pending write deleted", `DELETE FROM writes WHERE thread_id = ?1`, "pending writes stored"},
		{"a blob byte changed", `UPDATE blobs SET data = CAST(replace(CAST(data AS TEXT), 'draft', 'graft') AS BLOB) WHERE thread_id = ?1 AND CAST(data AS TEXT) LIKE '%draft%'`, "checksum"},
		{"metadata changed", `UPDATE checkpoints SET metadata = json_set(metadata, '$.step', 7) WHERE thread_id = ?1 AND json_extract(metadata, '$.step') = 1`, "checksum"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := sqliteDB(t)
			raw, err := sql.Open("sqlite", db)
			require.NoError(t, err)
			res, err := raw.Exec(c.damage, threadFailed)
			require.NoError(t, err)
			n, err := res.RowsAffected()
			require.NoError(t, err)
			require.Positive(t, n, "the damage hit a row")
			require.NoError(t, raw.Close())

			r := onDB(t, db, "verify")
			assert.Equal(t, 1, r.code, r.stdout)
			assert.Contains(t, r.stdout, fmt.Sprintf("thread %q: DAMAGED: ", threadFailed))
			assert.Contains(t, r.stdout, c.want)
			assert.Contains(t, r.stdout, fmt.Sprintf("thread %q: ok\n", threadDone))
			assert.Contains(t, r.stderr, "1 of 5 threads damaged")

			js := onDB(t, db, "-json", "verify", threadFailed, threadDone)
			assert.Equal(t, 1, js.code)
			var v []verifyView
			require.NoError(t, jsonUnmarshal(js.stdout, &v), js.stdout)
			require.Len(t, v, 2)
			assert.False(t, v[0].OK)
			assert.Contains(t, v[0].Error, c.want)
			assert.True(t, v[1].OK)
		})
	}
}

func TestPostgresVerifyExitsNonZeroOnDamage(t *testing.T) {
	t.Parallel()
	dsn, schema := postgresDB(t)
	run := func(args ...string) result {
		t.Helper()
		return cli(t, nil, append([]string{"-dsn", dsn, "-schema", schema}, args...)...)
	}
	r := run("verify")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, lines(r.stdout), 5, r.stdout)

	pool, err := pgxpool.New(context.Background(), dsn)
	require.NoError(t, err)
	defer pool.Close()
	_, err = pool.Exec(context.Background(), `UPDATE `+pgx.Identifier{schema, "stategraph_blobs"}.Sanitize()+
		` SET data = convert_to(replace(convert_from(data, 'UTF8'), 'draft', 'graft'), 'UTF8') WHERE thread_id = $1 AND position('draft' in convert_from(data, 'UTF8')) > 0`, threadDone)
	require.NoError(t, err)
	r = run("verify")
	assert.Equal(t, 1, r.code, r.stdout)
	assert.Contains(t, r.stdout, fmt.Sprintf("thread %q: DAMAGED: ", threadDone))
	assert.Contains(t, r.stdout, "checksum")
	assert.Contains(t, r.stderr, "1 of 5 threads damaged")
}
