# apt_get ARGS…: apt-get as root (or `sudo -n`, from $as_root), waiting while another apt or
# dpkg process holds the lock instead of failing: up to APT_WAIT_TRIES × APT_WAIT_S seconds
# (default 90 × 10 s), on top of apt's own DPkg::Lock::Timeout. Sourced by tools/test.sh.
apt_get() {
  local tries=0 out
  until out=$(${as_root[@]+"${as_root[@]}"} env DEBIAN_FRONTEND=noninteractive \
                apt-get -o DPkg::Lock::Timeout=300 "$@" 2>&1); do
    if grep -qiE "could not get lock|unable to acquire|unable to lock|another process" \
         <<<"$out" && ((tries++ < ${APT_WAIT_TRIES:-90})); then
      echo "tools/test.sh: apt is busy (another process holds its lock); waiting" >&2
      sleep "${APT_WAIT_S:-10}"
    else
      printf '%s\n' "$out" >&2
      return 1
    fi
  done
}
