package backup

import "context"

// WithAfterSnapshot returns t with a hook that runs right after the snapshot
// is exported, before anything is read through it.
func WithAfterSnapshot(t Target, fn func(context.Context) error) Target {
	t.afterSnapshot = fn
	return t
}
