// tickers:* — prices for the chosen fiat (switching fiat is remembered in settings), and
// which windows show them: the ticker polls only while one does.
import type { HandlerContext, HandlerSlice } from './context'

export function tickerHandlers(c: Pick<HandlerContext, 'ready' | 'settings' | 'tickerViews'>): HandlerSlice<'tickers'> {
  return {
    'tickers:get': async ({ fiatType }) => {
      const s = await c.ready()
      if (fiatType !== s.tickers.fiatType) {
        c.settings.update({ tickerFiat: fiatType })
        s.tickers.configure({ fiatType })
        await s.tickers.refresh()
      } else if (s.tickers.current().rows.length === 0) await s.tickers.refresh()
      return s.tickers.current()
    },
    'tickers:visibility': async ({ view, visible }) => {
      if (visible) c.tickerViews.add(view)
      else c.tickerViews.delete(view)
      ;(await c.ready()).tickers.setVisible(view, visible)
      return { ok: true }
    }
  }
}
