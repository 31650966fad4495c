package main

// The accountant commands: epsilon, sigma and gaussian. Each parses its flags
// with the standard flag package (ContinueOnError, flag output discarded),
// prints a one-line error starting "featuredp <cmd>: " and returns 2 on any
// invalid input, and prints its flag help on stdout and returns 0 for -h.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
)

func init() {
	register("epsilon", "epsilon of Poisson-subsampled Gaussian phases (RDP accountant)", runEpsilon)
	register("sigma", "noise multiplier reaching a target (epsilon, delta) for DP-SGD", runSigma)
	register("gaussian", "tight noise sigma of the analytic Gaussian mechanism", runGaussian)
}

// accCmd carries what every accountant command needs to report.
type accCmd struct {
	name           string
	usage          string // first help line, after "usage: "
	fs             *flag.FlagSet
	stdout, stderr io.Writer
}

func newAccCmd(name, usage string, stdout, stderr io.Writer) *accCmd {
	fs := flag.NewFlagSet("featuredp "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &accCmd{name: name, usage: usage, fs: fs, stdout: stdout, stderr: stderr}
}

// fail prints a one-line error and returns exit code 2.
func (c *accCmd) fail(err error) int {
	msg := strings.TrimPrefix(err.Error(), "accounting: ")
	msg = strings.Join(strings.Fields(msg), " ") // one line, whatever err says
	fmt.Fprintf(c.stderr, "featuredp %s: %s\n", c.name, msg)
	return 2
}

// parse parses args. done reports that the command must return code now
// (help printed, or an error reported).
func (c *accCmd) parse(args []string) (done bool, code int) {
	err := c.fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(c.stdout, "usage: %s\n\nflags:\n", c.usage)
		printDefaults(c.fs, c.stdout)
		c.fs.SetOutput(io.Discard)
		return true, 0
	}
	if err != nil {
		return true, c.fail(errors.New(flagError(c.fs, err)))
	}
	if c.fs.NArg() > 0 {
		return true, c.fail(fmt.Errorf("unexpected argument %q", c.fs.Arg(0)))
	}
	return false, 0
}

// set returns the names of the flags given on the command line.
func (c *accCmd) set() map[string]bool {
	m := map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { m[f.Name] = true })
	return m
}

// require fails unless every named flag was given.
func (c *accCmd) require(names ...string) error {
	set := c.set()
	var missing []string
	for _, n := range names {
		if !set[n] {
			missing = append(missing, "--"+n)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing required flag(s) %s (see -h)", strings.Join(missing, ", "))
	}
	return nil
}

// parseSteps reads a step count: a non-negative decimal integer, also
// written as an integral plain decimal such as 1e6 (data.ParseNumber: no
// hex float, underscores, Inf or NaN).
func parseSteps(s string) (int, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("steps %d is negative: want a step count T ≥ 0", n)
		}
		return n, nil
	}
	f, err := data.ParseNumber(s)
	if err != nil || f != math.Trunc(f) || f < 0 || f > 1<<53 {
		return 0, fmt.Errorf("steps %q is not a non-negative integer: write it in decimal digits such as 1000 or 1e6 (no hex, underscores, Inf or NaN)", s)
	}
	return int(f), nil
}

// parsePhase reads "Q,Z,T", Q and Z plain decimals (data.ParseNumber).
func parsePhase(s string) (accounting.Phase, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return accounting.Phase{}, fmt.Errorf("phase %q is not Q,Z,T", s)
	}
	q, err1 := data.ParseNumber(parts[0])
	z, err2 := data.ParseNumber(parts[1])
	t, err3 := parseSteps(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return accounting.Phase{}, fmt.Errorf("phase %q is not Q,Z,T (plain decimal numbers such as 0.01,1.1,1000, T an integer; no hex, underscores, Inf or NaN)", s)
	}
	p := accounting.Phase{SampleRate: q, NoiseMultiplier: z, Steps: t}
	if err := p.Validate(); err != nil {
		return accounting.Phase{}, fmt.Errorf("phase %q: %s", s, strings.TrimPrefix(err.Error(), "accounting: "))
	}
	return p, nil
}

// jsonNumber formats v as a JSON number, or null when it is not finite.
func jsonNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "null"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// orderOf is the RDP order to report with ε: NaN (null in JSON) when ε is
// +Inf, where no order gives a finite ε and the accountant's order means
// nothing.
func orderOf(eps, order float64) float64 {
	if math.IsInf(eps, 1) {
		return math.NaN()
	}
	return order
}

func runEpsilon(args []string, stdout, stderr io.Writer) int {
	c := newAccCmd("epsilon", "featuredp epsilon --sample-rate Q --noise-multiplier Z --steps T --delta D [--orders opacus|tfp|dp_accounting|LIST] [--conversion improved|classic] [--phase Q,Z,T ...] [--json]\n\n"+
		"Prints the epsilon of T steps of the Poisson-subsampled Gaussian mechanism (add/remove-one\n"+
		"neighbours, RDP accountant) and the optimal RDP order. Repeat --phase Q,Z,T to compose\n"+
		"heterogeneous phases instead of giving --sample-rate/--noise-multiplier/--steps.\n"+
		"The RDP never under-reports: where an order's value cannot be computed exactly, a valid\n"+
		"upper bound is used and a note says which (JSON: a \"bounds\" list). When the optimal order\n"+
		"is the grid's smallest or largest, a note says that a wider grid may give a smaller epsilon\n"+
		"(JSON: \"grid_edge\").\n"+
		"With --json prints {\"epsilon\":E,\"order\":A} (null when not finite).\n\n"+
		"featuredp epsilon --ledger FILE.json --delta D [--orders GRID] [--conversion C] [--json]\n"+
		"composes the mechanisms listed in FILE.json, a JSON array of objects such as\n"+
		"{\"mechanism\": \"laplace\", \"epsilon\": 0.5}, {\"mechanism\": \"gaussian\", \"sigma\": 2, \"sensitivity\": 1},\n"+
		"{\"mechanism\": \"subsampled_gaussian\", \"q\": 0.02, \"z\": 1, \"steps\": 500}, {\"mechanism\": \"zcdp\", \"rho\": 0.1},\n"+
		"{\"mechanism\": \"rdp\", \"orders\": [...], \"values\": [...]}, also pure, approx (epsilon, delta) and gdp (mu),\n"+
		"each with an optional \"relation\" (default add-remove; replace-one, feature-simulator, feature,\n"+
		"coordinate, label) and \"change_to\" (an explicit relation change), under one relation, and\n"+
		"prints epsilon with the best route and a per-entry breakdown (docs/accounting.md). With --json\n"+
		"prints {\"epsilon\":E,\"delta\":D,\"route\":…,\"entries\":[…],\"routes\":[…],\"notes\":[…]}.", stdout, stderr)
	fs := c.fs
	q := float64Flag(fs, "sample-rate", 0, "Poisson sampling rate `Q` in [0, 1]")
	z := float64Flag(fs, "noise-multiplier", 0, "noise multiplier `Z` (noise std / clip norm)")
	var steps int
	fs.Func("steps", "number of steps `T` (the caller's convention: e.g. Opacus int(epochs/q), TF Privacy ceil(epochs*n/batch))", func(s string) error {
		n, err := parseSteps(s)
		steps = n
		return err
	})
	delta := float64Flag(fs, "delta", 0, "target `D` in (0, 1)")
	orders := fs.String("orders", "opacus", "RDP order grid: opacus, tfp, dp_accounting or a comma-separated `LIST` (at most 2048 orders)")
	conv := fs.String("conversion", "improved", "RDP to (epsilon, delta) conversion: improved or classic")
	var phases []accounting.Phase
	fs.Func("phase", "a phase `Q,Z,T` (repeatable, at most 1000; replaces --sample-rate/--noise-multiplier/--steps)", func(s string) error {
		if len(phases) == maxPhases {
			return fmt.Errorf("more than %d phases: compose them with --ledger FILE (at most %d entries, within a ledger-wide work budget)", maxPhases, maxLedgerEntries)
		}
		p, err := parsePhase(s)
		if err == nil {
			phases = append(phases, p)
		}
		return err
	})
	asJSON := fs.Bool("json", false, "print one JSON object {\"epsilon\":…, \"order\":…}")
	ledger := fs.String("ledger", "", "compose the mechanisms listed in JSON `FILE` (see above and docs/accounting.md)")
	if done, code := c.parse(args); done {
		return code
	}
	set := c.set()
	if set["ledger"] {
		return epsilonLedger(c, *ledger, *delta, *orders, *conv, *asJSON, len(phases) > 0)
	}
	if len(phases) > 0 {
		if set["sample-rate"] || set["noise-multiplier"] || set["steps"] {
			return c.fail(errors.New("give either --phase or --sample-rate/--noise-multiplier/--steps, not both"))
		}
		if err := c.require("delta"); err != nil {
			return c.fail(err)
		}
	} else {
		if err := c.require("sample-rate", "noise-multiplier", "steps", "delta"); err != nil {
			return c.fail(err)
		}
		phases = []accounting.Phase{{SampleRate: *q, NoiseMultiplier: *z, Steps: steps}}
	}
	grid, err := parseGrid(*orders)
	if err != nil {
		return c.fail(err)
	}
	cv, err := accounting.ParseConversion(*conv)
	if err != nil {
		return c.fail(err)
	}
	acc, err := accounting.NewAccountant(grid)
	if err != nil {
		return c.fail(err)
	}
	for _, p := range phases {
		if err := acc.Add(p); err != nil {
			return c.fail(err)
		}
	}
	eps, order, err := acc.Epsilon(*delta, cv)
	if err != nil {
		return c.fail(err)
	}
	edge := gridEdgeHint(grid, order, eps, "")
	notes, order := acc.Notes(), orderOf(eps, order)
	if *asJSON {
		fmt.Fprintf(stdout, "{\"epsilon\":%s,\"order\":%s%s%s}\n", jsonNumber(eps), jsonNumber(order), notesJSON(notes), gridEdgeJSON(edge))
		return 0
	}
	at := " at order " + num(order)
	if math.IsNaN(order) {
		at = ", no order finite"
	}
	fmt.Fprintf(stdout, "epsilon %s%s (delta %s, %s conversion, %d phase(s))\n", num(eps), at, num(*delta), cv, len(phases))
	for _, n := range notes {
		fmt.Fprintf(stdout, "note: %s — a valid upper bound on the RDP is used at this order\n", n)
	}
	if edge != "" {
		fmt.Fprintf(stdout, "note: %s\n", edge)
	}
	return 0
}

// parseGrid is accounting.ParseOrders bounded to maxGridOrders orders: a
// ledger keeps every distinct entry's RDP at every order, so memory and time
// grow as entries × orders (1,000 entries × 10,000 orders: 98 MB, 5 s).
func parseGrid(s string) ([]float64, error) {
	grid, err := parseOrders(s)
	if err != nil {
		return nil, err
	}
	if len(grid) > maxGridOrders {
		return nil, fmt.Errorf("--orders lists %d orders, at most %d (a ledger keeps every entry's RDP at every order); use fewer orders", len(grid), maxGridOrders)
	}
	return grid, nil
}

// parseOrders is accounting.ParseOrders with the orders of a LIST read as
// plain decimals (data.ParseNumber) or inf, the order ∞: strconv.ParseFloat
// would also read "0x1p3" (8) and "1_0" (10).
func parseOrders(s string) ([]float64, error) {
	grid, err := accounting.ParseOrders(s)
	if err != nil || !strings.ContainsAny(s, "0123456789") { // a grid's name, or an error
		return grid, err
	}
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if _, err := data.ParseNumber(p); err != nil && !strings.EqualFold(strings.TrimPrefix(p, "+"), "inf") {
			return nil, fmt.Errorf("order %q is not a plain decimal number such as 1.5, 32 or 1e3, nor inf (no hex, underscores or NaN): want opacus, tfp, dp_accounting or a comma-separated list", p)
		}
	}
	return grid, nil
}

// gridEdgeHint is accounting.GridEdgeNote with the flag that widens the
// grid (fix, when the grid is fixed by --method opacus), or "" for an
// interior optimal order.
func gridEdgeHint(grid []float64, order, eps float64, fix string) string {
	n := accounting.GridEdgeNote(grid, order, eps)
	if n == "" {
		return ""
	}
	if fix == "" {
		fix = "pass a wider grid with --orders LIST (e.g. integer orders up to 1024, or orders closer to 1)"
	}
	return n + "; " + fix
}

// gridEdgeJSON renders a grid-edge note as a JSON field ,"grid_edge":"…",
// empty when there is none.
func gridEdgeJSON(note string) string {
	if note == "" {
		return ""
	}
	b, _ := json.Marshal(note)
	return `,"grid_edge":` + string(b)
}

// notesJSON renders the accountant's bound notes as a JSON field
// ,"bounds":[{"order":A,"method":"…","reason":"…"},…], empty when there are
// none.
func notesJSON(notes []accounting.RDPNote) string {
	if len(notes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(`,"bounds":[`)
	for i, n := range notes {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"order":%s,"method":%q,"reason":%q}`, jsonNumber(n.Order), n.Method.String(), n.Reason)
	}
	b.WriteByte(']')
	return b.String()
}

func runSigma(args []string, stdout, stderr io.Writer) int {
	c := newAccCmd("sigma", "featuredp sigma --epsilon E --delta D --sample-rate Q --steps T [--method opacus|exact] [--orders GRID] [--conversion improved|classic] [--json]\n\n"+
		"Prints the noise multiplier for which T steps of the Poisson-subsampled Gaussian mechanism\n"+
		"(add/remove-one neighbours) are (E, D)-DP by the RDP accountant. --method opacus (default)\n"+
		"reproduces Opacus' get_noise_multiplier (bisection to epsilon tolerance 0.01, Opacus grid,\n"+
		"improved conversion); --method exact finds the tight root on --orders/--conversion.\n"+
		"When the optimal order at Z is the grid's smallest or largest, a note says that a wider grid\n"+
		"may need less noise (JSON: \"grid_edge\").\n"+
		"With --json prints {\"noise_multiplier\":Z}.", stdout, stderr)
	fs := c.fs
	eps := float64Flag(fs, "epsilon", 0, "target `E` > 0")
	delta := float64Flag(fs, "delta", 0, "target `D` in (0, 1)")
	q := float64Flag(fs, "sample-rate", 0, "Poisson sampling rate `Q` in (0, 1]")
	var steps int
	fs.Func("steps", "number of steps `T` >= 1", func(s string) error {
		n, err := parseSteps(s)
		steps = n
		return err
	})
	method := fs.String("method", "opacus", "opacus (Opacus' bisection) or exact (tight root)")
	orders := fs.String("orders", "opacus", "RDP order grid for --method exact: opacus, tfp, dp_accounting or a `LIST` (at most 2048 orders)")
	conv := fs.String("conversion", "improved", "conversion for --method exact: improved or classic")
	asJSON := fs.Bool("json", false, "print one JSON object {\"noise_multiplier\":…}")
	if done, code := c.parse(args); done {
		return code
	}
	if err := c.require("epsilon", "delta", "sample-rate", "steps"); err != nil {
		return c.fail(err)
	}
	m := strings.ToLower(*method)
	if m == "opacus" {
		if set := c.set(); set["orders"] || set["conversion"] {
			return c.fail(errors.New("--orders and --conversion apply to --method exact only (Opacus fixes its grid and conversion)"))
		}
	}
	z, edge, err := calibrateSigma(m, *eps, *delta, *q, steps, *orders, *conv)
	if err != nil {
		return c.fail(err)
	}
	if *asJSON {
		fmt.Fprintf(stdout, "{\"noise_multiplier\":%s%s}\n", jsonNumber(z), gridEdgeJSON(edge))
		return 0
	}
	fmt.Fprintf(stdout, "noise multiplier %s (method %s)\n", num(z), m)
	if edge != "" {
		fmt.Fprintf(stdout, "note: %s\n", edge)
	}
	return 0
}

// calibrateSigma runs the calibration of featuredp sigma and returns the
// noise multiplier with a note when, at that multiplier, the optimal order
// of the grid used is the grid's edge (the multiplier may then be larger
// than a wider grid needs; accounting.GridEdgeNote).
func calibrateSigma(method string, eps, delta, q float64, steps int, orders, conv string) (float64, string, error) {
	grid, cv, fix := accounting.OrdersOpacus(), accounting.ConversionImproved, "use --method exact with a wider --orders LIST"
	var z float64
	var err error
	switch method {
	case "opacus":
		z, err = accounting.NoiseMultiplierOpacus(eps, delta, q, steps)
	case "exact":
		if grid, err = parseGrid(orders); err != nil {
			return 0, "", err
		}
		if cv, err = accounting.ParseConversion(conv); err != nil {
			return 0, "", err
		}
		fix = ""
		z, err = accounting.NoiseMultiplier(eps, delta, q, steps, grid, cv)
	default:
		return 0, "", fmt.Errorf("unknown method %q (want opacus or exact)", method)
	}
	if err != nil {
		return 0, "", err
	}
	e, order, err := accounting.Epsilon([]accounting.Phase{{SampleRate: q, NoiseMultiplier: z, Steps: steps}}, delta, grid, cv)
	if err != nil {
		return z, "", nil // the calibration succeeded; the note is only advice
	}
	return z, gridEdgeHint(grid, order, e, fix), nil
}

func runGaussian(args []string, stdout, stderr io.Writer) int {
	c := newAccCmd("gaussian", "featuredp gaussian --epsilon E --delta D --sensitivity S [--json]\n\n"+
		"Prints the smallest noise standard deviation sigma for which the Gaussian mechanism on a\n"+
		"query of L2 sensitivity S is (E, D)-DP (analytic Gaussian mechanism, Balle & Wang 2018).\n"+
		"E up to 1e16 and every D in (0, 1), subnormals included; sigma is never below the exact\n"+
		"value and an independent evaluation of delta(sigma) certifies it (docs/accounting.md).\n"+
		"With --json prints {\"sigma\":SIGMA}.", stdout, stderr)
	fs := c.fs
	eps := float64Flag(fs, "epsilon", 0, "`E` in [0, 1e16]")
	delta := float64Flag(fs, "delta", 0, "`D` in (0, 1), down to 5e-324")
	sens := float64Flag(fs, "sensitivity", 0, "L2 sensitivity `S` > 0")
	asJSON := fs.Bool("json", false, "print one JSON object {\"sigma\":…}")
	if done, code := c.parse(args); done {
		return code
	}
	if err := c.require("epsilon", "delta", "sensitivity"); err != nil {
		return c.fail(err)
	}
	sigma, err := accounting.AnalyticGaussianSigma(*eps, *delta, *sens)
	if err != nil {
		return c.fail(err)
	}
	if *asJSON {
		fmt.Fprintf(stdout, "{\"sigma\":%s}\n", jsonNumber(sigma))
		return 0
	}
	fmt.Fprintf(stdout, "sigma %s (analytic Gaussian mechanism)\n", num(sigma))
	return 0
}
