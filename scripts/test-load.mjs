// `npm run test:load`: the test suite on a loaded machine — two busy loops per core run
// beside `vitest run` for its whole length — since no test may depend on how much work fits
// in wall time. Prints the 1-minute load average (as `uptime` shows it) at the start, once a
// minute and at the end, then vitest's totals; vitest starts a minute after the loops.
// Extra arguments go to vitest (a file, -t). The loops are this script's children and end
// with it (also on Ctrl-C).
import { spawn } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";

const cores = availableParallelism();
const loopsPerCore = 2;
const samples = [];
const startMs = Date.now();

const stamp = () => `${((Date.now() - startMs) / 60_000).toFixed(1)} min`;
function sample(label) {
  const [one, five, fifteen] = loadavg();
  samples.push(one);
  console.log(`test:load: ${label} (${stamp()}): load average ${one.toFixed(2)}, ${five.toFixed(2)}, ${fifteen.toFixed(2)} on ${cores} cores`);
}

sample("before the busy loops");
const loops = Array.from({ length: loopsPerCore * cores }, () => spawn(process.execPath, ["-e", "for (;;);"], { stdio: "ignore" }));
const stopLoops = () => {
  for (const l of loops) if (l.exitCode === null && l.signalCode === null) l.kill("SIGKILL");
};
process.on("exit", stopLoops);
console.log(`test:load: ${loops.length} busy loops (${loopsPerCore} per core), pids ${loops.map((l) => l.pid).join(", ")}`);

const ticker = setInterval(() => sample("during"), 60_000);
const npx = process.platform === "win32" ? "npx.cmd" : "npx";
// The suite's hang bounds stretch with the 1-minute load read when it starts: let that
// average take the loops in first (a minute), as it would on a machine loaded all along.
let vitest;
const warmup = setTimeout(startVitest, 60_000);
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => {
    clearTimeout(warmup);
    clearInterval(ticker);
    if (vitest) vitest.kill(signal);
    else process.exit(130);
  });

function startVitest() {
  sample("vitest starts");
  vitest = spawn(npx, ["vitest", "run", ...process.argv.slice(2)], { stdio: "inherit", env: { ...process.env, LOCKSTEP_TEST_LOAD: String(loopsPerCore) } });
  vitest.on("exit", finish);
}

function finish(code, signal) {
  clearInterval(ticker);
  sample("at the end");
  stopLoops();
  const min = Math.min(...samples.slice(1));
  const max = Math.max(...samples.slice(1));
  const mean = samples.slice(1).reduce((a, b) => a + b, 0) / Math.max(1, samples.length - 1);
  console.log(
    `test:load: vitest ${signal ? `stopped by ${signal}` : `exited ${code}`} after ${stamp()}; 1-minute load while it ran: min ${min.toFixed(2)}, mean ${mean.toFixed(2)}, max ${max.toFixed(2)} (${samples.length - 1} samples) on ${cores} cores`,
  );
  process.exitCode = code ?? 1;
}
