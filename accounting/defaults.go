package accounting

// DefaultConversion is the RDP → (ε, δ) conversion every calibration of
// the library uses unless told otherwise: the conversion of Balle et al.
// 2020 (Thm 21) = Canonne, Kamath & Steinke 2020 (Prop. 12), which is
// never looser than Mironov's (Prop. 3) and is what Opacus, TF Privacy and
// dp_accounting use, so the library's ε matches theirs (docs/accounting.md).
const DefaultConversion = ConversionImproved

// DefaultOrders returns a fresh copy of the RDP order grid every
// calibration of the library uses unless told otherwise: Opacus' default
// grid (OrdersOpacus), so that ε and noise multipliers reproduce Opacus'
// RDPAccountant and the papers' numbers computed with it.
func DefaultOrders() []float64 { return OrdersOpacus() }
