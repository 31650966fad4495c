package experiments

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
)

// CellSeed derives an independent, reproducible seed for one cell from a base
// seed, the figure id, the method name, the x value and the replicate index.
//
// The seed is the first 8 bytes (big-endian) of
//
//	SHA-256( "featuredp/cellseed/v1" ‖ u64(base) ‖ u64(len(figure)) ‖ figure
//	         ‖ u64(len(method)) ‖ method ‖ u64(bits(x)) ‖ u64(rep) )
//
// where u64 is 8-byte big-endian and bits(x) is math.Float64bits(x) after
// mapping −0 to +0 and every NaN to the canonical NaN. The length prefixes
// make the encoding injective, so distinct inputs give unrelated seeds, and
// the result depends on nothing else (not on worker count or cell order).
func CellSeed(base uint64, figure, method string, x float64, rep int) uint64 {
	h := sha256.New()
	var b [8]byte
	put := func(v uint64) {
		binary.BigEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	h.Write([]byte("featuredp/cellseed/v1"))
	put(base)
	put(uint64(len(figure)))
	h.Write([]byte(figure))
	put(uint64(len(method)))
	h.Write([]byte(method))
	if x == 0 {
		x = 0 // maps −0 to +0
	}
	bits := math.Float64bits(x)
	if math.IsNaN(x) {
		bits = math.Float64bits(math.NaN())
	}
	put(bits)
	put(uint64(int64(rep)))
	sum := h.Sum(nil)
	return binary.BigEndian.Uint64(sum[:8])
}

// Grid returns the cells of methods × xs × reps, nested in that order
// (method outermost), each with Rep set and Seed = CellSeed(base, figure,
// method, x, rep). Figures fill Params or Config afterwards if needed.
func Grid(figure string, base uint64, methods []string, xs []float64, reps int) []Cell {
	cells := make([]Cell, 0, len(methods)*len(xs)*max(reps, 0))
	for _, m := range methods {
		for _, x := range xs {
			for r := 0; r < reps; r++ {
				cells = append(cells, Cell{Method: m, X: x, Rep: r, Seed: CellSeed(base, figure, m, x, r)})
			}
		}
	}
	return cells
}
