#!/usr/bin/env bash
# A real single-node SLURM cluster on this machine, for CI's pipeline-through-sbatch step
# (.ci/slurm-smoke.sh; README, "On a SLURM cluster"). Needs root, apt-get and Debian's
# packages; run it inside a private network namespace (unshare --net: only loopback), so
# that the daemons, which listen on every interface, are reachable from this host only.
#   .ci/slurm.sh install  apt-get update, then install slurmctld, slurmd, slurm-client and
#                         munge (what Debian's slurm-wlm holds, without the plugin extras)
#   .ci/slurm.sh up DIR   write /etc/slurm/slurm.conf (this host as the only node with its
#                         real CPUs and memory from `slurmd -C`, no accounting; where every
#                         SLURM command and job step looks), start munged, slurmctld and
#                         slurmd (state and logs under DIR), wait until sinfo shows the
#                         node idle
#   .ci/slurm.sh down DIR stop the three daemons, remove that slurm.conf
# A failure prints one line, "SLURM unavailable: <why>", on stderr and exits 1.
set -uo pipefail

CONF=/etc/slurm/slurm.conf
HEADER="# single-node CI cluster (.ci/slurm.sh): this host only, no accounting"

fail() { echo "SLURM unavailable: $*" >&2; exit 1; }

install() {
  [ "$(id -u)" = 0 ] || fail "not root, cannot install slurm-wlm"
  command -v apt-get >/dev/null || fail "no apt-get"
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends slurmctld slurmd slurm-client munge; } >/tmp/slurm-apt.log 2>&1 \
    || fail "apt-get could not install slurm-wlm and munge (see /tmp/slurm-apt.log)"
}

up() {
  local dir=$1 host node
  ! [ -s "$CONF" ] || head -1 "$CONF" | grep -qxF "$HEADER" \
    || fail "$CONF exists and is not this script's: a configured SLURM is left alone"
  mkdir -p "$dir/spool" "$dir/state" "$dir/munge" || fail "cannot write $dir"
  host=$(hostname -s)
  # this host's real sockets, cores, threads and memory, as slurmd detects them
  node=$(slurmd -C | head -1) || fail "slurmd -C could not detect this host"
  [ "$(ip -o link show up | cut -d' ' -f2)" = "lo:" ] \
    || fail "not in a private network namespace (run it under unshare --net)"
  # glibc resolves no address for a daemon's listening socket where loopback's 127.0.0.1
  # is the only IPv4 address (AI_ADDRCONFIG): give loopback a second one
  ip addr add 127.0.0.2/32 dev lo 2>/dev/null
  cat >"$CONF" <<EOF
$HEADER
ClusterName=compass-ci
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CryptoType=crypto/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# containers have no cgroup delegation: track job processes by their process tree
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
# every finished job, one line each: what the caller checks against the pipeline's jobs
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobs.txt
# finished jobs stay visible to squeue for an hour (the status checks use squeue)
MinJobAge=3600
ReturnToService=2
MpiDefault=none
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  munged --force --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" \
    || fail "munged did not start (see $dir/munge/munged.log)"
  slurmctld || fail "slurmctld did not start (see $dir/slurmctld.log)"
  slurmd || fail "slurmd did not start (see $dir/slurmd.log)"
  for _ in $(seq 60); do
    [ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ] && return 0
    sleep 1
  done
  fail "the node is not idle after 60 s: $(sinfo -h -N -o '%t %E' 2>&1 | head -1)"
}

down() {
  local dir=$1 pidfile pid
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done  # state saved
  done
  if head -1 "$CONF" 2>/dev/null | grep -qxF "$HEADER"; then rm -f "$CONF"; fi
  return 0
}

case "${1:-}" in
  install) install ;;
  up) up "$2" ;;
  down) down "$2" ;;
  *) echo "usage: .ci/slurm.sh install | up DIR | down DIR" >&2; exit 2 ;;
esac
