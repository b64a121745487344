package server

import (
	"errors"
	"time"
)

var errThreadBusy = errors.New("thread is busy")

// timeJSON formats a time as LangGraph does (RFC 3339 with microseconds,
// UTC).
func timeJSON(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000Z07:00")
}
