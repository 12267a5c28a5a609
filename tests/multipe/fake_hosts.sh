#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Fake hosts on one machine for multi-node tests (docs/remote.md): HOSTS network namespaces joined by
# veth pairs to a bridge in a switch namespace, addresses in 198.19.0.0/24 (RFC 2544's benchmarking
# range, visible only inside these namespaces). Each host's PEs run in its network namespace with their
# own host name, IPC namespace and /dev/shm, as on a real host, so UCX between hosts takes TCP. nvshmrun
# runs in the switch namespace and starts each host's PEs through "$0 --enter HOST". Everything is
# deleted on exit.
#   fake_hosts.sh HOSTS PPN NVSHMRUN [nvshmrun options] PROGRAM [args...]
#   fake_hosts.sh --enter HOST COMMAND [args...]     (nvshmrun's --launcher-exec)
# Exit status: nvshmrun's, or 77 (CTest's skip code) when namespaces cannot be made here (not root, no
# NET_ADMIN, no ip or unshare).
set -euo pipefail

if [ "${1:-}" = --enter ]; then
  host=$2
  shift 2
  # Inside a host its interface is fh0 (a PE's own nvshmemx_get_uniqueid server listens there).
  export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=fh0
  exec ip netns exec "$host" unshare --uts --ipc --mount --propagation private \
    sh -c 'hostname "$1" && mount -t tmpfs -o mode=1777 tmpfs /dev/shm && shift && exec "$@"' sh "$host" "$@"
fi

hosts=$1 ppn=$2 nvshmrun=$3
shift 3
prefix="nvfh$$"
sw="${prefix}sw"
names=()
cleanup() {
  for n in "${names[@]}" "$sw"; do ip netns del "$n" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 143' INT TERM
# Namespaces left by a run that was killed (SIGKILL skips the trap): their script's pid is gone.
for stale in $(ip netns list 2>/dev/null | awk '/^nvfh[0-9]+(sw|h[0-9]+)/ {print $1}'); do
  pid=${stale#nvfh}
  pid=${pid%%[sh]*}
  kill -0 "$pid" 2>/dev/null || ip netns del "$stale" 2>/dev/null || true
done
if ! command -v ip >/dev/null || ! command -v unshare >/dev/null || ! ip netns add "$sw" 2>/dev/null; then
  echo "fake_hosts: cannot create network namespaces here (needs root with NET_ADMIN, ip and unshare): skipped"
  exit 77
fi
ip -n "$sw" link set lo up
ip -n "$sw" link add br0 type bridge
ip -n "$sw" addr add 198.19.0.254/24 dev br0
ip -n "$sw" link set br0 up
for ((h = 0; h < hosts; ++h)); do
  name="${prefix}h$h"
  names+=("$name")
  ip netns add "$name"
  ip link add "${prefix}a$h" type veth peer name "${prefix}b$h"
  ip link set "${prefix}a$h" netns "$name"
  ip link set "${prefix}b$h" netns "$sw"
  ip -n "$name" link set "${prefix}a$h" name fh0
  ip -n "$name" addr add "198.19.0.$((h + 1))/24" dev fh0
  ip -n "$name" link set lo up
  ip -n "$name" link set fh0 up
  ip -n "$sw" link set "${prefix}b$h" master br0
  ip -n "$sw" link set "${prefix}b$h" up
done
list=$(
  IFS=,
  echo "${names[*]}"
)
# The PEs' network device is fh0 on every host; the rendezvous server listens on the bridge.
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=br0 UCX_NET_DEVICES=fh0 PE_TEST_PES_PER_HOST="$ppn"
set +e
ip netns exec "$sw" "$nvshmrun" -hosts "$list" -ppn "$ppn" --launcher-exec "$(readlink -f "$0") --enter" "$@"
status=$?
set -e
exit $status
