package stream

// LaunchBatch is launches on their way from the profiler's harvester to
// [Writer.WriteLaunches], in a form that is cheap to hand from one core to
// another: per launch only what changes from launch to launch (ids, times,
// execution, SYCL task: 48 bytes), its attributes (kernel, queue, list,
// device, kind, flags, shape: what Launch.repeat_of repeats) by index into
// the batch's own table, where consecutive launches with the same
// attributes share one entry.
//
// A batch of whole Launch values (120 bytes each) was written by the
// harvester and read by the writer goroutine on the other core: the
// writer's first touch of each value, its attribute comparison, cost it
// more than the rest of its encoding (BENCHMARKS.md, "Issue 14, session
// 10"). Here the attributes are compared where they were just made (Add),
// against the last entry, and the writer compares table indices.
//
// The zero value is an empty batch. A batch is reused: Reset empties it
// and keeps its storage. It is not safe for concurrent use; the harvester
// hands a batch to the writer and does not touch it until it comes back.
type LaunchBatch struct {
	ls    []batchLaunch
	attrs []launchAttrs
	// last is the index in attrs of the latest launch's attributes.
	last uint32
}

// batchLaunch is one launch of a LaunchBatch: Launch's fields that are
// not attributes, and its attributes' index in the batch's table.
type batchLaunch struct {
	id, appendNs, startNs, endNs, syclTask uint64
	exec, attr                             uint32
}

// batchLookBack is how many of the table's latest entries Add compares a
// launch's attributes with before it adds an entry: launches that
// alternate between a few kernels or shapes share entries, and a table
// stays small. Equal attributes may still have two entries; the Writer
// compares values when indices differ (launchState.repeatOfKey).
const batchLookBack = 4

// Len is the number of launches in b.
func (b *LaunchBatch) Len() int { return len(b.ls) }

// Reset empties b, keeping its storage.
func (b *LaunchBatch) Reset() {
	b.ls, b.attrs, b.last = b.ls[:0], b.attrs[:0], 0
}

// Add appends a copy of l to b.
func (b *LaunchBatch) Add(l *Launch) {
	k := b.last
	if int(k) >= len(b.attrs) || !b.attrs[k].sameAs(l) {
		a := attrsOf(l)
		k = b.attrIndex(&a)
		b.last = k
	}
	b.ls = append(b.ls, batchLaunch{
		id: l.Id, appendNs: l.HostAppendNs, startNs: l.DeviceStartNs, endNs: l.DeviceEndNs,
		syclTask: l.SyclTaskId, exec: l.ExecutionIndex, attr: k,
	})
}

// attrIndex returns the index of an entry of b's table holding a: one of
// the latest batchLookBack, or a new one.
func (b *LaunchBatch) attrIndex(a *launchAttrs) uint32 {
	for i := len(b.attrs) - 1; i >= 0 && i >= len(b.attrs)-batchLookBack; i-- {
		if b.attrs[i] == *a {
			return uint32(i)
		}
	}
	b.attrs = append(b.attrs, *a)
	return uint32(len(b.attrs) - 1)
}

// At returns launch i of b.
func (b *LaunchBatch) At(i int) Launch {
	e := &b.ls[i]
	var l Launch
	b.attrs[e.attr].setOnLaunch(&l)
	l.Id, l.HostAppendNs, l.DeviceStartNs, l.DeviceEndNs = e.id, e.appendNs, e.startNs, e.endNs
	l.SyclTaskId, l.ExecutionIndex = e.syclTask, e.exec
	return l
}

// AppendTo appends b's launches to ls and returns the result (tests).
func (b *LaunchBatch) AppendTo(ls []Launch) []Launch {
	for i := range b.ls {
		ls = append(ls, b.At(i))
	}
	return ls
}

// sameAs reports whether l has attributes a, comparing in place (no
// launchAttrs made of l) and without a branch per field: where
// attributes repeat, as they do launch after launch, one well-predicted
// branch.
func (a *launchAttrs) sameAs(l *Launch) bool {
	d := (a.kernel ^ l.KernelId) | (a.queue ^ l.QueueId) | (a.list ^ l.CommandListId)
	e := (a.device ^ l.DeviceId) | (a.flags ^ l.Flags) | (a.codeCopy ^ l.CodeCopy) | (a.syclLocation ^ l.SyclLocationId) |
		uint32(a.kind^l.Kind) | uint32(a.reason^l.NoTimestampReason) |
		(a.countX ^ l.GroupCountX) | (a.countY ^ l.GroupCountY) | (a.countZ ^ l.GroupCountZ) |
		(a.sizeX ^ l.GroupSizeX) | (a.sizeY ^ l.GroupSizeY) | (a.sizeZ ^ l.GroupSizeZ)
	return d|uint64(e) == 0
}

// setOnLaunch sets a's fields of l.
func (a *launchAttrs) setOnLaunch(l *Launch) {
	l.KernelId, l.QueueId, l.CommandListId = a.kernel, a.queue, a.list
	l.DeviceId, l.Flags, l.CodeCopy, l.SyclLocationId = a.device, a.flags, a.codeCopy, a.syclLocation
	l.Kind, l.NoTimestampReason = a.kind, a.reason
	l.GroupCountX, l.GroupCountY, l.GroupCountZ = a.countX, a.countY, a.countZ
	l.GroupSizeX, l.GroupSizeY, l.GroupSizeZ = a.sizeX, a.sizeY, a.sizeZ
}
