// Open connections counted per source and in all, with a fair answer when the pool is full,
// so that a stranger holding connections cannot lock the team out. A source over its
// own cap is refused. When the pool is full, a newcomer from a source holding fewer
// connections than the largest holder takes the place of that holder's oldest connection,
// which is closed: spreading an attack over a few addresses fills the pool with the
// attacker's connections only until someone else arrives.
import type { Socket } from 'node:net'

export type Admission = { ok: true; evicted: Socket | null } | { ok: false; reason: 'source' | 'full' }

export class ConnectionPool {
  private readonly bySource = new Map<string, Set<Socket>>()
  private count = 0

  constructor(
    private readonly max: number,
    private readonly maxPerSource: number
  ) {}

  get size(): number {
    return this.count
  }

  of(source: string): number {
    return this.bySource.get(source)?.size ?? 0
  }

  counts(): Map<string, number> {
    return new Map([...this.bySource].map(([s, set]) => [s, set.size]))
  }

  /**
   * Counts the socket in, closing another source's oldest socket if that is what makes room.
   * `maxPerSource` overrides the pool's per-source cap for this source (a trusted reverse
   * proxy carries many clients).
   */
  admit(source: string, socket: Socket, maxPerSource = this.maxPerSource): Admission {
    const mine = this.of(source)
    if (mine >= maxPerSource) return { ok: false, reason: 'source' }
    let evicted: Socket | null = null
    if (this.count >= this.max) {
      let top: Set<Socket> | null = null
      for (const set of this.bySource.values()) if (!top || set.size > top.size) top = set
      if (!top || top.size <= mine + 1) return { ok: false, reason: 'full' }
      evicted = top.values().next().value ?? null
      if (evicted) {
        this.remove(evicted)
        evicted.destroy()
      }
    }
    let set = this.bySource.get(source)
    if (!set) this.bySource.set(source, (set = new Set()))
    set.add(socket)
    this.count++
    socket.once('close', () => this.remove(socket))
    return { ok: true, evicted }
  }

  private remove(socket: Socket): void {
    for (const [source, set] of this.bySource) {
      if (!set.delete(socket)) continue
      this.count--
      if (set.size === 0) this.bySource.delete(source)
      return
    }
  }
}
