#!/bin/sh
# shard.sh [reproduce args...] — runs this task's slice of `featuredp reproduce`
# on a cluster. It reads the task's index and the number of tasks from the
# scheduler and passes --shard K/N:
#   Kubernetes Indexed Job: JOB_COMPLETION_INDEX (0-based) and SHARDS (set it
#                           to the Job's completions, see kubernetes/)
#   Slurm job array:        SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and
#                           SLURM_ARRAY_TASK_COUNT
# FEATUREDP names the binary (default: featuredp on PATH). Every shard
# writes FIGURE-ID.shard-K-of-N.{csv,json} into its --out directory; then
# run `featuredp merge --out results DIR...` once (see README.md here).
set -eu
bin=${FEATUREDP:-featuredp}
if [ -n "${JOB_COMPLETION_INDEX:-}" ]; then
  : "${SHARDS:?set SHARDS to the number of completions of the Indexed Job}"
  k=$((JOB_COMPLETION_INDEX + 1)); n=$SHARDS
elif [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
  k=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0} + 1)); n=${SLURM_ARRAY_TASK_COUNT:?}
else
  echo "shard.sh: neither JOB_COMPLETION_INDEX (Kubernetes) nor SLURM_ARRAY_TASK_ID (Slurm) is set" >&2
  exit 2
fi
exec "$bin" reproduce --shard "$k/$n" "$@"
