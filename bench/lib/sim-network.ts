// A simulated network for benches on the virtual clock: each request reaches the sandbox
// a random 20-300 ms (virtual) after the client sent it, so what the service sees at an
// instant and what the client's timers expect differ the way they do off loopback. The
// answer comes back at once; the clock counts the request in flight until it has. A request
// cancelled during its delay ends at once, as a real one is torn down: the app's stop()
// waits for its requests to settle, and a delay only virtual time can end would never
// settle once nobody runs the clock.
import { Transport, type HttpTransport, type TransportRequest } from '../../src/main/api/transport'
import type { VirtualClock } from './virtual-clock'

export const NETWORK_DELAY_MS = { min: 20, max: 300 }

export function simulatedNetwork(clock: VirtualClock, random: () => number): HttpTransport {
  const net = clock.track(new Transport())
  return {
    request: async (req: TransportRequest) => {
      await clock.sleep(NETWORK_DELAY_MS.min + random() * (NETWORK_DELAY_MS.max - NETWORK_DELAY_MS.min), req.signal)
      return net.request(req)
    },
    close: () => net.close()
  }
}
