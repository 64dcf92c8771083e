/**
 * What a minor page fault costs on this machine: a fresh 64 MB buffer (memory the
 * process has never touched, so the kernel maps a page on each first write) written one
 * byte a page, the time over the faults taken. On bare hardware a fault is a fraction of
 * a microsecond; under some hypervisors it is tens of times that, and then a run's fresh
 * heap pages (V8 maps new old-space pages as a run's state is promoted, and unmaps them
 * after a full GC) are a visible share of its wall time. Benches print it beside their
 * figures so a reader can tell the machine's part from the code's.
 */
const BUFFER_BYTES = 64 * 1024 * 1024;
const PAGE_BYTES = 4096;
const TRIES = 3;

export interface PageFaultCost {
  /** Median over TRIES of µs per minor fault. */
  usPerFault: number;
  /** Faults in one try (about BUFFER_BYTES / PAGE_BYTES unless the kernel used huge pages). */
  faultsPerTry: number;
}

export function minorFaults(): number {
  return process.resourceUsage().minorPageFault;
}

export function pageFaultCost(): PageFaultCost {
  const us: number[] = [];
  let faultsPerTry = 0;
  for (let t = 0; t < TRIES; t++) {
    const f0 = minorFaults();
    const t0 = performance.now();
    const b = new Uint8Array(BUFFER_BYTES);
    for (let i = 0; i < BUFFER_BYTES; i += PAGE_BYTES) b[i] = 1;
    const ms = performance.now() - t0;
    faultsPerTry = minorFaults() - f0;
    if (faultsPerTry > 0) us.push((ms * 1000) / faultsPerTry);
  }
  us.sort((a, b) => a - b);
  return { usPerFault: us.length > 0 ? us[us.length >> 1]! : 0, faultsPerTry };
}
