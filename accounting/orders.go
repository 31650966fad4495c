package accounting

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// OrdersOpacus returns a fresh copy of Opacus' default RDP order grid
// (RDPAccountant.DEFAULT_ALPHAS): 1.1, 1.2, …, 10.9 (99 orders, built as
// 1 + x/10 exactly as Opacus does, so 2.0, 3.0, … are exact integers and
// take the integer-order path) followed by 12, 13, …, 63. 151 orders.
func OrdersOpacus() []float64 {
	o := make([]float64, 0, 151)
	for x := 1; x < 100; x++ {
		o = append(o, 1+float64(x)/10.0)
	}
	for a := 12; a < 64; a++ {
		o = append(o, float64(a))
	}
	return o
}

// OrdersTFP returns a fresh copy of the order grid of TensorFlow Privacy's
// compute_dp_sgd_privacy command line tool: 1.25, 1.5, 1.75, 2, 2.25, 2.5,
// 3, 3.5, 4, 4.5, then 5, 6, …, 63, then 128, 256, 512. 72 orders.
func OrdersTFP() []float64 {
	o := []float64{1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5}
	for a := 5; a < 64; a++ {
		o = append(o, float64(a))
	}
	return append(o, 128, 256, 512)
}

// OrdersDPAccounting returns a fresh copy of the DEFAULT_RDP_ORDERS constant
// of Google's dp_accounting library (python/dp_accounting/rdp/
// rdp_privacy_accountant.py, versions since 2024):
//
//	[1 + x/10 for x in 1..99] + [11, 12, …, 63] + [128, 256, 512, 1024]
//
// 156 orders. (Older dp_accounting releases defaulted to the integer grid
// 2, 3, …, 10, 12, 14, 16, 20, 24, 28, 32, 48, 64, 128, 256, 512, 1024;
// pass that explicitly with NewAccountant if you need it.) Note that
// dp_accounting evaluates fractional orders with an absolute-value series,
// an upper bound; this package always uses the exact signed series, so
// values at fractional orders can be slightly smaller than dp_accounting's.
func OrdersDPAccounting() []float64 {
	o := make([]float64, 0, 156)
	for x := 1; x < 100; x++ {
		o = append(o, 1+float64(x)/10.0)
	}
	for a := 11; a < 64; a++ {
		o = append(o, float64(a))
	}
	return append(o, 128, 256, 512, 1024)
}

// ValidateOrders checks a user order grid: it must be non-empty and every
// order must be > 1 and either finite or +Inf (NaN is rejected). Orders need
// not be sorted or distinct.
func ValidateOrders(orders []float64) error {
	if len(orders) == 0 {
		return fmt.Errorf("accounting: empty order grid")
	}
	for i, a := range orders {
		if math.IsNaN(a) || !(a > 1) {
			return fmt.Errorf("accounting: RDP order %v (index %d) is not > 1", a, i)
		}
	}
	return nil
}

// ParseOrders turns a grid name or a list into an order grid: "opacus",
// "tfp", "dp_accounting" (case-insensitive) name the built-in grids; anything
// else is read as a comma-separated list of orders ("1.5,2,4,8,inf"), which
// must pass ValidateOrders.
func ParseOrders(s string) ([]float64, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "opacus":
		return OrdersOpacus(), nil
	case "tfp", "tf_privacy", "tensorflow_privacy":
		return OrdersTFP(), nil
	case "dp_accounting", "dp-accounting", "dpaccounting":
		return OrdersDPAccounting(), nil
	case "":
		return nil, fmt.Errorf("accounting: empty order grid")
	}
	parts := strings.Split(s, ",")
	orders := make([]float64, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		a, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return nil, fmt.Errorf("accounting: order %q is not a number (want opacus, tfp, dp_accounting or a comma-separated list)", p)
		}
		orders = append(orders, a)
	}
	if err := ValidateOrders(orders); err != nil {
		return nil, err
	}
	return orders, nil
}

// GridEdgeNote says when the optimal order of an RDP → (ε, δ) conversion
// (EpsilonFromRDP, Accountant.Epsilon, a Ledger's RDP route, or the ε of
// a calibrated noise multiplier) is the smallest order of the grid or its
// largest finite one. ε is then still a valid upper bound, but the
// minimum over the grid may be far above the minimum over all orders, since
// ε(α) = r(α) + conversion cost is minimised beyond the grid: for
// q = 0.001, z = 5, 100 steps and δ = 1e-5, OrdersOpacus gives ε = 0.103 at
// its largest order 63 and OrdersDPAccounting 0.020 at order 256; for one
// Gaussian release calibrated to ε = 0.11, δ = 1e-5 on OrdersOpacus,
// z = 66.5 against 31.1 with the integer orders up to 1024 added. (Opacus'
// RDPAccountant warns in the same case.) It returns "" for an interior
// order, for an order +Inf, and for ε = 0 or +Inf, where no order matters.
func GridEdgeNote(orders []float64, order, eps float64) string {
	if len(orders) == 0 || !(eps > 0) || math.IsInf(eps, 1) || math.IsNaN(eps) || math.IsInf(order, 1) {
		return "" // +Inf orders are not an edge (nor the smallest order of a grid of +Inf only)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, a := range orders {
		lo = math.Min(lo, a)
		if !math.IsInf(a, 1) {
			hi = math.Max(hi, a)
		}
	}
	switch {
	case order == hi && order == lo:
		return fmt.Sprintf("the optimal RDP order %v is the only finite order of the grid: other orders may give a smaller epsilon", order)
	case order == hi:
		return fmt.Sprintf("the optimal RDP order %v is the largest finite order of the grid: larger orders may give a smaller epsilon", order)
	case order == lo:
		return fmt.Sprintf("the optimal RDP order %v is the smallest order of the grid: orders closer to 1 may give a smaller epsilon", order)
	}
	return ""
}
