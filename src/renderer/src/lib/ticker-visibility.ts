// Tells main while a window shows tickers (tickers:visibility), so the price ticker is
// only polled while someone can see it: on mount, when the window is hidden or shown,
// and on unmount.
import { call } from './bridge'
import type { TickerView } from '../../../shared/ipc/contract'

/**
 * `onShown` runs once main knows the window shows tickers: main schedules the next poll
 * then, and a view asking again learns when it is.
 */
export function trackTickerVisibility(view: TickerView, onShown?: () => void): () => void {
  const send = (visible: boolean) =>
    void call('tickers:visibility', { view, visible })
      .then(() => (visible ? onShown?.() : undefined))
      .catch(() => undefined)
  const onChange = () => send(document.visibilityState === 'visible')
  onChange()
  document.addEventListener('visibilitychange', onChange)
  return () => {
    document.removeEventListener('visibilitychange', onChange)
    send(false)
  }
}
