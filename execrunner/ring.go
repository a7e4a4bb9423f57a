package execrunner

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// RingBuffer is an io.Writer that keeps the head and the tail of everything
// written to it, within a fixed limit, and counts the rest.
//
// The first half of the limit (rounded up) holds the head: the first bytes
// ever written, where a command says what it is doing. The second half is a
// circular tail: the last bytes written, where errors and summaries usually
// are. Everything in between is counted and dropped. Memory is at most limit
// bytes whatever is written, and every write is one or two bulk copies. The
// head grows with what is written, so a command that prints a line costs a
// small allocation, not half the limit.
//
// A RingBuffer is safe for concurrent use. Total never blocks, so it can be
// polled for progress while a command runs.
type RingBuffer struct {
	total atomic.Int64

	mu        sync.Mutex
	headLimit int
	tailLimit int
	head      []byte // grows to headLimit (its capacity too), never beyond
	tail      []byte // allocated (tailLimit bytes) once the head is full
	tailPos   int    // where the next tail byte goes
	tailLen   int    // how many bytes of tail hold data
}

// NewRingBuffer returns a RingBuffer keeping at most limit bytes of what is
// written. A limit of 0 or less means DefaultCaptureLimit.
func NewRingBuffer(limit int) *RingBuffer {
	if limit <= 0 {
		limit = DefaultCaptureLimit
	}
	return &RingBuffer{headLimit: limit - limit/2, tailLimit: limit / 2}
}

// Write keeps what fits in the head and the tail and counts everything. It
// never fails: a command's output must never block or break on its capture.
func (b *RingBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.mu.Lock()
	if room := b.headLimit - len(b.head); room > 0 && len(p) > 0 {
		k := min(room, len(p))
		if cap(b.head)-len(b.head) < k {
			b.growHead(k)
		}
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > 0 && b.tailLimit > 0 {
		b.writeTail(p)
	}
	b.total.Add(int64(n))
	b.mu.Unlock()
	return n, nil
}

// minHeadCap is the head's first allocation unless the first write is larger.
const minHeadCap = 512

// growHead makes room for k more head bytes, doubling the capacity (as
// append would) but never past headLimit.
func (b *RingBuffer) growHead(k int) {
	c := min(max(2*cap(b.head), len(b.head)+k, minHeadCap), b.headLimit)
	head := make([]byte, len(b.head), c)
	copy(head, b.head)
	b.head = head
}

// writeTail appends p to the circular tail, keeping only its last tailLimit
// bytes when p is longer than the tail.
func (b *RingBuffer) writeTail(p []byte) {
	if b.tail == nil {
		b.tail = make([]byte, b.tailLimit)
	}
	if len(p) >= b.tailLimit {
		copy(b.tail, p[len(p)-b.tailLimit:])
		b.tailPos, b.tailLen = 0, b.tailLimit
		return
	}
	k := copy(b.tail[b.tailPos:], p)
	copy(b.tail, p[k:])
	b.tailPos = (b.tailPos + len(p)) % b.tailLimit
	b.tailLen = min(b.tailLen+len(p), b.tailLimit)
}

// Total is the number of bytes ever written, kept or not.
func (b *RingBuffer) Total() int64 { return b.total.Load() }

// Truncated reports whether some bytes were dropped from the middle.
func (b *RingBuffer) Truncated() bool {
	return b.Total() > int64(b.headLimit+b.tailLimit)
}

// String returns the captured output as valid UTF-8: everything written when
// it fitted, otherwise the head, a marker naming how many bytes were dropped,
// and the tail. The cuts never split a UTF-8 character; invalid sequences
// written by the command are replaced with U+FFFD. The result holds at most
// the limit's bytes of output plus the marker.
func (b *RingBuffer) String() string {
	return b.render(nil)
}

// snapshot copies out the head and the tail in write order, and the number of
// bytes between them that were dropped.
func (b *RingBuffer) snapshot() (head, tail []byte, dropped int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	head = append([]byte(nil), b.head...)
	tail = make([]byte, 0, b.tailLen)
	start := b.tailPos - b.tailLen
	if start < 0 {
		tail = append(tail, b.tail[start+len(b.tail):]...)
		start = 0
	}
	tail = append(tail, b.tail[start:b.tailPos]...)
	dropped = b.total.Load() - int64(len(head)+len(tail))
	return head, tail, dropped
}

// render is String with secrets redacted. Without a cut the whole capture
// is redacted at once, so an occurrence spanning the head and the tail is
// replaced whole. With a cut, the head and the tail are redacted and cut
// clean (see cutHead): no byte of an occurrence that straddles a cut is
// shown, and the bytes cut off join the dropped count.
func (b *RingBuffer) render(r *Redactor) string {
	head, tail, dropped := b.snapshot()
	if dropped == 0 {
		return validUTF8(r.Redact(string(head) + string(tail)))
	}
	shownHead, headCut := r.cutHead(head)
	shownTail, tailCut := r.cutTail(tail)
	dropped += int64(headCut + tailCut)
	var s strings.Builder
	s.Grow(len(shownHead) + len(shownTail) + 64)
	s.WriteString(validUTF8(shownHead))
	s.WriteString(dropMarker(dropped))
	s.WriteString(validUTF8(shownTail))
	return s.String()
}

func dropMarker(n int64) string {
	return "\n[... " + strconv.FormatInt(n, 10) + " bytes dropped ...]\n"
}

func validUTF8(s string) string {
	return strings.ToValidUTF8(s, "\uFFFD")
}
