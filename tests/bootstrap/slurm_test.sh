#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Programs started by Slurm's srun: a private single-node Slurm (slurmctld + slurmd, auth/none, its
# own ports and state under a temporary folder), then boot_env as 2 and 4 PEs with --mpi=pmix (PMIx
# bootstrap) and --mpi=pmi2 (NVSHMEM_BOOTSTRAP_PMI=PMI-2), each with two init/finalize cycles.
# Usage: slurm_test.sh BOOT_ENV. Exits 77 (CTest: skipped) without Slurm's daemons or without root.
set -u
boot_env=$1
for tool in slurmctld slurmd srun sinfo; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool not installed (Debian: slurmctld slurmd slurm-client)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "skipped: a private slurmd needs root"; exit 77; }

dir=$(mktemp -d)
node=$(hostname -s)
port=$((20000 + $$ % 20000))
mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<CONF
ClusterName=nvshmtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/linear
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
cleanup() {
  for pid in "$dir/slurmd.pid" "$dir/slurmctld.pid"; do [ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null; done
  sleep 1
  rm -rf "$dir"
}
trap cleanup EXIT
slurmctld -c -i || { cat "$dir/slurmctld.log"; exit 1; }
slurmd -N "$node" || { cat "$dir/slurmd.log"; exit 1; }
for _ in $(seq 30); do
  sinfo -h -o %T 2>/dev/null | grep -q idle && break
  sleep 1
done
sinfo -h -o %T | grep -q idle || { echo "the private Slurm did not come up"; tail -20 "$dir"/*.log; exit 1; }

export NVSHMEM_SYMMETRIC_SIZE=64m NVSHMEM_BOOTSTRAP_TIMEOUT=30 NVSHMEM_HEAP_KIND=SYSMEM
status=0
for npes in 2 4; do
  for mpi in pmix pmi2; do
    pmi=PMIX
    [ $mpi = pmi2 ] && pmi=PMI-2
    out=$(NVSHMEM_BOOTSTRAP_PMI=$pmi timeout 120 srun -O -n $npes --mpi=$mpi "$boot_env" $npes 2 2>&1)
    ok=$(grep -c "of $npes ok" <<<"$out")
    if [ "$ok" = $((2 * npes)) ]; then
      echo "srun -n $npes --mpi=$mpi: $npes PEs, 2 init/finalize cycles: ok"
    else
      echo "srun -n $npes --mpi=$mpi: FAILED"
      echo "$out"
      status=1
    fi
  done
done
exit $status
