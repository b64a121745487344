package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"modernc.org/sqlite"
)

// SQLite's primary result codes for a file it may not write.
const (
	sqlitePerm     = 3  // SQLITE_PERM
	sqliteReadOnly = 8  // SQLITE_READONLY
	sqliteCantOpen = 14 // SQLITE_CANTOPEN: "unable to open database file"
)

// denied reports whether err is a refusal to write: permissions, or a
// read-only file system.
func denied(err error) bool { return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) }

// checkWritable returns an error saying so when the file at path exists
// and may not be written. SQLite opens such a file read-only without a
// word, and the first write fails with "attempt to write a readonly
// database".
func checkWritable(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err == nil {
		return f.Close()
	}
	if denied(err) {
		return fmt.Errorf("the database file is read-only (%v); checkpoints are written to it, so it must be writable", err)
	}
	return nil // missing (SQLite creates it) or another trouble SQLite reports
}

// explainOpen says what SQLite's failure to open or write the database at
// path means when the file or its directory is read-only: SQLite reports
// only "unable to open database file" or "attempt to write a readonly
// database". Other errors are returned as they are.
func explainOpen(path string, err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	if c := se.Code() & 0xff; c != sqlitePerm && c != sqliteReadOnly && c != sqliteCantOpen {
		return err
	}
	if ferr := checkWritable(path); ferr != nil {
		return fmt.Errorf("%w: %w", ferr, err)
	}
	dir := filepath.Dir(path)
	if probe, derr := os.CreateTemp(dir, ".stategraph-write-probe-*"); derr == nil {
		probe.Close()
		os.Remove(probe.Name())
	} else if denied(derr) {
		return fmt.Errorf("the directory %q is read-only (%v); SQLite's WAL mode keeps its -wal and -shm files beside the database, so the directory must be writable: %w", dir, derr, err)
	}
	return err
}

// immutable reports whether a database opened read-only must be read as
// immutable: its directory cannot be written, so SQLite cannot make the
// -shm file WAL mode needs, and there is no WAL content to miss (no -wal
// file, or an empty one: the last writer checkpointed it when it closed).
func immutable(path string) bool {
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return false
	}
	probe, err := os.CreateTemp(filepath.Dir(path), ".stategraph-write-probe-*")
	if err == nil {
		probe.Close()
		os.Remove(probe.Name())
		return false
	}
	return denied(err)
}
