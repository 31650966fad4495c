package experiments

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// BuildVersion identifies the running featuredp build in one line: the
// main module's version ("(devel)" for a build from a checkout), the VCS
// revision with "+dirty" when go build stamped one (a build inside a git
// checkout) and the Go toolchain, e.g.
// "(devel) rev 0123456789ab+dirty go1.26.8". Shard manifests record it, so
// that merging shards of different builds is refused (see Part). Two
// builds of the same dirty checkout with different edits, and builds
// without VCS stamping (go test, -buildvcs=false), share one string.
func BuildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown " + runtime.Version()
	}
	return formatBuild(bi.Main.Version, bi.Settings, runtime.Version())
}

// formatBuild renders BuildVersion from the module version, the build
// settings and the Go version.
func formatBuild(version string, settings []debug.BuildSetting, goVersion string) string {
	if version == "" {
		version = "(unknown)"
	}
	parts := []string{version}
	var rev, dirty string
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		parts = append(parts, "rev "+rev[:min(len(rev), 12)]+dirty)
	}
	return strings.Join(append(parts, goVersion), " ")
}
