package graph

import (
	"context"

	"github.com/stategraph/stategraph/checkpoint"
)

// stateTuple reads the checkpoint cfg names (the latest when its
// CheckpointID is "") for State. With a saver that implements
// checkpoint.HeadGetter it reads the head first — no field's value, one
// indexed read — and when the state cache holds that checkpoint's state
// at this schema's version, the head is all State needs: it returns the
// head and the cached state, which decodeFrom takes with the schedule from
// the head. Otherwise it reads the whole checkpoint with Get (cached is
// nil).
func (c *Compiled[S]) stateTuple(ctx context.Context, cfg checkpoint.Config) (tup *checkpoint.Tuple, cached *S, err error) {
	hg, ok := c.saver.(checkpoint.HeadGetter)
	if !ok {
		tup, err = c.saver.Get(ctx, cfg)
		return tup, nil, err
	}
	head, err := hg.GetHead(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	if st, hit := c.cache.get(cacheKey(cfg.ThreadID, cfg.Namespace), head.Config.CheckpointID); hit {
		if v, err := storedSchemaVersion(head.Metadata); err == nil && v == c.schema.Version() {
			return head, &st, nil
		}
	}
	// Not cached (or stored by an older schema, which migrateStored reads
	// whole): the checkpoint the head named, with its values.
	cfg.CheckpointID = head.Config.CheckpointID
	tup, err = c.saver.Get(ctx, cfg)
	return tup, nil, err
}
