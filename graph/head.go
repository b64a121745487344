package graph

import (
	"context"

	"github.com/stategraph/stategraph/checkpoint"
)

// stateTuple reads the checkpoint cfg names (the latest when its
// CheckpointID is "") for State. When the saver implements
// checkpoint.HeadGetter and the state cache holds a state of the thread,
// it reads the head first — no field's value, one indexed read — and if
// the cached state is the head checkpoint's, at this schema's version,
// the head is all State needs: it returns the head and the cached state,
// which decodeFrom takes with the schedule from the head. Otherwise it
// reads the whole checkpoint with Get (cached is nil); a thread this
// process holds nothing of is read with Get alone.
func (c *Compiled[S]) stateTuple(ctx context.Context, saver checkpoint.Saver, cfg checkpoint.Config) (tup *checkpoint.Tuple, cached *S, err error) {
	hg, ok := saver.(checkpoint.HeadGetter)
	key := cacheKey(cfg.ThreadID, cfg.Namespace)
	if !ok || !c.cache.holds(key) {
		// No state of the thread here (another process ran it): a head
		// read would only precede the Get.
		tup, err = saver.Get(ctx, cfg)
		return tup, nil, err
	}
	head, err := hg.GetHead(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	if st, hit := c.cache.get(key, head.Config.CheckpointID); hit {
		if v, err := storedSchemaVersion(head.Metadata); err == nil && v == c.schema.Version() {
			return head, &st, nil
		}
	}
	// Not cached (or stored by an older schema, which migrateStored reads
	// whole): the checkpoint the head named, with its values.
	cfg.CheckpointID = head.Config.CheckpointID
	tup, err = saver.Get(ctx, cfg)
	return tup, nil, err
}
