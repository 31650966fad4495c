package experiments

import (
	"container/list"
	"errors"
	"fmt"
	"sync"

	"github.com/featuredp/featuredp/internal/cores"
)

// DefaultMemoSize is the number of entries a Memo created by NewMemo(0)
// keeps.
const DefaultMemoSize = 64

// Memo is the one memo cache of featuredp: a bounded, concurrency-safe
// cache of deterministic intermediate results (a prepared dataset, a tuned
// configuration) keyed by a string that must determine the value
// completely. It is scoped to what owns it — one reproduce run, one figure
// execution or an explicit Env — never global, so memory is released with
// its owner. Failures are never cached: a failed computation is retried by
// the next caller. Concurrent callers of the same key wait for one
// computation. When full, the least recently used entry is dropped.
//
// A nil *Memo computes every value afresh (no caching).
type Memo struct {
	mu      sync.Mutex
	size    int
	entries map[string]*list.Element
	order   *list.List // front = most recently used; values are *memoEntry
}

type memoEntry struct {
	key   string
	done  chan struct{}
	value any
	err   error
}

// NewMemo returns an empty memo that keeps at most size entries (≤ 0 means
// DefaultMemoSize).
func NewMemo(size int) *Memo {
	if size <= 0 {
		size = DefaultMemoSize
	}
	return &Memo{size: size, entries: map[string]*list.Element{}, order: list.New()}
}

// Do returns the value for key, computing it with f once (per entry
// lifetime) and sharing it with every caller.
func (m *Memo) Do(key string, f func() (any, error)) (any, error) {
	if f == nil {
		return nil, fmt.Errorf("experiments: memo: nil function for key %q: pass the computation of its value", key)
	}
	if m == nil {
		return f()
	}
	m.mu.Lock()
	if el, ok := m.entries[key]; ok {
		m.order.MoveToFront(el)
		e := el.Value.(*memoEntry)
		m.mu.Unlock()
		waitIdle(e.done)
		if e.err == nil {
			return e.value, nil
		}
		return m.Do(key, f) // the computation we waited for failed: retry
	}
	e := &memoEntry{key: key, done: make(chan struct{})}
	m.entries[key] = m.order.PushFront(e)
	m.evict()
	m.mu.Unlock()

	defer m.settle(e) // also when f panics: waiters must not wait for ever
	e.err = errMemoPanicked
	e.value, e.err = f()
	return e.value, e.err
}

// errMemoPanicked is the error of an entry whose computation panicked; the
// panic itself goes on to the caller that computed it.
var errMemoPanicked = errors.New("experiments: memo: the computation panicked")

// settle ends the computation of e: a failed (or panicked) entry is
// dropped, so the next caller computes afresh, and the waiters are
// released.
func (m *Memo) settle(e *memoEntry) {
	if e.err != nil {
		m.mu.Lock()
		if el, ok := m.entries[e.key]; ok && el.Value.(*memoEntry) == e {
			m.order.Remove(el)
			delete(m.entries, e.key)
		}
		m.mu.Unlock()
	}
	close(e.done)
}

// waitIdle waits for done, not counted as a busy core (internal/cores)
// meanwhile, so the computation waited for may split over this core. A
// waiter that was not counted lowers the count by one while it waits: at
// worst one goroutine more than cores runs.
func waitIdle(done <-chan struct{}) {
	cores.Leave()
	defer cores.Enter()
	<-done
}

// Len returns the number of entries held.
func (m *Memo) Len() int {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}

// evict drops least recently used entries beyond the size (m.mu held).
func (m *Memo) evict() {
	for m.order.Len() > m.size {
		el := m.order.Back()
		m.order.Remove(el)
		delete(m.entries, el.Value.(*memoEntry).key)
	}
}
