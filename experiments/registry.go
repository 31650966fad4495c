package experiments

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Registry is a set of figures keyed by id. The zero value is empty and
// ready to use; it is safe for concurrent use. A nil *Registry reads as
// empty; Register and Select on it return an error naming the fix.
type Registry struct {
	mu   sync.RWMutex
	figs map[string]Figure
}

// Register adds f. It fails if f is invalid (see Figure.Validate) or its id
// is already registered.
func (r *Registry) Register(f Figure) error {
	if r == nil {
		return errNilRegistry
	}
	if err := f.Validate(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.figs == nil {
		r.figs = map[string]Figure{}
	}
	if _, dup := r.figs[f.ID]; dup {
		return fmt.Errorf("experiments: figure %q is already registered", f.ID)
	}
	r.figs[f.ID] = f
	return nil
}

// errNilRegistry is the error of Register and Select on a nil *Registry.
var errNilRegistry = errors.New("experiments: nil *Registry: declare a Registry value (its zero value is ready to use) or use experiments.Default")

// Figures returns all registered figures sorted by id (none for a nil
// *Registry).
func (r *Registry) Figures() []Figure {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Figure, 0, len(r.figs))
	for _, f := range r.figs {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Papers returns the sorted paper ids of the registered figures (each
// notion registers its own figures, so its paper id comes with them).
func (r *Registry) Papers() []string {
	var out []string
	for _, f := range r.Figures() {
		if !slices.Contains(out, f.Paper) {
			out = append(out, f.Paper)
		}
	}
	sort.Strings(out)
	return out
}

// Lookup returns the figure with the given id (none for a nil *Registry).
func (r *Registry) Lookup(id string) (Figure, bool) {
	if r == nil {
		return Figure{}, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.figs[id]
	return f, ok
}

// Select resolves command-line style arguments into figures. Each argument is
// "all", a paper name (see Papers) selecting that paper's figures, or a
// figure id. No argument means "all". The result keeps the order of the
// arguments (figures of a paper sorted by id) without duplicates, except
// that a figure that reuses another selected one (Figure.Reuses) comes
// right after it. Unknown
// names give an error listing the valid ones; a paper without registered
// figures is an error too.
func (r *Registry) Select(args []string) ([]Figure, error) {
	if r == nil {
		return nil, errNilRegistry
	}
	all := r.Figures()
	if len(args) == 0 {
		args = []string{"all"}
	}
	seen := map[string]bool{}
	var out []Figure
	add := func(f Figure) {
		if !seen[f.ID] {
			seen[f.ID] = true
			out = append(out, f)
		}
	}
	for _, a := range args {
		a = strings.TrimSpace(a)
		switch {
		case strings.EqualFold(a, "all"):
			for _, f := range all {
				add(f)
			}
		case slices.Contains(r.Papers(), strings.ToLower(a)):
			for _, f := range all {
				if f.Paper == strings.ToLower(a) {
					add(f)
				}
			}
		default:
			f, ok := r.Lookup(a)
			if !ok {
				ids := make([]string, len(all))
				for i, g := range all {
					ids[i] = g.ID
				}
				return nil, fmt.Errorf("experiments: unknown figure or paper %q (valid: all, %s, %s)",
					a, strings.Join(r.Papers(), ", "), strings.Join(ids, ", "))
			}
			add(f)
		}
	}
	return afterReused(out), nil
}

// afterReused moves every figure whose Figure.Reuses is also in figs to
// right after it (chains follow in turn); the order is otherwise kept, and
// the figures of a cycle of reuses (a mistake) all run, from the first.
func afterReused(figs []Figure) []Figure {
	selected := map[string]bool{}
	for _, f := range figs {
		selected[f.ID] = true
	}
	follows := func(f Figure) bool { return f.Reuses != f.ID && selected[f.Reuses] }
	followers := map[string][]Figure{}
	for _, f := range figs {
		if follows(f) {
			followers[f.Reuses] = append(followers[f.Reuses], f)
		}
	}
	done := map[string]bool{}
	out := make([]Figure, 0, len(figs))
	var emit func(f Figure)
	emit = func(f Figure) {
		if done[f.ID] {
			return
		}
		done[f.ID] = true
		out = append(out, f)
		for _, g := range followers[f.ID] {
			emit(g)
		}
	}
	for _, f := range figs {
		if !follows(f) {
			emit(f)
		}
	}
	for _, f := range figs { // figures on a cycle of reuses
		emit(f)
	}
	return out
}

// Default is the registry that figures of this package register into and
// that the package-level functions use.
var Default = &Registry{}

// Register adds f to the default registry (see Registry.Register).
func Register(f Figure) error { return Default.Register(f) }

// MustRegister is Register for init functions of built-in figures: it panics
// on error, which signals a programming error in the figure definition.
func MustRegister(f Figure) {
	if err := Default.Register(f); err != nil {
		panic(err)
	}
}

// Figures returns the figures of the default registry sorted by id.
func Figures() []Figure { return Default.Figures() }

// Lookup finds a figure of the default registry by id.
func Lookup(id string) (Figure, bool) { return Default.Lookup(id) }

// Select resolves arguments against the default registry (see
// Registry.Select).
func Select(args []string) ([]Figure, error) { return Default.Select(args) }

// Papers returns the paper ids of the default registry's figures.
func Papers() []string { return Default.Papers() }
