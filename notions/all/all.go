// Package all registers every notion's figures: importing it (as the
// featuredp command and dpnb do) makes them available to the experiments
// registry. A new notion is one new folder under notions/ plus one line
// here.
package all

import (
	_ "github.com/featuredp/featuredp/notions/bcdp/figures"     // BCDP
	_ "github.com/featuredp/featuredp/notions/corrdp/figures"   // CorrDP
	_ "github.com/featuredp/featuredp/notions/dpsgd/figures"    // DP-SGD accounting
	_ "github.com/featuredp/featuredp/notions/fdp/figures"      // feature DP
	_ "github.com/featuredp/featuredp/notions/smoothdp/figures" // smooth RDP
)
