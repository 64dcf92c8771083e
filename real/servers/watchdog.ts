// The watchdog every server runs under, so no server outlives its driver, however it ends.
//
// Each server is spawned as `/bin/sh -c WATCHDOG_SCRIPT lockstep-watchdog <log> <cmd> <args…>`
// in its own session (detached: setsid, so its process group id = the wrapper's pid and a
// terminal's Ctrl-C never reaches it directly). The wrapper:
//   1. starts the server in the background, stdin from /dev/null, stdout+stderr appended to
//      <log> (a file, so a driver that stops draining pipes can never block a server);
//   2. prints the server's pid on its stdout (the driver reads that one line);
//   3. runs a watcher subshell reading the wrapper's stdin — a pipe whose only writer is the
//      driver. When the driver ends for any reason (including SIGKILL: the kernel closes its
//      fds), `read` sees EOF and the watcher SIGKILLs the server;
//   4. waits for the server and exits with its status (128+N for signal N), first killing
//      and reaping the watcher (so it can never signal a reused pid, and leaves no zombie).
// The driver's own paths (stop, kill, 'exit') additionally SIGKILL the whole process group.
export const WATCHDOG_SCRIPT = [
  "log=$1; shift",
  "exec 3<&0",
  '"$@" </dev/null 3<&- >>"$log" 2>&1 &',
  "pid=$!",
  'echo "$pid"',
  '{ while read -r _; do :; done; kill -9 "$pid" 2>/dev/null; } <&3 >/dev/null 2>&1 &',
  "w=$!",
  "exec 3<&-",
  'wait "$pid"',
  "rc=$?",
  'kill -9 "$w" 2>/dev/null',
  'wait "$w" 2>/dev/null',
  'exit "$rc"',
].join("\n");

export const WATCHDOG_ARGV0 = "lockstep-watchdog";
