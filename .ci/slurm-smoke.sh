#!/usr/bin/env bash
# The smoke pipeline with every job submitted through sbatch, on a single-node SLURM started
# here (.ci/slurm.sh), then checked (README, "On a SLURM cluster"). Every rule is put in a
# group of its own (--groups), so that the cheap steps the README's route runs on the
# submitting host (localrule) are submitted too, and --default-resources names no memory or
# time: a job gets them only from its rule's declaration. Checked afterwards: no job but the
# `all` target ran outside SLURM; every job Snakemake submitted is in SLURM's job record,
# COMPLETED, with a time limit and less than the whole node's memory (its rule's runtime and
# mem_mb); runs.csv equals a local run's but
# for its measured wall_s and cpu_s.
# Where SLURM cannot start (no root or apt-get, no private network namespace, a daemon that
# does not come up) or its run fails, one line says why, and the same runs with Snakemake's
# generic cluster executor and workflow/cluster/local_submit.py (which refuses a job without
# mem_mb and runtime, and runs each in a session and bare environment of its own).
#   .ci/slurm-smoke.sh VENV OUT REFERENCE [SNAKEMAKE ARGS...]
# VENV: the environment whose snakemake runs (the executor plugins are pip-installed into
# it); OUT: the run's folder (--directory, made afresh); REFERENCE: the runs.csv of a local
# run with the same SNAKEMAKE ARGS. Status 0 when a run and its checks passed, on SLURM or
# the fallback; 0 too, saying so, when the plugins cannot be installed. COMPASS_SLURM=off
# goes to the fallback at once.
set -euo pipefail
cd "$(dirname "$0")/.."
SELF=$PWD/.ci/slurm-smoke.sh
VENV=$(realpath "$1") OUT=$(realpath -m "$2") REFERENCE=$(realpath -m "$3")
shift 3
STATE=/tmp/compass-slurm  # SLURM's state, logs and job record (jobs.txt)
PLUGINS=(snakemake-executor-plugin-slurm==2.8.0 snakemake-executor-plugin-cluster-generic==1.0.9)

# the run, then its checks; $1: slurm or local
run() {
  local mode=$1 log local_jobs submitted executor smk
  shift
  rm -rf "$OUT"
  if [ "$mode" = slurm ]; then
    # status checks 1 s after submission and every 2 s after (the plugin's defaults, 40 s
    # and 10 s, left a one-node cluster idle most of the run: the smoke plan is a chain)
    executor=(--executor slurm --slurm-status-command squeue --jobs 20
              --slurm-init-seconds-before-status-checks 1 --seconds-between-status-checks 2
              --default-resources slurm_partition=ci)
  else
    executor=(--executor cluster-generic --jobs "$(nproc)" --default-resources tmpdir=system_tmpdir
              --cluster-generic-submit-cmd "python3 $PWD/workflow/cluster/local_submit.py")
  fi
  smk=("$VENV/bin/snakemake" --directory "$OUT" --configfile config/smoke.yaml "$@"
       "${executor[@]}")
  # every rule but the target in a group of its own: a grouped job is never local
  "${smk[@]}" --list-rules | grep -vx all | sed 's/.*/&=&/' >"$OUT.groups"
  "${smk[@]}" --groups $(cat "$OUT.groups") >"$OUT.run.log" 2>&1 \
    || { tail -n 40 "$OUT.run.log"; return 1; }
  log=$(ls -t "$OUT"/.snakemake/log/*.snakemake.log | head -1)
  local_jobs=$(sed -n 's/^localrule \(.*\):$/\1/p' "$log" | grep -vx all | sort -u | xargs)
  [ -z "$local_jobs" ] || { echo "CI: ran outside the scheduler: $local_jobs"; return 1; }
  submitted=$(grep -cE "with external jobid|submitted with SLURM jobid" "$log")
  if [ "$mode" = slurm ]; then
    # SLURM's record of each finished job: state, time limit (minutes), memory (Tres mem=)
    awk -v total="$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')" -v n="$submitted" '
      { match($0, /mem=[0-9]+M/); mem = substr($0, RSTART + 4, RLENGTH - 5) }
      !/JobState=COMPLETED/ || /TimeLimit=UNLIMITED/ || mem + 0 >= total + 0 { bad++; print "CI: " $0 }
      END { if (NR != n || bad) { print "CI: " NR " SLURM jobs for " n " submitted, " bad+0 " without a declared limit or not COMPLETED"; exit 1 } }
    ' "$STATE/jobs.txt" || return 1
  else
    [ "$(ls "$OUT/.snakemake/local-submit" | wc -l)" = "$submitted" ] \
      || { echo "CI: local_submit.py started fewer jobs than Snakemake submitted"; return 1; }
  fi
  # every decision equal; wall_s and cpu_s are measured, so never equal between two runs
  "$VENV/bin/python" -c 'import sys, pandas as pd
a, b = (pd.read_csv(p).drop(columns=["wall_s", "cpu_s"]) for p in sys.argv[1:])
pd.testing.assert_frame_equal(a, b)' "$OUT/results/smoke/runs.csv" "$REFERENCE" \
    || { echo "CI: runs.csv differs from the local run's"; return 1; }
  echo "CI: $submitted jobs, every one through $([ "$mode" = slurm ] && echo sbatch || echo local_submit.py), each with its rule's limits; runs.csv equals the local run's"
}

fallback() {
  echo "CI: $1; the generic cluster executor with workflow/cluster/local_submit.py instead"
  shift
  run local "$@" && return 0
  echo "CI: the fallback run failed (log: $OUT/.snakemake/log/)"
  return 1
}

if [ "${SLURM_SMOKE_STAGE:-}" = inside ]; then  # the private network namespace
  ip link set lo up
  if ! why=$(.ci/slurm.sh up "$STATE" 2>&1); then
    .ci/slurm.sh down "$STATE"
    fallback "$why" "$@"
    exit
  fi
  trap '.ci/slurm.sh down "$STATE"' EXIT
  run slurm "$@" && exit 0
  fallback "SLURM is up but the run on it failed (log: $STATE, $OUT/.snakemake/log/)" "$@"
  exit
fi

"$VENV/bin/python" -m pip install -q --disable-pip-version-check "${PLUGINS[@]}" \
  >"$OUT.pip.log" 2>&1 \
  || { echo "CI: pip could not install ${PLUGINS[*]} (see $OUT.pip.log); no cluster run"; exit 0; }
rm -rf "$STATE"
if [ "${COMPASS_SLURM:-}" = off ]; then  # to try the fallback where SLURM would start
  fallback "SLURM not tried (COMPASS_SLURM=off)" "$@"
elif ! why=$(.ci/slurm.sh install 2>&1); then
  fallback "$why" "$@"
elif ! unshare --net true 2>/dev/null; then
  fallback "SLURM unavailable: no private network namespace (unshare --net) to keep its daemons to this host" "$@"
else
  SLURM_SMOKE_STAGE=inside exec unshare --net "$SELF" "$VENV" "$OUT" "$REFERENCE" "$@"
fi
