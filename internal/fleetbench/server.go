package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat's
// times (100 on Linux's usual configurations).
const clockTicks = 100

// serverStats reads what the server did during a measurement: its
// statements (pg_stat_statements, when loaded), its transactions
// (pg_stat_database) and its CPU (/proc, for a server on this machine).
type serverStats struct {
	pool       *pgxpool.Pool
	statements bool
	postmaster int // 0 when /proc does not show the server

	xacts    int64
	cpuTicks int64
}

func newServerStats(ctx context.Context, pool *pgxpool.Pool) (*serverStats, bool) {
	s := &serverStats{pool: pool}
	// pg_stat_statements answers only when the library is loaded.
	_, err := pool.Exec(ctx, marker+`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`)
	if err == nil {
		_, err = pool.Exec(ctx, marker+`SELECT count(*) FROM pg_stat_statements`)
	}
	s.statements = err == nil
	var backend int
	if err := pool.QueryRow(ctx, marker+`SELECT pg_backend_pid()`).Scan(&backend); err == nil {
		if st, err := procStat(backend); err == nil {
			s.postmaster = st.ppid
		}
	}
	return s, s.statements
}

// begin resets the statistics and records the counters.
func (s *serverStats) begin(ctx context.Context) error {
	if s.statements {
		if _, err := s.pool.Exec(ctx, marker+`SELECT pg_stat_statements_reset()`); err != nil {
			return err
		}
	}
	if _, err := s.pool.Exec(ctx, marker+`SELECT pg_stat_clear_snapshot()`); err != nil {
		return err
	}
	if err := s.pool.QueryRow(ctx, marker+`SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()`).Scan(&s.xacts); err != nil {
		return err
	}
	if s.postmaster != 0 {
		t, err := serverTicks(s.postmaster)
		if err != nil {
			s.postmaster = 0
		}
		s.cpuTicks = t
	}
	return nil
}

// end reads the counters again and fills in r's per-run figures.
func (s *serverStats) end(ctx context.Context, r *result) error {
	runs := float64(r.runs)
	if s.postmaster != 0 {
		if t, err := serverTicks(s.postmaster); err == nil {
			r.cpuMs = float64(t-s.cpuTicks) * 1000 / clockTicks / runs
		}
	}
	// pg_stat_database is updated when a backend's transaction ends, at
	// most every 500 ms per backend (PGSTAT_MIN_INTERVAL): read it after
	// the figures that do not wait.
	var xacts int64
	if err := s.pool.QueryRow(ctx, marker+`SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()`).Scan(&xacts); err != nil {
		return err
	}
	r.xacts = float64(xacts-s.xacts) / runs
	if !s.statements {
		return nil
	}
	rows, err := s.pool.Query(ctx, marker+`SELECT query, calls, total_exec_time FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%fleetbench-harness%'
ORDER BY total_exec_time DESC`)
	if err != nil {
		return err
	}
	defer rows.Close()
	r.statements, r.execMs = 0, 0
	for rows.Next() {
		var (
			q     string
			calls int64
			ms    float64
		)
		if err := rows.Scan(&q, &calls, &ms); err != nil {
			return err
		}
		// Transaction control is a statement to the server, but
		// pg_stat_statements records BEGIN and COMMIT only with
		// track_utility: count what it has.
		r.statements += float64(calls) / runs
		r.execMs += ms / runs
		r.top = append(r.top, stmt{query: q, calls: float64(calls) / runs, exec: ms / runs})
	}
	return rows.Err()
}

// procInfo is what fleetbench reads of /proc/<pid>/stat.
type procInfo struct {
	ppid                         int
	utime, stime, cutime, cstime int64
}

func procStat(pid int) (procInfo, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procInfo{}, err
	}
	// The command (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: no command", pid)
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3, the state
	if len(f) < 15 {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	n := func(k int) int64 { v, _ := strconv.ParseInt(f[k-3], 10, 64); return v }
	return procInfo{ppid: int(n(4)), utime: n(14), stime: n(15), cutime: n(16), cstime: n(17)}, nil
}

// serverTicks is the CPU the server has used: the postmaster's own and
// that of the children it has reaped (backends that ended), plus that of
// its live children.
func serverTicks(postmaster int) (int64, error) {
	pm, err := procStat(postmaster)
	if err != nil {
		return 0, errNoProc
	}
	total := pm.utime + pm.stime + pm.cutime + pm.cstime
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := procStat(pid)
		if err != nil || st.ppid != postmaster {
			continue
		}
		total += st.utime + st.stime
	}
	return total, nil
}
