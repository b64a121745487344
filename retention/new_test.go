package retention_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/checkpoint/memory"
	"github.com/stategraph/stategraph/retention"
)

// saverOnly hides every optional interface of a saver.
type saverOnly struct{ checkpoint.Saver }

// expirerOnly is an Expirer that cannot prune.
type expirerOnly struct {
	checkpoint.Saver
	retention.Expirer
}

func TestNewRefusesWhatItCannotDo(t *testing.T) {
	t.Parallel()
	m := memory.New()
	for _, c := range []struct {
		name  string
		saver checkpoint.Saver
		p     retention.Policy
		opts  []retention.Option
		want  string
	}{
		{"not an Expirer", saverOnly{m}, retention.Policy{TTL: time.Hour}, nil, "does not implement retention.Expirer"},
		{"no TTL", m, retention.Policy{}, nil, "TTL must be positive"},
		{"negative keep", m, retention.Policy{TTL: time.Hour, Keep: -1}, nil, "negative keep"},
		{"keep without Pruner", expirerOnly{m, m}, retention.Policy{TTL: time.Hour, Keep: 1}, nil, "checkpoint.Pruner"},
		{"batch 0", m, retention.Policy{TTL: time.Hour}, []retention.Option{retention.WithBatchSize(0)}, "batch size 0"},
		{"interval 0", m, retention.Policy{TTL: time.Hour}, []retention.Option{retention.WithInterval(0)}, "interval 0s"},
	} {
		_, err := retention.New(c.saver, c.p, c.opts...)
		require.ErrorContains(t, err, c.want, c.name)
	}
}
