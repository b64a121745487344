package encrypt_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/encrypt"
	"github.com/stategraph/stategraph/checkpoint/memory"
)

// The wrapper claims exactly the optional interfaces its saver has: the
// runtime takes leases only from a Leaser, and a wrapper that claimed
// one over a saver without leases would fail every run.
func TestWrapForwardsExactlyTheInterfacesOfItsSaver(t *testing.T) {
	t.Parallel()
	m := memory.New()
	ring := newRing(t)
	type caps struct{ leaser, breaker, pruner, verifier, copier bool }
	capsOf := func(s checkpoint.Saver) caps {
		_, l := s.(checkpoint.Leaser)
		_, b := s.(checkpoint.LeaseBreaker)
		_, p := s.(checkpoint.Pruner)
		_, v := s.(checkpoint.Verifier)
		_, c := s.(checkpoint.Copier)
		return caps{l, b, p, v, c}
	}
	cases := []struct {
		name  string
		inner checkpoint.Saver
		want  caps
	}{
		{"memory", m, caps{leaser: true, breaker: true, pruner: true, verifier: true}},
		{"saver only", struct{ checkpoint.Saver }{m}, caps{}},
		{"leaser", struct {
			checkpoint.Saver
			checkpoint.Leaser
		}{m, m}, caps{leaser: true}},
		{"leaser and breaker", struct {
			checkpoint.Saver
			checkpoint.Leaser
			checkpoint.LeaseBreaker
		}{m, m, m}, caps{leaser: true, breaker: true}},
		{"pruner and verifier", struct {
			checkpoint.Saver
			checkpoint.Pruner
			checkpoint.Verifier
		}{m, m, m}, caps{pruner: true, verifier: true}},
		{"leaser and verifier", struct {
			checkpoint.Saver
			checkpoint.Leaser
			checkpoint.Verifier
		}{m, m, m}, caps{leaser: true, verifier: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := encrypt.Wrap(c.inner, ring)
			assert.Equal(t, c.want, capsOf(w))
			assert.Equal(t, c.inner, w.(interface{ Unwrap() checkpoint.Saver }).Unwrap())
		})
	}
}

// Leases taken through the wrapper are the saver's own: one writer per
// thread holds whichever side takes it.
func TestLeasesGoThroughToTheSaver(t *testing.T) {
	t.Parallel()
	m := memory.New()
	w := encrypt.Wrap(m, newRing(t)).(checkpoint.Leaser)
	ctx := context.Background()
	ls, err := w.Lease(ctx, "t", "run-1", time.Minute)
	require.NoError(t, err)
	_, err = m.Lease(ctx, "t", "run-2", time.Minute)
	require.ErrorIs(t, err, checkpoint.ErrBusy)
	info, err := w.LeaseOf(ctx, "t")
	require.NoError(t, err)
	assert.Equal(t, "run-1", info.Holder)
	ok, err := encrypt.Wrap(m, newRing(t)).(checkpoint.LeaseBreaker).BreakLease(ctx, "t", "run-1")
	require.NoError(t, err)
	assert.True(t, ok)
	require.ErrorIs(t, ls.Renew(ctx), checkpoint.ErrLeaseLost)
}

// Verify checks the saver's checksums and then authenticates the root
// namespace: a thread of plaintext rows, sound to the saver, fails.
func TestVerifyAuthenticatesTheThread(t *testing.T) {
	t.Parallel()
	m := memory.New()
	w := encrypt.Wrap(m, newRing(t))
	good, clear := newThread(), newThread()
	putOne(t, w, good, map[string]string{"x": "1"})
	putOne(t, m, clear, map[string]string{"x": "1"})
	v := w.(checkpoint.Verifier)
	require.NoError(t, v.Verify(context.Background(), good))
	require.NoError(t, m.Verify(context.Background(), clear))
	err := v.Verify(context.Background(), clear)
	require.ErrorIs(t, err, encrypt.ErrPlaintext)
	require.ErrorContains(t, err, clear)
}
