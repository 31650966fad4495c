package accounting

import (
	"fmt"
	"strings"
)

// Relation is a neighbouring relation: the pairs of datasets (or of a
// dataset and a simulator's view) between which a privacy loss bounds the
// distinguishability of a mechanism's output. Every Loss carries one; a
// Ledger composes losses of one relation only and changes relations only
// through ChangeRelation (docs/accounting.md, "Relations, losses and the
// ledger"). The zero value is RelationAddRemove.
type Relation int

const (
	// RelationAddRemove: S′ is S with one record added or removed (Opacus,
	// TF Privacy, dp_accounting; every mechanism of this package).
	RelationAddRemove Relation = iota
	// RelationReplaceOne: S and S′ have the same size and differ in one
	// record (bounded DP; smooth RDP's relation).
	RelationReplaceOne
	// RelationFeatureSimulator: feature DP's add/remove relation FDP_i^Ψ
	// (Mahloujifar, Guo, Suh & Chaudhuri 2025, Def. 6): M(S) against a
	// simulator that sees S without the record x and only its public part
	// Ψ(x).
	RelationFeatureSimulator
	// RelationFeature: feature DP's replacement relation FDP_r^Ψ (the same
	// paper, Def. 5): one record x becomes x′ with Ψ(x) = Ψ(x′), i.e. only
	// the protected features of one record change given its public ones.
	RelationFeature
	// RelationCoordinate: one coordinate (feature) of one record changes,
	// every other coordinate and record fixed — BCDP's coordinate-level
	// relation (docs/bcdp.md) and CorrDP's one-insensitive-feature change
	// (docs/corrdp.md).
	RelationCoordinate
	// RelationLabel: only the label of one record changes (label DP).
	RelationLabel
)

// relationNames are the names ParseRelation accepts and String prints,
// indexed by Relation.
var relationNames = [...]string{
	RelationAddRemove:        "add-remove",
	RelationReplaceOne:       "replace-one",
	RelationFeatureSimulator: "feature-simulator",
	RelationFeature:          "feature",
	RelationCoordinate:       "coordinate",
	RelationLabel:            "label",
}

// RelationNames returns the names of every relation, in order, as
// ParseRelation accepts them.
func RelationNames() []string { return append([]string(nil), relationNames[:]...) }

// String returns the relation's name ("add-remove", "replace-one",
// "feature-simulator", "feature", "coordinate" or "label").
func (r Relation) String() string {
	if r.valid() {
		return relationNames[r]
	}
	return fmt.Sprintf("Relation(%d)", int(r))
}

func (r Relation) valid() bool { return r >= 0 && int(r) < len(relationNames) }

// ParseRelation maps a relation name (case-insensitive; "_" and "/" may
// replace "-", so "add/remove" and "replace_one" are accepted) to a
// Relation.
func ParseRelation(s string) (Relation, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	n = strings.NewReplacer("_", "-", "/", "-", " ", "-").Replace(n)
	for r, name := range relationNames {
		if n == name {
			return Relation(r), nil
		}
	}
	return 0, fmt.Errorf("accounting: unknown relation %q (want one of %s)", s, strings.Join(relationNames[:], ", "))
}

// changeStep is one elementary relation change.
type changeStep int

const (
	// stepSame: the loss holds unchanged. Either the target relation's
	// pairs are a subset of the source's (replace-one ⊇ feature,
	// coordinate, label), or a mechanism that is DP for the source is DP
	// for the target with the same parameters (Mahloujifar et al. 2025,
	// Prop. 2: DP implies FDP; for add/remove the simulator runs M on S
	// without x and ignores Ψ(x)).
	stepSame changeStep = iota
	// stepChain2: the target's pairs are joined by a chain of two pairs
	// of the source (a replacement is a removal then an addition; an
	// FDP_r^Ψ pair goes through the simulator, Mahloujifar et al. 2025,
	// Prop. 1), so the loss becomes the group-privacy loss of two steps.
	stepChain2
)

// relationEdges lists the elementary changes: from → to with the step and
// its source.
var relationEdges = []struct {
	from, to Relation
	step     changeStep
	source   string
}{
	{RelationAddRemove, RelationReplaceOne, stepChain2, "a replacement is a removal and an addition: group privacy of 2 steps"},
	{RelationFeatureSimulator, RelationFeature, stepChain2, "feature DP Prop. 1 (Mahloujifar et al. 2025): the replacement goes through the simulator"},
	{RelationAddRemove, RelationFeatureSimulator, stepSame, "DP implies feature DP (Mahloujifar et al. 2025, Prop. 2: the simulator runs M without the record)"},
	{RelationReplaceOne, RelationFeature, stepSame, "DP implies feature DP (Mahloujifar et al. 2025, Prop. 2): a feature change is a replacement"},
	{RelationReplaceOne, RelationCoordinate, stepSame, "a one-coordinate change is a replacement"},
	{RelationReplaceOne, RelationLabel, stepSame, "a label change is a replacement"},
}

// relationPath returns the elementary changes leading from one relation to
// another (breadth-first over relationEdges, so the shortest path), or an
// error naming the changes that exist.
func relationPath(from, to Relation) ([]int, error) {
	if !from.valid() || !to.valid() {
		return nil, fmt.Errorf("accounting: unknown relation change %v → %v", from, to)
	}
	prev := map[Relation]int{from: -1}
	queue := []Relation{from}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		if r == to {
			var path []int
			for r != from {
				e := prev[r]
				path = append([]int{e}, path...)
				r = relationEdges[e].from
			}
			return path, nil
		}
		for i, e := range relationEdges {
			if _, seen := prev[e.to]; e.from == r && !seen {
				prev[e.to] = i
				queue = append(queue, e.to)
			}
		}
	}
	return nil, fmt.Errorf("accounting: no valid change from relation %v to %v (valid changes: %s; see docs/accounting.md)", from, to, edgeList())
}

func edgeList() string {
	var s []string
	for _, e := range relationEdges {
		s = append(s, e.from.String()+" → "+e.to.String())
	}
	return strings.Join(s, ", ")
}
