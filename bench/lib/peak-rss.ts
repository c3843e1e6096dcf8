// A worker's own peak resident memory, sampled. Not getrusage's maxRSS: Linux keeps that
// across execve, so a worker spawned (fork, then exec) by a bench process larger than it
// reported the bench process's size at the spawn as its own peak (a 40 MB `node -e` child
// of a 440 MB parent said 404 MB). Sampled every 20 ms, a peak shorter than that is missed.
const MB = 1024 * 1024

export function peakRssSampler(everyMs = 20): () => number {
  let peak = process.memoryUsage.rss()
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, everyMs)
  timer.unref()
  return () => {
    peak = Math.max(peak, process.memoryUsage.rss())
    return Math.round((peak / MB) * 10) / 10
  }
}
