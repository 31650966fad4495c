package experiments

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
)

// RunOptions configures Run.
type RunOptions struct {
	// Workers is the number of goroutines evaluating cells; 0 means
	// runtime.NumCPU() and a negative number is an error. It never
	// changes the results.
	Workers int
	// Progress, if non-nil, is called with (0, total) before the first cell
	// and with (done, total) after each completed cell, done increasing by
	// one each time. With Work > 0 it counts units of work instead: it is
	// called with (0, Work), then every 200 ms while cells run if the units
	// done (capped at Work) have grown, and with (Work, Work) once every
	// cell is done, done increasing each time. Calls never overlap (one
	// goroutine at a time), so the callback needs no locking; it should
	// return quickly. A panic in it stops the run: Run returns it as an
	// error naming the callback, with the stack.
	Progress func(done, total int)
	// Work, if positive, is the total of the units of work that the cells
	// add to the *Work of their context (WorkFrom; see Figure.Work);
	// Progress then counts those units instead of cells.
	Work int
	// Figure is written in the figure column of every row.
	Figure string
	// CellIndex, if set (one entry per cell), tags every row of cell i
	// with the extra column _cell = CellIndex[i]: a sharded run's index of
	// the cell in the figure's full cell list (see Figure.ExecuteShard).
	CellIndex []int
}

// CellFunc computes the measurements of one cell.
type CellFunc func(ctx context.Context, c Cell) ([]Measurement, error)

// Run evaluates fn on every cell in parallel and returns the tidy results:
// the rows of cell 0 (in the order fn returned its measurements), then those
// of cell 1, and so on, whatever the completion order. Because fn must take
// all randomness from c.Seed, the results are identical for any number of
// workers.
//
// The first error returned by fn cancels the context passed to the other
// cells, no new cells start, and Run returns that error wrapped with the
// cell's index, method, x and seed. If ctx is cancelled, Run stops starting
// cells, waits for the running ones (fn should honour its ctx) and returns
// an error wrapping ctx.Err(). A panic in fn is recovered and reported as
// that cell's error (with the stack). A measurement with an empty metric or an
// extra column named like a core column is an error. A panic in
// opts.Progress stops the run like a failing cell and is Run's error,
// naming the callback.
func Run(ctx context.Context, cells []Cell, fn CellFunc, opts RunOptions) (*Results, error) {
	if fn == nil {
		return nil, fmt.Errorf("experiments: Run: nil cell function")
	}
	if opts.CellIndex != nil && len(opts.CellIndex) != len(cells) {
		return nil, fmt.Errorf("experiments: Run: %d cell indices for %d cells", len(opts.CellIndex), len(cells))
	}
	if err := checkWorkers("RunOptions.Workers", opts.Workers); err != nil {
		return nil, fmt.Errorf("experiments: Run: %w", err)
	}
	total := len(cells)
	workers := opts.Workers
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	parent := ctx
	ctx, progress := startProgress(parent, opts, total)
	if ctx.Err() != nil {
		if err := progress.finish(false); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("experiments: run cancelled before start: %w", parent.Err())
	}
	out := make([][]Row, total)
	done := 0
	err := Parallel(ctx, total, workers, func(ctx context.Context, i int) error {
		c := cells[i]
		ms, err := callCell(ctx, fn, c)
		if err == nil {
			out[i], err = toRows(opts.Figure, c, ms)
		}
		if err == nil && opts.CellIndex != nil {
			tagRows(out[i], opts.CellIndex[i])
		}
		if err != nil {
			return fmt.Errorf("cell %d (method %q, x=%g, seed=%d%s): %w", i, c.Method, c.X, c.Seed, describeConfig(c.Config), err)
		}
		return nil
	}, func(int) {
		done++
		progress.cell(done)
	})
	if perr := progress.finish(err == nil && ctx.Err() == nil); perr != nil {
		return nil, perr
	}
	if parent.Err() != nil {
		return nil, fmt.Errorf("experiments: run cancelled after %d of %d cells: %w", done, total, parent.Err())
	}
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	n := 0
	for _, rs := range out {
		n += len(rs)
	}
	res := &Results{Rows: make([]Row, 0, n)}
	for _, rs := range out {
		res.Rows = append(res.Rows, rs...)
	}
	return res, nil
}

// checkWorkers refuses a negative number of workers (field names it),
// naming the values that work.
func checkWorkers(field string, n int) error {
	if n < 0 {
		return fmt.Errorf("%s is %d: want a positive number of goroutines, or 0 for one per CPU (runtime.NumCPU())", field, n)
	}
	return nil
}

// describeConfig renders a cell's configuration for error messages.
func describeConfig(c CellConfig) string {
	if c == nil {
		return ""
	}
	return ", " + c.String()
}

// toRows converts a cell's measurements into rows, validating them.
func toRows(figure string, c Cell, ms []Measurement) ([]Row, error) {
	rows := make([]Row, len(ms))
	for k, m := range ms {
		if m.Metric == "" {
			return nil, fmt.Errorf("measurement %d has an empty metric name", k)
		}
		var extra map[string]string
		for key, v := range m.Extra {
			if isCoreColumn(key) || key == "" {
				return nil, fmt.Errorf("measurement %q: extra column name %q is empty or reserved", m.Metric, key)
			}
			if v == "" {
				continue
			}
			if extra == nil {
				extra = make(map[string]string, len(m.Extra))
			}
			extra[key] = v
		}
		var num map[string]float64
		for key, v := range m.Num {
			if isCoreColumn(key) || key == "" {
				return nil, fmt.Errorf("measurement %q: numeric column name %q is empty or reserved", m.Metric, key)
			}
			if _, dup := m.Extra[key]; dup {
				return nil, fmt.Errorf("measurement %q: column %q is both numeric and a label", m.Metric, key)
			}
			if num == nil {
				num = make(map[string]float64, len(m.Num))
			}
			num[key] = v
		}
		rows[k] = Row{Figure: figure, Method: c.Method, X: c.X, Seed: c.Seed, Metric: m.Metric, Value: m.Value, Num: num, Extra: extra}
	}
	return rows, nil
}

// callCell calls fn, turning a panic into an error that carries the stack,
// so that a bug in one cell cannot take down a notebook kernel and the
// error still names the cell.
func callCell(ctx context.Context, fn CellFunc, c Cell) (ms []Measurement, err error) {
	defer func() {
		if r := recover(); r != nil {
			ms, err = nil, fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return fn(ctx, c)
}

// tagRows adds the extra column _cell = idx to copies of the rows' extras.
func tagRows(rows []Row, idx int) {
	for k := range rows {
		ex := make(map[string]string, len(rows[k].Extra)+1)
		for key, v := range rows[k].Extra {
			ex[key] = v
		}
		ex[partCell] = strconv.Itoa(idx)
		rows[k].Extra = ex
	}
}
