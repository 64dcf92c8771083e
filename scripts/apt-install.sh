# Sourced by scripts/ensure-*.sh. apt_install NAME PKG... installs Debian packages as root
# or through sudo: apt-get update first only when the package lists are missing or the
# install fails without them (a fresh machine, stale lists); any failure exits 1 naming
# NAME and the step that failed.
apt_install() {
  local name=$1
  shift
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "$name: not root and no sudo; install them yourself (apt-get install -y --no-install-recommends $*)" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  if compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null && $sudo apt-get install -y --no-install-recommends "$@"; then
    return 0
  fi
  $sudo apt-get update || { echo "$name: apt-get update failed" >&2; exit 1; }
  $sudo apt-get install -y --no-install-recommends "$@" || { echo "$name: apt-get install $* failed" >&2; exit 1; }
}
