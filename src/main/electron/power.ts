// What the OS tells about waking up: resume from sleep and screen unlock (powerMonitor),
// and the network coming back (net.isOnline, checked every few seconds, since no window
// may be open to hear the renderer's online event). Each calls wake(); main refetches.
import { net, powerMonitor } from 'electron'

export function onWake(wake: (reason: string) => void, o: { networkCheckMs?: number } = {}): () => void {
  const resume = () => wake('resume')
  const unlock = () => wake('unlock-screen')
  powerMonitor.on('resume', resume)
  powerMonitor.on('unlock-screen', unlock)
  let online = net.isOnline()
  const timer = setInterval(() => {
    const now = net.isOnline()
    if (now && !online) wake('online')
    online = now
  }, o.networkCheckMs ?? 5_000)
  timer.unref()
  return () => {
    clearInterval(timer)
    powerMonitor.removeListener('resume', resume)
    powerMonitor.removeListener('unlock-screen', unlock)
  }
}
