// A real-time wait for a condition (I/O, child processes, timers of the code under test).
// The bound only turns a hang into a failure; nothing is asserted about how long it took.
import { setTimeout as sleep } from 'node:timers/promises'

export async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 30_000, stepMs = 20): Promise<void> {
  const end = performance.now() + ms
  while (!(await cond())) {
    if (performance.now() > end) throw new Error(`gave up waiting for ${what}`)
    await sleep(stepMs)
  }
}
