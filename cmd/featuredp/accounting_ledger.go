package main

// `featuredp epsilon --ledger FILE.json`: compose the mechanisms listed in a
// JSON file with accounting.Ledger (docs/accounting.md, "Relations, losses
// and the ledger").

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/suggest"
	"github.com/featuredp/featuredp/internal/valid"
)

// Input bounds of a ledger file.
const (
	maxLedgerBytes   = 1 << 20 // file size
	maxLedgerEntries = 10000   // mechanisms in the file
	maxPhases        = 1000    // --phase flags of featuredp epsilon (each may cost up to a work budget)
	maxEntryOrders   = 1000    // orders of one "rdp" entry
	maxGridOrders    = 2048    // orders of an --orders LIST (a ledger keeps entries × orders values)
)

// ledgerMech describes one "mechanism" of a ledger file: its required
// numeric fields and how they become a loss.
type ledgerMech struct {
	fields []string // all required
	doc    string
	build  func(v map[string]float64, rel accounting.Relation) (accounting.Loss, error)
}

// commonFields are accepted by every mechanism (all optional).
var commonFields = []string{"mechanism", "relation", "change_to", "name"}

var ledgerMechs = map[string]ledgerMech{
	"laplace": {[]string{"epsilon"}, "pure epsilon-DP (Laplace or any epsilon-DP mechanism)", func(v map[string]float64, rel accounting.Relation) (accounting.Loss, error) {
		return accounting.PureLoss(v["epsilon"], rel)
	}},
	"pure": {[]string{"epsilon"}, "pure epsilon-DP", func(v map[string]float64, rel accounting.Relation) (accounting.Loss, error) {
		return accounting.PureLoss(v["epsilon"], rel)
	}},
	"approx": {[]string{"epsilon", "delta"}, "(epsilon, delta)-DP with no RDP curve (basic composition)", func(v map[string]float64, rel accounting.Relation) (accounting.Loss, error) {
		return accounting.ApproxLoss(v["epsilon"], v["delta"], rel)
	}},
	"gaussian": {[]string{"sigma", "sensitivity"}, "one Gaussian mechanism: noise std sigma, L2 sensitivity", func(v map[string]float64, rel accounting.Relation) (accounting.Loss, error) {
		return accounting.GaussianLoss(v["sigma"], v["sensitivity"], rel)
	}},
	"subsampled_gaussian": {[]string{"q", "z", "steps"}, "steps of the Poisson-subsampled Gaussian (DP-SGD), add-remove", func(v map[string]float64, rel accounting.Relation) (accounting.Loss, error) {
		if rel != accounting.RelationAddRemove {
			return accounting.Loss{}, fmt.Errorf(`"relation" must be add-remove: the subsampled-Gaussian RDP (Mironov, Talwar & Zhang 2019) is proven for it; add "change_to" to convert`)
		}
		return accounting.SubsampledGaussianLoss(accounting.Phase{SampleRate: v["q"], NoiseMultiplier: v["z"], Steps: int(v["steps"])})
	}},
	"zcdp": {[]string{"rho"}, "rho-zCDP", func(v map[string]float64, rel accounting.Relation) (accounting.Loss, error) {
		return accounting.ZCDPLoss(v["rho"], rel)
	}},
	"gdp": {[]string{"mu"}, "mu-GDP", func(v map[string]float64, rel accounting.Relation) (accounting.Loss, error) {
		return accounting.GDPLoss(v["mu"], rel)
	}},
	"rdp": {nil, "an RDP curve: \"orders\" and \"values\" arrays", nil},
}

func mechNames() string {
	names := make([]string, 0, len(ledgerMechs))
	for n := range ledgerMechs {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// readLedgerFile reads at most maxLedgerBytes of path.
func readLedgerFile(path string) ([]byte, error) {
	f, err := openInput("--ledger", path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxLedgerBytes+1))
	if err != nil {
		return nil, fmt.Errorf("--ledger %s: %w", path, err)
	}
	if len(data) > maxLedgerBytes {
		return nil, fmt.Errorf("--ledger %s is larger than %d bytes (split the ledger)", path, maxLedgerBytes)
	}
	return data, nil
}

// parseLedger turns a ledger file into losses of one relation. Errors name
// the entry (its index in the array, from 0) and the field.
func parseLedger(data []byte) ([]accounting.Loss, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw []json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("--ledger: not a JSON array of objects: %v", err)
	}
	if dec.More() {
		return nil, errors.New("--ledger: data after the JSON array")
	}
	if len(raw) == 0 {
		return nil, errors.New("--ledger: the file lists no mechanisms")
	}
	if len(raw) > maxLedgerEntries {
		return nil, fmt.Errorf("--ledger: %d entries, at most %d", len(raw), maxLedgerEntries)
	}
	losses := make([]accounting.Loss, len(raw))
	for i, r := range raw {
		l, err := parseLedgerEntry(r)
		if err != nil {
			return nil, fmt.Errorf("--ledger: entry %d%s", i, err.Error())
		}
		if l.Relation() != losses[0].Relation() && i > 0 {
			return nil, fmt.Errorf("--ledger: entry %d (%s): relation %v differs from entry 0's %v; relations are never mixed silently: convert entries with \"change_to\" (valid changes: add-remove → replace-one, add-remove → feature-simulator, feature-simulator → feature, replace-one → feature, coordinate or label; docs/accounting.md)", i, l, l.Relation(), losses[0].Relation())
		}
		losses[i] = l
	}
	return losses, nil
}

// parseLedgerEntry reads one entry; its error starts with " (mechanism): "
// or ": " to follow "entry i".
func parseLedgerEntry(r json.RawMessage) (accounting.Loss, error) {
	obj, err := jsonObject(r)
	if err != nil {
		return accounting.Loss{}, fmt.Errorf(": %v", err)
	}
	if _, ok := obj["mechanism"]; !ok {
		return accounting.Loss{}, fmt.Errorf(`: missing "mechanism" (one of %s)`, mechNames())
	}
	name, err := stringField(obj, "mechanism")
	if err != nil {
		return accounting.Loss{}, fmt.Errorf(": %v (one of %s)", err, mechNames())
	}
	m, ok := ledgerMechs[name]
	if !ok {
		return accounting.Loss{}, fmt.Errorf(": unknown mechanism %q (one of %s)", name, mechNames())
	}
	l, err := buildEntry(name, m, obj)
	if err != nil {
		return accounting.Loss{}, fmt.Errorf(" (%s): %s", name, strings.TrimPrefix(err.Error(), "accounting: "))
	}
	return l, nil
}

// buildEntry checks the keys of one entry and builds its loss.
func buildEntry(name string, m ledgerMech, obj map[string]json.RawMessage) (accounting.Loss, error) {
	fields := m.fields
	if name == "rdp" {
		fields = []string{"orders", "values"}
	}
	allowed := append(append([]string(nil), fields...), commonFields...)
	if err := checkKeys(obj, allowed, fields); err != nil {
		return accounting.Loss{}, err
	}
	rel, err := entryRelation(obj, "relation", accounting.RelationAddRemove)
	if err != nil {
		return accounting.Loss{}, err
	}
	var l accounting.Loss
	if name == "rdp" {
		l, err = buildRDP(obj, rel)
	} else {
		var v map[string]float64
		if v, err = numberFields(obj, fields); err == nil {
			l, err = m.build(v, rel)
		}
	}
	if err != nil {
		return accounting.Loss{}, err
	}
	return finishEntry(name, l, obj)
}

// finishEntry applies "change_to", then "name" (a laplace entry without
// one is named by its ε after the change).
func finishEntry(mech string, l accounting.Loss, obj map[string]json.RawMessage) (accounting.Loss, error) {
	if _, ok := obj["change_to"]; ok {
		to, err := entryRelation(obj, "change_to", 0)
		if err != nil {
			return l, err
		}
		if l, err = l.ChangeRelation(to); err != nil {
			return l, fmt.Errorf(`"change_to": %s`, strings.TrimPrefix(err.Error(), "accounting: "))
		}
	}
	if _, ok := obj["name"]; ok {
		s, err := stringField(obj, "name")
		if err != nil {
			return l, err
		}
		return l.WithName(s), nil
	}
	if mech == "laplace" {
		e, _, _ := l.ApproxDP()
		l = l.WithName(fmt.Sprintf("laplace ε=%g", e))
	}
	return l, nil
}

// jsonObject decodes one JSON object, refusing repeated keys.
func jsonObject(r json.RawMessage) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(r))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	obj := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not a JSON object: %v", err)
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("field %q: %v", key, err)
		}
		if _, dup := obj[key]; dup {
			return nil, fmt.Errorf("field %q is given twice", key)
		}
		obj[key] = v
	}
	return obj, nil
}

// checkKeys refuses unknown (misspelt) keys, with the nearest valid one,
// and missing required keys.
func checkKeys(obj map[string]json.RawMessage, allowed, required []string) error {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("unknown field %q%s (fields: %s)", k, suggest.Hint(k, allowed), strings.Join(allowed, ", "))
		}
	}
	for _, k := range required {
		if _, ok := obj[k]; !ok {
			return fmt.Errorf("missing field %q (required: %s)", k, strings.Join(required, ", "))
		}
	}
	return nil
}

// entryRelation reads a relation-valued field, def when absent.
func entryRelation(obj map[string]json.RawMessage, key string, def accounting.Relation) (accounting.Relation, error) {
	if _, ok := obj[key]; !ok {
		return def, nil
	}
	s, err := stringField(obj, key)
	if err != nil {
		return 0, fmt.Errorf("%v (one of %s)", err, strings.Join(accounting.RelationNames(), ", "))
	}
	r, err := accounting.ParseRelation(s)
	if err != nil {
		return 0, fmt.Errorf("%q: %s", key, strings.TrimPrefix(err.Error(), "accounting: "))
	}
	return r, nil
}

// isNull reports whether raw is the JSON literal null, which
// json.Unmarshal reads into a number, a string or an array element as
// nothing at all, silently leaving its zero value (a ledger entry with
// "q": null would add ε = 0).
func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// stringField decodes field key of obj as a JSON string, refusing null.
func stringField(obj map[string]json.RawMessage, key string) (string, error) {
	var s string
	if isNull(obj[key]) {
		return "", &valid.NullError{Path: key, Want: "a string"}
	}
	if err := json.Unmarshal(obj[key], &s); err != nil {
		return "", fmt.Errorf("field %q must be a string, got %s", key, obj[key])
	}
	return s, nil
}

// numberFields decodes the named fields as JSON numbers (null refused);
// "steps" must be a non-negative integer.
func numberFields(obj map[string]json.RawMessage, names []string) (map[string]float64, error) {
	v := make(map[string]float64, len(names))
	for _, n := range names {
		var f float64
		if isNull(obj[n]) {
			return nil, &valid.NullError{Path: n, Want: "a number"}
		}
		if err := json.Unmarshal(obj[n], &f); err != nil {
			return nil, fmt.Errorf("field %q must be a number, got %s", n, obj[n])
		}
		if n == "steps" && (f != math.Trunc(f) || f < 0 || f > 1<<53) {
			return nil, fmt.Errorf("field \"steps\" must be a non-negative integer, got %s", obj[n])
		}
		v[n] = f
	}
	return v, nil
}

// buildRDP reads "orders" and "values" (arrays of numbers, at most
// maxEntryOrders).
func buildRDP(obj map[string]json.RawMessage, rel accounting.Relation) (accounting.Loss, error) {
	orders, err := numberArray(obj, "orders")
	if err != nil {
		return accounting.Loss{}, err
	}
	values, err := numberArray(obj, "values")
	if err != nil {
		return accounting.Loss{}, err
	}
	if len(orders) > maxEntryOrders {
		return accounting.Loss{}, fmt.Errorf(`field "orders" has %d orders, at most %d`, len(orders), maxEntryOrders)
	}
	if len(orders) != len(values) {
		return accounting.Loss{}, fmt.Errorf(`fields "orders" and "values" have %d and %d elements`, len(orders), len(values))
	}
	return accounting.RDPLoss(orders, values, rel)
}

// numberArray decodes field key of obj as a JSON array of numbers, refusing
// null for the array and for any element (json.Unmarshal would read a null
// element as 0: an RDP curve of zeros).
func numberArray(obj map[string]json.RawMessage, key string) ([]float64, error) {
	if isNull(obj[key]) {
		return nil, &valid.NullError{Path: key, Want: "an array of numbers"}
	}
	var ptrs []*float64
	if err := json.Unmarshal(obj[key], &ptrs); err != nil {
		return nil, fmt.Errorf("field %q must be an array of numbers, got %s", key, obj[key])
	}
	out := make([]float64, len(ptrs))
	for i, p := range ptrs {
		if p == nil {
			return nil, &valid.NullError{Path: fmt.Sprintf("%s[%d]", key, i), Want: "a number"}
		}
		out[i] = *p
	}
	return out, nil
}

// epsilonLedger checks the flags of `epsilon --ledger` and runs it.
func epsilonLedger(c *accCmd, path string, delta float64, orders, conv string, asJSON, phases bool) int {
	set := c.set()
	if phases || set["sample-rate"] || set["noise-multiplier"] || set["steps"] {
		return c.fail(errors.New("give either --ledger or --phase/--sample-rate/--noise-multiplier/--steps, not both (list phases in the ledger as subsampled_gaussian entries)"))
	}
	if err := c.require("delta"); err != nil {
		return c.fail(err)
	}
	grid, err := parseGrid(orders)
	if err != nil {
		return c.fail(err)
	}
	cv, err := accounting.ParseConversion(conv)
	if err != nil {
		return c.fail(err)
	}
	return runLedger(c, path, delta, grid, cv, asJSON)
}

// runLedger is `epsilon --ledger FILE`: compose, print ε with the
// breakdown (or JSON).
func runLedger(c *accCmd, path string, delta float64, grid []float64, cv accounting.Conversion, asJSON bool) int {
	data, err := readLedgerFile(path)
	if err != nil {
		return c.fail(err)
	}
	losses, err := parseLedger(data)
	if err != nil {
		return c.fail(err)
	}
	L, err := accounting.NewLedger(losses[0].Relation(), grid)
	if err != nil {
		return c.fail(err)
	}
	for _, l := range losses {
		if err := L.Add(l); err != nil {
			return c.fail(fmt.Errorf("--ledger: %w", err))
		}
	}
	rep, err := L.Epsilon(delta, cv)
	if err != nil {
		return c.fail(fmt.Errorf("--ledger: %w", err))
	}
	if rep.Route == accounting.RouteRDP && rep.Order > 0 {
		if edge := gridEdgeHint(grid, rep.Order, rep.Epsilon, ""); edge != "" {
			rep.Notes = append(rep.Notes, edge)
		}
	}
	if asJSON {
		out, err := json.Marshal(ledgerJSON(rep))
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.stdout, "%s\n", out)
		return 0
	}
	printLedger(c.stdout, rep)
	return 0
}

// printLedger writes the text report.
func printLedger(w io.Writer, rep *accounting.LedgerReport) {
	at := ""
	if rep.Route == accounting.RouteRDP && rep.Order > 0 { // order 0: no curve entry, (ε, δ) entries only
		order := "order " + num(rep.Order)
		if math.IsNaN(orderOf(rep.Epsilon, rep.Order)) {
			order = "no order finite"
		}
		at = ", " + order + ", " + rep.Conversion.String() + " conversion"
	}
	entries := fmt.Sprintf("%d entries", len(rep.Entries))
	if len(rep.Entries) == 1 {
		entries = "1 entry"
	}
	fmt.Fprintf(w, "epsilon %s at delta %s (%s route%s; relation %v; %s)\n", num(rep.Epsilon), num(rep.Delta), rep.Route, at, rep.Relation, entries)
	for _, e := range rep.Entries {
		d := ""
		if e.Delta > 0 {
			d = " delta " + num(e.Delta)
		}
		fmt.Fprintf(w, "  entry %d: %s — %s %s%s\n", e.Index, e.Loss, e.Part, num(e.Value), d)
	}
	for _, r := range rep.Routes {
		if r.Valid {
			fmt.Fprintf(w, "route %s: epsilon %s at delta %s\n", r.Route, num(r.Epsilon), num(r.Delta))
		} else {
			fmt.Fprintf(w, "route %s: not applicable (%s)\n", r.Route, r.Reason)
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// jnum is a float64 marshalled as a JSON number, or null when not finite.
type jnum float64

// MarshalJSON writes the number, or null for NaN and ±Inf.
func (v jnum) MarshalJSON() ([]byte, error) { return []byte(jsonNumber(float64(v))), nil }

type ledgerEntryJSON struct {
	Index    int    `json:"index"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Relation string `json:"relation"`
	Part     string `json:"part"`
	Value    jnum   `json:"value"`
	Delta    jnum   `json:"delta"`
}

type ledgerRouteJSON struct {
	Route   string `json:"route"`
	Valid   bool   `json:"valid"`
	Epsilon *jnum  `json:"epsilon,omitempty"`
	Delta   *jnum  `json:"delta,omitempty"`
	Order   *jnum  `json:"order,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

type ledgerReportJSON struct {
	Epsilon    jnum              `json:"epsilon"`
	Delta      jnum              `json:"delta"`
	Route      string            `json:"route"`
	Order      *jnum             `json:"order"`
	Relation   string            `json:"relation"`
	Conversion string            `json:"conversion"`
	Entries    []ledgerEntryJSON `json:"entries"`
	Routes     []ledgerRouteJSON `json:"routes"`
	Notes      []string          `json:"notes"`
}

func jp(v float64) *jnum { j := jnum(v); return &j }

// ledgerJSON is the --json form of a report.
func ledgerJSON(rep *accounting.LedgerReport) ledgerReportJSON {
	out := ledgerReportJSON{Epsilon: jnum(rep.Epsilon), Delta: jnum(rep.Delta), Route: string(rep.Route),
		Relation: rep.Relation.String(), Conversion: rep.Conversion.String(), Notes: append([]string{}, rep.Notes...)}
	if rep.Route == accounting.RouteRDP {
		out.Order = jp(orderOf(rep.Epsilon, rep.Order))
	}
	for _, e := range rep.Entries {
		out.Entries = append(out.Entries, ledgerEntryJSON{Index: e.Index, Kind: e.Loss.Kind().String(), Name: e.Loss.String(),
			Relation: e.Loss.Relation().String(), Part: e.Part, Value: jnum(e.Value), Delta: jnum(e.Delta)})
	}
	for _, r := range rep.Routes {
		rj := ledgerRouteJSON{Route: string(r.Route), Valid: r.Valid, Reason: r.Reason}
		if r.Valid {
			rj.Epsilon, rj.Delta = jp(r.Epsilon), jp(r.Delta)
			if r.Route == accounting.RouteRDP {
				rj.Order = jp(orderOf(r.Epsilon, r.Order))
			}
		}
		out.Routes = append(out.Routes, rj)
	}
	return out
}
