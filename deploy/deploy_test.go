// Package deploy holds job templates for running featuredp's figures on a
// cluster; this test checks that shard.sh maps each scheduler's variables
// to the right --shard and that the templates call it.
package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestShardScript(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "featuredp")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  []string
		want string
		fail bool
	}{
		{"kubernetes", []string{"JOB_COMPLETION_INDEX=0", "SHARDS=8"}, "reproduce --shard 1/8 fdp", false},
		{"kubernetes last", []string{"JOB_COMPLETION_INDEX=7", "SHARDS=8"}, "reproduce --shard 8/8 fdp", false},
		{"kubernetes without SHARDS", []string{"JOB_COMPLETION_INDEX=3"}, "", true},
		{"slurm 1-based", []string{"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=8"}, "reproduce --shard 3/8 fdp", false},
		{"slurm 0-based", []string{"SLURM_ARRAY_TASK_ID=0", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_COUNT=4"}, "reproduce --shard 1/4 fdp", false},
		{"no scheduler", nil, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("sh", "shard.sh", "fdp")
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "FEATUREDP=" + fake}, tc.env...)
			out, err := cmd.Output()
			if (err != nil) != tc.fail {
				t.Fatalf("err %v, output %q", err, out)
			}
			if got := strings.TrimSpace(string(out)); !tc.fail && got != tc.want {
				t.Errorf("ran %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTemplatesUseShardScript(t *testing.T) {
	for file, wants := range map[string][]string{
		"kubernetes/reproduce-job.yaml": {"completionMode: Indexed", "shard.sh", "SHARDS", "JOB_COMPLETION_INDEX"},
		"kubernetes/merge-job.yaml":     {"featuredp merge"},
		"slurm/reproduce.sbatch":        {"#SBATCH --array=", "shard.sh"},
		"slurm/merge.sbatch":            {" merge --out"},
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wants {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s lacks %q", file, w)
			}
		}
	}
}
