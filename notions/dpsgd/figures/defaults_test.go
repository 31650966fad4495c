package figures

import (
	"slices"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

// TestDefaultAccountant pins the default accountant the figures use: the
// Opacus order grid with the improved conversion, and a fresh grid per call
// (a caller that edits its copy must not change the next caller's ε).
func TestDefaultAccountant(t *testing.T) {
	if accounting.DefaultConversion != accounting.ConversionImproved {
		t.Errorf("DefaultConversion = %v, want %v", accounting.DefaultConversion, accounting.ConversionImproved)
	}
	o := accounting.DefaultOrders()
	if !slices.Equal(o, accounting.OrdersOpacus()) {
		t.Fatalf("DefaultOrders() = %v, want OrdersOpacus()", o)
	}
	o[0] = 1000
	if got := accounting.DefaultOrders(); got[0] == 1000 {
		t.Error("DefaultOrders returns a shared slice: editing one copy changed the next")
	}
}
