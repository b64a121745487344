package server

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// cronSchedule is a five-field cron expression: minute, hour, day of
// month, month, day of week (0 or 7 is Sunday). Each field is *, a
// number, a range a-b, a list of those, any of them with a step /n.
type cronSchedule struct {
	minute, hour, dom, month, dow uint64 // bit i set: value i matches
	domAny, dowAny                bool
}

var cronFields = []struct {
	name     string
	min, max int
}{{"minute", 0, 59}, {"hour", 0, 23}, {"day of month", 1, 31}, {"month", 1, 12}, {"day of week", 0, 7}}

func parseSchedule(expr string) (*cronSchedule, error) {
	fields := strings.Fields(expr)
	if len(fields) != 5 {
		return nil, fmt.Errorf("schedule %q: want 5 fields (minute hour day-of-month month day-of-week), got %d", expr, len(fields))
	}
	var bits [5]uint64
	for i, f := range fields {
		b, err := parseCronField(f, cronFields[i].min, cronFields[i].max)
		if err != nil {
			return nil, fmt.Errorf("schedule %q: %s: %w", expr, cronFields[i].name, err)
		}
		bits[i] = b
	}
	if bits[4]&(1<<7) != 0 {
		bits[4] |= 1 // 7 is Sunday too
	}
	return &cronSchedule{minute: bits[0], hour: bits[1], dom: bits[2], month: bits[3], dow: bits[4],
		domAny: fields[2] == "*", dowAny: fields[4] == "*"}, nil
}

func parseCronField(f string, lo, hi int) (uint64, error) {
	var bits uint64
	for _, part := range strings.Split(f, ",") {
		rng, stepStr, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepStr)
			if err != nil || n <= 0 {
				return 0, fmt.Errorf("bad step %q", stepStr)
			}
			step = n
		}
		a, b := lo, hi
		if rng != "*" {
			first, last, isRange := strings.Cut(rng, "-")
			var err error
			if a, err = strconv.Atoi(first); err != nil {
				return 0, fmt.Errorf("bad value %q", first)
			}
			b = a
			if isRange {
				if b, err = strconv.Atoi(last); err != nil {
					return 0, fmt.Errorf("bad value %q", last)
				}
			} else if hasStep {
				b = hi
			}
		}
		if a < lo || b > hi || a > b {
			return 0, fmt.Errorf("%q is outside %d-%d", part, lo, hi)
		}
		for v := a; v <= b; v += step {
			bits |= 1 << v
		}
	}
	return bits, nil
}

func (c *cronSchedule) matchesDay(t time.Time) bool {
	dom := c.dom&(1<<t.Day()) != 0
	dow := c.dow&(1<<int(t.Weekday())) != 0
	switch {
	case c.domAny && c.dowAny:
		return true
	case c.domAny:
		return dow
	case c.dowAny:
		return dom
	}
	return dom || dow // cron's rule when both are restricted
}

// next returns the first time after t (to the minute, in t's location)
// that the schedule matches, or the zero time if none within five years.
func (c *cronSchedule) next(t time.Time) time.Time {
	t = t.Truncate(time.Minute).Add(time.Minute)
	end := t.AddDate(5, 0, 0)
	for t.Before(end) {
		switch {
		case c.month&(1<<int(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, t.Location())
		case !c.matchesDay(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, t.Location())
		case c.hour&(1<<t.Hour()) == 0:
			t = t.Truncate(time.Hour).Add(time.Hour)
		case c.minute&(1<<t.Minute()) == 0:
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}
