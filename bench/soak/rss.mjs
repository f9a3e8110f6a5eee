// Resident memory of a process, from /proc/<pid>/status (Linux), and the soak's verdict on it.
import { readFileSync } from "node:fs"

const MiB = 1024 * 1024

/** VmRSS of `pid` in bytes, or null when it cannot be read (process gone, not Linux). */
export const residentBytes = (pid) => {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return match === null ? null : Number(match[1]) * 1024
  } catch {
    return null
  }
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))]

/** Start, end, max, median and the p10–p90 band of one window's samples, in bytes. */
export const describeWindow = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    start: samples[0],
    end: samples[samples.length - 1],
    max: sorted[sorted.length - 1],
    median: quantile(sorted, 0.5),
    band: quantile(sorted, 0.9) - quantile(sorted, 0.1)
  }
}

/**
 * Whether resident memory levelled off across the windows (at least two). A garbage-collected
 * process's RSS saws up and down as V8 fills and empties its young generation and compacts the old
 * one, so a single sample says little. The noise is how far RSS swings within one window (the
 * widest p10–p90 band of any window), and never less than NOISE_FLOOR: the young generation alone
 * is up to 16 MiB per semi-space on 64-bit V8, and the allocator keeps freed pages a while. A leak
 * is a trend across windows: the median of the last window above the median of the first by more
 * than that noise. (A steady leak of r bytes/s raises the median by r·window per window, which
 * exceeds the band it adds within a window once there are three windows.) On this host the swing
 * is large, about 100 MiB (the heap grows to its working size and is given back in big steps), so
 * one minute only catches a fast leak; a slow one needs a longer soak: `--seconds 600 --windows 10`.
 */
export const NOISE_FLOOR = 16 * MiB

export const verdict = (windows) => {
  const described = windows.map(describeWindow)
  const noise = Math.max(NOISE_FLOOR, ...described.map((w) => w.band))
  const growth = described[described.length - 1].median - described[0].median
  return { described, noise, growth, levelled: growth <= noise }
}

export const mib = (bytes) => (bytes / MiB).toFixed(1)
