#!/usr/bin/env bash
# slurm-local.sh start|stop|env STATE_DIR: a one-node Slurm on 127.0.0.1 for tests,
# from Debian's packages (slurmctld, slurmd, slurm-client, munge), without systemd
# and without cgroups (proctrack/linuxproc, task/none): everything it writes is
# under STATE_DIR; /etc is not touched.
#
#   scripts/slurm-local.sh start /tmp/slurm    # writes STATE_DIR/slurm.conf, starts
#                                              # munged, slurmctld, slurmd; prints env
#   eval "$(scripts/slurm-local.sh env /tmp/slurm)"; sbatch ...
#   scripts/slurm-local.sh stop /tmp/slurm     # stops exactly the PIDs start recorded
#
# SLURM_LOCAL_PORT (default 6817) is slurmctld's port, slurmd listens on the next
# one: give another when two such clusters run on one machine. Must run as root
# (slurmd starts jobs as their users).
set -euo pipefail
cmd=${1:?usage: slurm-local.sh start|stop|env STATE_DIR}
state=${2:?usage: slurm-local.sh start|stop|env STATE_DIR}
mkdir -p "$state"
state=$(cd "$state" && pwd)
conf=$state/slurm.conf
pids=$state/pids
sock=$state/munge/munge.socket

envlines() { echo "export SLURM_CONF=$conf"; }

stop() {
  [[ -f $pids ]] || { echo "slurm-local: no $pids: nothing started" >&2; return 0; }
  # Reverse order of start: slurmd, slurmctld, munged.
  local list; list=$(tac "$pids")
  while read -r name pid; do
    [[ -n $pid ]] || continue
    # Only the process start recorded: the PID must still run that program.
    if [[ -r /proc/$pid/comm && $(cat "/proc/$pid/comm") == "$name"* ]]; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      if kill -0 "$pid" 2>/dev/null; then
        echo "slurm-local: $name ($pid) still running after 10 s: SIGKILL" >&2
        kill -KILL "$pid" 2>/dev/null || true
      fi
      echo "slurm-local: stopped $name ($pid)" >&2
    fi
  done <<<"$list"
  rm -f "$pids"
}

start() {
  for b in munged slurmctld slurmd sbatch sinfo; do
    command -v "$b" >/dev/null || { echo "slurm-local: $b not found: apt-get install slurmctld slurmd slurm-client munge" >&2; exit 2; }
  done
  if [[ -f $pids ]]; then
    echo "slurm-local: $pids exists: stop the cluster first (slurm-local.sh stop $state)" >&2; exit 2
  fi
  local port=${SLURM_LOCAL_PORT:-6817}
  mkdir -p "$state/munge" "$state/ctld" "$state/d" "$state/log"
  chmod 700 "$state/munge"
  # A key of our own: the package's /etc/munge/munge.key belongs to the munge
  # user, and munged refuses a key its user does not own.
  if [[ ! -s $state/munge/munge.key ]]; then
    head -c 1024 /dev/urandom >"$state/munge/munge.key"
    chmod 400 "$state/munge/munge.key"
  fi
  cat >"$conf" <<EOF
# Written by scripts/slurm-local.sh for a one-node test cluster.
ClusterName=tracereplay
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/d
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=trnode NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=trnode Default=YES MaxTime=INFINITE State=UP
EOF
  : >"$pids"
  # Each daemon in the foreground (-F/-D) in its own session, so that $! is its
  # PID, with its output in a log file.
  setsid munged -F --force --socket="$sock" --key-file="$state/munge/munge.key" \
    --pid-file="$state/munge/munged.pid" --log-file="$state/log/munged.log" \
    --seed-file="$state/munge/munge.seed" </dev/null >>"$state/log/munged.out" 2>&1 &
  echo "munged $!" >>"$pids"
  for _ in $(seq 50); do [[ -S $sock ]] && break; sleep 0.1; done
  [[ -S $sock ]] || { echo "slurm-local: munged did not start:" >&2; tail "$state/log/munged"* >&2; stop; exit 1; }
  SLURM_CONF=$conf setsid slurmctld -D -i -f "$conf" </dev/null >>"$state/log/slurmctld.out" 2>&1 &
  echo "slurmctld $!" >>"$pids"
  SLURM_CONF=$conf setsid slurmd -D -N trnode -f "$conf" </dev/null >>"$state/log/slurmd.out" 2>&1 &
  echo "slurmd $!" >>"$pids"
  # Ready when the node takes jobs.
  local st=""
  for _ in $(seq 300); do
    st=$(SLURM_CONF=$conf sinfo -h -n trnode -o %t 2>/dev/null || true)
    [[ $st == idle* || $st == mix* || $st == alloc* ]] && break
    sleep 0.1
  done
  if [[ $st != idle* && $st != mix* && $st != alloc* ]]; then
    echo "slurm-local: the node is not up after 30 s (state '$st'):" >&2
    tail -n 20 "$state"/log/* >&2 || true
    stop; exit 1
  fi
  echo "slurm-local: up: $(SLURM_CONF=$conf sinfo -h -o '%n %t %c CPUs') (pids: $(tr '\n' ' ' <"$pids"))" >&2
  envlines
}

case $cmd in
  start) start ;;
  stop) stop ;;
  env) envlines ;;
  *) echo "usage: slurm-local.sh start|stop|env STATE_DIR" >&2; exit 2 ;;
esac
